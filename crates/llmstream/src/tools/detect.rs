//! Early detection of the tool being called, from a streaming JSON object.

use alloc::collections::VecDeque;
use alloc::string::String;

use super::budget::Budget;
use crate::json::{Error, EventKind, Number, Parser, PathBuf, Segment, Value};

/// Reads a JSON object shaped like a tool call — Anthropic's
/// `{"type":"tool_use","id":…,"name":…,"input":{…}}` or the common
/// `{"name":…,"arguments":…}` — and reports the id and name the moment each
/// string completes, long before the input does, then the input's
/// path-aware deltas and values.
///
/// The id and name are read from the parser's events as they complete (as
/// [`Parser::watch`] would report them; watching serves any field a caller
/// wants early). The input's events are bounded as the tools'
/// [argument events](super#what-the-argument-events-cost) are.
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
    events: VecDeque<Detected>,
    /// What the input's events may still cost.
    budget: Budget,
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
        ToolCallDetector {
            parser: Parser::new(),
            events: VecDeque::new(),
            budget: Budget::default(),
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
        let events = &mut self.events;
        let budget = &mut self.budget;
        let base = self.parser.bytes_fed();
        let mut feed = self.parser.feed(bytes);
        loop {
            // Where the event's text began: the budget's offset.
            let at = base + feed.consumed() as u64;
            let Some(event) = feed.next_event() else {
                return Ok(());
            };
            let event = match event {
                Ok(event) => event,
                Err(e) => {
                    // Text held back of a string already reported on goes
                    // out before the error.
                    let segments = e.path().segments();
                    if is_input_key(segments.first()) {
                        if let Some(text) = budget.string_end(segments.get(1..).unwrap_or(&[])) {
                            let path = PathBuf::from(segments.get(1..).unwrap_or(&[]).to_vec());
                            events.push_back(Detected::ArgumentDelta { path, text });
                        }
                    }
                    return Err(e);
                }
            };
            let segments = event.path.segments();
            let opens = matches!(event.kind, EventKind::StartObject | EventKind::StartArray);
            let closes = matches!(event.kind, EventKind::EndObject | EventKind::EndArray);
            if opens {
                budget.open(at);
                continue;
            }
            if segments.len() == 1 {
                if let (EventKind::String(text), Some(Segment::Key(k))) =
                    (event.kind, segments.first())
                {
                    // The id or name completed.
                    if k == "id" || k == "name" {
                        budget.count();
                        events.push_back(if k == "id" {
                            Detected::Id(String::from(text))
                        } else {
                            Detected::Name(String::from(text))
                        });
                        continue;
                    }
                }
            }
            if segments.is_empty() || !is_input_key(segments.first()) {
                if event.kind == EventKind::EndObject && segments.is_empty() {
                    // The whole object (a top-level array is not a call):
                    // once, so its copy adds up to the text.
                    budget.close_forced(at, segments);
                    let root = feed.snapshot().cloned().unwrap_or_default();
                    events.push_back(Detected::End(root));
                } else if closes {
                    budget.close_quiet();
                } else if !matches!(event.kind, EventKind::StringDelta(_)) {
                    budget.count();
                }
                continue;
            }
            let rel = segments.get(1..).unwrap_or(&[]);
            let value = match event.kind {
                EventKind::StringDelta(text) => {
                    if let Some(text) = budget.delta(at, rel, text) {
                        let path = PathBuf::from(rel.to_vec());
                        events.push_back(Detected::ArgumentDelta { path, text });
                    }
                    continue;
                }
                EventKind::EndObject | EventKind::EndArray => {
                    // The input itself is always reported (inputs do not
                    // nest, so their copies add up to the text); what is
                    // inside it as the allowance lets it.
                    if rel.is_empty() {
                        budget.close_forced(at, rel);
                    } else if !budget.close(at, rel) {
                        continue;
                    }
                    let path = PathBuf::from(rel.to_vec());
                    // Taken now, by its whole path (under `input` or
                    // `arguments`, whichever it is): at its end event it is
                    // the last member at every level, so a duplicate key
                    // after it cannot stand in for it.
                    let full = event.path.to_path_buf();
                    if let Some(value) = feed.snapshot().and_then(|r| r.at(full.as_path())) {
                        let value = value.clone();
                        events.push_back(Detected::Argument { path, value });
                    }
                    continue;
                }
                EventKind::String(text) => {
                    if let Some(rest) = budget.string_end(rel) {
                        let path = PathBuf::from(rel.to_vec());
                        events.push_back(Detected::ArgumentDelta { path, text: rest });
                    }
                    Value::from(text)
                }
                EventKind::Number(raw) => Number::from_text(raw).map_or(Value::Null, Value::Number),
                EventKind::Bool(b) => Value::Bool(b),
                EventKind::Null => Value::Null,
                EventKind::StartObject | EventKind::StartArray => continue,
            };
            if budget.value(at, rel) {
                let path = PathBuf::from(rel.to_vec());
                events.push_back(Detected::Argument { path, value });
            }
        }
    }

    /// The object ended: an incomplete object is an error.
    pub fn finish(&mut self) -> Result<(), Error> {
        self.parser.end()
    }
}
