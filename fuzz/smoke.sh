#!/usr/bin/env bash
# A bounded fuzz smoke: builds every target and runs each for SECONDS
# (default 20) on the seed corpus, one after the other. Exits non-zero on
# the first finding. Needs cargo-fuzz (`cargo install cargo-fuzz`); works on
# the stable toolchain through RUSTC_BOOTSTRAP=1, without a sanitizer.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
seconds="${1:-20}"
targets=(json_parser json_lenient json_repair sse_decoder providers actions chunker utf8)
export RUSTC_BOOTSTRAP=1
# A fresh, seed-only corpus and a fixed libFuzzer seed: every run replays
# the same sequence of inputs (a time limit only cuts it shorter), so a
# smoke that passed for longer here replays a prefix of the same inputs in CI.
corpus="$(mktemp -d)"
trap 'rm -rf "$corpus" "${marker:-}"' EXIT
CORPUS="$corpus" "$here/seed.sh" >/dev/null || echo "smoke.sh: no fixtures; starting from empty corpora" >&2
cargo fuzz build -s none
marker="$(mktemp)"
for target in "${targets[@]}"; do
    mkdir -p "$corpus/$target" "artifacts/$target"
    echo "== $target (${seconds}s)"
    cargo fuzz run -s none "$target" "$corpus/$target" -- \
        -seed=1 -timeout=10 -max_total_time="$seconds" -print_final_stats=1 2>&1 \
        | grep -E '^stat::number_of_executed_units|^#[0-9]+ +DONE|panicked|ERROR|SUMMARY' || true
    # grep hides the exit status; a crash leaves an artifact.
    found="$(find "artifacts/$target" -type f -newer "$marker")"
    if [ -n "$found" ]; then
        echo "smoke.sh: $target found: $found" >&2
        exit 1
    fi
done
echo "fuzz smoke: ${#targets[@]} targets, ${seconds}s each, no finding"
