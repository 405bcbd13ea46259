#!/usr/bin/env bash
# The Node.js package's benchmark: the inputs written by the Rust benches
# and by cli-bench (so Node reads the same bytes as Rust and Python), the
# package's dependencies (npm install, which also builds the addon, when
# the peers are not installed yet), then bench.js with the garbage
# collector exposed. Its snapshot rows are appended to the scaling CSV
# given as $1 (default: none). Not part of CI: figures go to BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/../../.."

inputs=target/bench-inputs
mkdir -p "$inputs"
SCALING_DUMP="$PWD/$inputs" cargo bench -p llmstream --bench scaling
cargo build --release -p llmstream-cli-bench --bin cli-bench-inputs
target/release/cli-bench-inputs "$inputs"

package=crates/llmstream-node
if [ ! -d "$package/node_modules/partial-json" ] || [ ! -d "$package/node_modules/eventsource-parser" ] || [ ! -f "$package/llmstream.node" ]; then
    (cd "$package" && npm install)
fi

csv=()
if [ $# -gt 0 ]; then csv=(--csv "$(realpath -m "$1")"); fi
cd "$package"
node --expose-gc bench/bench.js --inputs "../../$inputs" "${csv[@]}"
