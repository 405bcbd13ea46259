"""`llmstream gateway` with the official SDKs as clients.

A fake upstream (a thread replaying a recorded body of one API) behind the
gateway; the openai SDK (Chat Completions and Responses, with their stream
helpers) and the anthropic SDK (its message stream helper) call the gateway
as they would call their provider. What each SDK accumulates is compared
with the recording read by the llmstream package: answer text, tool calls
(ids, names, arguments). Run by `.ci/python.sh` (needs the release binary,
the llmstream package, openai and anthropic).
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

anthropic = pytest.importorskip("anthropic")
openai = pytest.importorskip("openai")
llmstream = pytest.importorskip("llmstream")

ROOT = Path(__file__).resolve().parents[4]
BINARY = Path(os.environ.get("LLMSTREAM_BIN", ROOT / "target" / "release" / "llmstream"))
RECORDINGS = {
    "openai-chat": ROOT / "crates/llmstream-cli/demo/openai-parallel-tools.sse",
    "anthropic": ROOT / "crates/llmstream-cli/demo/anthropic-thinking-tool.sse",
    "gemini": ROOT / "crates/llmstream-tests/tests/data/gemini/function_call_whole.sse",
    "openai-responses": ROOT / "crates/llmstream-tests/tests/data/openai/resp_reasoning.sse",
}
TOOL = {"type": "object", "properties": {"city": {"type": "string"}}}

if not BINARY.exists():
    pytest.skip(f"no release binary at {BINARY}", allow_module_level=True)


def expected(upstream: str) -> tuple[str, list[tuple[str, str, object]]]:
    """The recording's text and tool calls, as llmstream reads it."""
    pipeline = llmstream.Pipeline(upstream)
    pipeline.feed(RECORDINGS[upstream].read_bytes())
    pipeline.finish()
    choice = pipeline.message["choices"][0]
    calls = [(c["id"], c["name"], c["arguments"]) for c in choice["tool_calls"]]
    return choice["text"], calls


class Upstream:
    """A fake upstream replaying one recording to every request."""

    def __init__(self, body: bytes) -> None:
        outer = self
        self.requests: list[tuple[str, dict]] = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("content-length", 0))
                outer.requests.append((self.path, json.loads(self.rfile.read(length))))
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("connection", "close")
                self.end_headers()
                for start in range(0, len(body), 500):
                    self.wfile.write(body[start : start + 500])
                    self.wfile.flush()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        host, port = self.server.server_address[:2]
        self.base = f"http://{host}:{port}/v1"

    def close(self) -> None:
        self.server.shutdown()


class Gateway:
    def __init__(self, serve: str, upstream_format: str, upstream: str) -> None:
        self.process = subprocess.Popen(
            [str(BINARY), "gateway", "--listen", "127.0.0.1:0", "--upstream", upstream,
             "--upstream-format", upstream_format, "--serve", serve],
            stderr=subprocess.PIPE,
            env={**os.environ, "OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k", "GEMINI_API_KEY": "k"},
        )
        line = self.process.stderr.readline().decode()
        self.address = line.split("http://")[1].split(",")[0]
        threading.Thread(target=self.process.stderr.read, daemon=True).start()

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


@pytest.fixture(params=list(RECORDINGS))
def upstream_format(request: pytest.FixtureRequest) -> str:
    return request.param


def served(serve: str, upstream_format: str):
    upstream = Upstream(RECORDINGS[upstream_format].read_bytes())
    gateway = Gateway(serve, upstream_format, upstream.base)
    return upstream, gateway


def test_openai_chat_sdk(upstream_format: str) -> None:
    upstream, gateway = served("openai-chat", upstream_format)
    try:
        client = openai.OpenAI(base_url=f"http://{gateway.address}/v1", api_key="client-key")
        tools = [{"type": "function", "function": {"name": "get_weather", "parameters": TOOL}}]
        with client.chat.completions.stream(
            model="m", messages=[{"role": "user", "content": "Weather?"}], tools=tools
        ) as stream:
            completion = stream.get_final_completion()
        message = completion.choices[0].message
        text, calls = expected(upstream_format)
        assert (message.content or "") == text
        got = [(c.id, c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []]
        assert got == calls
        path, body = upstream.requests[0]
        assert "Weather?" in json.dumps(body)
    finally:
        gateway.close()
        upstream.close()


def test_openai_responses_sdk(upstream_format: str) -> None:
    upstream, gateway = served("openai-responses", upstream_format)
    try:
        client = openai.OpenAI(base_url=f"http://{gateway.address}/v1", api_key="client-key")
        tools = [{"type": "function", "name": "get_weather", "parameters": TOOL, "strict": False}]
        with client.responses.stream(model="m", input="Weather?", tools=tools) as stream:
            response = stream.get_final_response()
        text, calls = expected(upstream_format)
        assert response.output_text == text
        got = [
            (item.call_id, item.name, json.loads(item.arguments))
            for item in response.output
            if item.type == "function_call"
        ]
        assert got == calls
    finally:
        gateway.close()
        upstream.close()


def test_anthropic_sdk(upstream_format: str) -> None:
    upstream, gateway = served("anthropic", upstream_format)
    try:
        client = anthropic.Anthropic(base_url=f"http://{gateway.address}", api_key="client-key")
        tools = [{"name": "get_weather", "input_schema": TOOL}]
        with client.messages.stream(
            model="m", max_tokens=100, messages=[{"role": "user", "content": "Weather?"}], tools=tools
        ) as stream:
            message = stream.get_final_message()
        text, calls = expected(upstream_format)
        assert "".join(b.text for b in message.content if b.type == "text") == text
        got = [(b.id, b.name, b.input) for b in message.content if b.type == "tool_use"]
        assert got == calls
        path, body = upstream.requests[0]
        assert body.get("stream") is True or "streamGenerateContent" in path
    finally:
        gateway.close()
        upstream.close()
