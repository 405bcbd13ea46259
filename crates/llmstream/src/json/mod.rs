//! Incremental, path-aware JSON.
//!
//! [`Parser`] takes bytes in pieces split anywhere and reports
//! [`Event`]s (string deltas, completed values, container starts and ends,
//! each with its [`Path`]) while keeping a live partial [`Value`] current.
//! [`repair()`] gives the best-effort value of a truncated text; [`parse`]
//! parses a whole document into a [`Value`], and a [`Tape`] reads one in
//! place (no value built; its buffers reused from document to document).
//!
//! Strict RFC 8259 by default; leniency is opt-in through [`Options`].
//! Incomplete is not invalid: `{"a": "he` is a prefix of many documents and
//! waits for more, while `[1 2` is an error at byte 3, at once.
//!
//! A byte order mark before the value is an error, as in serde_json: RFC
//! 8259 forbids sending one and lets a parser either ignore or reject it.
//! A source that adds one (some Windows tools) needs it stripped first. The
//! error is [`ErrorKind::Unexpected`] at the mark's first byte, as for any
//! other byte that cannot begin a value, reported at once, and its message
//! names the mark: `expected a JSON value, found byte 0xef, which may
//! start a UTF-8 byte order mark (strip any) at byte 0`.

mod build;
mod error;
mod error_form;
mod event;
mod inline;
mod key;
pub(crate) mod lenient;
mod meaning;
mod options;
mod parser;
mod path;
mod repair;
pub(crate) mod scan;
#[cfg(feature = "serde")]
mod serde;
mod sink;
mod tape;
pub(crate) mod unique;
mod value;
mod view;
mod walk;
pub(crate) mod write;

#[cfg(feature = "serde")]
pub use self::serde::{from_partial, from_partial_strict, from_value, from_value_ref, DeError};
pub use error::{Error, ErrorKind, Expected};
pub use event::{Event, EventKind, OwnedEvent, OwnedEventKind};
pub use key::Key;
pub use options::{Limits, Options};
pub use parser::{Feed, Parser, WatchId};
pub use path::{InvalidPath, Path, PathBuf, Segment};
pub use repair::{repair, repair_bytes};
pub use sink::Sink;
pub use tape::{Elements, Members, Node, Tape};
pub use value::{Map, Number, Value};
pub(crate) use view::View;
pub use write::write_json_string;

/// Parses one complete JSON document (strict RFC 8259, default limits).
///
/// ```
/// let value = llmstream::json::parse(br#"{"a":[1,"x"]}"#)?;
/// assert_eq!(value.pointer("/a/1").and_then(|v| v.as_str()), Some("x"));
/// # Ok::<(), llmstream::json::Error>(())
/// ```
pub fn parse(input: &[u8]) -> Result<Value, Error> {
    parse_with(input, Options::new())
}

/// Parses one complete JSON document with these options.
pub fn parse_with(input: &[u8], options: Options) -> Result<Value, Error> {
    // The walk of a whole document first; for input it refuses (invalid,
    // over a limit, or valid only under lenient options), the parser,
    // which says exactly what is wrong and where.
    if let Some(value) = build::build(input, &options.limits) {
        return Ok(value);
    }
    parse_incrementally(input, options)
}

/// [`parse_with`] by the incremental parser alone: what the walk refused
/// (for a [`Tape`] too, whose own walk refused it already).
pub(crate) fn parse_incrementally(input: &[u8], options: Options) -> Result<Value, Error> {
    let mut parser =
        Parser::with_options(options.final_value().multiple_values(false).events(false));
    parser.feed(input)?;
    parser.finish()?;
    // A successful end means a complete value was read.
    Ok(parser.into_value().unwrap_or_default())
}
