#!/usr/bin/env bash
# Lenient repair of malformed documents of 1 MiB and 4 MiB (rows with
# single quotes, comments, Python literals, quotes left inside strings,
# missing commas): `llmstream repair` timed as a whole process (reading,
# repairing and printing), against jsonrepair (npm) timed inside node on
# the same bytes (its call alone: node's start-up is not counted). Prints
# the best run of each and the ratios (see BENCHMARKS.md, "Lenient mode").
# RUNS=N sets llmstream's runs (default 5); jsonrepair runs once per
# input (it takes minutes), cut off after PEER_LIMIT seconds (default 900).
# Needs node and npm (jsonrepair is installed into a temporary directory).

set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${RUNS:-5}
peer_limit=${PEER_LIMIT:-900}
cd "$root"
cargo build --release -p llmstream-cli
bin=$root/target/release/llmstream
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

python3 - "$dir" <<'PY'
import sys
dir = sys.argv[1]
def doc(size):
    rows, n = [], 0
    total = 0
    while total < size:
        row = (
            "  {'id': %d, 'name': 'row %d', ok: True, note: None, // a comment\n"
            "   'quote': \"He said \"hi\" to me\", tags: ['a' 'b', 'c',], /* more */ 'x': 1.}" % (n, n)
        )
        rows.append(row)
        total += len(row) + 2
        n += 1
    return "Here are the rows:\n```json\n[\n" + ",\n".join(rows) + "\n]\n```\n"
for name, size in (("1m", 1 << 20), ("4m", 4 << 20)):
    with open(f"{dir}/{name}.txt", "w") as f:
        f.write(doc(size))
PY

(cd "$dir" && npm install --silent --no-audit --no-fund jsonrepair@3 >/dev/null)

best_ms() { sort -n | head -1; }
for name in 1m 4m; do
    input=$dir/$name.txt
    "$bin" repair "$input" >"$dir/$name.ours.json"
    ours=$(for _ in $(seq "$runs"); do
        start=$(date +%s%N)
        "$bin" repair "$input" >/dev/null
        end=$(date +%s%N)
        echo $(((end - start) / 1000))
    done | best_ms)
    theirs=$(cd "$dir" && timeout "$peer_limit" node -e '
        const { jsonrepair } = require("jsonrepair");
        const text = require("fs").readFileSync(process.argv[1], "utf8");
        let best = Infinity, out = "";
        for (let i = 0; i < Number(process.argv[2]); i++) {
            const t = process.hrtime.bigint();
            out = jsonrepair(text);
            best = Math.min(best, Number(process.hrtime.bigint() - t) / 1000);
        }
        require("fs").writeFileSync(process.argv[3], JSON.stringify(JSON.parse(out)));
        console.log(Math.round(best));
    ' "$input" 1 "$dir/$name.theirs.json" || echo "")
    bytes=$(stat -c %s "$input")
    if [ -z "$theirs" ]; then
        echo "$name ($bytes bytes): llmstream repair ${ours} us, jsonrepair did not finish in ${peer_limit} s (over $(python3 -c "print(round($peer_limit * 1e6 / $ours))")x)"
    else
        same=$(python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); print("same value" if a==b else "values differ")' "$dir/$name.ours.json" "$dir/$name.theirs.json")
        echo "$name ($bytes bytes): llmstream repair ${ours} us, jsonrepair ${theirs} us, jsonrepair/llmstream $(python3 -c "print(round($theirs/$ours, 1))")x; $same"
    fi
    echo "$ours" >"$dir/$name.us"
done
echo "4 MiB / 1 MiB (llmstream): $(python3 -c "print(round($(cat "$dir/4m.us")/$(cat "$dir/1m.us"), 2))")x"
