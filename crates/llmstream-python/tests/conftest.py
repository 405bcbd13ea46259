"""Shared helpers: where the shared fixtures and the CLI binary are, and how
to cut an input into random pieces."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
FIXTURES = (REPO / ".." / "shared" / "fixtures").resolve()
CLI = REPO / "target" / "release" / "llmstream"


def fixtures(*parts: str) -> Path:
    """A directory of the shared fixtures; the test is skipped without it."""
    path = FIXTURES.joinpath(*parts)
    if not path.is_dir():
        pytest.skip(f"no fixtures at {path}")
    return path


def cli_binary() -> Path:
    """The release CLI, built when missing."""
    if not CLI.exists():
        subprocess.run(
            ["cargo", "build", "--release", "-p", "llmstream-cli"],
            cwd=REPO,
            check=True,
        )
    return CLI


def cli_lines(args: list[str], data: bytes) -> tuple[int, list]:
    """The exit code and the JSON lines the CLI prints for `data`."""
    done = subprocess.run(
        [str(cli_binary()), *args], input=data, capture_output=True, check=False
    )
    lines = [json.loads(line) for line in done.stdout.decode().splitlines() if line]
    return done.returncode, lines


def pieces(data: bytes, seed: int, most: int = 16) -> list[bytes]:
    """`data` cut into pieces of 1 to `most` bytes chosen by a seeded
    generator (cuts fall anywhere, inside a UTF-8 sequence too)."""
    rng = random.Random(seed)
    out, at = [], 0
    while at < len(data):
        step = rng.randint(1, most)
        out.append(data[at : at + step])
        at += step
    return out
