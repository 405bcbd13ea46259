#!/usr/bin/env python3
"""The Python package's speed against the readers Python programs use.

Reads the inputs the Rust benchmarks generate (`bench/run.sh` writes them
with `SCALING_DUMP` and `PROVBENCH_DUMP`), so the Python figures are on the
same bytes as the Rust ones in BENCHMARKS.md:

- `parse`: a 1 MiB text-heavy document (`text_args_1048576.json`) read
  whole into Python objects by `llmstream.parse`, `jiter.from_json`,
  `json.loads` and `orjson.loads`.
- `snapshot`: the value read after every 16-byte piece. llmstream's
  `JsonParser(events=False)`: `feed` + `.snapshot` per piece, against the
  text so far grown by the piece and parsed again with
  `jiter.from_json(accumulated, partial_mode="trailing-strings")` (what
  the openai and anthropic SDKs do per delta). The pieces are cut before
  timing. At every size from 1 KiB to 16 MiB;
  a re-parse cell predicted to take over `--cap` seconds is skipped.
  Rows for the scaling chart go to `--csv` (implementations `python` and
  `python-jiter`, the columns of `docs/scaling.csv`).
- `pipeline`: the 8.3 MB OpenAI Chat body (`openai_chat.sse`) in 1,460-byte
  pieces. llmstream's `Pipeline` (SSE, chunks, events as dicts, tool
  arguments parsed incrementally, the message at the end) against
  openai-python's `ChatCompletionStreamState`: fed chunk objects already
  built (`handle_chunk` alone), and from the bytes as the SDK's `Stream`
  reads them (its `SSEDecoder`, `json.loads`, `construct_type`, then
  `handle_chunk`).

Each cell is the median of three samples, each repeating the job for at
least `--min` seconds (one run when a run takes longer). Ratios are within
this one run. Timing is printed, never asserted.

    python bench.py --inputs DIR [--csv OUT] [--only parse,snapshot,pipeline]
"""

import argparse
import csv
import json
import os
import statistics
import sys
import time

import llmstream


def measure(job, min_seconds):
    """Seconds per run of `job`: the median of three samples."""
    start = time.perf_counter()
    job()
    first = time.perf_counter() - start
    if first >= min_seconds:
        return first
    reps = max(1, int(min_seconds / max(first, 1e-9)) + 1)
    samples = []
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(reps):
            job()
        samples.append((time.perf_counter() - start) / reps)
    return statistics.median(samples)


def read(inputs, name):
    with open(os.path.join(inputs, name), "rb") as f:
        return f.read()


def ms(seconds):
    return f"{seconds * 1e3:,.2f} ms"


def bench_parse(inputs, min_seconds):
    import jiter
    import orjson

    doc = read(inputs, "text_args_1048576.json")
    expected = json.loads(doc)
    readers = [
        ("llmstream.parse", lambda: llmstream.parse(doc)),
        ("jiter.from_json", lambda: jiter.from_json(doc)),
        ("json.loads", lambda: json.loads(doc)),
        ("orjson.loads", lambda: orjson.loads(doc)),
    ]
    print(f"parse: {len(doc):,} bytes of text-heavy tool arguments, whole, into Python objects")
    times = {}
    for name, job in readers:
        if job() != expected:
            sys.exit(f"{name} read the document differently from json.loads")
        times[name] = measure(job, min_seconds)
    ours = times["llmstream.parse"]
    for name, seconds in times.items():
        mb_s = len(doc) / seconds / 1e6
        print(f"  {name:18} {ms(seconds):>12}  {mb_s:8.0f} MB/s  {seconds / ours:6.2f}x llmstream's time")


def llmstream_snapshots(pieces):
    parser = llmstream.JsonParser(events=False)
    for piece in pieces:
        parser.feed(piece)
        parser.snapshot
    parser.finish()
    return parser.snapshot


def jiter_snapshots(pieces):
    """What the SDKs do per delta: the text so far grows by the delta and
    is parsed again."""
    import jiter

    accumulated = b""
    value = None
    for piece in pieces:
        accumulated += piece
        value = jiter.from_json(accumulated, partial_mode="trailing-strings")
    return value


SIZES = [1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20]


