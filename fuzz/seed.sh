#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ with seeds taken from ../shared/fixtures (or
# $FIXTURES) at run time, so that no fixture data is committed. Each seed is
# prefixed with the two header bytes the targets expect (no flags, no cuts);
# see src/lib.rs. Idempotent: files are named by their content's hash.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# Where the seeds go (smoke.sh uses a fresh directory of its own).
corpus="${CORPUS:-$here/corpus}"
fixtures="${FIXTURES:-$here/../../shared/fixtures}"
[ -d "$fixtures" ] || fixtures="$here/../shared/fixtures"
if [ ! -d "$fixtures" ]; then
    echo "seed.sh: no fixtures at $fixtures (set FIXTURES=...)" >&2
    exit 1
fi

# seed TARGET FLAGS FILE...: copies each file (under 64 KiB) with a header.
seed() {
    local target="$1" flags="$2"
    shift 2
    mkdir -p "$corpus/$target"
    local f name
    for f in "$@"; do
        [ -f "$f" ] || continue
        [ "$(stat -c %s "$f")" -le 65536 ] || continue
        name="$( { printf "\\x$flags\\x00"; cat "$f"; } | sha1sum | cut -c1-16)"
        { printf "\\x$flags\\x00"; cat "$f"; } > "$corpus/$target/seed-$name"
    done
}

json="$fixtures/json/JSONTestSuite/test_parsing"
seed json_parser 00 "$json"/*.json
seed json_repair 00 "$json"/*.json
seed json_lenient 00 "$json"/*.json

sse=("$fixtures"/providers/*/*.sse "$fixtures"/providers/*/*_response.txt "$fixtures"/providers/*/*.bin "$fixtures"/providers/*/_extracted/*.sse)
seed sse_decoder 00 "${sse[@]}"
# providers: bit 0 clear = an SSE body for a Pipeline; set = JSON lines.
seed providers 00 "${sse[@]}"
seed providers 01 "$fixtures"/providers/*/*.chunks.txt "$fixtures"/providers/*/*.jsonl

# actions: model text with JSON in it; the JSON-lines chunk recordings and
# the chunker snapshots are text with JSON objects at line starts.
seed actions 00 "$fixtures"/chunker/*.jsonl "$fixtures"/providers/*/*.chunks.txt
# chunker: bit 0 set = placeholders held.
seed chunker 00 "$fixtures"/chunker/*.jsonl
seed chunker 01 "$fixtures"/chunker/*.jsonl
# utf8: raw bytes, no header: the JSON test suite's documents (strings in
# every script, invalid and cut UTF-8 among them) and the SSE recordings.
seed_raw() {
    local target="$1"
    shift
    mkdir -p "$corpus/$target"
    local f name
    for f in "$@"; do
        [ -f "$f" ] || continue
        [ "$(stat -c %s "$f")" -le 65536 ] || continue
        name="$(sha1sum < "$f" | cut -c1-16)"
        cp "$f" "$corpus/$target/seed-$name"
    done
}
seed_raw utf8 "$json"/*.json "${sse[@]}"

for target in json_parser json_lenient json_repair sse_decoder providers actions chunker utf8; do
    count=$(find "$corpus/$target" -type f 2>/dev/null | wc -l)
    echo "$target: $count files"
done
