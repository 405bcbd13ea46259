//! What the parser reports as the document arrives.

use alloc::string::String;

use super::path::{Path, PathBuf};

/// Something that became certain about the document, at a path.
///
/// Events borrow their path and text from the parser, so reporting them
/// allocates nothing; [`Event::to_owned`] keeps one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event<'a> {
    /// Where in the document: the container itself for start/end events,
    /// the value for the others.
    pub path: Path<'a>,
    /// What happened there.
    pub kind: EventKind<'a>,
}

/// The kinds of [`Event`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind<'a> {
    /// `{` opened an object.
    StartObject,
    /// `}` closed the object.
    EndObject,
    /// `[` opened an array.
    StartArray,
    /// `]` closed the array.
    EndArray,
    /// More decoded text of the string at the path: never empty, never half
    /// a code point or half an escape. Emitted at the end of every piece for
    /// an open string, and for the last part when the string closes, so the
    /// deltas of a path concatenate to its final text.
    StringDelta(&'a str),
    /// A string completed, with its whole text.
    String(&'a str),
    /// A number completed, with its exact source text.
    Number(&'a str),
    /// `true` or `false` completed.
    Bool(bool),
    /// `null` completed.
    Null,
}

impl EventKind<'_> {
    /// The name used in JSON output: `start_object`, `string_delta`, …
    pub fn name(&self) -> &'static str {
        match self {
            EventKind::StartObject => "start_object",
            EventKind::EndObject => "end_object",
            EventKind::StartArray => "start_array",
            EventKind::EndArray => "end_array",
            EventKind::StringDelta(_) => "string_delta",
            EventKind::String(_) => "string",
            EventKind::Number(_) => "number",
            EventKind::Bool(_) => "bool",
            EventKind::Null => "null",
        }
    }
}

impl Event<'_> {
    /// An owned copy, for keeping beyond the next call into the parser.
    pub fn to_owned(&self) -> OwnedEvent {
        OwnedEvent {
            path: self.path.to_path_buf(),
            kind: match self.kind {
                EventKind::StartObject => OwnedEventKind::StartObject,
                EventKind::EndObject => OwnedEventKind::EndObject,
                EventKind::StartArray => OwnedEventKind::StartArray,
                EventKind::EndArray => OwnedEventKind::EndArray,
                EventKind::StringDelta(t) => OwnedEventKind::StringDelta(String::from(t)),
                EventKind::String(t) => OwnedEventKind::String(String::from(t)),
                EventKind::Number(t) => OwnedEventKind::Number(String::from(t)),
                EventKind::Bool(b) => OwnedEventKind::Bool(b),
                EventKind::Null => OwnedEventKind::Null,
            },
        }
    }
}

/// An [`Event`] that owns its path and text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnedEvent {
    /// Where in the document.
    pub path: PathBuf,
    /// What happened there.
    pub kind: OwnedEventKind,
}

/// The kinds of [`OwnedEvent`]; see [`EventKind`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum OwnedEventKind {
    StartObject,
    EndObject,
    StartArray,
    EndArray,
    StringDelta(String),
    String(String),
    Number(String),
    Bool(bool),
    Null,
}

impl OwnedEvent {
    /// The borrowed form.
    pub fn as_event(&self) -> Event<'_> {
        Event {
            path: self.path.as_path(),
            kind: match &self.kind {
                OwnedEventKind::StartObject => EventKind::StartObject,
                OwnedEventKind::EndObject => EventKind::EndObject,
                OwnedEventKind::StartArray => EventKind::StartArray,
                OwnedEventKind::EndArray => EventKind::EndArray,
                OwnedEventKind::StringDelta(t) => EventKind::StringDelta(t),
                OwnedEventKind::String(t) => EventKind::String(t),
                OwnedEventKind::Number(t) => EventKind::Number(t),
                OwnedEventKind::Bool(b) => EventKind::Bool(*b),
                OwnedEventKind::Null => EventKind::Null,
            },
        }
    }
}
