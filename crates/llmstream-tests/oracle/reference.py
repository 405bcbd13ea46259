#!/usr/bin/env python3
"""Independent reference reader for recorded LLM streaming bodies (SSE).

Standard library only (Python 3.11).  Written from the providers' documented
wire semantics and their official SDKs' behaviour, NOT from llmstream's code,
so that its results can serve as test expectations for llmstream.

Usage:
    python3 reference.py FILE.sse [FORMAT]      # prints the reading as JSON

FORMAT is one of: anthropic, openai_chat, openai_compatible, openai_responses,
gemini.  Without it, the format is taken from the name of the file's folder.

`read_file(path, fmt)` returns a `Reading` with:
    text, reasoning            answer text / reasoning text (str)
    tool_calls                 [(name, compact_json_arguments)] client tool calls
    provider_tools             [name] provider-run (hosted/server) tool calls
    finish                     provider's raw finish reason (str | None)
    usage                      (input_tokens, output_tokens) | None
    complete, error            bool
    unterminated               bool: body ends with an event that has data but
                               no terminating blank line (not dispatched)
    unterminated_data          that event's data (str | None)
    unterminated_is_json       whether that data is complete JSON
    citations                  int (best effort)
    prompt_block_reason        Gemini promptFeedback.blockReason (dispatched events only)
    notes                      [str] anomalies noticed while reading
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass, field, asdict

# --------------------------------------------------------------------------
# SSE (WHATWG HTML "server-sent events" parsing algorithm)
# --------------------------------------------------------------------------

_LINE_SPLIT = re.compile(r"\r\n|\r|\n")


@dataclass
class SseEvent:
    event: str  # event type ("message" when no event: field)
    data: str


def parse_sse(text: str):
    """Return (events, pending) where pending is the data of an event that was
    still being built when the body ended (no blank line after it) or None.
    Per WHATWG, pending data is discarded at end of stream (never dispatched)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = _LINE_SPLIT.split(text)
    # The last element is what follows the last line terminator: an incomplete
    # line ("" when the body ends with a terminator).
    tail = lines.pop()
    events: list[SseEvent] = []
    data_lines: list[str] = []
    has_data = False
    ev_type = ""

    def field_of(line: str):
        if ":" in line:
            name, value = line.split(":", 1)
            if value.startswith(" "):
                value = value[1:]
        else:
            name, value = line, ""
        return name, value

    for line in lines:
        if line == "":
            if has_data:
                events.append(SseEvent(ev_type or "message", "\n".join(data_lines)))
            data_lines, has_data, ev_type = [], False, ""
            continue
        if line.startswith(":"):
            continue  # comment
        name, value = field_of(line)
        if name == "data":
            data_lines.append(value)
            has_data = True
        elif name == "event":
            ev_type = value
        # id / retry / unknown fields: ignored (they do not affect content)
    if tail != "" and not tail.startswith(":"):
        name, value = field_of(tail)
        if name == "data":
            data_lines.append(value)
            has_data = True
    pending = "\n".join(data_lines) if has_data else None
    return events, pending


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------

