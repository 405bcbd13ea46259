//! Many tool calls' argument streams at once, keyed by call id.

use alloc::collections::{BTreeMap, VecDeque};
use alloc::string::String;
use alloc::vec::Vec;

use super::arguments::{ArgumentEvent, ArgumentStream};
use super::error::ToolError;
use crate::json::Value;
use crate::utf8::{read_lossy, Lossy};

/// Argument streams keyed by tool-call id: calls may interleave freely, each
/// keeps its own parser state and nothing is rescanned.
///
/// The ids come from the wire, so their number is limited
/// ([`ArgumentStreams::DEFAULT_MAX_CALLS`], or
/// [`ArgumentStreams::with_max_calls`]): a fragment for a new call past the
/// limit is refused with an [`ToolEvent::Error`] for its id, and the calls
/// already kept carry on. Ended calls count: they are kept, with their
/// values, until the streams are dropped. Each call's state (a parser, its snapshot) costs
/// memory whatever its fragment's size, so without a limit a stream of
/// tiny fragments under fresh ids would hold far more than it sent.
/// Calls are kept in a B-tree: the order ids arrive in does not matter.
///
/// ```
/// use llmstream::tools::{ArgumentEvent, ArgumentStreams, ToolEvent};
///
/// let mut calls = ArgumentStreams::new();
/// calls.feed("call_1", r#"{"blocks":[{"content":"Hel"#);
/// calls.feed("call_2", r#"{"q":"rust"}"#);
/// calls.feed("call_1", r#"lo"}]}"#);
/// let arguments = calls.finish("call_1")?;
/// assert_eq!(arguments.to_json(), r#"{"blocks":[{"content":"Hello"}]}"#);
/// let deltas: Vec<String> = std::iter::from_fn(|| calls.next_event())
///     .filter_map(|e| match e {
///         ToolEvent::Argument { id, event: ArgumentEvent::Delta { path, text } } => {
///             Some(format!("{id} {path} += {text}"))
///         }
///         _ => None,
///     })
///     .collect();
/// assert_eq!(deltas, [
///     "call_1 blocks[0].content += Hel",
///     "call_2 q += rust",
///     "call_1 blocks[0].content += lo",
/// ]);
/// # Ok::<(), llmstream::tools::ToolError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct ArgumentStreams {
    calls: BTreeMap<String, ArgumentStream>,
    events: VecDeque<ToolEvent>,
    /// The most calls kept (`None`: the default).
    max_calls: Option<usize>,
    /// Per open call fed bytes: a UTF-8 sequence cut by the end of its last
    /// fragment (at most three bytes).
    held: BTreeMap<String, Vec<u8>>,
}

/// What the argument streams report, each event naming its call.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolEvent {
    /// More text of a string inside the call's arguments, or a value
    /// inside them completed.
    Argument {
        /// The call id.
        id: String,
        /// What the call's arguments revealed.
        event: ArgumentEvent,
    },
    /// The arguments ended (see [`ArgumentStream::finish`] for what the value
    /// is when they were empty, cut short or invalid).
    End {
        /// The call id.
        id: String,
        /// The final arguments.
        arguments: Value,
    },
    /// The call's text is not valid JSON, or an accumulated text did not
    /// extend what came before.
    Error {
        /// The call id.
        id: String,
        /// What went wrong.
        error: ToolError,
    },
}

impl ArgumentStreams {
    /// The number of calls [`ArgumentStreams::new`] accepts, as
    /// [`ProviderLimits::max_tool_calls`](crate::providers::ProviderLimits)
    /// does per choice.
    pub const DEFAULT_MAX_CALLS: usize = 1024;

    /// No calls yet.
    pub fn new() -> Self {
        ArgumentStreams::default()
    }

    /// No calls yet, accepting at most `max_calls` distinct call ids.
    pub fn with_max_calls(max_calls: usize) -> Self {
        ArgumentStreams {
            max_calls: Some(max_calls),
            ..ArgumentStreams::default()
        }
    }

    /// The most distinct call ids accepted.
    pub fn max_calls(&self) -> usize {
        self.max_calls.unwrap_or(Self::DEFAULT_MAX_CALLS)
    }

    /// The next event, oldest first.
    pub fn next_event(&mut self) -> Option<ToolEvent> {
        self.events.pop_front()
    }

    /// The live partial arguments of a call.
    pub fn arguments(&self, id: &str) -> Option<&Value> {
        self.calls.get(id)?.snapshot()
    }

    /// The raw argument text of a call so far.
    pub fn text(&self, id: &str) -> Option<&str> {
        self.calls.get(id).map(ArgumentStream::raw)
    }

