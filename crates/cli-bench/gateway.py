#!/usr/bin/env python3
"""The gateway's cost: latency it adds to each delta, memory per open stream.

Standard library only. A fake OpenAI Chat upstream writes one chat chunk
at a time, stamping each with the time it was written; the client reads
the gateway's translated stream (served as Anthropic) and notes when each
delta arrives. The same client reading the fake upstream directly is the
baseline: the added latency is the gateway's transit time per delta less
the direct one (medians and 99th percentiles over every delta of every
stream). Memory: N streams held open at once (the upstream writes one
delta and waits), the gateway's resident set size before and with them,
divided by N. Not part of CI: figures go to BENCHMARKS.md.

    python3 crates/cli-bench/gateway.py --bin target/release/llmstream
"""

import argparse
import json
import socket
import statistics
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DELTAS = 200


def chunk(i: int) -> bytes:
    stamp = time.perf_counter_ns()
    payload = {
        "id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
        "choices": [{"index": 0, "delta": {"content": f"<{i}:{stamp}>"}, "finish_reason": None}],
    }
    return f"data: {json.dumps(payload)}\n\n".encode()


class Upstream:
    def __init__(self, hold: threading.Event | None = None, pause: float = 0.002):
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):  # noqa: N802
                self.rfile.read(int(self.headers.get("content-length", 0)))
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("connection", "close")
                self.end_headers()
                for i in range(DELTAS):
                    self.wfile.write(chunk(i))
                    self.wfile.flush()
                    if hold is not None:
                        hold.wait()
                    time.sleep(pause)
                end = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
                       "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
                self.wfile.write(f"data: {json.dumps(end)}\n\ndata: [DONE]\n\n".encode())

            def log_message(self, *args):
                pass

        ThreadingHTTPServer.request_queue_size = 4096
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # Clients that hang up after the measurement are not news.
        self.server.handle_error = lambda request, client_address: None
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.address = "%s:%d" % self.server.server_address[:2]


def request(address: str, path: str) -> socket.socket:
    body = json.dumps({"model": "m", "stream": True, "max_tokens": 10,
                       "messages": [{"role": "user", "content": "hi"}]}).encode()
    host, port = address.rsplit(":", 1)
    sock = socket.create_connection((host, int(port)))
    sock.sendall(
        f"POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n".encode() + body
    )
    return sock


def transit(address: str, path: str) -> list[float]:
    """Microseconds from each delta's write upstream to its arrival here."""
    sock = request(address, path)
    seen, out, buf = set(), [], b""
    while True:
        data = sock.recv(65536)
        now = time.perf_counter_ns()
        if not data:
            break
        buf += data
        while True:
            start = buf.find(b"<")
            end = buf.find(b">", start)
            if start < 0 or end < 0:
                break
            i, stamp = buf[start + 1 : end].split(b":")
            buf = buf[end + 1 :]
            if i not in seen:
                seen.add(i)
                out.append((now - int(stamp)) / 1000)
    sock.close()
    return out


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def start_gateway(binary: str, upstream: str):
    process = subprocess.Popen(
        [binary, "gateway", "--listen", "127.0.0.1:0", "--upstream", f"http://{upstream}/v1",
         "--upstream-format", "openai-chat", "--serve", "anthropic"],
        stderr=subprocess.PIPE,
    )
    line = process.stderr.readline().decode()
    threading.Thread(target=process.stderr.read, daemon=True).start()
    return process, line.split("http://")[1].split(",")[0]


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default="target/release/llmstream")
    parser.add_argument("--streams", type=int, default=20, help="streams timed for latency")
    parser.add_argument("--open", type=int, default=1000, help="streams held open for memory")
    args = parser.parse_args()

    upstream = Upstream()
    gateway, address = start_gateway(args.bin, upstream.address)
    try:
        direct, through = [], []
        for _ in range(args.streams):
            direct += transit(upstream.address, "/v1/chat/completions")
            through += transit(address, "/v1/messages")
        added_median = statistics.median(through) - statistics.median(direct)
        added_p99 = percentile(through, 0.99) - percentile(direct, 0.99)
        print(f"latency per delta, {len(through)} deltas over {args.streams} streams (µs):")
        print(f"  direct:  median {statistics.median(direct):8.1f}  p99 {percentile(direct, 0.99):8.1f}")
        print(f"  gateway: median {statistics.median(through):8.1f}  p99 {percentile(through, 0.99):8.1f}")
        print(f"  added:   median {added_median:8.1f}  p99 {added_p99:8.1f}")
    finally:
        gateway.kill()
        gateway.wait()

    hold = threading.Event()
    held = Upstream(hold=hold)
    gateway, address = start_gateway(args.bin, held.address)
    try:
        time.sleep(0.5)
        before = rss_kib(gateway.pid)
        socks = [request(address, "/v1/messages") for _ in range(args.open)]
        for sock in socks:
            sock.settimeout(30)
            while b"text_delta" not in sock.recv(65536):
                pass
        time.sleep(0.5)
        during = rss_kib(gateway.pid)
        print(f"memory: {args.open} open streams, gateway RSS {before} KiB idle, {during} KiB with them: "
              f"{(during - before) / args.open:.1f} KiB a stream")
        hold.set()
        for sock in socks:
            sock.close()
    finally:
        gateway.kill()
        gateway.wait()


if __name__ == "__main__":
    main()
