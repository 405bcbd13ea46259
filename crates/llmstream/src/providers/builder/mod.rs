//! The typed push API every wire format's accumulator drives.
//!
//! Wire formats differ in framing and quirks; what they say is the same
//! handful of facts (text arrived, a tool call began, its arguments grew,
//! a choice finished). Each provider module translates its payloads into
//! calls on a [`MessageBuilder`], which turns each into normalized
//! [`StreamEvent`]s: every one is applied to the [`Message`]
//! ([`Message::apply_with`], the one reducer) and queued. The builder
//! changes its message in no other way, so the events alone rebuild it.
//! It depends on no JSON library: callers pass plain strings and numbers.

use alloc::boxed::Box;
use alloc::collections::{BTreeMap, BTreeSet, VecDeque};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::arguments::{ArgumentStream, ArgumentsError};
use super::event::{FinishReason, StreamEvent, Usage};
use super::message::{reorder_positions, ErrorInfo, Message, Part};
use super::Provider;
use crate::json::Value;

mod calls;
mod parts;

/// The three streams of prose a choice carries (see [`PartKind`]), by the
/// name the wire-format modules use for them.
pub(crate) use super::event::PartKind as Flow;

/// Bounds on what one stream may create, so a hostile or broken stream
/// cannot exhaust memory through wire indices. Indices themselves are map
/// keys: index 2^63 costs what index 0 does. What is over a bound is
/// reported as a [`StreamEvent::Error`] and left out; the reducer
/// ([`Message::apply_with`]) holds the same bounds, so that no sequence of
/// events grows a message past them. Set them with
/// [`Pipeline::with_provider_limits`](super::Pipeline::with_provider_limits),
/// [`Provider::accumulator_with`](super::Provider::accumulator_with) or
/// [`MessageBuilder::with_limits`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProviderLimits {
    /// Choices (candidates) per message. Default 128 (as openai-node).
    pub max_choices: usize,
    /// Tool calls per choice. Default 1024.
    pub max_tool_calls: usize,
    /// Content parts per choice. Default 4096.
    pub max_parts: usize,
}

impl Default for ProviderLimits {
    fn default() -> Self {
        ProviderLimits {
            max_choices: 128,
            max_tool_calls: 1024,
            max_parts: 4096,
        }
    }
}

fn flow_event(flow: Flow, choice: u64, text: String) -> StreamEvent {
    match flow {
        Flow::Text => StreamEvent::TextDelta { choice, text },
        Flow::Reasoning => StreamEvent::ReasoningDelta { choice, text },
        Flow::Refusal => StreamEvent::RefusalDelta { choice, text },
    }
}

/// Builds a [`Message`] from provider-neutral facts: each becomes
/// normalized events, applied to the message and queued.
#[derive(Clone, Debug)]
pub struct MessageBuilder {
    message: Message,
    events: VecDeque<StreamEvent>,
    /// Each call's argument stream, by (choice, call). A tree, not a
    /// sorted vector: a stream may announce its calls in any order (up to
    /// the limits' 131,072), and inserting before many would move them
    /// all. Boxed, so that a node holds keys and pointers, not 336-byte
    /// streams: a stream with one call allocates no more than before.
    arguments: BTreeMap<(u64, u64), Box<ArgumentStream>>,
    /// The calls not ended yet: a finish or the end of the stream ends
    /// these without going through the ones that ended long ago.
    open: BTreeSet<(u64, u64)>,
    limits: ProviderLimits,
    /// [`MessageBuilder::start`] was called.
    started: bool,
    /// A [`StreamEvent::MessageStart`] went out (the first event always is
    /// one, whether or not the wire started the message).
    announced: bool,
    /// Choices whose next text starts a new content part.
    part_break: BTreeMap<u64, bool>,
    /// The calls (choice, key) of tools the provider runs itself.
    provider: BTreeSet<(u64, u64)>,
    /// Tool-call arguments that are not JSON are read in lenient mode.
    lenient_arguments: bool,
}

impl MessageBuilder {
    /// An empty message of this wire format, default limits.
    pub fn new(provider: Provider) -> Self {
        MessageBuilder::with_limits(provider, ProviderLimits::default())
    }

    /// An empty message with these limits.
    pub fn with_limits(provider: Provider, limits: ProviderLimits) -> Self {
        MessageBuilder {
            message: Message::new(provider),
            events: VecDeque::new(),
            arguments: BTreeMap::new(),
            open: BTreeSet::new(),
            limits,
            started: false,
            announced: false,
            part_break: BTreeMap::new(),
            provider: BTreeSet::new(),
            lenient_arguments: false,
        }
    }

