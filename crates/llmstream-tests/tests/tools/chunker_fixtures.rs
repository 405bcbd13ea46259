//! Every recording in ../shared/fixtures/chunker (JSON Lines, each line a
//! complete snapshot from the .NET MAUI AI integration) chunks back into
//! text that parses to the last line, and streams: most of the text is out
//! before `flush`, and strings arrive while still open.
//!
//! Needs the fixtures folder beside the repository (`../shared/fixtures`);
//! without it the tests show as ignored.

use std::path::{Path, PathBuf};

use llmstream::chunker::SnapshotChunker;

use crate::common::fixtures;

fn fixture_files() -> Vec<PathBuf> {
    let files: Vec<PathBuf> = fixtures::files("chunker")
        .into_iter()
        .filter(|name| name.ends_with(".jsonl"))
        .map(|name| fixtures::path(&format!("chunker/{name}")))
        .collect();
    assert!(!files.is_empty(), "no .jsonl files in the chunker fixtures");
    files
}

struct Run {
    /// Chunks from `process`, per snapshot.
    per_snapshot: Vec<Vec<String>>,
    /// Chunks from `flush`.
    flushed: Vec<String>,
    last_line: String,
}

fn run(path: &Path) -> Run {
    run_with(path, SnapshotChunker::new())
}

fn run_with(path: &Path, mut chunker: SnapshotChunker) -> Run {
    let text = std::fs::read_to_string(path).unwrap();
    let mut per_snapshot = Vec::new();
    let mut last_line = String::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let chunks = crate::common::chunks_of(&mut chunker, line)
            .unwrap_or_else(|e| panic!("{}: line {}: {e}", path.display(), n + 1));
        per_snapshot.push(chunks);
        last_line = line.to_string();
    }
    let flushed = crate::common::closing_chunks(&mut chunker);
    Run {
        per_snapshot,
        flushed,
        last_line,
    }
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn every_fixture_concatenates_to_its_last_snapshot() {
    let files = fixture_files();
    for path in files {
        let run = run(&path);
        let mut text: String = run
            .per_snapshot
            .iter()
            .flatten()
            .map(String::as_str)
            .collect();
        text.extend(run.flushed.iter().map(String::as_str));
        let got: serde_json::Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{}: output is not JSON ({e}):\n{text}", path.display()));
        let want: serde_json::Value = serde_json::from_str(&run.last_line).unwrap();
        assert_eq!(got, want, "{}", path.display());
    }
}

/// The recorded producers write one value at a time and never leave a
/// member behind empty: holding placeholders changes nothing on them.
#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn every_fixture_chunks_the_same_with_placeholders_held() {
    let files = fixture_files();
    for path in files {
        let (plain, held) = (
            run(&path),
            run_with(&path, SnapshotChunker::new().hold_placeholders(true)),
        );
        assert_eq!(plain.per_snapshot, held.per_snapshot, "{}", path.display());
        assert_eq!(plain.flushed, held.flushed, "{}", path.display());
    }
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn every_fixture_streams_most_text_before_flush() {
    let files = fixture_files();
    for path in files {
        let run = run(&path);
        let before: usize = run.per_snapshot.iter().flatten().map(String::len).sum();
        let after: usize = run.flushed.iter().map(String::len).sum();
        let share = before as f64 / (before + after) as f64;
        eprintln!("{}: {:.1}% before flush", path.display(), share * 100.0);
        assert!(
            share >= 0.9,
            "{}: only {:.1}% of the text before flush",
            path.display(),
            share * 100.0
        );
    }
}

/// Strings are not held until complete: some chunks end inside a string
/// whose closing quote comes in a later snapshot's chunks, and no snapshot
/// but the first one emits nothing at all for long.
#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn every_fixture_streams_strings_while_open() {
    let files = fixture_files();
    for path in files {
        let run = run(&path);
        let mut text = String::new();
        let mut open_at_snapshot_end = 0;
        let mut silent = 0;
        for chunks in &run.per_snapshot {
            if chunks.is_empty() {
                silent += 1;
            }
            for chunk in chunks {
                text.push_str(chunk);
            }
            if inside_string(&text) {
                open_at_snapshot_end += 1;
            }
        }
        eprintln!(
            "{}: {} of {} snapshots end inside an open string, {} emit nothing",
            path.display(),
            open_at_snapshot_end,
            run.per_snapshot.len(),
            silent
        );
        assert!(
            open_at_snapshot_end * 2 >= run.per_snapshot.len(),
            "{}: strings are not streamed while open",
            path.display()
        );
        assert!(
            silent * 5 <= run.per_snapshot.len(),
            "{}: too many silent snapshots",
            path.display()
        );
    }
}

/// Whether a JSON text prefix ends inside a string.
fn inside_string(text: &str) -> bool {
    let mut inside = false;
    let mut escaped = false;
    for c in text.chars() {
        if escaped {
            escaped = false;
        } else if inside && c == '\\' {
            escaped = true;
        } else if c == '"' {
            inside = !inside;
        }
    }
    inside
}
