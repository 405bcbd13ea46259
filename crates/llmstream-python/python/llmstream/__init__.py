"""llmstream: incremental JSON, Server-Sent Events and LLM provider streams.

The stages are the Rust library's (``llmstream._llmstream``); every event,
message and error form is the library's own, as the ``llmstream`` CLI prints
it (docs/CLI.md). ``events`` and ``aevents`` feed a whole HTTP body to a
``Pipeline``.
"""

from __future__ import annotations

from typing import Any, AsyncIterable, AsyncIterator, Dict, Iterable, Iterator, Union

from ._llmstream import (
    ActionStream,
    ArgumentStreams,
    ChunkError,
    JsonError,
    JsonParser,
    Pipeline,
    SnapshotChunker,
    SseDecoder,
    SseError,
    ToolError,
    __version__,
    from_json,
    parse,
    repair,
)

__all__ = [
    "__version__",
    "ActionStream",
    "ArgumentStreams",
    "ChunkError",
    "Event",
    "Json",
    "JsonError",
    "JsonParser",
    "Piece",
    "Pipeline",
    "SnapshotChunker",
    "SseDecoder",
    "SseError",
    "ToolError",
    "aevents",
    "events",
    "from_json",
    "parse",
    "repair",
]

#: What ``feed`` takes.
Piece = Union[bytes, bytearray, str]
#: A JSON value as Python natives (None, bool, int, float, str, list, dict).
Json = Any
#: An event or item: one of the library's JSON forms (docs/CLI.md).
Event = Dict[str, Any]


def events(chunks: Iterable[Piece], provider: str = "auto") -> Iterator[Event]:
    """The normalized events of a whole streaming body given in pieces
    (e.g. ``httpx`` ``iter_bytes()``), as they complete."""
    pipeline = Pipeline(provider)
    for chunk in chunks:
        yield from pipeline.feed(chunk)
    yield from pipeline.finish()


async def aevents(chunks: AsyncIterable[Piece], provider: str = "auto") -> AsyncIterator[Event]:
    """``events`` over an async iterable (e.g. ``httpx`` ``aiter_bytes()``)."""
    pipeline = Pipeline(provider)
    async for chunk in chunks:
        for event in pipeline.feed(chunk):
            yield event
    for event in pipeline.finish():
        yield event
