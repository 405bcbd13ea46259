"""`llmstream.from_json` against the real `jiter.from_json` (pip install
jiter): jiter's own partial vectors (../shared/fixtures/json_peers/
jiter_partial.json) and every prefix of generated documents, for each
partial_mode. The only differences allowed are the documented ones, listed
in DIFFERENCES below."""

from __future__ import annotations

import json
import random
import re

import pytest

import llmstream
from conftest import FIXTURES

jiter = pytest.importorskip("jiter", reason="the jiter package is needed (pip install jiter)")

MODES = [False, True, "off", "on", "trailing-strings"]

# The documented differences (README, from_json docstring), as patterns of
# the end of the input, where llmstream gives a value and jiter drops it:
DIFFERENCES = {
    # a number cut short: llmstream keeps its longest valid prefix
    # (`[1.` -> [1], `[1e` -> [1]); jiter drops the number.
    "cut_number": re.compile(r"-?\d+(\.\d*)?([eE][+-]?\d*)?$"),
    # a literal cut short: llmstream shows it from its first byte
    # (`[tr` -> [True]); jiter drops it.
    "cut_literal": re.compile(r"(t|tr|tru|f|fa|fal|fals|n|nu|nul)$"),
}


SEEN: set = set()


def run(fn, data, mode):
    try:
        return ("ok", fn(data, partial_mode=mode))
    except ValueError:
        return ("error", None)


def difference(data: bytes) -> str | None:
    text = data.decode("utf-8", "replace")
    for name, pattern in DIFFERENCES.items():
        if pattern.search(text):
            return name
    return None


def same(a, b) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def compare(data: bytes, mode) -> None:
    ours = run(llmstream.from_json, data, mode)
    theirs = run(jiter.from_json, data, mode)
    if ours[0] == theirs[0] and same(ours[1], theirs[1]):
        return
    assert mode not in (False, "off"), (data, mode, ours, theirs)
    name = difference(data)
    assert name is not None and ours[0] == "ok", (data, mode, ours, theirs)
    SEEN.add(name)


def vectors() -> list[dict]:
    path = FIXTURES / "json_peers" / "jiter_partial.json"
    if not path.is_file():
        return []
    return json.loads(path.read_text())


VECTORS = vectors()


@pytest.mark.skipif(not VECTORS, reason="no jiter_partial.json fixture")
@pytest.mark.parametrize("case", VECTORS, ids=[c["note"][-60:] for c in VECTORS])
def test_jiter_vectors(case: dict) -> None:
    data = bytes.fromhex(case["input_hex"]) if "input_hex" in case else case["input"].encode()
    if case.get("mode") == "strict":
        mode = False
    elif "on" in case.get("peer_option", "").lower():
        mode = "on"
    else:
        mode = "trailing-strings"
    compare(data, mode)
    ours = run(llmstream.from_json, data, mode)
    if case["expected"] == "ERROR":
        assert ours[0] == "error"
    else:
        assert ours == ("ok", case["expected"])


def document(rng: random.Random, depth: int = 0):
    kind = rng.choice(["obj", "arr"] if depth == 0 else ["obj", "arr", "str", "num", "lit"] if depth < 4 else ["str", "num", "lit"])
    if kind == "obj":
        return {rng.choice(["a", "bé", "k\"q", "x\\y", "€"]) + str(i): document(rng, depth + 1) for i in range(rng.randint(0, 4))}
    if kind == "arr":
        return [document(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    if kind == "str":
        return "".join(rng.choice(["a", " ", "é", "€", "\n", "\"", "\\", "\u2028", "😀"]) for _ in range(rng.randint(0, 6)))
    if kind == "num":
        return rng.choice([0, -1, 12, 3.5, -0.25, 1e21, 123456789012345678901234567890, 2.5e-7])
    return rng.choice([True, False, None])


@pytest.mark.parametrize("mode", MODES)
def test_prefixes_of_generated_documents(mode) -> None:
    rng = random.Random(7)
    for _ in range(40):
        doc = document(rng)
        for ensure_ascii in (True, False):
            data = json.dumps(doc, ensure_ascii=ensure_ascii, indent=rng.choice([None, 1])).encode()
            for end in range(1, len(data) + 1):
                compare(data[:end], mode)
            assert same(llmstream.from_json(data, partial_mode=mode), doc)
    if mode not in (False, "off"):
        assert SEEN == set(DIFFERENCES)  # each listed difference occurs


def test_options() -> None:
    assert llmstream.from_json(b'{"a":1,"a":2}') == jiter.from_json(b'{"a":1,"a":2}') == {"a": 2}
    for fn in (llmstream.from_json, jiter.from_json):
        with pytest.raises(ValueError):
            fn(b'{"a":1,"a":2}', catch_duplicate_keys=True)
        with pytest.raises(ValueError):
            fn(b"[1]", partial_mode="sometimes")
        assert fn(b'["a"]', cache_mode="none") == ["a"]
    # Documented differences: NaN/Infinity are never accepted; float_mode
    # other than "float" is refused; str input is accepted.
    assert jiter.from_json(b"[NaN]", allow_inf_nan=True)[0] != 0
    with pytest.raises(ValueError):
        llmstream.from_json(b"[NaN]", allow_inf_nan=True)
    with pytest.raises(ValueError):
        llmstream.from_json(b"[1.5]", float_mode="decimal")
    assert llmstream.from_json('{"a": "é"}') == {"a": "é"}
