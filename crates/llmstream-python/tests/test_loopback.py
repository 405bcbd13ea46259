"""Recordings served by a local HTTP server (text/event-stream, small
chunks) and read with a real httpx client: `events(response.iter_bytes())`
and `aevents(response.aiter_bytes())` give the events of a `Pipeline` fed
the file. Needs httpx (pip install httpx)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import llmstream
from conftest import FIXTURES
from loopback import files_server

httpx = pytest.importorskip("httpx", reason="the httpx package is needed (pip install httpx)")

PROVIDERS = ("openai_chat", "openai_responses", "anthropic", "gemini")


def recordings() -> list[Path]:
    found = []
    for provider in PROVIDERS:
        found += sorted((FIXTURES / "providers" / provider / "_extracted").glob("*.sse"))
    return found


RECORDINGS = recordings()


def test_every_provider_has_a_recording() -> None:
    for provider in PROVIDERS:
        assert any(p.parent.parent.name == provider for p in RECORDINGS), provider


def pipeline_events(path: Path) -> list:
    pipeline = llmstream.Pipeline()
    return pipeline.feed(path.read_bytes()) + pipeline.finish()


@pytest.fixture(scope="module")
def base():
    with files_server(RECORDINGS) as url:
        yield url


@pytest.mark.parametrize("index", range(len(RECORDINGS)), ids=[str(p.relative_to(FIXTURES)) for p in RECORDINGS])
def test_events_over_httpx(base: str, index: int) -> None:
    path = RECORDINGS[index]
    expected = pipeline_events(path)
    assert expected
    with httpx.Client() as client:
        with client.stream("POST", f"{base}/recording/{index}", json={"stream": True}) as response:
            assert response.headers["content-type"] == "text/event-stream"
            got = list(llmstream.events(response.iter_bytes()))
    assert got == expected

    async def collect() -> list:
        async with httpx.AsyncClient() as client:
            async with client.stream("GET", f"{base}/recording/{index}") as response:
                return [e async for e in llmstream.aevents(response.aiter_bytes())]

    assert asyncio.run(collect()) == expected
