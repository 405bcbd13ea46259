"""llmstream: incremental JSON, Server-Sent Events and LLM provider streams.

The stages are the Rust library's (``llmstream._llmstream``); every event,
message and error form is the library's own, as the ``llmstream`` CLI prints
it (docs/CLI.md). ``events`` and ``aevents`` feed a whole HTTP body to a
``Pipeline``.
"""

from __future__ import annotations

from typing import Any, AsyncIterable, AsyncIterator, Iterable, Iterator, Union

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
    "JsonError",
    "JsonParser",
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

Piece = Union[bytes, bytearray, str]


def events(chunks: Iterable[Piece], provider: str = "auto") -> Iterator[dict[str, Any]]:
    """The normalized events of a whole streaming body given in pieces
    (e.g. ``httpx`` ``iter_bytes()``), as they complete."""
    pipeline = Pipeline(provider)
    for chunk in chunks:
        yield from pipeline.feed(chunk)
    yield from pipeline.finish()


async def aevents(
    chunks: AsyncIterable[Piece], provider: str = "auto"
) -> AsyncIterator[dict[str, Any]]:
    """``events`` over an async iterable (e.g. ``httpx`` ``aiter_bytes()``)."""
    pipeline = Pipeline(provider)
    async for chunk in chunks:
        for event in pipeline.feed(chunk):
            yield event
    for event in pipeline.finish():
        yield event