    /// The ids seen so far, sorted.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.calls.keys().map(String::as_str)
    }

    /// Appends a fragment of a call's arguments (the call is created on its
    /// first fragment; past [`ArgumentStreams::max_calls`] calls, a new
    /// call is refused with an error event and its fragment ignored).
    pub fn feed(&mut self, id: &str, fragment: &str) {
        if !self.calls.contains_key(id) {
            let max = self.max_calls();
            if self.calls.len() >= max {
                self.events.push_back(ToolEvent::Error {
                    id: String::from(id),
                    error: ToolError::TooManyCalls { limit: max },
                });
                return;
            }
            let mut stream = ArgumentStream::default();
            // Every event repeats the id.
            stream.set_event_overhead(id.len() as u64);
            self.calls.insert(String::from(id), stream);
        }
        let Some(stream) = self.calls.get_mut(id) else {
            return;
        };
        if stream.is_ended() {
            self.events.push_back(ToolEvent::Error {
                id: String::from(id),
                error: ToolError::AfterEnd,
            });
            return;
        }
        let had_error = stream.error().is_some();
        let events = &mut self.events;
        stream.feed_with(fragment, |event| events.push_back(tool_event(id, event)));
        if let (false, Some(e)) = (had_error, stream.error()) {
            let error = ToolError::InvalidArguments(e.clone());
            self.events.push_back(ToolEvent::Error {
                id: String::from(id),
                error,
            });
        }
    }

    /// Appends a fragment given as bytes: a UTF-8 sequence cut at its end
    /// waits for the call's next fragment (or becomes U+FFFD at
    /// [`ArgumentStreams::finish`]), and invalid bytes become U+FFFD.
    pub fn feed_bytes(&mut self, id: &str, bytes: &[u8]) {
        let mut held = self.held.remove(id).unwrap_or_default();
        let mut text = String::new();
        read_lossy(&mut held, bytes, |part| match part {
            Lossy::Text(t) => text.push_str(t),
            Lossy::Invalid(_) => text.push('\u{FFFD}'),
        });
        self.feed(id, &text);
        // Only a call that was kept holds bytes, so that refused ids cost
        // nothing.
        if !held.is_empty() && self.calls.get(id).is_some_and(|c| !c.is_ended()) {
            self.held.insert(String::from(id), held);
        }
    }

    /// Takes the accumulated text so far (as some providers send it) and
    /// pushes only what is new. A text that does not extend what came
    /// before is an error event, and is ignored.
    pub fn feed_accumulated(&mut self, id: &str, text: &str) {
        let known = self.calls.get(id).map_or("", ArgumentStream::raw);
        match text.strip_prefix(known) {
            Some(new) => {
                if !new.is_empty() || !self.calls.contains_key(id) {
                    let new = String::from(new);
                    self.feed(id, &new);
                }
            }
            None => {
                let known_bytes = known.len();
                self.events.push_back(ToolEvent::Error {
                    id: String::from(id),
                    error: ToolError::NotExtending { known_bytes },
                });
            }
        }
    }

    /// Ends a call: its final arguments, also reported as an
    /// [`ToolEvent::End`] event.
    ///
    /// An error when there is no open call `id` (unknown, or ended
    /// already: [`ToolError::UnknownCall`]), or when its arguments are not
    /// a complete value ([`ToolError::InvalidArguments`],
    /// [`ToolError::EndedEarly`]): the call still ends, its best-effort
    /// value in the end event and [`ArgumentStreams::arguments`].
    pub fn finish(&mut self, id: &str) -> Result<Value, ToolError> {
        if self.held.remove(id).is_some() {
            self.feed(id, "\u{FFFD}");
        }
        let Some(stream) = self.calls.get_mut(id).filter(|s| !s.is_ended()) else {
            return Err(ToolError::UnknownCall);
        };
        let had_error = stream.error().cloned();
        let events = &mut self.events;
        let arguments = stream.end_with(|event| events.push_back(tool_event(id, event)));
        let error = match (had_error, stream.error()) {
            (Some(e), _) => Some(ToolError::InvalidArguments(e)),
            (None, Some(e)) => {
                let error = ToolError::EndedEarly(e.clone());
                self.events.push_back(ToolEvent::Error {
                    id: String::from(id),
                    error: error.clone(),
                });
                Some(error)
            }
            (None, None) => None,
        };
        self.events.push_back(ToolEvent::End {
            id: String::from(id),
            arguments: arguments.clone(),
        });
        match error {
            Some(error) => Err(error),
            None => Ok(arguments),
        }
    }
}

/// An argument event of call `id`.
fn tool_event(id: &str, event: ArgumentEvent) -> ToolEvent {
    ToolEvent::Argument {
        id: String::from(id),
        event,
    }
}
