#!/usr/bin/env bash
# CI of the Python package: a fresh virtual environment, the package built
# from source by pip (maturin, the build backend, comes from PyPI), and its
# tests, which compare it with the release CLI over ../shared/fixtures;
# and the gateway's tests with the official openai and anthropic SDKs.
# Needs python3 (3.9 or later) with venv and pip, and the Rust toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/python-venv
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet ./crates/llmstream-python pytest hypothesis jiter httpx mypy openai anthropic

# The tests check the package against the CLI's output.
cargo build --release -p llmstream-cli

"$venv/bin/python" -m pytest -q crates/llmstream-python/tests

# The gateway with the official SDKs as clients (the release binary).
"$venv/bin/python" -m pytest -q crates/llmstream-cli/tests/sdk

# The type stubs against the installed module (every name, signature and
# class), and the examples and the benchmark type-checked against them
# (the peers the benchmark compares with are not installed here: imports
# without stubs are not followed).
(cd target && "../$venv/bin/python" -m mypy.stubtest llmstream)
"$venv/bin/python" -m mypy --ignore-missing-imports crates/llmstream-python/examples crates/llmstream-python/bench
