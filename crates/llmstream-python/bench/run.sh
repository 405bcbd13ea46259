#!/usr/bin/env bash
# The Python package's benchmark, from a fresh virtual environment: the
# inputs written by the Rust benches (so both languages read the same
# bytes), the package built in release mode, jiter, orjson and openai from
# PyPI, then bench.py. Its snapshot rows are appended to the scaling CSV
# given as $1 (default: none). Not part of CI: figures go to BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/../../.."

inputs=target/bench-inputs
mkdir -p "$inputs"
SCALING_DUMP="$PWD/$inputs" cargo bench -p llmstream --bench scaling
PROVBENCH_DUMP="$PWD/$inputs" cargo bench -p llmstream --bench providers

venv=target/python-bench-venv
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet ./crates/llmstream-python jiter orjson openai
"$venv/bin/python" -m pip list 2>/dev/null | grep -E '^(jiter|orjson|openai|llmstream-rs) '

csv=()
if [ $# -gt 0 ]; then csv=(--csv "$1"); fi
"$venv/bin/python" crates/llmstream-python/bench/bench.py --inputs "$inputs" "${csv[@]}"
