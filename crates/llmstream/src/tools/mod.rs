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

mod actions;
mod arguments;
mod detect;
mod streams;

pub use actions::{ActionEvent, ActionStream};
pub use arguments::{ArgumentEvent, ArgumentStream};
pub use detect::{Detected, ToolCallDetector};
pub use streams::{ArgumentStreams, ToolEvent};
