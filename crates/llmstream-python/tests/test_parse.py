"""`parse` equals `json.loads` on generated documents and JSONTestSuite's
y_ files; n_ files are errors that say where."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import llmstream
from conftest import FIXTURES
from documents import values

LONE_SURROGATE = re.compile(r"\\ud[89a-f]", re.IGNORECASE)
SUITE = FIXTURES / "json" / "JSONTestSuite" / "test_parsing"


def suite(prefix: str) -> list[Path]:
    return sorted(SUITE.glob(f"{prefix}*.json")) if SUITE.is_dir() else []


def same(a: object, b: object) -> bool:
    """Equal, and of the same types (an int is not a float)."""
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(same, a, b))
    return type(a) is type(b) and a == b


@settings(max_examples=300, deadline=None)
@given(values, st.booleans())
def test_parse_equals_json_loads(value: object, pretty: bool) -> None:
    text = json.dumps(value, indent=2 if pretty else None, ensure_ascii=pretty)
    expected = json.loads(text)
    assert same(llmstream.parse(text), expected)
    assert same(llmstream.parse(text.encode()), expected)
    assert same(llmstream.parse(text, partial=True), expected)


def test_big_numbers_keep_their_value() -> None:
    big = "123456789012345678901234567890123"
    assert llmstream.parse(f"[{big}, -{big}, 1.5e3, -0]") == [int(big), -int(big), 1500.0, 0]


def loads_or_none(data: bytes) -> object:
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None


@pytest.mark.skipif(not suite("y_"), reason="no JSONTestSuite")
@pytest.mark.parametrize("path", suite("y_"), ids=lambda p: p.name)
def test_y_files_accept(path: Path) -> None:
    data = path.read_bytes()
    value = llmstream.parse(data)
    expected = loads_or_none(data)
    text = json.dumps(expected)
    if LONE_SURROGATE.search(text):
        return  # Python keeps a lone surrogate; a Rust string cannot hold one
    assert same(value, expected) or json.dumps(value) == text


@pytest.mark.skipif(not suite("n_"), reason="no JSONTestSuite")
@pytest.mark.parametrize("path", suite("n_"), ids=lambda p: p.name)
def test_n_files_reject_with_offset(path: Path) -> None:
    data = path.read_bytes()
    with pytest.raises(llmstream.JsonError) as caught:
        llmstream.parse(data)
    error = caught.value
    assert isinstance(error, ValueError)
    assert isinstance(error.kind, str) and error.kind
    assert isinstance(error.offset, int) and 0 <= error.offset <= len(data)
    assert isinstance(error.path, str)
    assert error.details["offset"] == error.offset


@pytest.mark.skipif(not suite("i_"), reason="no JSONTestSuite")
@pytest.mark.parametrize("path", suite("i_"), ids=lambda p: p.name)
def test_i_files_decide(path: Path) -> None:
    try:
        llmstream.parse(path.read_bytes())
    except llmstream.JsonError:
        pass


def test_partial() -> None:
    assert llmstream.parse('{"a": [1, "he', partial=True) == {"a": [1, "he"]}
    assert llmstream.parse("   ", partial=True) is None
    with pytest.raises(llmstream.JsonError) as caught:
        llmstream.parse('{"a": [1, "he')
    assert caught.value.kind == "unexpected_end"
    with pytest.raises(llmstream.JsonError) as caught:
        llmstream.parse('{"a": [1 2]}', partial=True)
    assert caught.value.offset == 9


def test_large_inputs_parse_without_the_gil_from_several_threads() -> None:
    """Inputs past 64 KiB are parsed with the GIL released: threads parsing
    at once each get their own document's value, and errors still carry
    their offset."""
    from concurrent.futures import ThreadPoolExecutor

    documents = [
        json.dumps({"n": n, "rows": [{"id": i, "text": f"row {i} of {n} ✓"} for i in range(4000)]}).encode()
        for n in range(8)
    ]
    assert all(len(d) > 64 * 1024 for d in documents)
    readers = [
        llmstream.parse,
        lambda d: llmstream.parse(d, partial=True),
        lambda d: llmstream.parse(d, lenient=True),
        llmstream.repair,
        llmstream.from_json,
    ]
    jobs = [(read, document) for document in documents for read in readers]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda job: job[0](job[1]), jobs))
    assert results == [json.loads(document) for _, document in jobs]
    broken = documents[0][:-2] + b"]}x"
    with pytest.raises(llmstream.JsonError) as error:
        llmstream.parse(broken)
    assert error.value.offset == len(broken) - 1
