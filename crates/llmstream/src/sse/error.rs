//! Why decoding or encoding stopped, with enough context to find the spot.

use alloc::string::String;
use core::fmt;

/// A limit of the [`Decoder`](super::Decoder) was exceeded.
///
/// Displays like `line longer than the limit of 1048576 bytes at byte 1234
/// (reading field "data")`. The decoder is failed afterwards: it reports the
/// error once from [`next_event`](super::Decoder::next_event), ignores further input,
/// and returns the error again from [`finish`](super::Decoder::finish).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    offset: u64,
    reading: Reading,
}

/// Which limit was exceeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A line grew past [`Limits::max_line_bytes`](super::Limits::max_line_bytes).
    LineTooLong {
        /// The limit in bytes.
        limit: usize,
    },
    /// An event's data grew past
    /// [`Limits::max_event_data_bytes`](super::Limits::max_event_data_bytes).
    EventDataTooLong {
        /// The limit in bytes.
        limit: usize,
    },
}

/// What the decoder was reading when a limit was exceeded.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reading {
    /// A line whose first colon had not come yet.
    FieldName,
    /// The value of the field with this name (lossily decoded, cut to at
    /// most 64 bytes).
    Field(String),
    /// A comment line.
    Comment,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, offset: u64, reading: Reading) -> Self {
        Error {
            kind,
            offset,
            reading,
        }
    }

    /// Which limit was exceeded.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Offset in the stream, counted in bytes fed from the start (a leading
    /// BOM included): for a line, the first byte past the limit; for event
    /// data, the start of the `data` line that pushed it past the limit.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// What was being read.
    pub fn reading(&self) -> &Reading {
        &self.reading
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ErrorKind::LineTooLong { limit } => {
                write!(f, "line longer than the limit of {limit} bytes")?
            }
            ErrorKind::EventDataTooLong { limit } => {
                write!(f, "event data longer than the limit of {limit} bytes")?
            }
        }
        write!(f, " at byte {}", self.offset)?;
        match &self.reading {
            Reading::FieldName => f.write_str(" (reading a field name)"),
            Reading::Field(name) => write!(f, " (reading field {name:?})"),
            Reading::Comment => f.write_str(" (reading a comment)"),
        }
    }
}

impl core::error::Error for Error {}

/// An item the [`Encoder`](super::Encoder) cannot write, because no stream
/// decodes to it. Nothing is written when this is returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncodeError {
    /// An event type containing CR or LF (it would end the `event` line).
    LineBreakInEventType,
    /// A last event ID containing CR or LF (it would end the `id` line).
    LineBreakInId,
    /// A last event ID containing NUL (decoders ignore such an `id` field).
    NulInId,
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EncodeError::LineBreakInEventType => "event type contains a line break",
            EncodeError::LineBreakInId => "event id contains a line break",
            EncodeError::NulInId => "event id contains NUL",
        })
    }
}

impl core::error::Error for EncodeError {}
