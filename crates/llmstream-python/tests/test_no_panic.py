"""No Rust panic crosses into Python: random bytes, and valid documents
with bytes changed, through every stage, in random pieces. Any error is one
of the package's `ValueError`s (a panic would be a `PanicException`, which
is not an `Exception`)."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

import llmstream
from conftest import pieces
from documents import values

ERRORS = (ValueError,)


def through_every_stage(data: bytes, seed: int) -> None:
    chunks = pieces(data, seed)
    for lenient in (False, True):
        for partial in (False, True):
            try:
                llmstream.parse(data, partial=partial, lenient=lenient)
            except ERRORS:
                pass
        parser = llmstream.JsonParser(lenient=lenient)
        try:
            for chunk in chunks:
                parser.feed(chunk)
                parser.snapshot
            parser.finish()
        except ERRORS:
            pass
        parser.snapshot
    try:
        llmstream.repair(data)
    except ERRORS:
        pass
    decoder = llmstream.SseDecoder()
    pipeline = llmstream.Pipeline(lenient_arguments=bool(seed % 2))
    streams = llmstream.ArgumentStreams()
    actions = llmstream.ActionStream()
    for i, chunk in enumerate(chunks):
        decoder.feed(chunk)
        pipeline.feed(chunk)
        pipeline.message
        streams.feed(str(i % 3), chunk)
        actions.feed(chunk)
    decoder.finish()
    pipeline.finish()
    pipeline.message
    for i in range(3):
        try:
            streams.finish(str(i))
        except llmstream.ToolError:
            pass
    actions.finish()
    chunker = llmstream.SnapshotChunker()
    for line in data.split(b"\n"):
        try:
            chunker.feed(line)
        except ERRORS:
            pass
    chunker.finish()


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), st.integers(0, 2**32))
def test_random_bytes(data: bytes, seed: int) -> None:
    through_every_stage(data, seed)


@settings(max_examples=200, deadline=None)
@given(values, st.integers(0, 2**32))
def test_damaged_documents(value: object, seed: int) -> None:
    rng = random.Random(seed)
    data = bytearray(json.dumps(value, ensure_ascii=False).encode())
    for _ in range(rng.randint(1, 4)):
        if data:
            data[rng.randrange(len(data))] = rng.choice(b'{}[]",:\\ \xff\xc3\x80')
    through_every_stage(bytes(data), seed)


def test_random_provider_like_bodies() -> None:
    rng = random.Random(7)
    words = [b"data: ", b"event: ", b"\n", b"\r\n", b"{", b"}", b'"choices"', b":", b"[", b"]",
             b'"delta"', b'"content"', b'"type"', b'"message_start"', b"[DONE]", b",", b'"x"',
             b'"tool_calls"', b'"arguments"', b'"index"', b"0", b"\xe2\x82"]
    for _ in range(300):
        body = b"".join(rng.choice(words) for _ in range(rng.randint(1, 80)))
        through_every_stage(body, rng.randint(0, 1000))
