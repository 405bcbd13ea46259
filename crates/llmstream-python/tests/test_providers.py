"""Every provider recording through `Pipeline`, in random pieces, gives the
events and the message `llmstream accumulate` prints; `events()` over the
same pieces gives the same events."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import llmstream
from conftest import FIXTURES, cli_lines, pieces

RECORDING_SUFFIXES = {".sse", ".bin", ".txt"}


def recordings() -> list[Path]:
    found = []
    for folder in ("providers", "providers_more"):
        root = FIXTURES / folder
        if root.is_dir():
            found += sorted(
                p for p in root.rglob("*") if p.is_file() and p.suffix in RECORDING_SUFFIXES
            )
    return found


RECORDINGS = recordings()


def run_pipeline(chunks: list[bytes], **options: bool) -> tuple[list, object]:
    pipeline = llmstream.Pipeline(**options)
    events = []
    for chunk in chunks:
        events += pipeline.feed(chunk)
    events += pipeline.finish()
    return events, pipeline.message


@pytest.mark.skipif(not RECORDINGS, reason="no provider fixtures")
@pytest.mark.parametrize(
    "path", RECORDINGS, ids=[str(p.relative_to(FIXTURES)) for p in RECORDINGS]
)
def test_pipeline_matches_cli(path: Path) -> None:
    data = path.read_bytes()
    _, cli_events = cli_lines(["accumulate", "--events"], data)
    code, cli_message = cli_lines(["accumulate"], data)
    for seed in (1, 2):
        chunks = pieces(data, seed, most=64 if len(data) > 20000 else 16)
        events, message = run_pipeline(chunks)
        assert events == cli_events
        if code == 0:
            assert [message] == cli_message
        else:
            assert message is None
        assert list(llmstream.events(iter(chunks))) == events


@pytest.mark.skipif(not RECORDINGS, reason="no provider fixtures")
@pytest.mark.parametrize(
    "path", RECORDINGS, ids=[str(p.relative_to(FIXTURES)) for p in RECORDINGS]
)
def test_pipeline_options_match_cli(path: Path) -> None:
    data = path.read_bytes()
    _, cli_events = cli_lines(
        ["accumulate", "--events", "--lenient-arguments", "--strict-sse-end"], data
    )
    chunks = pieces(data, 4, most=64)
    events, _ = run_pipeline(chunks, lenient_arguments=True, strict_sse_end=True)
    assert events == cli_events


async def _aiter(chunks: list[bytes]):
    for chunk in chunks:
        yield chunk


@pytest.mark.skipif(not RECORDINGS, reason="no provider fixtures")
def test_aevents_equals_events() -> None:
    for path in RECORDINGS[:: max(1, len(RECORDINGS) // 20)]:
        chunks = pieces(path.read_bytes(), 3, most=64)

        async def collect() -> list:
            return [e async for e in llmstream.aevents(_aiter(chunks))]

        assert asyncio.run(collect()) == list(llmstream.events(chunks))


def test_str_pieces_and_forced_provider() -> None:
    body = (
        'data: {"id":"c1","object":"chat.completion.chunk","model":"m",'
        '"choices":[{"index":0,"delta":{"role":"assistant","content":"h\u00e9"}}]}\n\n'
        "data: [DONE]\n\n"
    )
    whole, _ = run_pipeline([body.encode()])
    raw = body.encode()
    cut = raw.index("\u00e9".encode()) + 1
    split, message = run_pipeline([raw[:cut], raw[cut:]])
    assert split == whole
    assert message["choices"][0]["text"] == "h\u00e9"
    forced = llmstream.Pipeline("openai-chat")
    assert forced.feed(body) + forced.finish() == whole
    with pytest.raises(ValueError):
        llmstream.Pipeline("nope")
