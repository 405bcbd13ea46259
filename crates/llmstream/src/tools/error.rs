//! The errors of the tool streams, kept typed: a JSON error keeps its kind,
//! offset and path, and the message is made only when shown.

use alloc::string::String;
use core::fmt;

use crate::json;

/// What went wrong in an [`ActionStream`](super::ActionStream), as reported
/// by [`ActionEvent::Error`](super::ActionEvent::Error).
///
/// Every offset counts bytes of the whole input given to the stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ActionError {
    /// Invalid JSON. The error's [`offset`](json::Error::offset) is the
    /// offset in the whole input, its [`path`](json::Error::path) the path
    /// inside the value.
    Json {
        /// The parser's error.
        error: json::Error,
        /// Where the JSON was met.
        context: JsonContext,
    },
    /// The input ended inside a JSON value.
    UnclosedValue {
        /// The offset where the input ended.
        end: u64,
        /// The action that had started and not ended: its call number and
        /// tool name.
        action: Option<(u64, String)>,
    },
    /// The input ended inside a code fence.
    UnclosedFence {
        /// The offset where the input ended.
        end: u64,
    },
}

/// Where an [`ActionError::Json`] was met.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JsonContext {
    /// In a value no action had started in (bare, or in a fence once
    /// something of it was reported).
    Value,
    /// In a fence, before anything of its value was reported: the fence is
    /// then shown as code.
    Fence,
    /// In the action `call`, calling tool `name`.
    Action {
        /// The action's call number.
        call: u64,
        /// The tool name.
        name: String,
    },
    /// When the input ended inside the action `call`, calling tool `name`.
    OpenAtEnd {
        /// The action's call number.
        call: u64,
        /// The tool name.
        name: String,
    },
}

impl ActionError {
    /// The byte offset in the whole input where it went wrong (for an
    /// unclosed value or fence: where the input ended).
    pub fn offset(&self) -> u64 {
        match self {
            ActionError::Json { error, .. } => error.offset(),
            ActionError::UnclosedValue { end, .. } | ActionError::UnclosedFence { end } => *end,
        }
    }
}

impl fmt::Display for ActionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ActionError::Json { error, context } => match context {
                JsonContext::Value => write!(f, "invalid JSON: {error}"),
                JsonContext::Fence => write!(f, "invalid JSON in fence: {error}"),
                JsonContext::Action { call, name } => {
                    write!(f, "invalid JSON in action {call} ({name}): {error}")
                }
                JsonContext::OpenAtEnd { call, name } => {
                    write!(
                        f,
                        "action {call} ({name}) never closed: invalid JSON: {error}"
                    )
                }
            },
            ActionError::UnclosedValue { end, action } => {
                if let Some((call, name)) = action {
                    write!(f, "action {call} ({name}) never closed: ")?;
                }
                write!(f, "JSON value never closed at byte {end}")
            }
            ActionError::UnclosedFence { end } => {
                write!(f, "code fence never closed at byte {end}")
            }
        }
    }
}

// The JSON error is shown in the message, so it is not also a source.
impl core::error::Error for ActionError {}

/// What went wrong in [`ArgumentStreams`](super::ArgumentStreams), as
/// reported by [`ToolEvent::Error`](super::ToolEvent::Error).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolError {
    /// The call's arguments are not valid JSON (the offset and path are
    /// within the call's arguments).
    InvalidArguments(json::Error),
    /// The call ended before its arguments were a complete value.
    EndedEarly(json::Error),
    /// A new call id past the limit of distinct call ids: the call was
    /// ignored.
    TooManyCalls {
        /// The most call ids accepted.
        limit: usize,
    },
    /// Arguments arrived for a call that had ended; they were ignored.
    AfterEnd,
    /// A call was to end that is not open (never seen, or ended already).
    UnknownCall,
    /// An accumulated text did not extend what came before; it was ignored.
    NotExtending {
        /// The bytes of the call's text received before.
        known_bytes: usize,
    },
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolError::InvalidArguments(e) => write!(f, "arguments are not valid JSON: {e}"),
            ToolError::EndedEarly(e) => write!(f, "arguments ended early: {e}"),
            ToolError::TooManyCalls { limit } => write!(
                f,
                "too many tool calls: the limit is {limit} call ids; the call was ignored"
            ),
            ToolError::AfterEnd => f.write_str("arguments received after the call ended"),
            ToolError::UnknownCall => f.write_str("no open call has this id"),
            ToolError::NotExtending { known_bytes } => write!(
                f,
                "accumulated text does not extend the {known_bytes} bytes received before"
            ),
        }
    }
}

// The JSON error is shown in the message, so it is not also a source.
impl core::error::Error for ToolError {}
