#!/usr/bin/env bash
# The llmstream CLI against programs built on its peers, each timed as a
# whole process, stdin to stdout (see BENCHMARKS.md, "The CLI"):
#
#   chat       llmstream sse --chunk-size 65536, 21 MB OpenAI chat stream,
#              against peer-eventsource (eventsource-stream + serde_json)
#              and peer-sse-stream (sse-stream + serde_json)
#   long line  llmstream sse --chunk-size 1460, one 4 MiB data line
#   json       llmstream json, a 1 MiB text-heavy document, against
#              peer-serde-json (serde_json::from_slice + to_writer)
#
# Builds the release binaries, writes the inputs to a temporary directory,
# checks that every peer prints exactly what llmstream prints, times each
# command (hyperfine when installed, else a loop here) and prints the
# ratios of the fastest runs: on a machine shared with other work, the
# least disturbed run is the one that says what the program costs (the
# medians are printed too). RUNS=N sets the runs per command (default 30).

set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${RUNS:-30}
cd "$root"
cargo build --release -p llmstream-cli -p llmstream-cli-bench
bin=$root/target/release
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$bin/cli-bench-inputs" "$dir"

# Same output, byte for byte, or no timing.
same() {
    local input=$1 expected=$2
    shift 2
    "$@" <"$dir/$input" >"$dir/peer.out"
    if ! cmp -s "$dir/$expected" "$dir/peer.out"; then
        echo "run.sh: $* prints other lines than llmstream for $input" >&2
        exit 1
    fi
}
"$bin/llmstream" sse --chunk-size 65536 <"$dir/chat.sse" >"$dir/chat.out"
same chat.sse chat.out "$bin/peer-eventsource" 65536
same chat.sse chat.out "$bin/peer-sse-stream" 65536
"$bin/llmstream" sse --chunk-size 1460 <"$dir/long_line.sse" >"$dir/long_line.out"
same long_line.sse long_line.out "$bin/peer-eventsource" 1460
same long_line.sse long_line.out "$bin/peer-sse-stream" 1460
"$bin/llmstream" json <"$dir/text.json" >"$dir/text.out"
same text.json text.out "$bin/peer-serde-json"
echo "outputs identical: chat $(wc -l <"$dir/chat.out") lines, long line, json"

# timing NAME INPUT COMMAND...: "MIN MEDIAN", the fastest and the median
# wall time of the command in seconds, its input on stdin and its output
# to /dev/null; RUNS runs after WARM (default 3) unmeasured ones.
timing() {
    local name=$1 input=$2 runs=${COUNT:-$runs} warm=${WARM:-3}
    shift 2
    if command -v hyperfine >/dev/null; then
        hyperfine --style basic -w "$warm" -r "$runs" -n "$name" \
            --export-json "$dir/$name.json" "$* <$dir/$input >/dev/null" >&2
        local min med
        min=$(grep -o '"min": *[0-9.e-]*' "$dir/$name.json" | head -1 | sed 's/.*: *//')
        med=$(grep -o '"median": *[0-9.e-]*' "$dir/$name.json" | head -1 | sed 's/.*: *//')
        echo "$min $med"
    else
        local i t0 t1
        for ((i = 0; i < runs + warm; i++)); do
            t0=$(date +%s%N)
            "$@" <"$dir/$input" >/dev/null
            t1=$(date +%s%N)
            if ((i >= warm)); then echo $((t1 - t0)); fi
        done | sort -n | awk '{ t[NR] = $1 } END { printf "%.6f %.6f\n", t[1] / 1e9, t[int((NR + 1) / 2)] / 1e9 }'
    fi
}

chat=$(timing chat-llmstream chat.sse "$bin/llmstream" sse --chunk-size 65536)
chat_es=$(timing chat-eventsource chat.sse "$bin/peer-eventsource" 65536)
chat_ss=$(timing chat-sse-stream chat.sse "$bin/peer-sse-stream" 65536)
long=$(timing long-llmstream long_line.sse "$bin/llmstream" sse --chunk-size 1460)
# eventsource-stream takes seconds over this one (it searches its whole
# buffer again for each piece): three runs.
long_es=$(COUNT=3 WARM=0 timing long-eventsource long_line.sse "$bin/peer-eventsource" 1460)
long_ss=$(timing long-sse-stream long_line.sse "$bin/peer-sse-stream" 1460)
json=$(timing json-llmstream text.json "$bin/llmstream" json)
json_serde=$(timing json-serde-json text.json "$bin/peer-serde-json")

chat_bytes=$(wc -c <"$dir/chat.sse")
long_bytes=$(wc -c <"$dir/long_line.sse")
json_bytes=$(wc -c <"$dir/text.json")
awk -v c="$chat" -v ce="$chat_es" -v cs="$chat_ss" -v cb="$chat_bytes" \
    -v l="$long" -v le="$long_es" -v ls="$long_ss" -v lb="$long_bytes" \
    -v j="$json" -v js="$json_serde" -v jb="$json_bytes" -v runs="$runs" 'BEGIN {
    split(c, C, " "); split(ce, CE, " "); split(cs, CS, " ")
    split(l, L, " "); split(le, LE, " "); split(ls, LS, " ")
    split(j, J, " "); split(js, JS, " ")
    printf "\nfastest and median of %s runs (long line, peer-eventsource: 3), whole processes, stdin to stdout\n\n", runs
    printf "%-44s %9s %9s %8s %s\n", "command", "min ms", "median", "MB/s", "llmstream (min) is"
    row("chat: llmstream sse --chunk-size 65536", C, cb, "")
    row("chat: peer-eventsource", CE, cb, sprintf("%.2fx as fast (goal 4x)", CE[1] / C[1]))
    row("chat: peer-sse-stream", CS, cb, sprintf("%.2fx as fast (goal > 1x)", CS[1] / C[1]))
    row("long line: llmstream sse --chunk-size 1460", L, lb, sprintf("%.0f MB/s (goal 600)", lb / L[1] / 1e6))
    row("long line: peer-eventsource", LE, lb, sprintf("%.0fx as fast", LE[1] / L[1]))
    row("long line: peer-sse-stream", LS, lb, sprintf("%.2fx as fast", LS[1] / L[1]))
    row("json: llmstream json", J, jb, "")
    row("json: peer-serde-json", JS, jb, sprintf("%.2fx as fast (goal 1x)", JS[1] / J[1]))
}
function row(name, t, bytes, note) {
    printf "%-44s %9.1f %9.1f %8.0f %s\n", name, t[1] * 1000, t[2] * 1000, bytes / t[1] / 1e6, note
}'
