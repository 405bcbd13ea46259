//! `llmstream sse`: a text/event-stream body in, one JSON line per event out.
//!
//! The output forms are the CLI contract of docs/CLI.md:
//! `{"event":T,"data":D,"id":I}` per dispatched event (I the last event ID,
//! `""` when none) and `{"retry":N}` wherever a valid retry field is read,
//! in stream order. `--comments` adds `{"comment":C}` lines.

use clap::Args;

use llmstream::sse::{Decoder, ItemRef};

use crate::input::InputArgs;
use crate::output::Lines;
use crate::Failure;

/// The arguments of `llmstream sse`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  printf 'event: delta\\ndata: hi\\n\\n' | llmstream sse   # {\"event\":\"delta\",\"data\":\"hi\",\"id\":\"\"}
  curl -N https://… | llmstream sse --comments")]
pub struct SseArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Also print each comment line (heartbeats) as {"comment":C}.
    #[arg(long)]
    pub comments: bool,
}

pub fn run(args: &SseArgs) -> Result<(), Failure> {
    let mut out = Lines::new();
    let mut decoder = Decoder::new();
    args.input.each_piece(|piece| {
        // Read in place: only a line the piece cuts is copied.
        let mut items = decoder.feed_borrowed(piece.bytes);
        while let Some(item) = items.next_event() {
            let item = item.map_err(|error| Failure::Input(error.to_string()))?;
            write_item(&mut out, &item, args.comments)?;
        }
        match piece.caught_up {
            true => out.flush(),
            false => Ok(()),
        }
    })?;
    decoder
        .finish()
        .map_err(|error| Failure::Input(error.to_string()))?;
    out.finish()
}

/// Writes the JSON line of one item (the library's form); none for a
/// comment without `--comments`.
fn write_item(out: &mut Lines, item: &ItemRef<'_>, comments: bool) -> Result<(), Failure> {
    if matches!(item, ItemRef::Comment(_)) && !comments {
        return Ok(());
    }
    out.form_line(|sink| item.write_json(sink))
}
