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
    /// Writes the event's JSON form (the CLI's `json --emit events`
    /// line): `{"type":T,"path":P,"pointer":Q}` and, for a string delta,
    /// `"text"`, for a completed scalar, `"value"` (a number as written).
    ///
    /// ```
    /// use llmstream::json::Parser;
    ///
    /// let mut parser = Parser::new();
    /// let mut out = Vec::new();
    /// let mut feed = parser.feed_borrowed(br#"{"a":[1]}"#);
    /// while let Some(event) = feed.next_event() {
    ///     event?.write_json(&mut out);
    ///     out.push(b'\n');
    /// }
    /// let lines = String::from_utf8(out).unwrap();
    /// assert_eq!(lines.lines().nth(2), Some(r#"{"type":"number","path":"a[0]","pointer":"/a/0","value":1}"#));
    /// # Ok::<(), llmstream::json::Error>(())
    /// ```
    pub fn write_json(&self, out: &mut dyn super::Sink) {
        out.raw(b"{\"type\":\"");
        out.raw(self.kind.name().as_bytes());
        out.raw(b"\",\"path\":");
        out.string(&alloc::format!("{}", self.path));
        out.raw(b",\"pointer\":");
        out.string(&self.path.pointer());
        match self.kind {
            EventKind::StringDelta(text) => {
                out.raw(b",\"text\":");
                out.string(text);
            }
            EventKind::String(text) => {
                out.raw(b",\"value\":");
                out.string(text);
            }
            EventKind::Number(raw) => {
                out.raw(b",\"value\":");
                out.raw(raw.as_bytes());
            }
            EventKind::Bool(true) => out.raw(b",\"value\":true"),
            EventKind::Bool(false) => out.raw(b",\"value\":false"),
            EventKind::Null => out.raw(b",\"value\":null"),
            EventKind::StartObject
            | EventKind::EndObject
            | EventKind::StartArray
            | EventKind::EndArray => {}
        }
        out.raw(b"}");
    }

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
