//! `llmstream actions`: JSON action objects (tool calls) found in model
//! text, as events.

use clap::Args;
use llmstream::json::{Map, Value};
use llmstream::tools::{ActionEvent, ActionStream, ArgumentEvent};

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
        out.value_line(&event_value(event))
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

/// An action event in the CLI contract's form.
pub fn event_value(event: &ActionEvent) -> Value {
    let mut m = Map::new();
    match event {
        ActionEvent::Text(text) => {
            m.push("type", Value::from("text"));
            m.push("text", Value::from(text.as_str()));
        }
        ActionEvent::ToolCallStart { call, name } => {
            m.push("type", Value::from("tool_call_start"));
            m.push("call", Value::from(*call));
            m.push("name", Value::from(name.as_str()));
        }
        ActionEvent::Argument {
            call,
            event: ArgumentEvent::Delta { path, text },
        } => {
            m.push("type", Value::from("argument_delta"));
            m.push("call", Value::from(*call));
            m.push("path", Value::from(path.to_string()));
            m.push("text", Value::from(text.as_str()));
        }
        ActionEvent::Argument {
            call,
            event: ArgumentEvent::Value { path, value },
        } => {
            m.push("type", Value::from("argument"));
            m.push("call", Value::from(*call));
            m.push("path", Value::from(path.to_string()));
            m.push("value", value.clone());
        }
        ActionEvent::ToolCallEnd {
            call,
            name,
            arguments,
        } => {
            m.push("type", Value::from("tool_call_end"));
            m.push("call", Value::from(*call));
            m.push("name", Value::from(name.as_str()));
            m.push("arguments", arguments.clone());
        }
        ActionEvent::Json(value) => {
            m.push("type", Value::from("json"));
            m.push("value", value.clone());
        }
        ActionEvent::Error {
            call,
            error,
            partial,
        } => {
            m.push("type", Value::from("error"));
            // Only when the error ends a call that had started.
            if let Some(call) = call {
                m.push("call", Value::from(*call));
            }
            m.push("message", Value::from(error.to_string()));
            if let Some(partial) = partial {
                m.push("partial", partial.clone());
            }
        }
    }
    Value::Object(m)
}
