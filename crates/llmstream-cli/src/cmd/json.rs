//! `llmstream json` and `llmstream repair`.

use clap::{Args, ValueEnum};
use std::io::Write as _;

use llmstream::json::{Event, Options, Parser};

use crate::input::{InputArgs, Piece, Position};
use crate::output::Lines;
use crate::Failure;

/// What `json` prints.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    /// The complete value as one line of compact JSON.
    Final,
    /// After each piece: {"bytes":B,"snapshot":V}.
    Snapshots,
    /// One line per parser event, with its path and pointer.
    Events,
}

/// Arguments of `llmstream json`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  echo '{\"a\":[1,\"xy\"]}' | llmstream json
  llmstream json args.json --emit events --chunk-size 8
  llmstream json cut.json --partial --emit snapshots --random-chunks 7")]
pub struct JsonArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// What to print.
    #[arg(long, value_enum, default_value_t = Emit::Final)]
    pub emit: Emit,
    /// A document cut short is not an error: print the snapshot at the end.
    #[arg(long)]
    pub partial: bool,
    /// Lenient mode: read what models really write (JSON inside prose and
    /// fences, other quotes, Python literals, comments, bare words, missing
    /// commas…; docs/LENIENT.md). It reports no events.
    #[arg(long)]
    pub lenient: bool,
}

/// Arguments of `llmstream repair`.
#[derive(Args, Debug)]
#[command(after_help = "Example:
  printf '{\"items\": [\"a\", \"b' | llmstream repair      # {\"items\":[\"a\",\"b\"]}")]
pub struct RepairArgs {
    #[command(flatten)]
    pub input: InputArgs,
}

pub fn run(args: &JsonArgs) -> Result<(), Failure> {
    // Events need no live value: without one, an endless stream of them
    // runs in bounded memory.
    let options = match args.lenient {
        true => Options::lenient(),
        false => Options::new(),
    }
    .snapshot(args.emit != Emit::Events);
    let mut parser = Parser::with_options(options);
    let mut out = Lines::new();
    let mut position = Position::default();
    args.input.each_piece(|piece| {
        let mut feed = parser.feed_borrowed(piece.bytes);
        while let Some(event) = feed.next_event() {
            let event = event.map_err(|e| failure(&e, &position, &piece))?;
            if args.emit == Emit::Events {
                write_event(&mut out, &event)?;
            }
        }
        drop(feed);
        position.pass(piece.bytes);
        if args.emit == Emit::Snapshots {
            write_snapshot(&mut out, &parser)?;
        }
        match piece.caught_up {
            true => out.flush(),
            false => Ok(()),
        }
    })?;
    // What the last snapshot line showed, to print the value at the end
    // only where it differs (a number at the end of the document).
    let shown = match args.emit {
        Emit::Snapshots => Some(parser.snapshot().cloned()),
        _ => None,
    };
    let mut feed = parser.finish_borrowed();
    let mut ended = Ok(());
    while let Some(event) = feed.next_event() {
        match event {
            Ok(event) if args.emit == Emit::Events => write_event(&mut out, &event)?,
            Ok(_) => {}
            Err(e) => ended = Err(e),
        }
    }
    drop(feed);
    let cut_short = match ended {
        Ok(()) => false,
        Err(e) if args.partial && e.is_incomplete() => true,
        Err(e) if e.is_incomplete() => {
            return Err(Failure::Input(format!(
                "{}; pass --partial to print what arrived",
                e
            )))
        }
        Err(e) => return Err(Failure::Input(format!("{e}; {}", position.at_end()))),
    };
    if args.emit == Emit::Events {
        return out.finish();
    }
    // Cut short, a number at the end can no longer grow: it is kept as its
    // longest valid prefix, as `repair` (`json --partial --lenient` in the
    // contract) keeps it.
    let bytes = parser.bytes_fed();
    let value = match cut_short {
        true => parser.partial_value(),
        false => parser.into_value(),
    };
    match (value, shown) {
        (Some(value), None) => out.value_line(&value)?,
        (Some(value), Some(shown)) if shown.as_ref() != Some(&value) => {
            let _ = write!(out.text(), r#"{{"bytes":{bytes},"snapshot":"#);
            out.value(&value)?;
            out.text().push(b'}');
            out.end_line()?;
        }
        // Nothing but white space arrived: there is no value to print, as
        // `repair` says too.
        (None, None) => {
            return Err(Failure::Input(format!(
                "no JSON value in the input at byte {bytes}; {}",
                position.at_end()
            )))
        }
        _ => {}
    }
    out.finish()
}

pub fn repair(args: &RepairArgs) -> Result<(), Failure> {
    let mut parser = Parser::with_options(Options::lenient());
    let mut position = Position::default();
    args.input.each_piece(|piece| {
        parser
            .feed(piece.bytes)
            .map_err(|e| failure(&e, &position, &piece))?;
        position.pass(piece.bytes);
        Ok(())
    })?;
    let value = parser
        .finish_partial()
        .map_err(|e| Failure::Input(format!("{e}; {}", position.at_end())))?;
    // No reading yields a value from nothing (or only white space).
    let value = value.ok_or_else(|| {
        Failure::Input(format!(
            "no JSON value in the input at byte {}; {}",
            parser.bytes_fed(),
            position.at_end()
        ))
    })?;
    let mut out = Lines::new();
    out.value_line(&value)?;
    out.finish()
}

/// An invalid-input failure in `piece`: the library's message (what, byte,
/// path) and where that byte is in the text.
fn failure(error: &llmstream::json::Error, position: &Position, piece: &Piece<'_>) -> Failure {
    let at = position.locate(piece.bytes, piece.offset, error.offset());
    Failure::Input(format!("{error}; {at}"))
}

/// `{"bytes":B,"snapshot":V}`, or `{"bytes":B}` while there is no value.
fn write_snapshot(out: &mut Lines, parser: &Parser) -> Result<(), Failure> {
    let _ = write!(out.text(), r#"{{"bytes":{}"#, parser.bytes_fed());
    if let Some(value) = parser.snapshot() {
        out.text().extend_from_slice(br#","snapshot":"#);
        out.value(value)?;
    }
    out.text().push(b'}');
    out.end_line()
}

/// `{"type":T,"path":P,"pointer":Q,...}` per the CLI contract (the
/// library's form of the event).
fn write_event(out: &mut Lines, event: &Event<'_>) -> Result<(), Failure> {
    out.form_line(|sink| event.write_json(sink))
}
