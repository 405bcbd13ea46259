"""`JsonParser` fed in pieces cut anywhere: snapshots only grow (a completed
value never changes), the live snapshot updated in place equals a fresh
conversion, and what comes out does not depend on the cuts."""

from __future__ import annotations

import copy
import json

from hypothesis import given, settings
from hypothesis import strategies as st

import llmstream
from conftest import pieces
from documents import containers


def grows(before: object, after: object) -> bool:
    """`after` extends `before`: open strings longer, containers with more
    members, every member but the last (the open one) unchanged."""
    if before is None:
        return True
    if isinstance(before, str):
        return isinstance(after, str) and after.startswith(before)
    if isinstance(before, list):
        if not isinstance(after, list) or len(after) < len(before):
            return False
        if not before:
            return True
        return after[: len(before) - 1] == before[:-1] and grows(before[-1], after[len(before) - 1])
    if isinstance(before, dict):
        keys, later = list(before), list(after) if isinstance(after, dict) else None
        if later is None or later[: len(keys)] != keys:
            return False
        if not keys:
            return True
        done = all(before[k] == after[k] for k in keys[:-1])
        return done and grows(before[keys[-1]], after[keys[-1]])
    return before == after


def same(a: object, b: object) -> bool:
    """Equal, with members in the same order and of the same types."""
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(same, a, b))
    return type(a) is type(b) and a == b


def merged(events: list[dict]) -> list[dict]:
    """Events with consecutive string deltas of one path joined (their cut
    follows the pieces)."""
    out: list[dict] = []
    for event in events:
        last = out[-1] if out else None
        if (
            last
            and event["type"] == "string_delta"
            and last["type"] == "string_delta"
            and last["path"] == event["path"]
        ):
            out[-1] = {**last, "text": last["text"] + event["text"]}
        else:
            out.append(dict(event))
    return out


def run(parser: llmstream.JsonParser, chunks: list[bytes]) -> tuple[list, list]:
    events, snapshots = [], []
    for chunk in chunks:
        events += parser.feed(chunk)
        live = parser.snapshot
        assert same(live, parser.snapshot_copy())
        snapshots.append(copy.deepcopy(live))
    events += parser.finish()
    return events, snapshots


@settings(max_examples=200, deadline=None)
@given(containers, st.integers(0, 2**32), st.booleans())
def test_snapshots_grow_and_cuts_do_not_matter(value: object, seed: int, ascii: bool) -> None:
    data = json.dumps(value, ensure_ascii=ascii).encode()
    expected = json.loads(data)
    events, snapshots = run(llmstream.JsonParser(), pieces(data, seed))
    for before, after in zip(snapshots, snapshots[1:]):
        assert grows(before, after), (before, after)
    assert snapshots[-1] == expected
    whole_events, _ = run(llmstream.JsonParser(), [data])
    assert merged(events) == merged(whole_events)
    one_byte_events, _ = run(llmstream.JsonParser(), [data[i : i + 1] for i in range(len(data))])
    assert merged(one_byte_events) == merged(whole_events)


@settings(max_examples=100, deadline=None)
@given(containers, st.integers(0, 2**32))
def test_lenient_snapshots_grow(value: object, seed: int) -> None:
    data = json.dumps(value, ensure_ascii=False).encode()
    _, snapshots = run(llmstream.JsonParser(lenient=True), pieces(data, seed))
    for before, after in zip(snapshots, snapshots[1:]):
        assert grows(before, after), (before, after)
    assert snapshots[-1] == json.loads(data)


def test_events_forms() -> None:
    parser = llmstream.JsonParser()
    assert parser.snapshot is None
    events = parser.feed(b'{"a": ["x') + parser.feed(b'y"], "b": 12}') + parser.finish()
    assert events == [
        {"type": "start_object", "path": "", "pointer": ""},
        {"type": "start_array", "path": "a", "pointer": "/a"},
        {"type": "string_delta", "path": "a[0]", "pointer": "/a/0", "text": "x"},
        {"type": "string_delta", "path": "a[0]", "pointer": "/a/0", "text": "y"},
        {"type": "string", "path": "a[0]", "pointer": "/a/0", "value": "xy"},
        {"type": "end_array", "path": "a", "pointer": "/a"},
        {"type": "number", "path": "b", "pointer": "/b", "value": 12},
        {"type": "end_object", "path": "", "pointer": ""},
    ]
    assert parser.snapshot == {"a": ["xy"], "b": 12}


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet="{}[]()\"',: ab1.\n`-eTruNon/*#“”\\", max_size=60), st.integers(0, 2**32))
def test_live_snapshot_of_lenient_text(text: str, seed: int) -> None:
    parser = llmstream.JsonParser(lenient=True)
    for chunk in pieces(text.encode(), seed, most=4):
        parser.feed(chunk)
        assert same(parser.snapshot, parser.snapshot_copy())
    parser.finish()
    assert same(parser.snapshot, parser.snapshot_copy())


def test_live_snapshot_is_reused() -> None:
    parser = llmstream.JsonParser()
    parser.feed('{"done": {"x": [1, 2]}, "open": [')
    first = parser.snapshot
    done = first["done"]
    parser.feed('"a", "b')
    second = parser.snapshot
    assert second is first and second["done"] is done
    assert second == {"done": {"x": [1, 2]}, "open": ["a", "b"]}


@settings(max_examples=200, deadline=None)
@given(containers, st.integers(0, 2**32), st.integers(1, 5))
def test_quiet_parser_reads_the_same_snapshots_when_read_now_and_then(
    value: object, seed: int, every: int
) -> None:
    """`events=False` returns no events and the same snapshots; the live
    snapshot read only every few pieces (several members and strings grown
    between reads) still equals a fresh conversion."""
    data = json.dumps(value, ensure_ascii=False).encode()
    quiet, loud = llmstream.JsonParser(events=False), llmstream.JsonParser()
    for at, chunk in enumerate(pieces(data, seed)):
        assert quiet.feed(chunk) == []
        loud.feed(chunk)
        if at % every == 0:
            assert same(quiet.snapshot, loud.snapshot_copy())
    assert quiet.finish() == []
    loud.finish()
    assert same(quiet.snapshot, json.loads(data))
