"""`repair` and lenient `parse` read what `llmstream repair` and `llmstream
json --lenient` read: the repair suites of jsonrepair and json_repair, and
a few cases by hand."""

from __future__ import annotations

import json

import pytest

import llmstream
from conftest import FIXTURES, cli_lines


def suite_inputs() -> list[str]:
    found: list[str] = []
    for name in ("jsonrepair.json", "json_repair_py.json"):
        path = FIXTURES / "json_peers" / name
        if path.is_file():
            found += [case["input"] for case in json.loads(path.read_text())]
    return found


INPUTS = suite_inputs()


@pytest.mark.skipif(not INPUTS, reason="no repair suites")
@pytest.mark.parametrize("text", INPUTS)
def test_repair_and_lenient_match_cli(text: str) -> None:
    data = text.encode()
    code, lines = cli_lines(["repair"], data)
    if code == 0:
        assert [llmstream.repair(text)] == lines
        assert llmstream.repair(data) == lines[0]
    else:
        with pytest.raises(llmstream.JsonError):
            llmstream.repair(text)
    code, lines = cli_lines(["json", "--lenient"], data)
    if code == 0:
        assert [llmstream.parse(text, lenient=True)] == lines
    else:
        with pytest.raises(llmstream.JsonError):
            llmstream.parse(text, lenient=True)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"items": ["a", "b', {"items": ["a", "b"]}),
        ("{'a': True, 'b': None}", {"a": True, "b": None}),
        ('Here you go:\n```json\n{"x": 1,}\n```', {"x": 1}),
        ("[1, 2, 3", [1, 2, 3]),
        ('{"big": 123456789012345678901234567890', {"big": 123456789012345678901234567890}),
    ],
)
def test_repair_cases(text: str, value: object) -> None:
    assert llmstream.repair(text) == value


def test_repair_of_nothing_is_an_error() -> None:
    for text in ("", "   \n"):
        with pytest.raises(llmstream.JsonError) as caught:
            llmstream.repair(text)
        assert caught.value.kind == "no_value"


def test_lenient_parser_streams() -> None:
    parser = llmstream.JsonParser(lenient=True)
    parser.feed("{'a': [1, 'x")
    # A single-quoted string may still end otherwise: the library shows it
    # once it is certain.
    assert parser.snapshot in ({"a": [1]}, {"a": [1, "x"]})
    parser.feed("y'], b: True}")
    parser.finish()
    assert parser.snapshot == {"a": [1, "xy"], "b": True}
