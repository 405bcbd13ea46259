//! Early detection of the tool being called, from a streaming JSON object.

use alloc::collections::VecDeque;
use alloc::string::String;
use alloc::vec::Vec;

use crate::json::{Error, EventKind, Number, Parser, PathBuf, Segment, Value, WatchId};

/// Reads a JSON object shaped like a tool call — Anthropic's
/// `{"type":"tool_use","id":…,"name":…,"input":{…}}` or the common
/// `{"name":…,"arguments":…}` — and reports the id and name the moment each
/// string completes, long before the input does, then the input's
/// path-aware deltas and values.
///
/// Built on [`Parser::watch`], so the same technique serves any field a
/// caller wants early.
///
/// ```
/// use llmstream::tools::{Detected, ToolCallDetector};
///
/// let mut detector = ToolCallDetector::new();
/// detector.push(br#"{"type":"tool_use","id":"toolu_1","name":"search","input":{"q":"ru"#)?;
/// let early: Vec<Detected> = std::iter::from_fn(|| detector.next_event()).collect();
/// assert_eq!(early[0], Detected::Id("toolu_1".into()));
/// assert_eq!(early[1], Detected::Name("search".into()));
/// # Ok::<(), llmstream::json::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct ToolCallDetector {
    parser: Parser,
    id: WatchId,
    name: WatchId,
    events: VecDeque<Detected>,
}

/// What a [`ToolCallDetector`] found.
#[derive(Clone, Debug, PartialEq)]
pub enum Detected {
    /// The call id (`id`) is complete.
    Id(String),
    /// The tool name (`name`) is complete.
    Name(String),
    /// More text of a string inside the input (`input` or `arguments`), at a
    /// path relative to the input.
    ArgumentDelta {
        /// Where in the input.
        path: PathBuf,
        /// The new decoded text.
        text: String,
    },
    /// A value inside the input completed (the input itself included, at
    /// the empty path).
    Argument {
        /// Where in the input.
        path: PathBuf,
        /// The completed value.
        value: Value,
    },
    /// The whole object completed.
    End(Value),
}

impl Default for ToolCallDetector {
    fn default() -> Self {
        ToolCallDetector::new()
    }
}

/// Whether `key` names the input member of a tool call.
fn is_input_key(segment: Option<&Segment>) -> bool {
    matches!(segment, Some(Segment::Key(k)) if k == "input" || k == "arguments")
}

impl ToolCallDetector {
    /// A detector for one object.
    pub fn new() -> Self {
        let mut parser = Parser::new();
        let id = parser.watch(PathBuf::from(alloc::vec![Segment::Key(String::from("id"))]));
        let name = parser.watch(PathBuf::from(alloc::vec![Segment::Key(String::from(
            "name"
        ))]));
        ToolCallDetector {
            parser,
            id,
            name,
            events: VecDeque::new(),
        }
    }

    /// The next finding.
    pub fn next_event(&mut self) -> Option<Detected> {
        self.events.pop_front()
    }

    /// The object so far.
    pub fn snapshot(&self) -> Option<&Value> {
        self.parser.snapshot()
    }

    /// Feeds the next piece of the object.
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), Error> {
        let mut found: Vec<Found> = Vec::new();
        let mut feed = self.parser.feed(bytes);
        let mut result = Ok(());
        while let Some(event) = feed.next_event() {
            let event = match event {
                Ok(event) => event,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            };
            let segments = event.path.segments();
            if segments.len() == 1 && matches!(event.kind, EventKind::String(_)) {
                // A watched id or name may have completed here: its place
                // in the event order, filled from the watch queue below.
                if matches!(segments.first(), Some(Segment::Key(k)) if k == "id" || k == "name") {
                    found.push(Found::Watched);
                    continue;
                }
            }
            if segments.is_empty() {
                if event.kind == EventKind::EndObject {
                    found.push(Found::End);
                }
                continue;
            }
            if !is_input_key(segments.first()) {
                continue;
            }
            let rel = PathBuf::from(segments.get(1..).unwrap_or(&[]).to_vec());
            found.push(match event.kind {
                EventKind::StringDelta(t) => Found::Delta(rel, String::from(t)),
                EventKind::String(t) => Found::Value(rel, Value::from(t)),
                EventKind::Number(raw) => Found::Value(
                    rel,
                    Number::from_text(raw).map_or(Value::Null, Value::Number),
                ),
                EventKind::Bool(b) => Found::Value(rel, Value::Bool(b)),
                EventKind::Null => Found::Value(rel, Value::Null),
                EventKind::EndObject | EventKind::EndArray => {
                    // Taken now, by its whole path (under `input` or
                    // `arguments`, whichever it is): at its end event it is
                    // the last member at every level, so a duplicate key
                    // after it in this piece cannot stand in for it.
                    let full = event.path.to_path_buf();
                    match feed.snapshot().and_then(|r| r.at(full.as_path())) {
                        Some(value) => Found::Value(rel, value.clone()),
                        None => continue,
                    }
                }
                EventKind::StartObject | EventKind::StartArray => continue,
            });
        }
        drop(feed);
        let mut watched = Vec::new();
        while let Some((watch, value)) = self.parser.next_watched() {
            if let Value::String(text) = value {
                if watch == self.id {
                    watched.push(Detected::Id(text));
                } else if watch == self.name {
                    watched.push(Detected::Name(text));
                }
            }
        }
        let mut watched = watched.into_iter();
        let root = self.parser.snapshot();
        for item in found {
            self.events.push_back(match item {
                Found::Delta(path, text) => Detected::ArgumentDelta { path, text },
                Found::Value(path, value) => Detected::Argument { path, value },
                Found::End => Detected::End(root.cloned().unwrap_or_default()),
                Found::Watched => match watched.next() {
                    Some(found) => found,
                    None => continue,
                },
            });
        }
        result
    }

    /// The object ended: an incomplete object is an error.
    pub fn finish(&mut self) -> Result<(), Error> {
        self.parser.end()
    }
}

enum Found {
    Delta(PathBuf, String),
    Value(PathBuf, Value),
    End,
    /// Where a watched value completed, in stream order.
    Watched,
}
