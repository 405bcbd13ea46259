"""The other stages against the CLI commands that print the same forms:
`SseDecoder` (`llmstream sse`), `JsonParser` events (`json --emit events`),
`ActionStream` (`actions`), `SnapshotChunker` (`chunk`); `ArgumentStreams`
and the hold of a code point cut between pieces."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import llmstream
from conftest import FIXTURES, cli_lines, pieces


def files(folder: str, pattern: str) -> list[Path]:
    root = FIXTURES / folder
    return sorted(root.rglob(pattern)) if root.is_dir() else []


SSE_FILES = files("providers", "*.sse") + files("providers_more", "*.sse")
CHUNKER_FILES = files("chunker", "*.jsonl")


@pytest.mark.skipif(not SSE_FILES, reason="no SSE fixtures")
@pytest.mark.parametrize("path", SSE_FILES, ids=lambda p: p.name)
def test_sse_matches_cli(path: Path) -> None:
    data = path.read_bytes()
    _, expected = cli_lines(["sse"], data)
    decoder = llmstream.SseDecoder()
    items = []
    for chunk in pieces(data, 5):
        items += decoder.feed(chunk)
    items += decoder.finish()
    assert items == expected


def test_sse_forms() -> None:
    decoder = llmstream.SseDecoder()
    items = decoder.feed("id: 7\nevent: delta\ndata: a\ndata: b\n\nretry: 10\n\n: hi\n")
    assert items == [{"event": "delta", "data": "a\nb", "id": "7"}, {"retry": 10}]
    assert decoder.feed("data: cut") == []
    assert decoder.finish() == []


@pytest.mark.parametrize(
    "text",
    [
        '{"a": [1, "x\\u00e9y", {"b": null}], "c": true, "d": 1.5e3}',
        '[{"k": "\u00e9\u6f22\U0001f600"}, [], {}]',
    ],
)
def test_json_events_match_cli(text: str) -> None:
    data = text.encode()
    _, expected = cli_lines(["json", "--emit", "events", "--chunk-size", "1"], data)
    parser = llmstream.JsonParser()
    events = []
    for i in range(len(data)):
        events += parser.feed(data[i : i + 1])
    events += parser.finish()
    assert events == expected


ACTION_TEXTS = [
    'Searching.\n```json\n{"action":"search","q":"rust","n":[1,2]}\n```\nDone.',
    'I will call {"action": "weather", "city": "Par\u00eds"} now {"action": "x"',
    "no actions at all, just text \u00e9",
]


@pytest.mark.parametrize("text", ACTION_TEXTS)
def test_actions_match_cli(text: str) -> None:
    data = text.encode()
    _, expected = cli_lines(["actions"], data)
    stream = llmstream.ActionStream()
    events = []
    for chunk in pieces(data, 9, most=4):
        events += stream.feed(chunk)
    events += stream.finish()
    assert merged_text(events) == merged_text(expected)


def merged_text(events: list[dict]) -> list[dict]:
    """Events with consecutive text and argument deltas joined (their cut
    follows the pieces)."""
    out: list[dict] = []
    for event in events:
        last = out[-1] if out else None
        if (
            last
            and event["type"] in ("text", "argument_delta")
            and last["type"] == event["type"]
            and last.get("path") == event.get("path")
        ):
            out[-1] = {**last, "text": last["text"] + event["text"]}
        else:
            out.append(dict(event))
    return out


@pytest.mark.skipif(not CHUNKER_FILES, reason="no chunker fixtures")
@pytest.mark.parametrize("path", CHUNKER_FILES, ids=lambda p: p.name)
def test_chunker_matches_cli(path: Path) -> None:
    data = path.read_bytes()
    _, expected = cli_lines(["chunk"], data)
    chunker = llmstream.SnapshotChunker()
    chunks = []
    for line in data.splitlines():
        if line.strip():
            chunks += chunker.feed(line)
    chunks += chunker.finish()
    assert chunks == expected
    again = llmstream.SnapshotChunker()
    values = [json.loads(line) for line in data.splitlines() if line.strip()]
    assert "".join(c for v in values for c in again.feed(v)) + "".join(again.finish()) == "".join(
        expected
    )


def test_chunker_errors() -> None:
    chunker = llmstream.SnapshotChunker()
    chunker.feed('{"t": "Tok"}')
    with pytest.raises(llmstream.ChunkError) as caught:
        chunker.feed('{"t": "Paris"}')
    assert caught.value.kind == "string_not_extended"
    assert caught.value.path == "t"
    assert caught.value.snapshot == 2
    assert caught.value.details == {
        "message": str(caught.value),
        "kind": "string_not_extended",
        "snapshot": 2,
        "path": "t",
    }
    with pytest.raises(llmstream.JsonError):
        chunker.feed('{"t": ')


def test_sse_limit_error() -> None:
    decoder = llmstream.SseDecoder()
    limit = 16 << 20
    decoder.feed(b"data: ok\n\n")
    with pytest.raises(llmstream.SseError) as caught:
        decoder.feed(b"data: " + b"x" * limit)
    error = caught.value
    assert (error.kind, error.offset, error.path) == ("line_too_long", 10 + limit, None)
    assert error.details == {
        "message": str(error),
        "kind": "line_too_long",
        "limit": limit,
        "offset": 10 + limit,
        "reading": "field",
        "field": "data",
    }


def test_argument_streams() -> None:
    streams = llmstream.ArgumentStreams()
    raw = '{"city": "Z\u00fcrich", "days": [1, 2]}'.encode()
    cut = raw.index("\u00fc".encode()) + 1
    events = streams.feed("call_1", raw[:cut]) + streams.feed("call_1", raw[cut:])
    events += streams.finish("call_1")
    text = "".join(e["text"] for e in events if e["type"] == "argument_delta")
    assert text == "Z\u00fcrich"
    assert {"type": "argument", "id": "call_1", "path": "days[0]", "value": 1} in events
    assert events[-1] == {
        "type": "tool_call_end",
        "id": "call_1",
        "arguments": {"city": "Z\u00fcrich", "days": [1, 2]},
    }
    with pytest.raises(llmstream.ToolError) as caught:
        streams.finish("call_1")
    assert caught.value.kind == "unknown_call"


def test_argument_streams_errors() -> None:
    streams = llmstream.ArgumentStreams()
    events = streams.feed("c", '{"a": 1 2}')
    errors = [e for e in events if e["type"] == "error"]
    assert errors and errors[0]["kind"] == "invalid_arguments"
    assert errors[0]["error"]["offset"] == 8
    events = streams.finish("c")
    assert events[-1]["type"] == "tool_call_end"


def test_feed_types() -> None:
    parser = llmstream.JsonParser()
    parser.feed(bytearray(b"[1,"))
    parser.feed(memoryview(b"2]"))
    parser.finish()
    assert parser.snapshot == [1, 2]
    with pytest.raises(TypeError):
        parser.feed(3)


def test_reprs_say_what_each_stage_reads_and_how_far_it_got() -> None:
    parser = llmstream.JsonParser(events=False)
    parser.feed(b'{"a": 1')
    assert repr(parser) == "JsonParser(lenient=False, events=False, bytes_fed=7)"
    pipeline = llmstream.Pipeline()
    assert repr(pipeline) == 'Pipeline(provider="auto")'
    pipeline.feed(b'data: {"id":"x","object":"chat.completion.chunk","choices":[]}\n\n')
    assert repr(pipeline) == 'Pipeline(provider="openai-chat")'
    decoder = llmstream.SseDecoder()
    decoder.feed(b"data: x\n")
    assert repr(decoder) == "SseDecoder(offset=8)"
    streams = llmstream.ArgumentStreams()
    streams.feed("call_1", b'{"a"')
    assert repr(streams) == 'ArgumentStreams(ids=["call_1"])'
    chunker = llmstream.SnapshotChunker()
    chunker.feed('{"a": "b"}')
    assert repr(chunker) == "SnapshotChunker(snapshots=1)"
    assert repr(llmstream.ActionStream()) == "ActionStream()"
