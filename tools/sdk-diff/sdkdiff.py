#!/usr/bin/env python3
"""Compare llmstream's provider accumulators with the official Python SDKs' own
stream accumulators on recorded SSE bodies.  Prints one table row per recording."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import traceback
from pathlib import Path

MAIN = Path(__file__).resolve().parents[2]
LLM = os.environ.get("LLMSTREAM", str(MAIN / "target/release/llmstream"))
FIX = Path(os.environ.get("FIXTURES", str(MAIN.parent / "shared/fixtures"))) / "providers"
OUT = Path(os.environ.get("SDKDIFF_OUT", "/tmp/sdkdiff/converted"))
VERBOSE = "-v" in sys.argv

# --------------------------------------------------------------------------- inputs


def collect():
    """[(label, provider, sse_path)]"""
    items = []
    folder_provider = {
        "openai_chat": "openai-chat",
        "openai_compatible": "openai-chat",
        "openai_responses": "openai-responses",
        "anthropic": "anthropic",
        "gemini": "gemini",
    }
    OUT.mkdir(parents=True, exist_ok=True)
    for folder, prov in folder_provider.items():
        d = FIX / folder
        for p in sorted(d.iterdir()):
            if p.is_dir():
                continue
            name = p.name
            if name.endswith((".yaml", ".json")):
                continue  # cassettes: the _extracted bodies are used instead
            if name.endswith(".chunks.txt"):
                # JSON-lines: rebuild the SSE framing (event: lines for the
                # providers whose wire has them)
                lines = [l for l in p.read_text(encoding="utf-8").splitlines() if l.strip()]
                buf = []
                for l in lines:
                    if prov in ("anthropic", "openai-responses"):
                        try:
                            t = json.loads(l).get("type")
                        except Exception:
                            t = None
                        if t:
                            buf.append(f"event: {t}\n")
                    buf.append(f"data: {l}\n\n")
                q = OUT / f"{folder}__{name}.sse"
                q.write_text("".join(buf), encoding="utf-8")
                items.append((f"{folder}/{name}", prov, q))
            else:
                items.append((f"{folder}/{name}", prov, p))
        ex = d / "_extracted"
        if ex.is_dir():
            for p in sorted(ex.iterdir()):
                items.append((f"{folder}/_extracted/{p.name}", prov, p))
    td = MAIN / "crates/llmstream/tests/data"
    for sub in ("openai", "anthropic", "gemini"):
        for p in sorted((td / sub).iterdir()):
            if sub == "openai":
                prov = "openai-chat" if p.name.startswith("chat_") else "openai-responses"
            else:
                prov = sub
            items.append((f"tests/data/{sub}/{p.name}", prov, p))
    for p in sorted((MAIN / "crates/llmstream-cli/demo").glob("*.sse")):
        prov = "anthropic" if p.name.startswith("anthropic") else "openai-chat"
        items.append((f"demo/{p.name}", prov, p))
    return items


def self_consistency(path, provider, ref):
    """llmstream's own contract: the message is the same however the input is cut,
    and auto-detection picks the same provider."""
    out = []
    variants = [["--chunk-size", "1"], ["--random-chunks", "1"], ["--random-chunks", "7"], ["--random-chunks", "42"]]
    for v in variants:
        r = subprocess.run([LLM, "accumulate", str(path), "--provider", provider] + v, capture_output=True, text=True)
        got = json.loads(r.stdout.strip().splitlines()[-1]) if r.stdout.strip() else None
        if got != ref:
            out.append(f"LLMSTREAM SELF: output differs with {' '.join(v)}")
    r = subprocess.run([LLM, "accumulate", str(path)], capture_output=True, text=True)
    got = json.loads(r.stdout.strip().splitlines()[-1]) if r.stdout.strip() else None
    if got != ref:
        out.append(f"LLMSTREAM SELF: --provider auto gives provider={got and got.get('provider')} / different message")
    return out


def run_llmstream(path, provider):
    r = subprocess.run([LLM, "accumulate", str(path), "--provider", provider], capture_output=True, text=True)
    if r.returncode != 0 or not r.stdout.strip():
        return None, f"exit {r.returncode}: {r.stderr.strip()[:200]}"
    return json.loads(r.stdout.strip().splitlines()[-1]), None


# --------------------------------------------------------------------------- SSE (SDK decoders)


def sse_events_openai(path):
    from openai._streaming import SSEDecoder

    data = Path(path).read_bytes()
    return list(SSEDecoder().iter_bytes(iter([data])))


def sse_events_anthropic(path):
    from anthropic._streaming import SSEDecoder

    data = Path(path).read_bytes()
    return list(SSEDecoder().iter_bytes(iter([data])))


# --------------------------------------------------------------------------- helpers


def parse_json_or(s):
    if s is None:
        return None
    try:
        return json.loads(s)
    except Exception:
        return ("<invalid json>", s)


class Diff:
    def __init__(self):
        self.items = []

    def eq(self, what, mine, sdk):
        if mine != sdk:
            self.items.append(f"{what}: llmstream={short(mine)} sdk={short(sdk)}")

    def note(self, s):
        self.items.append(s)


def short(v, n=160):
    s = json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else repr(v)
    return s if len(s) <= n else s[: n - 3] + "..."


def lm_usage(lm):
    u = lm.get("usage") or {}
    return u


# --------------------------------------------------------------------------- OpenAI Chat


def sdk_openai_chat(path):
    from openai.types.chat import ChatCompletionChunk
    from openai._models import construct_type
    from openai import LengthFinishReasonError, ContentFilterFinishReasonError
    from openai.lib.streaming.chat._completions import (
        ChatCompletionStreamState,
        _is_valid_chat_completion_chunk_weak,
    )

    state = ChatCompletionStreamState()
    notes = []
    n = 0
    for sse in sse_events_openai(path):
        if sse.data.startswith("[DONE]"):
            break  # as openai.Stream does
        data = sse.json()
        if isinstance(data, dict) and data.get("error"):
            # openai.Stream raises APIError here
            notes.append(f"SDK Stream raises APIError({short(data.get('error'), 80)})")
            break
        # openai.Stream builds models with construct_type (no validation) unless
        # _strict_response_validation is on
        chunk = construct_type(type_=ChatCompletionChunk, value=data)
        if not _is_valid_chat_completion_chunk_weak(chunk):
            continue  # as ChatCompletionStream.__stream__ does
        state.handle_chunk(chunk)
        n += 1
    if n == 0:
        return None, notes
    try:
        return state.get_final_completion(), notes
    except (LengthFinishReasonError, ContentFilterFinishReasonError) as e:
        notes.append(f"(info) get_final_completion raised {type(e).__name__}; compared current_completion_snapshot")
        return state.current_completion_snapshot, notes


def cmp_openai_chat(lm, path):
    d = Diff()
    try:
        comp, notes = sdk_openai_chat(path)
    except Exception as e:
        d.note(f"SDK raised {type(e).__name__}: {str(e)[:160]}")
        return d
    for n_ in notes:
        d.note(n_)
    if comp is None:
        if lm["choices"]:
            d.note("SDK produced no completion")
        return d
    d.eq("id", lm["id"], comp.id or None)
    d.eq("model", lm["model"], comp.model or None)
    lmc = {c["index"]: c for c in lm["choices"]}
    sdkc = {}
    for pos, ch in enumerate(comp.choices):
        if ch.index in sdkc:
            d.note(f"SDK has duplicate choice index {ch.index}")
        sdkc[ch.index] = ch
        if ch.index != pos:
            d.note(f"SDK choice at list position {pos} has index {ch.index}")
    d.eq("choice indices", sorted(lmc), sorted(sdkc))
    for idx in sorted(set(lmc) & set(sdkc)):
        c, s = lmc[idx], sdkc[idx]
        m = s.message
        p = f"choice[{idx}]."
        d.eq(p + "role", c["role"], m.role)
        d.eq(p + "text", c["text"], m.content or "")
        d.eq(p + "refusal", c["refusal"], m.refusal)
        extra = m.model_extra or {}
        sdk_reason = extra.get("reasoning_content") or extra.get("reasoning") or ""
        if isinstance(sdk_reason, str):
            d.eq(p + "reasoning", c["reasoning"], sdk_reason)
        d.eq(p + "finish_reason", c["finish_reason"], s.finish_reason)
        sdk_calls = []
        for tc in m.tool_calls or []:
            fn = getattr(tc, "function", None)
            args = fn.arguments if fn else None
            sdk_calls.append(
                {
                    "id": tc.id,
                    "name": fn.name if fn else None,
                    "arguments_text": args,
                    "arguments": parse_json_or(args),
                }
            )
        # legacy function_call
        fc = getattr(m, "function_call", None)
        if fc is not None:
            sdk_calls.append(
                {"id": None, "name": fc.name, "arguments_text": fc.arguments, "arguments": parse_json_or(fc.arguments)}
            )
        lm_calls = c["tool_calls"]
        d.eq(p + "tool_calls count", len(lm_calls), len(sdk_calls))
        for i, (a, b) in enumerate(zip(lm_calls, sdk_calls)):
            q = f"{p}tool_calls[{i}]."
            d.eq(q + "id", a["id"], b["id"])
            d.eq(q + "name", a["name"], b["name"])
            d.eq(q + "arguments_text", a["arguments_text"], b["arguments_text"])
            d.eq(q + "arguments(parsed)", a["arguments"], b["arguments"])
    # usage
    u = comp.usage
    lu = lm_usage(lm)
    if u is None:
        if lm.get("usage"):
            d.note(f"usage: llmstream={short(lm['usage'])} sdk=None")
    else:
        d.eq("usage.input", lu.get("input_tokens"), u.prompt_tokens)
        d.eq("usage.output", lu.get("output_tokens"), u.completion_tokens)
        d.eq("usage.total", lu.get("total_tokens"), u.total_tokens)
        rt = u.completion_tokens_details.reasoning_tokens if u.completion_tokens_details else None
        d.eq("usage.reasoning", lu.get("reasoning_tokens"), rt)
        ct = u.prompt_tokens_details.cached_tokens if u.prompt_tokens_details else None
        d.eq("usage.cached", lu.get("cached_input_tokens"), ct)
    return d


# --------------------------------------------------------------------------- OpenAI Responses


def split_responses(events):
    """Split a body holding several concatenated responses into one list per response
    (the SDK's state folds exactly one response)."""
    groups, cur, ended = [], [], False
    for ev in events:
        t = ev.get("type")
        if t == "response.created" and cur and (ended or any(e.get("type") == "response.output_item.added" for e in cur)):
            groups.append(cur)
            cur, ended = [], False
        cur.append(ev)
        if t in ("response.completed", "response.failed", "response.incomplete"):
            ended = True
    if cur:
        groups.append(cur)
    return groups


def normalize_ids(group):
    """Proxies (GitHub Copilot captures) rotate response and item ids on every
    event; give every event of one response the first response id, and every
    event of one output index the first item id seen for it."""
    import copy

    group = copy.deepcopy(group)
    rid = None
    item_ids = {}
    for ev in group:
        r = ev.get("response")
        if isinstance(r, dict) and "id" in r:
            rid = rid or r["id"]
            r["id"] = rid
        oi = ev.get("output_index")
        if oi is None:
            continue
        it = ev.get("item")
        cur = (it or {}).get("id") if isinstance(it, dict) else None
        cur = cur or ev.get("item_id")
        if oi not in item_ids and cur:
            item_ids[oi] = cur
        if isinstance(it, dict) and "id" in it:
            it["id"] = item_ids[oi]
        if "item_id" in ev:
            ev["item_id"] = item_ids.get(oi, ev["item_id"])
    return group


def fold_responses_group(group, notes):
    from openai.lib.streaming.responses._responses import ResponseStreamState
    from openai.types.responses import ResponseStreamEvent
    from openai._models import construct_type_unchecked
    from openai import omit

    state = ResponseStreamState(input_tools=omit, text_format=omit)
    final = None
    err_events = []
    for data in group:
        ev = construct_type_unchecked(type_=ResponseStreamEvent, value=data)
        if data.get("type") == "error":
            err_events.append(data)
        out = state.handle_event(ev)
        for o in out:
            if o.type in ("response.completed", "response.failed", "response.incomplete"):
                final = o.response
    if final is not None and not final.output and getattr(state, "_completed_output", None):
        # the lifecycle event carried "output": [] (hand-made fixtures do); the SDK
        # takes that list as authoritative.  Compare with the items the SDK
        # accumulated from the stream instead, and say so.
        notes.append("(info) SDK final response has output=[] (taken verbatim from the lifecycle event, streamed items dropped); compared the SDK's streamed items instead")
        from openai._compat import model_copy

        final = model_copy(final)
        final.output = [state._completed_output[i] for i in sorted(state._completed_output)]
    return final, err_events, state


def sdk_openai_responses(path):
    raw = []
    notes = []
    for sse in sse_events_openai(path):
        if sse.data.startswith("[DONE]"):
            break
        raw.append(sse.json())
    results = []
    for group in split_responses(raw):
        try:
            results.append(fold_responses_group(group, notes))
        except RuntimeError as e:
            if "identity" not in str(e):
                notes.append(f"SDK raised {type(e).__name__}: {str(e)[:160]}")
                results.append((None, [], None))
                continue
            notes.append(f"SDK raised RuntimeError({e}); (info) re-folded after normalizing rotated ids")
            try:
                results.append(fold_responses_group(normalize_ids(group), notes))
            except Exception as e2:
                notes.append(f"SDK raised {type(e2).__name__} even after id normalization: {str(e2)[:160]}")
                results.append((None, [], None))
        except Exception as e:
            notes.append(f"SDK raised {type(e).__name__}: {str(e)[:160]}")
            results.append((None, [], None))
    return results, notes, len(raw)


def cmp_openai_responses(lm, path):
    d = Diff()
    try:
        results, notes, nraw = sdk_openai_responses(path)
    except Exception as e:
        d.note(f"SDK raised {type(e).__name__}: {str(e)[:160]}")
        return d
    for n_ in notes:
        d.note(n_)
    if len(results) > 1:
        d.note(f"(info) body holds {len(results)} responses; SDK state folded each separately")
    finals = [r[0] for r in results]
    if not any(f is not None for f in finals):
        d.note("SDK reached no final response (no completed/failed/incomplete)")
        return d
    c = lm["choices"][0] if lm["choices"] else {"text": "", "reasoning": "", "refusal": None, "tool_calls": [], "finish_reason": None}
    text, refusal, reasoning, calls = "", None, "", []
    usage = None
    status = None
    for f in finals:
        if f is None:
            continue
        for item in f.output or []:
            t = item.type
            if t == "message":
                for part in item.content or []:
                    if part.type == "output_text":
                        text += part.text
                    elif part.type == "refusal":
                        refusal = (refusal or "") + part.refusal
            elif t == "reasoning":
                for s in item.summary or []:
                    reasoning += s.text
                for s in getattr(item, "content", None) or []:
                    reasoning += getattr(s, "text", "")
            elif t == "function_call":
                calls.append({"id": item.call_id, "name": item.name, "arguments_text": item.arguments, "arguments": parse_json_or(item.arguments)})
            elif t == "custom_tool_call":
                calls.append({"id": item.call_id, "name": item.name, "arguments_text": item.input, "arguments": None})
        if f.usage is not None:
            u = f.usage
            if usage is None:
                usage = {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
            usage["input_tokens"] += u.input_tokens
            usage["output_tokens"] += u.output_tokens
            usage["total_tokens"] += u.total_tokens
            if u.output_tokens_details is not None:
                usage["reasoning_tokens"] = usage.get("reasoning_tokens", 0) + (u.output_tokens_details.reasoning_tokens or 0)
            if u.input_tokens_details is not None:
                usage["cached_input_tokens"] = usage.get("cached_input_tokens", 0) + (u.input_tokens_details.cached_tokens or 0)
        status = f.status
        if f.status == "incomplete" and f.incomplete_details:
            status = f.incomplete_details.reason
    sdk_parts = []
    for f in finals:
        if f is None:
            continue
        for item in f.output or []:
            t = item.type
            if t == "message":
                for part in item.content or []:
                    if part.type == "output_text":
                        pp = {"type": "text", "text": part.text}
                        # What llmstream prints on a text part, from what
                        # the SDK keeps on the part and its item.
                        annotations = getattr(part, "annotations", None) or []
                        if annotations:
                            pp["citations"] = [a.to_dict() for a in annotations]
                        if getattr(item, "phase", None):
                            pp["phase"] = item.phase
                        logprobs = getattr(part, "logprobs", None) or []
                        if logprobs:
                            pp["logprobs"] = [lp.to_dict() for lp in logprobs]
                        sdk_parts.append(pp)
                    elif part.type == "refusal":
                        sdk_parts.append({"type": "refusal", "text": part.refusal})
            elif t == "reasoning":
                for sm in item.summary or []:
                    pp = {"type": "reasoning", "text": sm.text}
                    sdk_parts.append(pp)
                if not item.summary:
                    sdk_parts.append({"type": "reasoning", "text": ""})
                if getattr(item, "encrypted_content", None):
                    sdk_parts[-1]["signature"] = item.encrypted_content
            elif t in ("function_call", "custom_tool_call"):
                sdk_parts.append({"type": "tool_call", "id": item.call_id})
            else:
                sdk_parts.append({"type": "raw", "value": item.to_dict()})
    lparts = c.get("content", [])
    d.eq("content part types", [x["type"] for x in lparts], [x["type"] for x in sdk_parts])
    for i, (a, b) in enumerate(zip(lparts, sdk_parts)):
        if a != b:
            d.eq(f"content[{i}]", a, b)
    first = next(f for f in finals if f is not None)
    d.eq("id", lm["id"], first.id)
    d.eq("model", lm["model"], first.model)
    d.eq("text", c["text"], text)
    d.eq("refusal", c["refusal"], refusal)
    d.eq("reasoning", c["reasoning"], reasoning)
    d.eq("finish_reason/status", c["finish_reason"], status)
    lc = c["tool_calls"]
    d.eq("tool_calls count", len(lc), len(calls))
    for i, (a, b) in enumerate(zip(lc, calls)):
        q = f"tool_calls[{i}]."
        d.eq(q + "id", a["id"], b["id"])
        d.eq(q + "name", a["name"], b["name"])
        d.eq(q + "arguments_text", a["arguments_text"], b["arguments_text"])
        if b["arguments"] is not None:
            d.eq(q + "arguments(parsed)", a["arguments"], b["arguments"])
    lu = lm_usage(lm)
    if usage is not None:
        d.eq("usage.input", lu.get("input_tokens"), usage["input_tokens"])
        d.eq("usage.output", lu.get("output_tokens"), usage["output_tokens"])
        d.eq("usage.total", lu.get("total_tokens"), usage["total_tokens"])
        d.eq("usage.reasoning", lu.get("reasoning_tokens"), usage.get("reasoning_tokens"))
        d.eq("usage.cached", lu.get("cached_input_tokens"), usage.get("cached_input_tokens"))
    elif lm.get("usage"):
        d.note(f"usage: llmstream={short(lm['usage'])} sdk=None")
    # errors
    sdk_err = None
    for f, errs, _ in results:
        if errs and sdk_err is None:
            sdk_err = errs[0]
        if f is not None and f.error is not None and sdk_err is None:
            sdk_err = f.error.to_dict()
    d.eq("error present", lm["error"] is not None, sdk_err is not None)
    return d


# --------------------------------------------------------------------------- Anthropic


def sdk_anthropic(path):
    from anthropic.lib.streaming._messages import accumulate_event
    from anthropic.types import RawMessageStreamEvent
    from anthropic._models import construct_type_unchecked

    snap = None
    bufs: dict = {}
    notes = []
    for sse in sse_events_anthropic(path):
        # anthropic.Stream.__stream__ filtering
        if sse.event == "ping":
            continue
        if sse.event is None:
            continue
        if sse.event == "error":
            notes.append(f"SDK Stream raises APIStatusError({sse.data[:80]})")
            break
        if not sse.data:
            continue
        data = sse.json()
        ev = construct_type_unchecked(type_=RawMessageStreamEvent, value=data)
        if snap is None and data.get("type") != "message_start":
            continue  # MessageStream passes these through without accumulating
        snap = accumulate_event(event=ev, current_snapshot=snap, json_bufs=bufs)
    return snap, notes


def cmp_anthropic(lm, path):
    d = Diff()
    try:
        msg, notes = sdk_anthropic(path)
    except Exception as e:
        d.note(f"SDK raised {type(e).__name__}: {str(e)[:160]}")
        return d
    for n_ in notes:
        d.note(n_)
    if msg is None:
        d.note("SDK produced no message")
        return d
    c = lm["choices"][0] if lm["choices"] else {"text": "", "reasoning": "", "refusal": None, "tool_calls": [], "finish_reason": None, "role": None}
    text, thinking, calls, sigs = "", "", [], []
    for b in msg.content:
        t = b.type
        if t == "text":
            text += b.text
        elif t == "thinking":
            thinking += b.thinking
            sigs.append(b.signature)
        elif t in ("tool_use", "server_tool_use", "mcp_tool_use"):
            calls.append({"id": b.id, "name": b.name, "arguments": b.input})
    d.eq("id", lm["id"], msg.id)
    d.eq("model", lm["model"], msg.model)
    d.eq("role", c.get("role"), msg.role)
    d.eq("text", c["text"], text)
    d.eq("thinking", c["reasoning"], thinking)
    lsigs = [p.get("signature") for p in c.get("content", []) if p.get("type") == "reasoning"]
    d.eq("thinking signatures", lsigs, sigs)
    d.eq("stop_reason", c["finish_reason"], msg.stop_reason)
    sd = getattr(msg, "stop_details", None)
    sd = sd.to_dict() if hasattr(sd, "to_dict") else sd
    d.eq("stop_details", c.get("finish_details"), sd)
    # block by block, in order
    sdk_parts = []
    for b in msg.content:
        t = b.type
        bd = b.to_dict()
        if t == "text":
            part = {"type": "text", "text": b.text}
            if bd.get("citations"):
                part["citations"] = bd["citations"]
            sdk_parts.append(part)
        elif t == "thinking":
            part = {"type": "reasoning", "text": b.thinking}
            if b.signature:
                part["signature"] = b.signature
            sdk_parts.append(part)
        elif t in ("tool_use", "server_tool_use", "mcp_tool_use"):
            sdk_parts.append({"type": "tool_call", "id": b.id})
        else:
            sdk_parts.append({"type": "raw", "value": bd})
    lparts = c.get("content", [])
    d.eq("content part types", [x["type"] for x in lparts], [x["type"] for x in sdk_parts])
    for i, (a, b) in enumerate(zip(lparts, sdk_parts)):
        if a != b:
            d.eq(f"content[{i}]", a, b)
    lc = c["tool_calls"]
    d.eq("tool_calls count", len(lc), len(calls))
    for i, (a, b) in enumerate(zip(lc, calls)):
        q = f"tool_calls[{i}]."
        d.eq(q + "id", a["id"], b["id"])
        d.eq(q + "name", a["name"], b["name"])
        d.eq(q + "input(parsed)", a["arguments"], b["arguments"])
    u = msg.usage
    lu = lm_usage(lm)
    if u is not None:
        inp = (u.input_tokens or 0) + (u.cache_read_input_tokens or 0) + (u.cache_creation_input_tokens or 0)
        if u.input_tokens is None:
            inp = None
        d.eq("usage.input(incl cache)", lu.get("input_tokens"), inp)
        d.eq("usage.output", lu.get("output_tokens"), u.output_tokens)
        d.eq("usage.cache_read", lu.get("cached_input_tokens"), u.cache_read_input_tokens)
        d.eq("usage.cache_write", lu.get("cache_write_input_tokens"), u.cache_creation_input_tokens)
    return d


# --------------------------------------------------------------------------- Gemini


GEM_NOTES: list = []


def patch_signatures(data):
    import base64, binascii

    n = 0
    for c in data.get("candidates") or []:
        for part in (c.get("content") or {}).get("parts") or []:
            sig = part.get("thoughtSignature")
            if isinstance(sig, str):
                try:
                    base64.b64decode(sig, validate=True)
                except (binascii.Error, ValueError):
                    part["thoughtSignature"] = base64.b64encode(sig.encode()).decode()
                    n += 1
    return n


def set_path(root, path, value, append):
    """$.a.b[0].c -> assign in nested dict/list; append=True concatenates strings"""
    import re

    toks = re.findall(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]", path[1:])
    keys = [k if k else (int(i) if i else q) for k, i, q in toks]
    cur = root
    for i, k in enumerate(keys):
        last = i == len(keys) - 1
        nxt = None if last else ([] if isinstance(keys[i + 1], int) else {})
        if isinstance(k, int):
            while len(cur) <= k:
                cur.append(None)
            if last:
                cur[k] = (cur[k] + value) if append and isinstance(cur[k], str) else value
            else:
                if cur[k] is None:
                    cur[k] = nxt
                cur = cur[k]
        else:
            if last:
                cur[k] = (cur[k] + value) if append and isinstance(cur.get(k), str) else value
            else:
                if k not in cur:
                    cur[k] = nxt
                cur = cur[k]


def sdk_gemini(path):
    from google.genai import types
    from google.genai.models import _GenerateContentResponse_from_mldev

    chunks = []
    for sse in sse_events_openai(path):
        if not sse.data:
            continue
        data = sse.json()
        patched = patch_signatures(data)
        if patched:
            GEM_NOTES.append("(info) non-base64 thoughtSignature (hand-made fixture) base64-encoded for the SDK's bytes field; signatures not compared")
        # what Models.generate_content_stream does with each chunk (mldev path)
        data = _GenerateContentResponse_from_mldev(data, None, None)
        chunks.append(types.GenerateContentResponse._from_response(response=data, kwargs={"config": {}}))
    return chunks


def cmp_gemini(lm, path):
    d = Diff()
    GEM_NOTES.clear()
    try:
        chunks = sdk_gemini(path)
    except Exception as e:
        d.note(f"SDK raised {type(e).__name__}: {str(e)[:160]}")
        return d
    import base64
    for n_ in sorted(set(GEM_NOTES)):
        d.note(n_)
    cands = {}
    usage = None
    rid = model = None
    partial = False
    for ch in chunks:
        rid = rid or ch.response_id
        model = model or ch.model_version
        if ch.prompt_feedback is not None and ch.prompt_feedback.block_reason is not None:
            d.note(f"(info) promptFeedback.blockReason={ch.prompt_feedback.block_reason}; SDK has no candidate")
        if ch.usage_metadata is not None and (ch.usage_metadata.prompt_token_count is not None or ch.usage_metadata.total_token_count is not None):
            usage = ch.usage_metadata
        for cand in ch.candidates or []:
            idx = cand.index or 0
            st = cands.setdefault(idx, {"text": "", "thought": "", "calls": [], "finish": None})
            if cand.content and cand.content.parts:
                for part in cand.content.parts:
                    if part.text is not None:
                        if part.thought:
                            st["thought"] += part.text
                        else:
                            st["text"] += part.text
                    if part.function_call is not None:
                        fc = part.function_call
                        sig = part.thought_signature
                        sig = base64.b64encode(sig).decode() if sig else None
                        if fc.name:
                            # a named call: whole, or the start of a streamed one
                            st["calls"].append({"id": fc.id, "name": fc.name, "arguments": fc.args if fc.args is not None else {}, "signature": sig})
                            st["open"] = bool(fc.will_continue)
                            if fc.will_continue:
                                partial = True
                        elif fc.partial_args and st.get("open"):
                            # reference fold of streamed arguments (google-genai has none)
                            args = st["calls"][-1]["arguments"]
                            for pa in fc.partial_args:
                                if pa.string_value is not None:
                                    v, app = pa.string_value, True
                                elif pa.number_value is not None:
                                    v, app = pa.number_value, False
                                elif pa.bool_value is not None:
                                    v, app = pa.bool_value, False
                                else:
                                    v, app = None, False
                                set_path(args, pa.json_path, v, app)
                            if not fc.will_continue:
                                st["open"] = False
                        else:
                            st["open"] = False
            if cand.finish_reason is not None:
                st["finish"] = cand.finish_reason.value if hasattr(cand.finish_reason, "value") else str(cand.finish_reason)
    d.eq("id", lm["id"], rid)
    d.eq("model", lm["model"], model)
    lmc = {c["index"]: c for c in lm["choices"]}
    d.eq("candidate indices", sorted(lmc), sorted(cands))
    for idx in sorted(set(lmc) & set(cands)):
        c, s = lmc[idx], cands[idx]
        p = f"cand[{idx}]."
        d.eq(p + "text", c["text"], s["text"])
        d.eq(p + "thought", c["reasoning"], s["thought"])
        d.eq(p + "finishReason", c["finish_reason"], s["finish"])
        lc = c["tool_calls"]
        d.eq(p + "function_calls count", len(lc), len(s["calls"]))
        for i, (a, b) in enumerate(zip(lc, s["calls"])):
            q = f"{p}calls[{i}]."
            d.eq(q + "name", a["name"], b["name"])
            d.eq(q + "args", a["arguments"], b["arguments"])
            if b["id"]:
                d.eq(q + "id", a["id"], b["id"])
            if not GEM_NOTES:
                d.eq(q + "thoughtSignature", a.get("signature"), b["signature"])
    if partial:
        d.note("(info) streamed partialArgs: google-genai has no accumulator; args compared with a reference fold of the SDK-parsed partial_args")
    if usage is not None:
        lu = lm_usage(lm)
        inp = None if usage.prompt_token_count is None else usage.prompt_token_count + (usage.tool_use_prompt_token_count or 0)
        out = None
        if usage.candidates_token_count is not None or usage.thoughts_token_count is not None:
            out = (usage.candidates_token_count or 0) + (usage.thoughts_token_count or 0)
        d.eq("usage.input", lu.get("input_tokens"), inp)
        d.eq("usage.output(incl thoughts)", lu.get("output_tokens"), out)
        d.eq("usage.total", lu.get("total_tokens"), usage.total_token_count)
    return d


# --------------------------------------------------------------------------- main

CMP = {
    "openai-chat": cmp_openai_chat,
    "openai-responses": cmp_openai_responses,
    "anthropic": cmp_anthropic,
    "gemini": cmp_gemini,
}


def main():
    rows = []
    ok = 0
    for label, prov, path in collect():
        lm, err = run_llmstream(path, prov)
        if lm is None:
            rows.append((label, prov, [f"llmstream failed: {err}"]))
            continue
        try:
            d = CMP[prov](lm, path)
            diffs = d.items
        except Exception as e:
            diffs = [f"harness error {type(e).__name__}: {e}"] + ([traceback.format_exc()] if VERBOSE else [])
        diffs += self_consistency(path, prov, lm)
        real = [x for x in diffs if not x.startswith("(info)")]
        if not real:
            ok += 1
        rows.append((label, prov, diffs))
    w = max(len(r[0]) for r in rows)
    for label, prov, diffs in rows:
        real = [x for x in diffs if not x.startswith("(info)")]
        status = "OK" if not real else "DIFF"
        print(f"{label:<{w}}  {prov:<16}  {status}")
        for x in diffs:
            print(f"{'':<{w}}    - {x}")
    print(f"\n{ok}/{len(rows)} recordings matched fully")


if __name__ == "__main__":
    main()
