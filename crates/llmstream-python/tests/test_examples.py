"""Each example in ../examples run against the loopback server (its base
URL pointed there) prints the text deltas and tool-call ends of the
recording served. Needs httpx (pip install httpx)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import llmstream
from conftest import FIXTURES
from loopback import Server

pytest.importorskip("httpx", reason="the httpx package is needed (pip install httpx)")

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
P = FIXTURES / "providers"

# example: (environment variable of the base URL, URL suffix, path of the
# request, recordings served)
CASES = {
    "openai_chat": ("OPENAI_BASE_URL", "/v1", "/v1/chat/completions", [
        P / "openai_chat/_extracted/test_run_stream_sync_streams_real_model.yaml.interaction0.sse",
        P / "openai_chat/_extracted/test_run_stream_sync_streams_real_model.yaml.interaction1.sse",
    ]),
    "openai_responses": ("OPENAI_BASE_URL", "/v1", "/v1/responses", [
        P / "openai_responses/_extracted/test_responses_tool_use_streaming.yaml.interaction0.sse",
        P / "openai_responses/_extracted/test_responses_tool_use_streaming.yaml.interaction1.sse",
    ]),
    "anthropic": ("ANTHROPIC_BASE_URL", "", "/v1/messages", [
        P / "anthropic/tool_use_response.txt",
        P / "anthropic/_extracted/test_anthropic_model_thinking_part_stream.yaml.interaction0.sse",
    ]),
    "gemini": ("GEMINI_BASE_URL", "", "/v1beta/models/", [
        P / "gemini/_extracted/test_google_model_iter_stream.yaml.interaction0.sse",
        P / "gemini/_extracted/test_google_model_iter_stream.yaml.interaction2.sse",
    ]),
}


def expected_output(data: bytes) -> str:
    out = []
    for event in llmstream.events([data]):
        if event["type"] == "text_delta":
            out.append(event["text"])
        elif event["type"] == "tool_call_end":
            out.append(f"\n[tool call] {event['name']} {json.dumps(event['arguments'])}\n")
    return "".join(out) + "\n"


@pytest.mark.parametrize("name", sorted(CASES))
def test_example_against_loopback(name: str) -> None:
    variable, suffix, request_path, recordings = CASES[name]
    kinds = set()
    for recording in recordings:
        data = recording.read_bytes()
        server = Server(lambda path: data)
        with server as base:
            env = dict(os.environ, **{variable: base + suffix})
            env.update(OPENAI_API_KEY="k", ANTHROPIC_API_KEY="k", GEMINI_API_KEY="k")
            done = subprocess.run(
                [sys.executable, str(EXAMPLES / f"{name}.py"), "hello"],
                env=env, capture_output=True, timeout=60, check=False,
            )
        assert done.returncode == 0, done.stderr.decode()
        out = done.stdout.decode()
        assert out == expected_output(data)
        if "[tool call]" in out:
            kinds.add("tool")
        if out.strip() and not out.startswith("\n[tool call]"):
            kinds.add("text")
        (path, body), = server.requests
        assert path.startswith(request_path), path
        assert "hello" in body.decode()
    assert kinds == {"tool", "text"}
