//! Tool-call arguments parsed as their fragments arrive.

use alloc::collections::VecDeque;
use alloc::string::String;

use super::budget::Budget;
use crate::json::{Error, EventKind, Parser, PathBuf, Value};

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
    /// What the events may still cost (see the [module docs](super)).
    budget: Budget,
    /// Events fed but not yet taken by [`ArgumentStream::next_event`].
    events: VecDeque<ArgumentEvent>,
    /// The final arguments, once [`ArgumentStream::finish`] was called.
    value: Option<Value>,
    /// Invalid JSON is read in lenient mode at the end.
    lenient: bool,
    /// The final arguments are lenient mode's reading of invalid JSON.
    repaired: bool,
}

/// What a fragment revealed about the arguments: the one argument event
/// of every stage, which the others carry with their key
/// ([`ToolEvent::Argument`](super::ToolEvent::Argument),
/// [`ActionEvent::Argument`](super::ActionEvent::Argument),
/// [`Detected::Argument`](super::Detected::Argument),
/// [`StreamEvent::Argument`](crate::providers::StreamEvent::Argument)).
#[derive(Clone, Debug, PartialEq)]
pub enum ArgumentEvent {
    /// More text of the string at `path`. Past the events' allowance,
    /// deltas are merged; once one of a string went out, its deltas add up
    /// to its text.
    Delta {
        /// Where in the arguments.
        path: PathBuf,
        /// The new decoded text.
        text: String,
    },
    /// The value at `path` completed (the root's completion is the end of
    /// the arguments, reported by [`ArgumentStream::finish`] instead). Within
    /// the events' allowance only (see the [module docs](super)): a value
    /// past it is left to an enclosing one's event or to the end.
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
            budget: Budget::default(),
            events: VecDeque::new(),
            value: None,
            lenient: false,
            repaired: false,
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
            budget: Budget::default(),
            events: VecDeque::new(),
            value: None,
            lenient: false,
            repaired: false,
        }
    }

    /// Whether arguments that turn out not to be JSON are read in lenient
    /// mode at their end ([`json::repair`](crate::json::repair): single
    /// quotes, Python literals, comments, missing commas…) rather than
    /// kept as their text; off by default. The error stays
    /// ([`ArgumentStream::error`]) and [`ArgumentStream::is_repaired`]
    /// says the value is a repair. While the text streams, the events and
    /// the snapshot are the strict reader's, up to the first error.
    pub fn lenient(mut self, on: bool) -> Self {
        self.lenient = on;
        self
    }

    pub(crate) fn set_lenient(&mut self, on: bool) {
        self.lenient = on;
    }

    /// Whether the final arguments are lenient mode's reading of a text
    /// that is not JSON (see [`ArgumentStream::lenient`]).
    pub fn is_repaired(&self) -> bool {
        self.repaired
    }

    /// Takes the next fragment of the argument text: what it reveals waits
    /// for [`ArgumentStream::next_event`]. After
    /// [`ArgumentStream::finish`] the arguments are final: a fragment is
    /// ignored (appended, it would turn them into an invalid text).
    pub fn feed(&mut self, fragment: &str) {
        let mut events = core::mem::take(&mut self.events);
        self.feed_with(fragment, |event| events.push_back(event));
        self.events = events;
    }

    /// The next event that became certain, oldest first.
    pub fn next_event(&mut self) -> Option<ArgumentEvent> {
        self.events.pop_front()
    }

    /// The arguments ended: the text held back of a string cut short is
    /// queued, and the final value is [`ArgumentStream::value`]. No
    /// fragments at all (or only whitespace) means `{}`. JSON cut short is
    /// kept as its best-effort value, invalid JSON and free text as the
    /// text as a string; for both JSON cases the error says why.
    pub fn finish(&mut self) -> Result<(), Error> {
        if self.value.is_none() {
            let mut events = core::mem::take(&mut self.events);
            let text = core::mem::take(&mut self.text);
            let value = self.end_of(&text, |event| events.push_back(event));
            self.text = text;
            self.events = events;
            self.value = Some(value);
        }
        match &self.error {
            Some(error) => Err(error.clone()),
            None => Ok(()),
        }
    }

    /// The final arguments, once [`ArgumentStream::finish`] was called.
    pub fn value(&self) -> Option<&Value> {
        self.value.as_ref()
    }

    /// The raw text received so far (empty in the streams a
    /// [`MessageBuilder`](crate::providers::MessageBuilder) holds, which
    /// keep it as the call's `arguments_text` instead).
    pub fn raw(&self) -> &str {
        &self.text
    }

    /// Stops keeping the raw text, for an owner that keeps it itself (and
    /// hands it to the end): otherwise a gateway's half-way tool call would
    /// hold its arguments three times (the message's text, this one, and
    /// the live value).
    pub(crate) fn drop_text(&mut self) {
        self.text = String::new();
        self.keeps_text = false;
    }

    /// Charges every event `bytes` more, for an owner that adds that much
    /// to each (a call id).
    pub(crate) fn set_event_overhead(&mut self, bytes: u64) {
        self.budget.extra = bytes;
    }

    /// The live partial arguments (JSON tools only).
    pub fn snapshot(&self) -> Option<&Value> {
        self.parser.as_ref().and_then(Parser::snapshot)
    }

    /// Why the text is not valid JSON, once known.
    pub fn error(&self) -> Option<&Error> {
        self.error.as_ref()
    }

    /// Whether the arguments ended.
    pub fn is_ended(&self) -> bool {
        self.ended
    }

    /// Whether the arguments are one complete JSON value already (the
    /// root object closed), so that a caller may end them before the wire
    /// says so: nothing but whitespace can validly follow. Never for free
    /// text, nor for a top-level number (more digits could follow).
    pub fn is_complete(&self) -> bool {
        self.error.is_none() && self.parser.as_ref().is_some_and(Parser::is_complete)
    }

    /// [`ArgumentStream::feed`], handing each event to `emit` instead of
    /// queueing it: what an owner that turns them into its own events
    /// uses.
    pub(crate) fn feed_with(&mut self, fragment: &str, mut emit: impl FnMut(ArgumentEvent)) {
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
        let budget = &mut self.budget;
        let base = parser.bytes_fed();
        let mut feed = parser.feed_borrowed(fragment.as_bytes());
        loop {
            // Where the event's text began: the budget's offset.
            let at = base + feed.consumed() as u64;
            let Some(event) = feed.next_event() else {
                break;
            };
            let event = match event {
                Ok(event) => event,
                Err(e) => {
                    // Text held back of a string already reported on goes
                    // out before the stream stops.
                    let segments = e.path().segments();
                    if let Some(text) = budget.string_end(segments) {
                        let path = e.path().clone();
                        emit(ArgumentEvent::Delta { path, text });
                    }
                    self.error = Some(e);
                    break;
                }
            };
            let segments = event.path.segments();
            if segments.is_empty() {
                // The root: its completion is the end of the arguments.
                match event.kind {
                    EventKind::StartObject | EventKind::StartArray => budget.open(at),
                    EventKind::EndObject | EventKind::EndArray => budget.close_quiet(),
                    EventKind::StringDelta(_) => {}
                    _ => budget.count(),
                }
                continue;
            }
            let report = budget.charge(at, segments, event.kind);
            if let Some(text) = report.delta {
                let path = event.path.to_path_buf();
                emit(ArgumentEvent::Delta { path, text });
            }
            let Some(completed) = report.value else {
                continue;
            };
            let path = event.path.to_path_buf();
            let Some(value) = completed.into_value(feed.snapshot(), path.as_path()) else {
                continue;
            };
            emit(ArgumentEvent::Value { path, value });
        }
    }

    /// [`ArgumentStream::finish`] without the queue, handing what the end
    /// reveals to `emit`: its final value.
    pub(crate) fn end_with(&mut self, emit: impl FnMut(ArgumentEvent)) -> Value {
        let text = core::mem::take(&mut self.text);
        let value = self.end_of(&text, emit);
        self.text = text;
        value
    }

    /// [`ArgumentStream::end_with`] where `text` is all that was fed
    /// (see [`ArgumentStream::drop_text`]).
    pub(crate) fn end_of(&mut self, text: &str, mut emit: impl FnMut(ArgumentEvent)) -> Value {
        self.ended = true;
        let Some(parser) = self.parser.as_mut() else {
            return Value::from(text);
        };
        // JSON's whitespace only: a no-break space or a form feed is text,
        // invalid as JSON, not "no arguments".
        if text.bytes().all(crate::json::scan::is_whitespace) {
            return Value::Object(crate::json::Map::new());
        }
        // Invalid JSON (an error while pushing) is kept as its text, or
        // read in lenient mode; an end that found it cut short is asked
        // again, and says the same (its error is sticky), so that ending
        // twice gives one value.
        if self.error.as_ref().is_some_and(|e| !e.is_incomplete()) {
            if self.lenient {
                if let Ok(Some(value)) = crate::json::repair(text) {
                    self.repaired = true;
                    return value;
                }
            }
            return Value::from(text);
        }
        // The input stops inside a string already reported on: its held
        // text goes out before the end cuts it.
        let path = parser.path();
        if let Some(text) = self.budget.string_end(path.segments()) {
            let path = path.to_path_buf();
            emit(ArgumentEvent::Delta { path, text });
        }
        if let Err(e) = parser.finish_borrowed().run() {
            self.error = Some(e);
            return parser.partial_value().unwrap_or(Value::Null);
        }
        parser.snapshot().cloned().unwrap_or(Value::Null)
    }
}
