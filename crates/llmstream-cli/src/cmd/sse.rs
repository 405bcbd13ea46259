//! `llmstream sse`: a text/event-stream body in, one JSON line per event out.
//!
//! The output forms are the CLI contract of DESIGN.md:
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
        decoder.feed(piece.bytes);
        while let Some(item) = decoder.next() {
            let item = item.map_err(|error| Failure::Input(error.to_string()))?;
            if let Some(line) = render(&item, args.comments) {
                out.line(&line)?;
            }
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

/// The JSON line for one item, keys in the contract's order.
fn render(item: &ItemRef<'_>, comments: bool) -> Option<String> {
    match item {
        ItemRef::Event(event) => Some(format!(
            "{{\"event\":{},\"data\":{},\"id\":{}}}",
            json_string(event.event_type),
            json_string(event.data),
            json_string(event.last_event_id),
        )),
        ItemRef::Retry(ms) => Some(format!("{{\"retry\":{ms}}}")),
        ItemRef::Comment(text) if comments => {
            Some(format!("{{\"comment\":{}}}", json_string(text)))
        }
        ItemRef::Comment(_) => None,
    }
}

fn json_string(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}
