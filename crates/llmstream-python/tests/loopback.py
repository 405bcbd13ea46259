"""A local HTTP server that streams recordings as text/event-stream, in
small chunks (chunked transfer encoding, a flush after each), for the
loopback and example tests."""

from __future__ import annotations

import random
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        self.serve()

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.server.requests.append((self.path, self.rfile.read(length)))
        self.serve()

    def serve(self) -> None:
        body = self.server.route(self.path)
        if body is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        rng = random.Random(len(body))
        at = 0
        while at < len(body):
            piece = body[at : at + rng.randint(1, 48)]
            at += len(piece)
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class Server:
    """`with Server(route) as base_url:` serves `route(path)` (bytes, or
    None for 404) on 127.0.0.1 in a thread."""

    def __init__(self, route: Callable[[str], "bytes | None"]) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.route = route
        self.httpd.requests = []

    @property
    def requests(self) -> list:
        return self.httpd.requests

    def __enter__(self) -> str:
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


def files_server(files: list[Path]) -> Server:
    """Serves `files[i]` at `/recording/i`."""

    def route(path: str) -> "bytes | None":
        parts = path.split("?")[0].strip("/").split("/")
        if len(parts) == 2 and parts[0] == "recording" and parts[1].isdigit():
            index = int(parts[1])
            if index < len(files):
                return files[index].read_bytes()
        return None

    return Server(route)
