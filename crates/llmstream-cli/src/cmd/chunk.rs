//! `llmstream chunk`: JSON Lines of complete snapshots in, streaming chunks
//! out.
//!
//! The output forms are the CLI contract of docs/CLI.md: each emitted chunk as
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
    let mut out = Lines::new();
    let mut lines = SnapshotLines {
        chunker: SnapshotChunker::new().hold_placeholders(args.hold_placeholders),
        line: Vec::new(),
        number: 0,
        start: 0,
        concat: args.concat.then(String::new),
    };
    let end = args.input.each_piece(|piece| {
        // Lines are assembled from the pieces as a streaming reader would.
        let mut offset = piece.offset;
        for part in piece.bytes.split_inclusive(|&b| b == b'\n') {
            offset += part.len() as u64;
            match part.strip_suffix(b"\n") {
                Some(rest) => {
                    lines.line.extend_from_slice(rest);
                    lines.end_line(&mut out, offset)?;
                }
                None => {
                    lines.line.extend_from_slice(part);
                    // One snapshot is one JSON text: no longer than the
                    // parser would take.
                    let limit = llmstream::json::Limits::new().max_input_bytes;
                    if lines.line.len() as u64 > limit {
                        return Err(Failure::Input(format!(
                            "snapshot longer than {limit} bytes at byte {}; line {}",
                            lines.start + limit,
                            lines.number + 1
                        )));
                    }
                }
            }
        }
        match piece.caught_up {
            true => out.flush(),
            false => Ok(()),
        }
    })?;
    if !lines.line.is_empty() {
        lines.end_line(&mut out, end)?;
    }
    // Finishing never fails: every snapshot was checked as it was fed.
    let _ = lines.chunker.finish();
    lines.emit(&mut out)?;
    if let Some(text) = &lines.concat {
        out.line(text)?;
    }
    out.finish()
}

/// Snapshots, one per line, as the lines arrive.
struct SnapshotLines {
    chunker: SnapshotChunker,
    /// The line being read.
    line: Vec<u8>,
    /// Lines read before it.
    number: usize,
    /// The input offset of its first byte.
    start: u64,
    /// With `--concat`: the chunks so far, printed at the end.
    concat: Option<String>,
}

impl SnapshotLines {
    /// The line is complete: its snapshot is processed (a blank line is
    /// skipped); the next starts at `next`.
    fn end_line(&mut self, out: &mut Lines, next: u64) -> Result<(), Failure> {
        self.number += 1;
        let (start, number) = (self.start, self.number);
        self.start = next;
        let line = std::mem::take(&mut self.line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        let snapshot = std::str::from_utf8(&line).map_err(|e| {
            Failure::Input(format!(
                "snapshot is not UTF-8 at byte {}; line {number}",
                start + e.valid_up_to() as u64
            ))
        })?;
        self.chunker
            .feed_text(snapshot)
            .map_err(|e| failure(&e, start, number))?;
        self.emit(out)
    }

    /// Prints (or joins, with `--concat`) the chunks the chunker queued.
    fn emit(&mut self, out: &mut Lines) -> Result<(), Failure> {
        while let Some(chunk) = self.chunker.next_event() {
            match &mut self.concat {
                Some(text) => text.push_str(&chunk),
                None => {
                    out.string(&chunk)?;
                    out.end_line()?;
                }
            }
        }
        Ok(())
    }
}

/// `error: <what> at byte <N> (path P)` as the CLI contract has it, with
/// `N` counted in the whole input: a JSON error where it is in its line,
/// any other at the start of the snapshot's line.
fn failure(error: &ChunkError, line_start: u64, line_number: usize) -> Failure {
    let (what, at, path) = match error.kind() {
        ChunkErrorKind::InvalidJson(json) => (
            format!("not valid JSON: {}", json.kind()),
            line_start + json.offset(),
            json.path().to_string(),
        ),
        kind @ ChunkErrorKind::PlaceholderFilled => (
            format!("{kind} (try --hold-placeholders)"),
            line_start,
            error.path().to_string(),
        ),
        kind => (kind.to_string(), line_start, error.path().to_string()),
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
