//! Early detection of the tool being called, from a streaming JSON object.

use alloc::collections::VecDeque;
use alloc::string::String;

use super::arguments::ArgumentEvent;
use super::budget::{Budget, Completed, Report};
use crate::json::{Error, EventKind, Parser, PathBuf, Segment, Value};

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
/// detector.feed(br#"{"type":"tool_use","id":"toolu_1","name":"search","input":{"q":"ru"#)?;
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
    /// More text of a string inside the input (`input` or `arguments`), or a
    /// value inside it completed (the input itself included, at the empty
    /// path); the event's path is relative to the input.
    Argument(ArgumentEvent),
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
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), Error> {
        let events = &mut self.events;
        let budget = &mut self.budget;
        let base = self.parser.bytes_fed();
        let mut feed = self.parser.feed_borrowed(bytes);
        loop {
            // Where the event's text began: the budget's offset.
            let at = base + feed.consumed() as u64;
            let Some(event) = feed.next_event() else {
                return Ok(());
            };
            let event = match event {
                Ok(event) => event,
                Err(e) => {
                    flush_cut_string(budget, events, e.path().segments());
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
            let report = if closes && rel.is_empty() {
                // The input itself is always reported (inputs do not nest,
                // so their copies add up to the text); what is inside it
                // as the allowance lets it.
                budget.close_forced(at, rel);
                Report {
                    delta: None,
                    value: Some(Completed::Container),
                }
            } else {
                budget.charge(at, rel, event.kind)
            };
            if let Some(text) = report.delta {
                let path = PathBuf::from(rel.to_vec());
                events.push_back(Detected::Argument(ArgumentEvent::Delta { path, text }));
            }
            let Some(completed) = report.value else {
                continue;
            };
            // A container is read by its whole path (under `input` or
            // `arguments`, whichever it is).
            let full = event.path.to_path_buf();
            let path = PathBuf::from(rel.to_vec());
            if let Some(value) = completed.into_value(feed.snapshot(), full.as_path()) {
                events.push_back(Detected::Argument(ArgumentEvent::Value { path, value }));
            }
        }
    }

    /// The object ended: an incomplete object is an error.
    pub fn finish(&mut self) -> Result<(), Error> {
        let path = self.parser.path();
        flush_cut_string(&mut self.budget, &mut self.events, path.segments());
        self.parser.finish_borrowed().run()
    }
}

/// The text held back of an input string already reported on, at
/// `segments`, goes out before what cuts the string (an error, or the end
/// of the input), so that its deltas add up to its text.
fn flush_cut_string(budget: &mut Budget, events: &mut VecDeque<Detected>, segments: &[Segment]) {
    if !is_input_key(segments.first()) {
        return;
    }
    let rel = segments.get(1..).unwrap_or(&[]);
    if let Some(text) = budget.string_end(rel) {
        let path = PathBuf::from(rel.to_vec());
        events.push_back(Detected::Argument(ArgumentEvent::Delta { path, text }));
    }
}
