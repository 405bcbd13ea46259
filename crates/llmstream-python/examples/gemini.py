"""Streams one Gemini streamGenerateContent request (alt=sse) with httpx and
prints the text deltas and each tool call as it ends, from
`llmstream.events`.

    GEMINI_API_KEY=... python gemini.py ["prompt"]

GEMINI_BASE_URL (default https://generativelanguage.googleapis.com) points
it at another server; GEMINI_MODEL picks the model.
"""

import json
import os
import sys

import httpx

import llmstream

base = os.environ.get("GEMINI_BASE_URL", "https://generativelanguage.googleapis.com").rstrip("/")
model = os.environ.get("GEMINI_MODEL", "gemini-2.5-flash")
request = {
    "contents": [{"role": "user", "parts": [{"text": sys.argv[1] if len(sys.argv) > 1 else "What is the weather in Paris?"}]}],
    "tools": [
        {
            "functionDeclarations": [
                {
                    "name": "get_weather",
                    "parameters": {"type": "object", "properties": {"location": {"type": "string"}}},
                }
            ]
        }
    ],
}
headers = {"x-goog-api-key": os.environ.get("GEMINI_API_KEY", "")}
url = f"{base}/v1beta/models/{model}:streamGenerateContent?alt=sse"

with httpx.stream("POST", url, json=request, headers=headers, timeout=60) as response:
    response.raise_for_status()
    for event in llmstream.events(response.iter_bytes()):
        if event["type"] == "text_delta":
            print(event["text"], end="", flush=True)
        elif event["type"] == "tool_call_end":
            print(f"\n[tool call] {event['name']} {json.dumps(event['arguments'])}", flush=True)
print()
