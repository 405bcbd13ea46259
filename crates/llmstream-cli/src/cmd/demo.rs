//! `llmstream demo`: a built-in tool-call document replayed through the
//! incremental parser, with the live snapshot after every piece.
//!
//! The full demo (recorded provider streams rendered live) is a later
//! issue; this one already shows the point: the value is usable, and only
//! grows, while the bytes are still arriving.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use clap::Args;
use llmstream::json::{EventKind, Parser};

use crate::output::Lines;
use crate::Failure;

/// The arguments of `llmstream demo`.
#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Bytes per piece, as a model's deltas might arrive.
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u64).range(1..))]
    pub chunk_size: u64,
    /// Replay without pauses (the default when stdout is not a terminal).
    #[arg(long)]
    pub no_pace: bool,
}

/// A `write_file`-style tool call, as a model streams its arguments.
const DOCUMENT: &str = r#"{"path": "notes/plan.md", "blocks": [{"kind": "heading", "content": "Plan — Q3 ✈"}, {"kind": "text", "content": "Ship the parser.\nThen the \"SSE\" decoder, then providers 🚀"}], "overwrite": true, "retries": 3}"#;

pub fn run(args: &DemoArgs) -> Result<(), Failure> {
    let pace = !args.no_pace && std::io::stdout().is_terminal();
    let started = Instant::now();
    let mut parser = Parser::new();
    let mut out = Lines::new();
    let mut events = 0usize;
    let size = usize::try_from(args.chunk_size).unwrap_or(usize::MAX);
    for piece in DOCUMENT.as_bytes().chunks(size) {
        let mut deltas = Vec::new();
        parser
            .push_with(piece, |event| {
                events += 1;
                if let EventKind::StringDelta(text) = event.kind {
                    deltas.push(format!("{} += {text:?}", event.path));
                }
            })
            .map_err(|e| Failure::Input(e.to_string()))?;
        let snapshot = parser
            .snapshot()
            .map_or_else(|| "(no value yet)".to_string(), |v| v.to_json());
        out.line(&format!("{:>4} bytes  {snapshot}", parser.bytes_fed()));
        for delta in deltas {
            out.line(&format!("            {delta}"));
        }
        if pace {
            out.flush();
            std::thread::sleep(Duration::from_millis(60));
        }
    }
    parser
        .end_with(|_| events += 1)
        .map_err(|e| Failure::Input(e.to_string()))?;
    out.line(&format!(
        "done: {} bytes, {events} events, {:.1} ms",
        DOCUMENT.len(),
        started.elapsed().as_secs_f64() * 1e3
    ));
    Ok(())
}
