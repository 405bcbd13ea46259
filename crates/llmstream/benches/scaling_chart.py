#!/usr/bin/env python3
"""Draws docs/scaling.svg from the CSV that `cargo bench --bench scaling` writes.

The Python package's rows (`python`, `python-jiter`: the value read after
every 16-byte piece) are appended to that CSV by
`crates/llmstream-python/bench/run.sh <csv>`.

Log-log: document bytes (x) against nanoseconds per byte for the whole
stream (y); one line per implementation and piece size. Standard library
only; the SVG is written by hand. Not part of CI: run it once after the
bench and commit the SVG.

    python3 crates/llmstream/benches/scaling_chart.py \\
        $CARGO_TARGET_DIR/criterion/scaling/scaling.csv docs/scaling.svg
"""

import csv
import math
import sys

W, H = 900, 600
LEFT, RIGHT, TOP, BOTTOM = 80, 250, 50, 60
COLORS = {
    "1": "#d62728",
    "4": "#ff7f0e",
    "16": "#2ca02c",
    "64": "#1f77b4",
    "1024": "#9467bd",
    "0": "#444444",
}
DASH = {
    "llmstream": "",
    "jiter": "8,4",
    "naive": "2,3",
    "memchr": "",
    "python": "12,3,2,3",
    "python-jiter": "4,2",
}
LABEL = {
    "llmstream": "llmstream push+snapshot",
    "jiter": "jiter re-parse",
    "naive": "close+serde_json re-parse",
    "memchr": "memchr scan",
    "python": "Python: llmstream .snapshot",
    "python-jiter": "Python: jiter.from_json re-parse",
}


def piece_name(piece):
    return "whole" if piece == "0" else f"{piece} B"


def size_name(n):
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div:
            return f"{n // div} {unit}"
    return f"{n} B"


def main(src, dst):
    series = {}
    for row in csv.DictReader(open(src)):
        key = (row["implementation"], row["piece"])
        series.setdefault(key, []).append((int(row["bytes"]), float(row["ns_per_byte"])))
    xs = [x for pts in series.values() for x, _ in pts]
    ys = [y for pts in series.values() for _, y in pts]
    x0, x1 = math.log10(min(xs)), math.log10(max(xs))
    y0, y1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM

    def px(x):
        return LEFT + (math.log10(x) - x0) / (x1 - x0) * pw

    def py(y):
        return TOP + ph - (math.log10(y) - y0) / (y1 - y0) * ph

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
        f'viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">',
        f'<rect width="{W}" height="{H}" fill="white"/>',
        f'<text x="{LEFT}" y="24" font-size="15" font-weight="bold">'
        "Time per byte, value read after every piece (text-heavy tool arguments)</text>",
    ]
    for e in range(y0, y1 + 1):
        y = py(10**e)
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + pw}" y2="{y:.1f}" stroke="#e5e5e5"/>')
        label = f"{10**e:g}" if -3 <= e <= 5 else f"1e{e}"
        out.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{label}</text>')
    for n in sorted(set(xs)):
        x = px(n)
        out.append(f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{TOP + ph}" stroke="#e5e5e5"/>')
        out.append(f'<text x="{x:.1f}" y="{TOP + ph + 18}" text-anchor="middle">{size_name(n)}</text>')
    out.append(f'<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#888"/>')
    out.append(f'<text x="{LEFT + pw / 2}" y="{H - 14}" text-anchor="middle">document size (log)</text>')
    out.append(
        f'<text x="18" y="{TOP + ph / 2}" text-anchor="middle" '
        f'transform="rotate(-90 18 {TOP + ph / 2})">ns per byte, whole stream (log)</text>'
    )
    order = ["llmstream", "jiter", "naive", "memchr", "python", "python-jiter"]
    pieces = ["1", "4", "16", "64", "1024", "0"]
    legend_y = TOP
    for impl in order:
        keys = [(impl, p) for p in pieces if (impl, p) in series]
        if not keys:
            continue
        out.append(f'<text x="{LEFT + pw + 14}" y="{legend_y + 10}" font-weight="bold">{LABEL[impl]}</text>')
        legend_y += 16
        for key in keys:
            pts = sorted(series[key])
            color = "#000000" if impl == "memchr" else COLORS[key[1]]
            width = 3 if impl == "memchr" else 1.8
            dash = f' stroke-dasharray="{DASH[impl]}"' if DASH[impl] else ""
            path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in pts)
            out.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="{width}"{dash}/>')
            for x, y in pts:
                out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="2.2" fill="{color}"/>')
            lx = LEFT + pw + 18
            out.append(
                f'<line x1="{lx}" y1="{legend_y + 6}" x2="{lx + 28}" y2="{legend_y + 6}" '
                f'stroke="{color}" stroke-width="{width}"{dash}/>'
            )
            name = "one pass" if impl == "memchr" else f"pieces of {piece_name(key[1])}"
            out.append(f'<text x="{lx + 34}" y="{legend_y + 10}">{name}</text>')
            legend_y += 15
        legend_y += 8
    out.append(
        f'<text x="{LEFT + pw + 14}" y="{legend_y + 12}" fill="#666">Re-parse peers stop where</text>'
        f'<text x="{LEFT + pw + 14}" y="{legend_y + 26}" fill="#666">one run would pass 10 s.</text>'
    )
    out.append("</svg>")
    with open(dst, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
