//! `llmstream actions`: JSON action objects (tool calls) found in model
//! text, as events.

use clap::Args;
use llmstream::tools::{ActionEvent, ActionStream};

use crate::input::InputArgs;
use crate::output::Lines;
use crate::Failure;

/// The arguments of `llmstream actions`.
#[derive(Args, Debug)]
#[command(after_help = "Example:
  printf 'Searching.\\n```json\\n{\"action\":\"search\",\"q\":\"rust\"}\\n```\\n' | llmstream actions")]
pub struct ActionsArgs {
    #[command(flatten)]
    pub input: InputArgs,
}

pub fn run(args: &ActionsArgs) -> Result<(), Failure> {
    let mut stream = ActionStream::new();
    let mut out = Lines::new();
    // The first error event: bad input, said on stderr (exit 1) once every
    // event has been printed.
    let mut first_error = None;
    let mut print = |event: &ActionEvent, out: &mut Lines| {
        if let ActionEvent::Error { error, .. } = event {
            first_error.get_or_insert_with(|| error.to_string());
        }
        out.value_line(&event.to_value())
    };
    args.input.each_piece(|piece| {
        stream.feed_bytes(piece.bytes);
        while let Some(event) = stream.next_event() {
            print(&event, &mut out)?;
        }
        match piece.caught_up {
            true => out.flush(),
            false => Ok(()),
        }
    })?;
    // An unclosed fence or value is also an event, printed below.
    let _ = stream.finish();
    while let Some(event) = stream.next_event() {
        print(&event, &mut out)?;
    }
    out.finish()?;
    match first_error {
        Some(message) => Err(Failure::Input(message)),
        None => Ok(()),
    }
}
