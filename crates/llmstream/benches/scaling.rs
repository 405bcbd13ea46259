//! Time per byte across document sizes (1 KiB → 16 MiB) at each piece size
//! (1, 4, 16, 64, 1024 bytes and the whole document), reading the live value
//! after every piece:
//!
//! - `llmstream`: `Parser::push` + `snapshot()` per piece;
//! - `jiter`: the accumulated text re-parsed with
//!   `JsonValue::parse_with_config(…, PartialMode::TrailingStrings)` per
//!   piece (the Anthropic/OpenAI SDK approach);
//! - `naive`: the accumulated text closed by `common::close_prefix` and
//!   re-parsed with `serde_json::from_slice::<Value>` per piece;
//! - `memchr`: one `memchr` pass over the document (the physical limit).
//!
//! The input is `common::text_args` (text-heavy tool arguments) at 1, 4,
//! 16, 64, 256 KiB, 1, 4 and 16 MiB. The re-parse peers are quadratic: a
//! cell is skipped when the previous size's time, scaled by the square of
//! the size ratio, predicts more than `SCALING_CAP_S` seconds (default 10)
//! for one run; the skipped cells are printed and left out of the chart.
//!
//! Criterion is not used here (a 16 MiB stream in 1-byte pieces is one
//! run of seconds); each cell is timed by repeating the job for at least
//! 0.2 s, three times, and keeping the median. Results go to stdout and to
//! `<target>/criterion/scaling/scaling.csv` (or `SCALING_CSV`), which
//! `benches/scaling_chart.py` turns into `docs/scaling.svg`.
//!
//! `SCALING_IMPLS=llmstream,memchr` measures only the rows named.
//! `SCALING_ONE=<impl>/<bytes>/<piece>` (piece 0 = whole) runs one job once
//! without timing, for callgrind (subtract `none/<bytes>/0`, which only
//! generates the input). `SCALING_DUMP=<dir>` writes the documents there
//! (`text_args_<bytes>.json`) and measures nothing: the Python package's
//! benchmark reads them. Without `--bench` (as `cargo test
//! --benches` runs it) only the 1 KiB and 64 KiB cells run, once each.
//! Run: `cargo bench -p llmstream --bench scaling`. Results: BENCHMARKS.md.

use std::hint::black_box;
use std::io::Write;
use std::time::{Duration, Instant};

use jiter::{JsonValue, PartialMode};
use llmstream::json::{Options, Parser};

mod common;
use common::{close_prefix, memchr_scan, size_name, text_args, KIB, MIB};

const SIZES: [usize; 8] = [
    KIB,
    4 * KIB,
    16 * KIB,
    64 * KIB,
    256 * KIB,
    MIB,
    4 * MIB,
    16 * MIB,
];
/// 0 is the whole document in one piece.
const PIECES: [usize; 6] = [1, 4, 16, 64, 1024, 0];
const IMPLS: [&str; 4] = ["llmstream", "jiter", "naive", "memchr"];

struct Scratch {
    buf: Vec<u8>,
    closed: Vec<u8>,
}

/// One run of `implementation` over `doc` in pieces of `piece` bytes.
fn job(implementation: &str, doc: &[u8], piece: usize, s: &mut Scratch) {
    let piece = if piece == 0 { doc.len() } else { piece };
    match implementation {
        // The baseline for instruction counts: input generation only.
        "none" => {}
        "llmstream" => {
            let mut parser = Parser::with_options(Options::new().events(false));
            for p in doc.chunks(piece) {
                parser.feed(p).expect("valid");
                black_box(parser.snapshot());
            }
            parser.finish().expect("valid");
            black_box(parser.into_value());
        }
        "jiter" => {
            s.buf.clear();
            for p in doc.chunks(piece) {
                s.buf.extend_from_slice(p);
                let _ = black_box(JsonValue::parse_with_config(
                    &s.buf,
                    false,
                    PartialMode::TrailingStrings,
                ));
            }
        }
        "naive" => {
            s.buf.clear();
            for p in doc.chunks(piece) {
                s.buf.extend_from_slice(p);
                close_prefix(&s.buf, &mut s.closed);
                let _ = black_box(serde_json::from_slice::<serde_json::Value>(&s.closed));
            }
        }
        "memchr" => {
            black_box(memchr_scan(black_box(doc)));
        }
        _ => panic!("unknown implementation {implementation}"),
    }
}

/// Seconds per run: the median of three samples of at least `min` each.
fn measure(implementation: &str, doc: &[u8], piece: usize, s: &mut Scratch, min: Duration) -> f64 {
    let start = Instant::now();
    job(implementation, doc, piece, s);
    let first = start.elapsed();
    if first >= min {
        return first.as_secs_f64();
    }
    let reps = (min.as_secs_f64() / first.as_secs_f64().max(1e-9)).ceil() as u32;
    let mut samples: Vec<f64> = (0..3)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..reps {
                job(implementation, doc, piece, s);
            }
            start.elapsed().as_secs_f64() / f64::from(reps)
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[1]
}

