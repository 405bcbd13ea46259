//! `llmstream chunk`: JSON Lines of complete snapshots in, streaming chunks
//! out.
//!
//! The output forms are the CLI contract of DESIGN.md: each emitted chunk as
//! a JSON string, one per line; `--concat` prints only the concatenated
//! text. Blank lines are skipped. The chunking flags cut the input before it
//! is split into lines, so they never change the output.

use clap::Args;
use llmstream::chunker::{ChunkError, ChunkErrorKind, SnapshotChunker};

use crate::input::InputArgs;
use crate::output::Lines;
use crate::Failure;

/// The arguments of `llmstream chunk`.
#[derive(Args, Debug)]
#[command(after_help = "Example:
  printf '{\"t\":\"Tok\"}\\n{\"t\":\"Tokyo\"}\\n' | llmstream chunk --concat   # {\"t\":\"Tokyo\"}")]
pub struct ChunkArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Print only the concatenated text of every chunk (the final JSON).
    #[arg(long)]
    pub concat: bool,
    /// For producers that send every field empty first and fill them in
    /// one by one: hold an unchanged empty value until it grows or its
    /// object closes, instead of taking it as finished when a sibling grows.
    #[arg(long)]
    pub hold_placeholders: bool,
}

pub fn run(args: &ChunkArgs) -> Result<(), Failure> {
    let bytes = args.input.read()?;
    let mut out = Lines::new();
    let mut chunker = SnapshotChunker::new().hold_placeholders(args.hold_placeholders);
    let mut text = String::new();
    let mut line = Vec::new();
    let mut line_number = 0usize;
    // Input offset of the next line's first byte.
    let mut next_start = 0usize;
    let mut emit = |chunks: Vec<String>, out: &mut Lines| {
        for chunk in chunks {
            if args.concat {
                text.push_str(&chunk);
            } else {
                out.line(&serde_json::Value::String(chunk).to_string());
            }
        }
    };
    // Lines are assembled from the pieces as a streaming reader would.
    let pieces = args.input.pieces(&bytes);
    let mut rest = pieces
        .iter()
        .flat_map(|piece| piece.iter().copied())
        .peekable();
    while rest.peek().is_some() {
        line.clear();
        let line_start = next_start;
        for byte in rest.by_ref() {
            next_start += 1;
            if byte == b'\n' {
                break;
            }
            line.push(byte);
        }
        line_number += 1;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let snapshot = std::str::from_utf8(&line).map_err(|e| {
            Failure::Input(format!(
                "snapshot is not UTF-8 at byte {}; line {line_number}",
                line_start + e.valid_up_to()
            ))
        })?;
        let chunks = chunker
            .process_text(snapshot)
            .map_err(|e| failure(&e, line_start, line_number))?;
        emit(chunks, &mut out);
    }
    emit(chunker.flush(), &mut out);
    if args.concat {
        out.line(&text);
    }
    Ok(())
}

/// `error: <what> at byte <N> (path P)` as the CLI contract has it, with
/// `N` counted in the whole input: a JSON error where it is in its line,
/// any other at the start of the snapshot's line.
fn failure(error: &ChunkError, line_start: usize, line_number: usize) -> Failure {
    let (what, at, path) = match error.kind() {
        ChunkErrorKind::InvalidJson(json) => (
            format!("not valid JSON: {}", json.kind()),
            line_start as u64 + json.offset(),
            json.path().to_string(),
        ),
        kind @ ChunkErrorKind::PlaceholderFilled => (
            format!("{kind} (try --hold-placeholders)"),
            line_start as u64,
            error.path().to_string(),
        ),
        kind => (
            kind.to_string(),
            line_start as u64,
            error.path().to_string(),
        ),
    };
    let path = match path.is_empty() {
        true => String::new(),
        false => format!(" (path {path})"),
    };
    Failure::Input(format!(
        "{what} at byte {at}{path}; line {line_number}, snapshot {}",
        error.snapshot()
    ))
}