    /// Whether tool-call arguments that are not JSON are read in lenient
    /// mode at their end (see
    /// [`Pipeline::lenient_arguments`](super::Pipeline::lenient_arguments)),
    /// for the calls that start from now on.
    pub fn set_lenient_arguments(&mut self, on: bool) {
        self.lenient_arguments = on;
    }

    /// The message so far.
    pub fn message(&self) -> &Message {
        &self.message
    }

    /// Takes the message out.
    pub fn into_message(self) -> Message {
        self.message
    }

    /// The next queued event.
    pub fn next_event(&mut self) -> Option<StreamEvent> {
        self.events.pop_front()
    }

    /// The live partial arguments of a tool call.
    pub fn arguments(&self, choice: u64, call: u64) -> Option<&Value> {
        self.arguments.get(&(choice, call))?.snapshot()
    }

    /// The argument stream of a tool call (live value, error). Its
    /// [`raw`](ArgumentStream::raw) text is empty: the builder keeps the
    /// text once, as the call's [`ToolCall::arguments_text`](super::ToolCall::arguments_text).
    pub fn argument_stream(&self, choice: u64, call: u64) -> Option<&ArgumentStream> {
        self.arguments.get(&(choice, call)).map(|s| &**s)
    }

    /// The limits this builder enforces (accumulators bound their own
    /// per-block bookkeeping by the same numbers).
    pub fn limits(&self) -> &ProviderLimits {
        &self.limits
    }

    /// The one way the message changes: the event is applied, then
    /// queued. The first event of a message is its start.
    fn emit(&mut self, event: StreamEvent) {
        let Some(event) = self.in_family(event) else {
            return;
        };
        if !self.announced && !matches!(event, StreamEvent::MessageStart { .. }) {
            self.announce();
        }
        self.message.apply_with(&event, &self.limits);
        self.events.push_back(event);
    }

    /// A tool call's event as its family says: the `provider_tool_*`
    /// event for a call the provider runs, `None` for what that family
    /// does not report (the live argument events, a signature, argument
    /// corrections: the client has nothing to do with them); any other
    /// event as it is.
    fn in_family(&self, event: StreamEvent) -> Option<StreamEvent> {
        let provider = |choice: &u64, call: &u64| self.provider.contains(&(*choice, *call));
        Some(match event {
            StreamEvent::ToolCallStart {
                choice,
                call,
                id,
                name,
                kind,
            } if provider(&choice, &call) => StreamEvent::ProviderToolStart {
                choice,
                call,
                id,
                name,
                kind,
            },
            StreamEvent::ToolCallIdentity {
                choice,
                call,
                id,
                name,
            } if provider(&choice, &call) => StreamEvent::ProviderToolStart {
                choice,
                call,
                id: id.unwrap_or_default(),
                name: name.unwrap_or_default(),
                kind: None,
            },
            StreamEvent::ToolCallDelta {
                choice,
                call,
                fragment,
            } if provider(&choice, &call) => StreamEvent::ProviderToolDelta {
                choice,
                call,
                fragment,
            },
            StreamEvent::ToolCallEnd {
                choice,
                call,
                arguments,
                arguments_error,
                ..
            } if provider(&choice, &call) => StreamEvent::ProviderToolEnd {
                choice,
                call,
                arguments,
                arguments_error,
            },
            StreamEvent::Argument { choice, call, .. }
            | StreamEvent::ArgumentsReplace { choice, call, .. }
            | StreamEvent::ArgumentsError { choice, call, .. }
            | StreamEvent::ToolCallSignature { choice, call, .. }
                if provider(&choice, &call) =>
            {
                return None;
            }
            event => event,
        })
    }

    /// Keeps what the provider said of the message (`choice` `None`) or of
    /// a choice beyond the normalized fields, under its wire name; a value
    /// the same as the one kept is not an event.
    pub(crate) fn detail(&mut self, choice: Option<u64>, key: &str, value: Value) {
        let held = match choice {
            None => self.message.details.get(key),
            Some(choice) => {
                if !self.choice_ok(choice) {
                    return;
                }
                self.message
                    .choices
                    .get(&choice)
                    .and_then(|c| c.details.get(key))
            }
        };
        if held != Some(&value) {
            self.emit(StreamEvent::Detail {
                choice,
                key: String::from(key),
                value,
            });
        }
    }

    /// Emits the message's start with the provider, and the id and model
    /// as the message has them.
    fn announce(&mut self) {
        self.announced = true;
        let event = StreamEvent::MessageStart {
            provider: self.message.provider,
            id: self.message.id.clone(),
            model: self.message.model.clone(),
        };
        self.emit(event);
    }