def compact_json(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def args_text_to_json(raw) -> str:
    """Arguments given as text: parsed and re-serialized compactly (key order
    kept); when not valid JSON, the raw text as a JSON string."""
    if raw is None:
        raw = ""
    if not isinstance(raw, str):
        return compact_json(raw)
    try:
        return compact_json(json.loads(raw))
    except (ValueError, RecursionError):
        return compact_json(raw)


def loads_or_none(data: str):
    try:
        return json.loads(data)
    except ValueError:
        return None


@dataclass
class Reading:
    text: str = ""
    reasoning: str = ""
    tool_calls: list = field(default_factory=list)
    provider_tools: list = field(default_factory=list)
    finish: str | None = None
    usage: tuple | None = None
    complete: bool = False
    error: bool = False
    unterminated: bool = False
    unterminated_data: str | None = None
    unterminated_is_json: bool = False
    citations: int = 0
    prompt_block_reason: str | None = None
    notes: list = field(default_factory=list)


# --------------------------------------------------------------------------
# OpenAI Chat Completions and OpenAI-compatible providers
# --------------------------------------------------------------------------

def read_chat(events: list[SseEvent], r: Reading):
    text: list[str] = []
    reasoning_plain: list[str] = []     # delta.reasoning_content / delta.reasoning
    reasoning_details: list[str] = []   # delta.reasoning_details text/summary
    mistral_thinking: list[str] = []    # Mistral content parts of type thinking
    tools: dict[int, dict] = {}         # by tool_call index (choice 0)
    provider: dict = {}                 # Groq executed_tools, by index
    provider_order: list = []
    finish_by_choice: dict[int, str] = {}
    choices_seen: set[int] = set()
    usage = None
    groq_usage = None
    done = False
    perplexity_citations = 0
    annotations = 0

    for ev in events:
        if ev.data.strip() == "[DONE]":
            done = True
            continue
        j = loads_or_none(ev.data)
        if ev.event == "error":
            r.error = True
        if not isinstance(j, dict):
            r.notes.append("non-JSON data: %r" % ev.data[:60])
            continue
        if j.get("error") is not None:
            r.error = True
        if isinstance(j.get("usage"), dict):
            usage = j["usage"]
        xg = j.get("x_groq")
        if isinstance(xg, dict) and isinstance(xg.get("usage"), dict):
            groq_usage = xg["usage"]
        if isinstance(j.get("citations"), list) and j["citations"]:
            perplexity_citations = len(j["citations"])  # repeated on every chunk
        for pos, c in enumerate(j.get("choices") or []):
            if not isinstance(c, dict):
                continue
            idx = c.get("index", pos)
            if idx is None:
                idx = pos
            choices_seen.add(idx)
            if c.get("finish_reason") is not None:
                finish_by_choice[idx] = c["finish_reason"]
            if idx != 0:
                continue
            d = c.get("delta")
            if not isinstance(d, dict):
                d = c.get("message") if isinstance(c.get("message"), dict) else {}
            content = d.get("content")
            if isinstance(content, str):
                text.append(content)
            elif isinstance(content, list):  # Mistral typed parts
                for part in content:
                    if not isinstance(part, dict):
                        continue
                    if part.get("type") == "text" and isinstance(part.get("text"), str):
                        text.append(part["text"])
                    elif part.get("type") == "thinking":
                        for t in part.get("thinking") or []:
                            if isinstance(t, dict) and isinstance(t.get("text"), str):
                                mistral_thinking.append(t["text"])
            for key in ("reasoning_content", "reasoning"):
                if isinstance(d.get(key), str):
                    reasoning_plain.append(d[key])
            for det in d.get("reasoning_details") or []:
                if not isinstance(det, dict):
                    continue
                if det.get("type") == "reasoning.text" and isinstance(det.get("text"), str):
                    reasoning_details.append(det["text"])
                elif det.get("type") == "reasoning.summary" and isinstance(det.get("summary"), str):
                    reasoning_details.append(det["summary"])
            for ann in d.get("annotations") or []:
                if isinstance(ann, dict) and ann.get("type") == "url_citation":
                    annotations += 1
            for tc in d.get("tool_calls") or []:
                if not isinstance(tc, dict):
                    continue
                ti = tc.get("index", len(tools))
                slot = tools.setdefault(ti, {"name": "", "args": ""})
                fn = tc.get("function") or {}
                if isinstance(fn.get("name"), str):
                    slot["name"] += fn["name"]
                if isinstance(fn.get("arguments"), str):
                    slot["args"] += fn["arguments"]
            for et in d.get("executed_tools") or []:  # Groq compound
                if not isinstance(et, dict):
                    continue
                key = et.get("index", len(provider_order))
                if key not in provider:
                    provider[key] = et.get("type") or et.get("name") or "?"
                    provider_order.append(key)

    r.text = "".join(text)
    if reasoning_plain:
        r.reasoning = "".join(reasoning_plain)
        if reasoning_details:
            r.notes.append("reasoning_details duplicate reasoning; counted once")
    else:
        r.reasoning = "".join(reasoning_details)
    if mistral_thinking:
        r.reasoning += "".join(mistral_thinking)
    r.tool_calls = [(t["name"], args_text_to_json(t["args"])) for _, t in sorted(tools.items())]
    r.provider_tools = [provider[k] for k in provider_order]
    r.finish = finish_by_choice.get(0)
    u = usage if usage is not None else groq_usage
    if u is not None and (u.get("prompt_tokens") is not None or u.get("completion_tokens") is not None):
        r.usage = (int(u.get("prompt_tokens") or 0), int(u.get("completion_tokens") or 0))
    all_finished = bool(choices_seen) and all(i in finish_by_choice for i in choices_seen)
    r.complete = done or all_finished
    r.citations = perplexity_citations + annotations


# --------------------------------------------------------------------------
# Anthropic Messages
# --------------------------------------------------------------------------

SERVER_BLOCKS = ("server_tool_use", "mcp_tool_use")


def read_anthropic(events: list[SseEvent], r: Reading):
    blocks: dict[int, dict] = {}
    order: list = []            # ("client", key) / ("text") ... in block order
    text: list[str] = []
    reasoning: list[str] = []
    usage_in = usage_out = None
    cache: dict = {}
    have_usage = False
    citations = 0
    start_key = 0

    def open_block(key, cb):
        t = cb.get("type")
        b = {"type": t, "name": cb.get("name"), "input": cb.get("input"), "json": "", "has_json": False}
        blocks[key] = b
        if t == "text":
            if isinstance(cb.get("text"), str):
                text.append(cb["text"])
        elif t == "thinking":
            if isinstance(cb.get("thinking"), str):
                reasoning.append(cb["thinking"])
        elif t == "tool_use":
            order.append(key)
        elif t in SERVER_BLOCKS:
            r.provider_tools.append(cb.get("name") or t)

    for ev in events:
        j = loads_or_none(ev.data)
        if not isinstance(j, dict):
            r.notes.append("non-JSON data: %r" % ev.data[:60])
            if ev.event == "error":
                r.error = True
            continue
        t = j.get("type") or ev.event
        if t == "error" or ev.event == "error":
            r.error = True
            continue
        if t == "message_start":
            m = j.get("message") or {}
            for i, cb in enumerate(m.get("content") or []):
                if isinstance(cb, dict):
                    open_block(("start", start_key, i), cb)
            start_key += 1
            if m.get("stop_reason") is not None:
                r.finish = m["stop_reason"]
            u = m.get("usage")
            if isinstance(u, dict):
                have_usage = True
                for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"):
                    if u.get(k) is not None:
                        cache[k] = u[k]
                if u.get("output_tokens") is not None:
                    usage_out = u["output_tokens"]
        elif t == "content_block_start":
            open_block(j.get("index"), j.get("content_block") or {})
        elif t == "content_block_delta":
            d = j.get("delta") or {}
            dt = d.get("type")
            b = blocks.get(j.get("index"))
            if dt == "text_delta":
                text.append(d.get("text") or "")
            elif dt == "thinking_delta":
                reasoning.append(d.get("thinking") or "")
            elif dt == "input_json_delta":
                if b is not None:
                    b["json"] += d.get("partial_json") or ""
                    b["has_json"] = True
            elif dt == "citations_delta":
                citations += 1
        elif t == "message_delta":
            d = j.get("delta") or {}
            if d.get("stop_reason") is not None:
                r.finish = d["stop_reason"]
            u = j.get("usage")
            if isinstance(u, dict):
                have_usage = True
                for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"):
                    if u.get(k) is not None:
                        cache[k] = u[k]
                if u.get("output_tokens") is not None:
                    usage_out = u["output_tokens"]
        elif t == "message_stop":
            r.complete = True

    r.text = "".join(text)
    r.reasoning = "".join(reasoning)
    for key in order:
        b = blocks[key]
        # SDK behaviour: input = parse(concatenated partial_json) when any
        # non-empty JSON arrived, else the block's own `input`.
        if b["json"] != "":
            args = args_text_to_json(b["json"])
        else:
            args = compact_json(b["input"] if b["input"] is not None else {})
        r.tool_calls.append((b["name"] or "", args))
    if have_usage:
        # Normalized as llmstream defines usage (OpenAI's sense, where
        # prompt_tokens counts cached tokens): the cache's reads and writes
        # are input too.
        usage_in = sum(int(v or 0) for v in cache.values()) if cache else None
        r.usage = (int(usage_in or 0), int(usage_out or 0))
    r.citations = citations


# --------------------------------------------------------------------------
# OpenAI Responses
# --------------------------------------------------------------------------

HOSTED_ITEMS = {
    "web_search_call", "file_search_call", "code_interpreter_call",
    "image_generation_call", "mcp_call", "mcp_list_tools",
    "program",  # programmatic tool calling: the program runs on the provider
}
CLIENT_ACTION_ITEMS = {"local_shell_call", "shell_call", "apply_patch_call", "tool_search_call",
                      "computer_call"}
TERMINAL = {"response.completed": "completed", "response.incomplete": "incomplete",
            "response.failed": "failed"}


def _is_hosted(item: dict) -> bool:
    t = item.get("type")
    if t in HOSTED_ITEMS:
        return True
    if t == "shell_call":
        env = item.get("environment")
        if isinstance(env, dict) and str(env.get("type", "")).startswith("container"):
            return True
        return False
    if t == "tool_search_call":
        return item.get("execution") == "server"
    return False


def _client_call(item: dict):
    t = item.get("type")
    if t == "function_call":
        return item.get("name") or "", args_text_to_json(item.get("arguments"))
    if t == "custom_tool_call":
        return item.get("name") or "", args_text_to_json(item.get("input"))
    if t == "mcp_approval_request":
        return item.get("name") or t, args_text_to_json(item.get("arguments"))
    if t in CLIENT_ACTION_ITEMS and not _is_hosted(item):
        for key in ("action", "input", "operation", "arguments"):
            if key in item:
                v = item[key]
                return item.get("name") or t, (args_text_to_json(v) if isinstance(v, str) else compact_json(v))
        return item.get("name") or t, "{}"
    return None


def read_responses(events: list[SseEvent], r: Reading):
    text: list[str] = []
    reasoning: list[str] = []
    item_has_text_delta: set = set()
    item_text_filled: set = set()
    item_has_reasoning_delta: set = set()
    item_reasoning_filled: set = set()
    item_annotation_events: dict = {}
    seen_items: dict = {}        # id -> latest item
    item_order: list = []        # ids in order of first appearance
    fc_args: dict = {}           # item id -> accumulated argument deltas
    final_response = None
    citations = 0
    idx_to_id: dict = {}

    def item_key(j):
        iid = j.get("item_id")
        if iid is None and j.get("output_index") is not None:
            iid = idx_to_id.get(j["output_index"])
        return iid

    type_at_index: dict = {}     # output_index -> item type seen in the stream

    def see(item: dict, output_index):
        iid = item.get("id") or ("#%s" % output_index)
        if output_index is not None:
            idx_to_id[output_index] = iid
            type_at_index[output_index] = item.get("type")
        if iid not in seen_items:
            item_order.append(iid)
        seen_items[iid] = item
        return iid

    text_at: dict = {}          # (item id, content index) -> index in text

    def set_text(key, value: str):
        if key in text_at:
            text[text_at[key]] = value
        else:
            text_at[key] = len(text)
            text.append(value)

    def message_final_text(item: dict) -> str:
        out = []
        for part in item.get("content") or []:
            if isinstance(part, dict) and part.get("type") == "output_text":
                out.append(part.get("text") or "")
        return "".join(out)

    def reasoning_final_text(item: dict) -> str:
        out = []
        for s in item.get("summary") or []:
            if isinstance(s, dict) and isinstance(s.get("text"), str):
                out.append(s["text"])
        for c in item.get("content") or []:
            if isinstance(c, dict) and c.get("type") == "reasoning_text" and isinstance(c.get("text"), str):
                out.append(c["text"])
        return "".join(out)

    def count_final_annotations(item: dict) -> int:
        n = 0
        for part in item.get("content") or []:
            if isinstance(part, dict):
                for a in part.get("annotations") or []:
                    if isinstance(a, dict) and a.get("type") == "url_citation":
                        n += 1
        return n

    for ev in events:
        if ev.data.strip() == "[DONE]":
            continue
        j = loads_or_none(ev.data)
        if not isinstance(j, dict):
            r.notes.append("non-JSON data: %r" % ev.data[:60])
            if ev.event == "error":
                r.error = True
            continue
        t = j.get("type") or ev.event
        if t == "error":
            r.error = True
        elif t in TERMINAL:
            final_response = j.get("response") or {}
            r.finish = final_response.get("status") or TERMINAL[t]
            r.complete = True
            if t == "response.failed":
                r.error = True
        elif t == "response.output_item.added":
            see(j.get("item") or {}, j.get("output_index"))
        elif t == "response.output_item.done":
            item = j.get("item") or {}
            iid = see(item, j.get("output_index"))
            if item.get("type") == "message":
                # The final copy of each text part wins over its deltas
                # (llmstream's policy: it is authoritative, and a mismatch
                # is reported, never doubled).
                for ci, part in enumerate(item.get("content") or []):
                    if isinstance(part, dict) and part.get("type") == "output_text":
                        set_text((iid, ci), part.get("text") or "")
            if item.get("type") == "reasoning" and iid not in item_has_reasoning_delta and iid not in item_reasoning_filled:
                reasoning.append(reasoning_final_text(item))
                item_reasoning_filled.add(iid)
        elif t == "response.output_text.delta":
            iid = item_key(j)
            item_has_text_delta.add(iid)
            key = (iid, j.get("content_index") or 0)
            if key not in text_at:
                text_at[key] = len(text)
                text.append("")
            text[text_at[key]] += j.get("delta") or ""
        elif t == "response.output_text.done":
            iid = item_key(j)
            set_text((iid, j.get("content_index") or 0), j.get("text") or "")
        elif t in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            iid = item_key(j)
            item_has_reasoning_delta.add(iid)
            reasoning.append(j.get("delta") or "")
        elif t == "response.output_text.annotation.added":
            iid = item_key(j)
            a = j.get("annotation") or {}
            item_annotation_events[iid] = item_annotation_events.get(iid, 0) + 1
            if a.get("type") == "url_citation":
                citations += 1
        elif t in ("response.function_call_arguments.delta", "response.custom_tool_call_input.delta"):
            iid = item_key(j)
            fc_args[iid] = fc_args.get(iid, "") + (j.get("delta") or "")

    # Items present only in the final response object (never streamed).  An
    # item counts as streamed when its id was seen, or when an item of the
    # same type was streamed at the same output_index (some providers, e.g.
    # OpenRouter, give the final copy a different temporary id).
    if isinstance(final_response, dict):
        for n, item in enumerate(final_response.get("output") or []):
            if not isinstance(item, dict):
                continue
            iid = item.get("id")
            if iid is not None and iid in seen_items:
                continue
            if type_at_index.get(n) == item.get("type"):
                if iid != idx_to_id.get(n):
                    r.notes.append("final item %s has another id than streamed item %s" % (iid, idx_to_id.get(n)))
                continue
            r.notes.append("item %s (%s) only in the final response" % (iid, item.get("type")))
            iid = see(item, None)
            if item.get("type") == "message":
                text.append(message_final_text(item))
            elif item.get("type") == "reasoning":
                reasoning.append(reasoning_final_text(item))

    for iid in item_order:
        item = seen_items[iid]
        if item.get("type") == "message" and iid not in item_annotation_events:
            citations += count_final_annotations(item)
        if _is_hosted(item):
            r.provider_tools.append(item.get("type"))
            continue
        if item.get("type") == "function_call" and not item.get("arguments") and iid in fc_args:
            item = dict(item, arguments=fc_args[iid])
        if item.get("type") == "custom_tool_call" and not item.get("input") and iid in fc_args:
            item = dict(item, input=fc_args[iid])
        call = _client_call(item)
        if call is not None:
            r.tool_calls.append(call)

    r.text = "".join(text)
    r.reasoning = "".join(reasoning)
    r.citations = citations
    if isinstance(final_response, dict) and isinstance(final_response.get("usage"), dict):
        u = final_response["usage"]
        r.usage = (int(u.get("input_tokens") or 0), int(u.get("output_tokens") or 0))


# --------------------------------------------------------------------------
# Gemini / Vertex streamGenerateContent?alt=sse
# --------------------------------------------------------------------------

_JSONPATH_TOKEN = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[\"([^\"]*)\"\]|\['([^']*)'\]")


def _jsonpath_tokens(path: str):
    if not path.startswith("$"):
        raise ValueError(path)
    pos, out = 1, []
    while pos < len(path):
        m = _JSONPATH_TOKEN.match(path, pos)
        if not m:
            raise ValueError(path)
        if m.group(1) is not None:
            out.append(m.group(1))
        elif m.group(2) is not None:
            out.append(int(m.group(2)))
        else:
            out.append(m.group(3) if m.group(3) is not None else m.group(4))
        pos = m.end()
    return out


def _apply_partial_arg(root: dict, pa: dict):
    """Vertex streamed function-call arguments: set the value at jsonPath.
    Consecutive stringValue pieces for the same path are concatenated (the
    piece flagged willContinue is followed by more of the same string)."""
    toks = _jsonpath_tokens(pa.get("jsonPath", "$"))
    if "stringValue" in pa:
        value, is_str = pa["stringValue"], True
    elif "numberValue" in pa:
        value, is_str = pa["numberValue"], False
    elif "boolValue" in pa:
        value, is_str = pa["boolValue"], False
    elif "nullValue" in pa:
        value, is_str = None, False
    else:
        return
    cur = root
    for i, tok in enumerate(toks):
        last = i == len(toks) - 1
        nxt = None if last else toks[i + 1]
        if isinstance(tok, int):
            while len(cur) <= tok:
                cur.append(None)
            if last:
                if is_str and isinstance(cur[tok], str):
                    cur[tok] += value
                else:
                    cur[tok] = value
            else:
                if cur[tok] is None:
                    cur[tok] = [] if isinstance(nxt, int) else {}
                cur = cur[tok]
        else:
            if last:
                if is_str and isinstance(cur.get(tok), str):
                    cur[tok] += value
                else:
                    cur[tok] = value
            else:
                if tok not in cur or cur[tok] is None:
                    cur[tok] = [] if isinstance(nxt, int) else {}
                cur = cur[tok]


def read_gemini(events: list[SseEvent], r: Reading):
    text: list[str] = []
    reasoning: list[str] = []
    calls: list = []            # [name, args_obj, streaming?]
    open_stream = None          # index in calls of a streamed call in progress
    last_usage = None
    citations = 0

    for ev in events:
        j = loads_or_none(ev.data)
        if isinstance(j, list):  # a JSON array body (non-SSE style): take elements
            items = j
        else:
            items = [j]
        for j in items:
            if not isinstance(j, dict):
                r.notes.append("non-JSON data: %r" % ev.data[:60])
                continue
            if j.get("error") is not None:
                r.error = True
            pf = j.get("promptFeedback")
            if isinstance(pf, dict) and pf.get("blockReason"):
                r.prompt_block_reason = pf["blockReason"]
            if isinstance(j.get("usageMetadata"), dict):
                last_usage = j["usageMetadata"]
            cands = j.get("candidates") or []
            cand = None
            for pos, c in enumerate(cands):
                if isinstance(c, dict) and c.get("index", pos) == 0:
                    cand = c
                    break
            if cand is None:
                continue
            if cand.get("finishReason"):
                r.finish = cand["finishReason"]
            cm = cand.get("citationMetadata")
            if isinstance(cm, dict):
                citations += len(cm.get("citations") or cm.get("citationSources") or [])
            for part in (cand.get("content") or {}).get("parts") or []:
                if not isinstance(part, dict):
                    continue
                if isinstance(part.get("text"), str):
                    (reasoning if part.get("thought") else text).append(part["text"])
                if isinstance(part.get("functionCall"), dict):
                    fc = part["functionCall"]
                    if open_stream is not None:
                        call = calls[open_stream]
                        if fc.get("name") and fc.get("name") != call[0]:
                            open_stream = None  # a new call starts
                    if open_stream is None:
                        if "partialArgs" in fc or fc.get("willContinue"):
                            calls.append([fc.get("name") or "", {}, True])
                            open_stream = len(calls) - 1
                        else:
                            calls.append([fc.get("name") or "", fc.get("args") if fc.get("args") is not None else {}, False])
                            continue
                    call = calls[open_stream]
                    if fc.get("args") is not None:
                        call[1] = fc["args"]
                    for pa in fc.get("partialArgs") or []:
                        if isinstance(pa, dict):
                            _apply_partial_arg(call[1], pa)
                    if not fc.get("willContinue"):
                        open_stream = None
                if isinstance(part.get("executableCode"), dict):
                    r.provider_tools.append("codeExecution")  # the tool's name in a request
                if isinstance(part.get("toolCall"), dict):
                    tc = part["toolCall"]
                    r.provider_tools.append(tc.get("toolType") or tc.get("name") or "toolCall")

    if open_stream is not None:
        r.notes.append("streamed functionCall never closed (willContinue without end)")
    r.text = "".join(text)
    r.reasoning = "".join(reasoning)
    r.tool_calls = [(name, compact_json(args)) for name, args, _ in calls]
    # A blocked prompt (llmstream's reading, a decision): the answer is
    # final, so the message is complete though it has no candidate.
    r.complete = r.finish is not None or (r.prompt_block_reason is not None and not r.text and not calls)
    r.citations = citations
    if last_usage is not None:
        # Normalized as llmstream defines usage (OpenAI's sense): input
        # counts the tool-use prompt too, output the thoughts too.
        r.usage = (
            int(last_usage.get("promptTokenCount") or 0) + int(last_usage.get("toolUsePromptTokenCount") or 0),
            int(last_usage.get("candidatesTokenCount") or 0) + int(last_usage.get("thoughtsTokenCount") or 0),
        )


# --------------------------------------------------------------------------

READERS = {
    "anthropic": read_anthropic,
    "openai_chat": read_chat,
    "openai_compatible": read_chat,
    "openai_responses": read_responses,
    "gemini": read_gemini,
}


def read_text(body: str, fmt: str) -> Reading:
    events, pending = parse_sse(body)
    r = Reading()
    # llmstream's documented default (a decision, not the standard): an
    # event the body ends inside, whose data is a whole payload (complete
    # JSON or [DONE]), is read.
    if pending is not None and (pending.strip() == "[DONE]" or loads_or_none(pending) is not None):
        events = events + [SseEvent("message", pending)]
    READERS[fmt](events, r)
    if pending is not None:
        r.unterminated = True
        r.unterminated_data = pending
        r.unterminated_is_json = loads_or_none(pending) is not None
    return r


def read_file(path: str, fmt: str | None = None) -> Reading:
    if fmt is None:
        fmt = os.path.basename(os.path.dirname(os.path.abspath(path)))
    with open(path, "rb") as f:
        body = f.read().decode("utf-8")
    return read_text(body, fmt)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    res = read_file(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
    print(json.dumps(asdict(res), ensure_ascii=False, indent=2))
