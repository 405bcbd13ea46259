"""`ArgumentStreams.feed_accumulated`: the accumulated arguments text (vibe's
`accumulated_json`) gives the events of the fragments it adds."""

from __future__ import annotations

import json

import llmstream
from conftest import pieces


def test_accumulated_equals_fragments() -> None:
    text = json.dumps({"path": "a/é.txt", "lines": [1, 2, 3], "opts": {"x": None, "y": "z\"q"}})
    for seed in range(5):
        frags = []
        for p in pieces(text.encode("ascii", "backslashreplace"), seed):
            frags.append(p.decode())
        by_fragment = llmstream.ArgumentStreams()
        by_text = llmstream.ArgumentStreams()
        a, b, so_far = [], [], ""
        for frag in frags:
            so_far += frag
            a += by_fragment.feed("c", frag)
            b += by_text.feed_accumulated("c", so_far)
            b += by_text.feed_accumulated("c", so_far)  # repeated: nothing new
        a += by_fragment.finish("c")
        b += by_text.finish("c")
        assert a == b
        assert b[-1] == {"type": "tool_call_end", "id": "c", "arguments": json.loads(text)}


def test_not_extending_is_an_error_event() -> None:
    streams = llmstream.ArgumentStreams()
    assert streams.feed_accumulated("c", '{"a": [1') == []
    errors = streams.feed_accumulated("c", '{"b"')
    assert [e["kind"] for e in errors] == ["not_extending"]
    streams.feed_accumulated("c", '{"a": [1, 2]}')
    assert streams.finish("c")[-1]["arguments"] == {"a": [1, 2]}
