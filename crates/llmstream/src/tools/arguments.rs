//! Tool-call arguments parsed as their fragments arrive.

use alloc::string::String;
use alloc::vec::Vec;

use crate::json::{Error, EventKind, Number, Parser, PathBuf, Value};

/// One tool call's argument text, parsed incrementally.
///
/// Each fragment is fed to a [`json::Parser`](crate::json::Parser) once, so
/// the arguments are a live partial value and a stream of path-aware deltas
/// during the stream — never re-parsed from the start. Free-text tools
/// (OpenAI custom tools) keep the text only.
#[derive(Clone, Debug)]
pub struct ArgumentStream {
    text: String,
    /// Whether `text` is kept: not when the owner keeps the same text (a
    /// message's `ToolCall::arguments_text`), so it is not held twice.
    keeps_text: bool,
    parser: Option<Parser>,
    error: Option<Error>,
    ended: bool,
}

/// What a fragment revealed about the arguments.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgumentEvent {
    /// More text of the string at `path`.
    Delta {
        /// Where in the arguments.
        path: PathBuf,
        /// The new decoded text.
        text: String,
    },
    /// The value at `path` completed (the root's completion is the end of
    /// the arguments, reported by [`ArgumentStream::end`] instead).
    Value {
        /// Where in the arguments.
        path: PathBuf,
        /// The completed value.
        value: Value,
    },
}

impl Default for ArgumentStream {
    fn default() -> Self {
        ArgumentStream::json()
    }
}

impl ArgumentStream {
    /// Arguments that are JSON (function tools).
    pub fn json() -> Self {
        ArgumentStream {
            text: String::new(),
            keeps_text: true,
            parser: Some(Parser::new()),
            error: None,
            ended: false,
        }
    }

    /// Arguments that are free text (custom tools): kept, not parsed.
    pub fn text() -> Self {
        ArgumentStream {
            text: String::new(),
            keeps_text: true,
            parser: None,
            error: None,
            ended: false,
        }
    }

    /// The raw text received so far (empty in the streams a
    /// [`MessageBuilder`](crate::providers::MessageBuilder) holds, which
    /// keep it as the call's `arguments_text` instead).
    pub fn raw(&self) -> &str {
        &self.text
    }

    /// Stops keeping the raw text, for an owner that keeps it itself (and
    /// hands it to [`ArgumentStream::end_with`]): a gateway's half-way tool
    /// call held its arguments three times (the message's text, this one,
    /// and the live value).
    pub(crate) fn drop_text(&mut self) {
        self.text = String::new();
        self.keeps_text = false;
    }

    /// The live partial arguments (JSON tools only).
    pub fn snapshot(&self) -> Option<&Value> {
        self.parser.as_ref().and_then(Parser::snapshot)
    }

    /// Why the text is not valid JSON, once known.
    pub fn error(&self) -> Option<&Error> {
        self.error.as_ref()
    }

    /// Whether [`ArgumentStream::end`] was called.
    pub fn is_ended(&self) -> bool {
        self.ended
    }

    /// Appends a fragment, handing what it revealed to `emit`. After
    /// [`ArgumentStream::end`] the arguments are final: a fragment is
    /// ignored (appended, it would turn them into an invalid text).
    pub fn push(&mut self, fragment: &str, mut emit: impl FnMut(ArgumentEvent)) {
        if self.ended {
            return;
        }
        if self.keeps_text {
            self.text.push_str(fragment);
        }
        let Some(parser) = self.parser.as_mut() else {
            return;
        };
        if self.error.is_some() {
            return;
        }
        // Events borrow the parser, so they are gathered first and emitted
        // in order after; a completed container's value is taken from the
        // snapshot at its end event, where its path names it even among
        // duplicate keys.
        let mut found: Vec<Found> = Vec::new();
        let mut feed = parser.feed(fragment.as_bytes());
        while let Some(event) = feed.next_event() {
            let event = match event {
                Ok(event) => event,
                Err(e) => {
                    self.error = Some(e);
                    break;
                }
            };
            if event.path.is_empty() {
                continue;
            }
            let path = event.path.to_path_buf();
            let value = match event.kind {
                EventKind::StringDelta(text) => {
                    found.push(Found::Delta(path, String::from(text)));
                    continue;
                }
                EventKind::String(text) => Value::from(text),
                EventKind::Number(raw) => Number::from_text(raw).map_or(Value::Null, Value::Number),
                EventKind::Bool(b) => Value::Bool(b),
                EventKind::Null => Value::Null,
                EventKind::EndObject | EventKind::EndArray => {
                    match feed.snapshot().and_then(|r| r.at(path.as_path())) {
                        Some(value) => value.clone(),
                        None => continue,
                    }
                }
                EventKind::StartObject | EventKind::StartArray => continue,
            };
            found.push(Found::Value(path, value));
        }
        drop(feed);
        for item in found {
            match item {
                Found::Delta(path, text) => emit(ArgumentEvent::Delta { path, text }),
                Found::Value(path, value) => emit(ArgumentEvent::Value { path, value }),
            }
        }
    }

    /// Ends the arguments: their final value. No fragments at all (or only
    /// whitespace) means `{}`. JSON cut short is kept as its best-effort
    /// value, with [`ArgumentStream::error`] saying why; invalid JSON, and
    /// free text, give the text as a string.
    pub fn end(&mut self) -> Value {
        let text = core::mem::take(&mut self.text);
        let value = self.end_with(&text);
        self.text = text;
        value
    }

    /// [`ArgumentStream::end`] where `text` is all that was pushed (see
    /// [`ArgumentStream::drop_text`]).
    pub(crate) fn end_with(&mut self, text: &str) -> Value {
        self.ended = true;
        let Some(parser) = self.parser.as_mut() else {
            return Value::from(text);
        };
        // JSON's whitespace only: a no-break space or a form feed is text,
        // invalid as JSON, not "no arguments".
        if text.bytes().all(crate::json::scan::is_whitespace) {
            return Value::Object(crate::json::Map::new());
        }
        // Invalid JSON (an error while pushing) is kept as its text; an
        // end that found it cut short is asked again, and says the same
        // (its error is sticky), so that ending twice gives one value.
        if self.error.as_ref().is_some_and(|e| !e.is_incomplete()) {
            return Value::from(text);
        }
        if let Err(e) = parser.end() {
            self.error = Some(e);
            return parser.partial_value().unwrap_or(Value::Null);
        }
        parser.snapshot().cloned().unwrap_or(Value::Null)
    }
}

/// An event gathered while the parser is borrowed.
enum Found {
    Delta(PathBuf, String),
    Value(PathBuf, Value),
}
