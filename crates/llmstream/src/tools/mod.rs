//! Tool-call streams: per-call argument parsing, JSON action objects in
//! model text, and early detection of which tool is being called.
//!
//! - [`ArgumentStream`] / [`ArgumentStreams`]: a call's argument fragments
//!   parsed as they arrive, with path-aware deltas (`blocks[0].content`)
//!   and completed values, keyed by call id.
//! - [`ActionStream`]: model text in which the model writes JSON objects
//!   with an `action` member, in ```json fences or bare, among prose.
//! - [`ToolCallDetector`]: an object shaped like a tool call reports its
//!   name and id the moment they complete, before the input does.
//!
//! # What the argument events cost
//!
//! Each argument event owns its path, and a completed container's event a
//! copy of the container, so unchecked they multiply the text: a key is
//! copied into the path of every value and delta under it, and a value
//! nested d deep is copied again when each of its d ancestors closes. A
//! model or gateway controls that text; 2 MB of deep arrays made 7 GB of
//! events. So the events of one JSON value are charged what they hold
//! against an allowance of 64 KiB plus 512 bytes per byte of its text, which
//! bounds their total by the input; ordinary arguments (a delta per byte
//! eight levels deep, small numbers in coordinates) stay below it.
//! Past it, a completed value whose event does not fit is not reported on
//! its own (the snapshot, an enclosing value's event and the final value
//! still hold it), and string deltas are merged until one fits. Text is
//! never dropped from a string once a delta of it was reported: the rest
//! goes out at the latest when the string completes, so its deltas always
//! add up to its text. Which deltas merge depends on the pieces; which
//! completed values are reported depends on the pieces only through the
//! deltas, as the allowance follows the offset in the text. That holds
//! when the input stops inside a string too: the end reports the text held
//! back ([`ArgumentStream::finish`], [`ArgumentStreams::finish`],
//! [`ToolCallDetector::finish`], [`ActionStream::finish`]).

mod actions;
mod arguments;
mod budget;
mod detect;
mod error;
mod form;
mod streams;

pub use actions::{ActionEvent, ActionStream};
pub use arguments::{ArgumentEvent, ArgumentStream};
pub use detect::{Detected, ToolCallDetector};
pub use error::{ActionError, JsonContext, ToolError};
pub use streams::{ArgumentStreams, ToolEvent};
