"""Streams one OpenAI Chat Completions request with httpx and prints the
text deltas and each tool call as it ends, from `llmstream.events`.

    OPENAI_API_KEY=... python openai_chat.py ["prompt"]

OPENAI_BASE_URL (default https://api.openai.com/v1) points it at another
server; OPENAI_MODEL picks the model.
"""

import json
import os
import sys

import httpx

import llmstream

base = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
request = {
    "model": os.environ.get("OPENAI_MODEL", "gpt-4o-mini"),
    "stream": True,
    "messages": [{"role": "user", "content": sys.argv[1] if len(sys.argv) > 1 else "What is the weather in Paris?"}],
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "parameters": {"type": "object", "properties": {"location": {"type": "string"}}},
            },
        }
    ],
}
headers = {"Authorization": f"Bearer {os.environ.get('OPENAI_API_KEY', '')}"}

with httpx.stream("POST", f"{base}/chat/completions", json=request, headers=headers, timeout=60) as response:
    response.raise_for_status()
    for event in llmstream.events(response.iter_bytes()):
        if event["type"] == "text_delta":
            print(event["text"], end="", flush=True)
        elif event["type"] == "tool_call_end":
            print(f"\n[tool call] {event['name']} {json.dumps(event['arguments'])}", flush=True)
print()