    /// Applies an event without queuing it: one its caller reported
    /// already, before this builder existed (a pipeline's error before
    /// its first payload). The message stays the fold of the events the
    /// caller reported.
    pub fn record(&mut self, event: &StreamEvent) {
        self.message.apply_with(event, &self.limits);
    }

    /// The message began: id and model, each set once. The start event is
    /// emitted the first time, and again when it makes the id or the
    /// model known.
    pub fn start(&mut self, id: Option<&str>, model: Option<&str>) {
        let id = id.filter(|s| !s.is_empty());
        let model = model.filter(|s| !s.is_empty());
        let new_id = self.message.id.is_none() && id.is_some();
        let new_model = self.message.model.is_none() && model.is_some();
        self.started = true;
        if self.announced && !new_id && !new_model {
            return;
        }
        self.announced = true;
        let event = StreamEvent::MessageStart {
            provider: self.message.provider,
            id: self.message.id.clone().or(id.map(String::from)),
            model: self.message.model.clone().or(model.map(String::from)),
        };
        self.emit(event);
    }

    /// Whether [`MessageBuilder::start`] was called.
    pub fn is_started(&self) -> bool {
        self.started
    }

    /// Whether the choice exists or may be created (an error event if the
    /// limit refuses it).
    fn choice_ok(&mut self, index: u64) -> bool {
        if self.message.choices.contains_key(&index)
            || self.message.choices.len() < self.limits.max_choices
        {
            return true;
        }
        let limit = self.limits.max_choices;
        self.error(ErrorInfo::new(format!(
            "more than {limit} choices: choice {index} ignored"
        )));
        false
    }

    /// Sets the role of a choice (creating it); the first one wins.
    pub fn role(&mut self, choice: u64, role: &str) {
        let held = self.message.choices.get(&choice).map(|c| c.role.is_some());
        let changes = match held {
            None => true,
            Some(has_role) => !has_role && !role.is_empty(),
        };
        if changes && self.choice_ok(choice) {
            self.emit(StreamEvent::Role {
                choice,
                role: String::from(role),
            });
        }
    }

    /// Replaces the token counts (they are cumulative on every wire).
    pub fn usage(&mut self, usage: Usage) {
        self.emit(StreamEvent::Usage(usage.with_total()));
    }

    /// A choice finished: its open tool calls end, then the finish event.
    pub fn finish(&mut self, choice: u64, reason: &str, normalized: FinishReason) {
        self.end_tool_calls_of(choice);
        if !self.choice_ok(choice) {
            return;
        }
        self.emit(StreamEvent::Finish {
            choice,
            reason: String::from(reason),
            normalized,
        });
    }

    /// Keeps the provider's explanation of a finish (Anthropic's
    /// `stop_details` and stop sequence, Gemini's `finishMessage`) on the
    /// choice, replacing what was kept.
    pub fn finish_details(&mut self, choice: u64, details: Value) {
        if self.choice_ok(choice) {
            self.emit(StreamEvent::FinishDetails { choice, details });
        }
    }

    /// Records an error found in the stream: a protocol violation, a limit
    /// (every one is reported as an event; the message keeps the first,
    /// unless the provider reports one).
    pub fn error(&mut self, error: ErrorInfo) {
        self.emit(error_event(error, false));
    }

    /// Records an error the provider reported (an error payload or event).
    /// The message keeps the first of these over any found in the stream:
    /// it is what the caller has to act on (overloaded, rate-limited…),
    /// where a warning found earlier is a detail.
    pub fn provider_error(&mut self, error: ErrorInfo) {
        self.emit(error_event(error, true));
    }

    /// The provider said the message is complete.
    pub fn complete(&mut self) {
        if !self.message.complete {
            self.emit(StreamEvent::Complete);
        }
    }

    /// The stream ended: open tool calls end with what they have. A
    /// message that nothing changed yet is announced now, so that the
    /// events of every stream begin with [`StreamEvent::MessageStart`] and
    /// say the provider.
    pub fn end_stream(&mut self) {
        self.end_tool_calls();
        if !self.announced {
            self.announce();
        }
    }

    /// Whether the choice exists (it is created on first use, unless the
    /// choice limit refused it).
    pub(crate) fn has_choice(&self, choice: u64) -> bool {
        self.message.choices.contains_key(&choice)
    }
}

/// The error event of `error`.
fn error_event(error: ErrorInfo, from_provider: bool) -> StreamEvent {
    StreamEvent::Error(ErrorInfo {
        from_provider,
        ..error
    })
}