fn csv_path() -> std::path::PathBuf {
    if let Some(path) = std::env::var_os("SCALING_CSV") {
        return path.into();
    }
    // <target>/<profile>/deps/scaling-<hash>
    let exe = std::env::current_exe().expect("the bench binary");
    let target = exe
        .ancestors()
        .nth(3)
        .expect("the bench binary lives under <target>/<profile>/deps");
    target.join("criterion").join("scaling").join("scaling.csv")
}

fn main() {
    if let Some(dir) = std::env::var_os("SCALING_DUMP") {
        let dir = std::path::PathBuf::from(dir);
        std::fs::create_dir_all(&dir).expect("the dump folder");
        for size in SIZES {
            let path = dir.join(format!("text_args_{size}.json"));
            std::fs::write(&path, text_args(size)).expect("a document written");
        }
        return;
    }
    if let Ok(spec) = std::env::var("SCALING_ONE") {
        let parts: Vec<&str> = spec.split('/').collect();
        let [implementation, bytes, piece] = parts[..] else {
            panic!("SCALING_ONE=<impl>/<bytes>/<piece>");
        };
        let doc = text_args(bytes.parse().expect("bytes"));
        let mut s = Scratch {
            buf: Vec::with_capacity(doc.len()),
            closed: Vec::with_capacity(doc.len() + 64),
        };
        job(implementation, &doc, piece.parse().expect("piece"), &mut s);
        return;
    }
    let bench = std::env::args().any(|a| a == "--bench");
    let cap: f64 = std::env::var("SCALING_CAP_S").map_or(if bench { 10.0 } else { 0.5 }, |s| {
        s.parse().expect("seconds")
    });
    let min = Duration::from_millis(if bench { 200 } else { 0 });
    let sizes: &[usize] = if bench { &SIZES } else { &SIZES[..4] };
    // `SCALING_IMPLS=llmstream,memchr` measures only those rows (to renew
    // llmstream's without waiting hours for the quadratic peers again).
    let only: Option<Vec<String>> = std::env::var("SCALING_IMPLS")
        .ok()
        .map(|list| list.split(',').map(str::to_owned).collect());
    let started = Instant::now();
    let mut rows = Vec::new();
    // (impl, piece) → seconds at the previous size, for the prediction.
    let mut last: std::collections::HashMap<(&str, usize), (usize, f64)> = Default::default();
    println!("scaling: text-heavy tool arguments, ns per byte (time for the whole stream / bytes)");
    for &size in sizes {
        let doc = text_args(size);
        let mut s = Scratch {
            buf: Vec::with_capacity(doc.len()),
            closed: Vec::with_capacity(doc.len() + 64),
        };
        for implementation in IMPLS {
            if let Some(names) = &only {
                if !names.iter().any(|n| n == implementation) {
                    continue;
                }
            }
            let pieces: &[usize] = if implementation == "memchr" {
                &[0]
            } else {
                &PIECES
            };
            for &piece in pieces {
                let quadratic = matches!(implementation, "jiter" | "naive") && piece != 0;
                if let Some(&(prev_size, prev)) = last.get(&(implementation, piece)) {
                    let ratio = size as f64 / prev_size as f64;
                    let predicted = prev * if quadratic { ratio * ratio } else { ratio };
                    if predicted > cap {
                        println!(
                            "{implementation:>9} piece {:>5} {:>7}: skipped (predicted {predicted:.0} s per run)",
                            piece_name(piece),
                            size_name(size)
                        );
                        last.insert((implementation, piece), (size, predicted));
                        continue;
                    }
                }
                let seconds = measure(implementation, &doc, piece, &mut s, min);
                last.insert((implementation, piece), (size, seconds));
                let ns_per_byte = seconds * 1e9 / size as f64;
                println!(
                    "{implementation:>9} piece {:>5} {:>7}: {ns_per_byte:>12.3} ns/byte  ({seconds:.6} s per run)",
                    piece_name(piece),
                    size_name(size)
                );
                rows.push(format!(
                    "{implementation},{piece},{size},{ns_per_byte:.6},{seconds:.9}"
                ));
            }
        }
    }
    println!("scaling: total {:.1} s", started.elapsed().as_secs_f64());
    if bench {
        let path = csv_path();
        std::fs::create_dir_all(path.parent().expect("a directory")).expect("create the directory");
        let mut file = std::fs::File::create(&path).expect("create the CSV");
        writeln!(file, "implementation,piece,bytes,ns_per_byte,seconds").expect("write");
        for row in rows {
            writeln!(file, "{row}").expect("write");
        }
        println!("scaling: wrote {}", path.display());
    }
}

fn piece_name(piece: usize) -> String {
    if piece == 0 {
        "whole".into()
    } else {
        piece.to_string()
    }
}