def bench_snapshot(inputs, min_seconds, cap, rows):
    piece = 16
    print(f"snapshot: the value read after every {piece}-byte piece, ns per byte of the document")
    print(f"  {'bytes':>10} {'llmstream':>12} {'jiter re-parse':>16} {'ratio':>9}")
    last_jiter = None
    for size in SIZES:
        doc = read(inputs, f"text_args_{size}.json")
        pieces = [doc[i : i + piece] for i in range(0, len(doc), piece)]
        expected = json.loads(doc)
        if llmstream_snapshots(pieces) != expected:
            sys.exit(f"llmstream's last snapshot at {size} bytes is not the document")
        ours = measure(lambda: llmstream_snapshots(pieces), min_seconds)
        rows.append(("python", piece, size, ours * 1e9 / size, ours))
        theirs = None
        predicted = None if last_jiter is None else last_jiter[1] * (size / last_jiter[0]) ** 2
        if predicted is None or predicted <= cap:
            if jiter_snapshots(pieces) != expected:
                sys.exit(f"jiter's last re-parse at {size} bytes is not the document")
            theirs = measure(lambda: jiter_snapshots(pieces), min_seconds)
            last_jiter = (size, theirs)
            rows.append(("python-jiter", piece, size, theirs * 1e9 / size, theirs))
        ns = lambda s: f"{s * 1e9 / size:,.1f}"
        if theirs is None:
            print(f"  {size:>10,} {ns(ours):>12} {'skipped':>16} {'':>9}  (predicted {predicted:,.0f} s a run)")
        else:
            print(f"  {size:>10,} {ns(ours):>12} {ns(theirs):>16} {theirs / ours:8.1f}x")


def sdk_chunks(body, pieces):
    """The SDK's reading of the body: its SSE decoder, json.loads, the
    chunk models built as its `Stream` builds them."""
    from openai._models import construct_type
    from openai._streaming import SSEDecoder
    from openai.types.chat import ChatCompletionChunk

    chunks = []
    for sse in SSEDecoder().iter_bytes(iter(pieces)):
        if sse.data.startswith("[DONE]"):
            break
        chunks.append(construct_type(type_=ChatCompletionChunk, value=json.loads(sse.data)))
    return chunks


def sdk_state(chunks):
    from openai.lib.streaming.chat import ChatCompletionStreamState

    state = ChatCompletionStreamState()
    for chunk in chunks:
        state.handle_chunk(chunk)
    return state.get_final_completion()


def llmstream_pipeline(pieces):
    pipeline = llmstream.Pipeline("openai-chat")
    for piece in pieces:
        pipeline.feed(piece)
    pipeline.finish()
    return pipeline.message


def bench_pipeline(inputs, min_seconds):
    body = read(inputs, "openai_chat.sse")
    pieces = [body[i : i + 1460] for i in range(0, len(body), 1460)]
    message = llmstream_pipeline(pieces)
    chunks = sdk_chunks(body, pieces)
    completion = sdk_state(chunks)
    choice = completion.choices[0]
    ours_choice = message["choices"][0]
    if choice.message.content != ours_choice["text"]:
        sys.exit("the SDK's text differs from llmstream's")
    sdk_calls = [(c.id, c.function.name, json.loads(c.function.arguments)) for c in choice.message.tool_calls]
    our_calls = [(c["id"], c["name"], c["arguments"]) for c in ours_choice["tool_calls"]]
    if sdk_calls != our_calls:
        sys.exit("the SDK's tool calls differ from llmstream's")
    print(f"pipeline: OpenAI Chat body, {len(body):,} bytes, {len(chunks):,} chunks, {len(pieces):,} pieces of 1,460 bytes")
    ours = measure(lambda: llmstream_pipeline(pieces), min_seconds)
    state = measure(lambda: sdk_state(chunks), min_seconds)
    whole = measure(lambda: sdk_state(sdk_chunks(body, pieces)), min_seconds)
    print(f"  {'llmstream Pipeline (bytes to message)':52} {ms(ours):>12}")
    print(f"  {'ChatCompletionStreamState.handle_chunk (chunks built)':52} {ms(state):>12}  {state / ours:6.2f}x llmstream's time")
    print(f"  {'openai-python from bytes (SSE, json, models, state)':52} {ms(whole):>12}  {whole / ours:6.2f}x llmstream's time")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", required=True, help="the folder SCALING_DUMP and PROVBENCH_DUMP wrote")
    parser.add_argument("--csv", help="append the snapshot rows (scaling.csv columns) to this file")
    parser.add_argument("--only", default="parse,snapshot,pipeline")
    parser.add_argument("--min", type=float, default=0.2, help="seconds a sample repeats a job for")
    parser.add_argument("--cap", type=float, default=10.0, help="skip re-parse cells predicted past this")
    args = parser.parse_args()
    only = set(args.only.split(","))
    print(f"llmstream {llmstream.__version__}, Python {sys.version.split()[0]}")
    if "parse" in only:
        bench_parse(args.inputs, args.min)
    rows = []
    if "snapshot" in only:
        bench_snapshot(args.inputs, args.min, args.cap, rows)
    if "pipeline" in only:
        bench_pipeline(args.inputs, args.min)
    if args.csv and rows:
        with open(args.csv, "a", newline="") as f:
            writer = csv.writer(f)
            for implementation, piece, size, ns_per_byte, seconds in rows:
                writer.writerow([implementation, piece, size, f"{ns_per_byte:.6f}", f"{seconds:.9f}"])


if __name__ == "__main__":
    main()
