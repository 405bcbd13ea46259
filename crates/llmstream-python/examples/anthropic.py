"""Streams one Anthropic Messages request with httpx and prints the text
deltas and each tool call as it ends, from `llmstream.events`.

    ANTHROPIC_API_KEY=... python anthropic.py ["prompt"]

ANTHROPIC_BASE_URL (default https://api.anthropic.com) points it at another
server; ANTHROPIC_MODEL picks the model.
"""

import json
import os
import sys

import httpx

import llmstream

base = os.environ.get("ANTHROPIC_BASE_URL", "https://api.anthropic.com").rstrip("/")
request = {
    "model": os.environ.get("ANTHROPIC_MODEL", "claude-sonnet-4-5"),
    "max_tokens": 1024,
    "stream": True,
    "messages": [{"role": "user", "content": sys.argv[1] if len(sys.argv) > 1 else "What is the weather in Paris?"}],
    "tools": [
        {
            "name": "get_weather",
            "input_schema": {"type": "object", "properties": {"location": {"type": "string"}}},
        }
    ],
}
headers = {
    "x-api-key": os.environ.get("ANTHROPIC_API_KEY", ""),
    "anthropic-version": "2023-06-01",
}

with httpx.stream("POST", f"{base}/v1/messages", json=request, headers=headers, timeout=60) as response:
    response.raise_for_status()
    for event in llmstream.events(response.iter_bytes()):
        if event["type"] == "text_delta":
            print(event["text"], end="", flush=True)
        elif event["type"] == "tool_call_end":
            print(f"\n[tool call] {event['name']} {json.dumps(event['arguments'])}", flush=True)
print()
