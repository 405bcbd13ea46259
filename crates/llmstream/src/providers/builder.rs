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

use super::arguments::ArgumentStream;
use super::event::{FinishReason, StreamEvent, Usage};
use super::message::{reorder_positions, ErrorInfo, Message, Part};
use super::Provider;
use crate::json::Value;

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
        }
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
        if !self.announced && !matches!(event, StreamEvent::MessageStart { .. }) {
            self.announce();
        }
        self.message.apply_with(&event, &self.limits);
        self.events.push_back(event);
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

    /// The next text or reasoning of `choice` starts a new content part
    /// (a new Anthropic content block, a new Responses output item).
    pub fn break_part(&mut self, choice: u64) {
        self.part_break.insert(choice, true);
    }

    fn part_limit_reached(&mut self, choice: u64) -> bool {
        let limit = self.limits.max_parts;
        let full = self
            .message
            .choices
            .get(&choice)
            .map_or(limit == 0, |c| c.content.len() >= limit);
        if full {
            self.error(ErrorInfo::new(format!(
                "more than {limit} content parts in choice {choice}"
            )));
        }
        full
    }

    /// The latest part of `choice`, if any.
    fn last_part(&self, choice: u64) -> Option<&Part> {
        self.message.choices.get(&choice)?.content.last()
    }

    /// Appends answer text.
    pub fn text(&mut self, choice: u64, text: &str) {
        self.append(choice, Flow::Text, text);
    }

    /// Appends reasoning text (thinking, or a reasoning summary).
    pub fn reasoning(&mut self, choice: u64, text: &str) {
        self.append(choice, Flow::Reasoning, text);
    }

    /// Appends refusal text (to the latest part if it is a refusal and no
    /// part break was asked for, as text does).
    pub(crate) fn refusal(&mut self, choice: u64, text: &str) {
        self.append(choice, Flow::Refusal, text);
    }

    /// Appends text, reasoning or refusal: to the choice's running total,
    /// to the last part when it is of the same kind (and no part break was
    /// asked for: then a part start comes first), else to a new part.
    pub(crate) fn append(&mut self, choice: u64, flow: Flow, text: &str) {
        if text.is_empty() || !self.choice_ok(choice) {
            return;
        }
        let fresh = self.part_break.remove(&choice).unwrap_or(false);
        let owned = self.last_part(choice).is_some_and(|p| flow.owns(p));
        if (fresh || !owned) && self.part_limit_reached(choice) {
            return;
        }
        if fresh && owned {
            self.emit(StreamEvent::PartStart { choice, kind: flow });
        }
        self.emit(flow_event(flow, choice, String::from(text)));
    }

    /// Sets the signature of the latest reasoning part (starting an empty
    /// one if the latest part is not reasoning: the reasoning itself was
    /// redacted or not streamed).
    pub fn reasoning_signature(&mut self, choice: u64, signature: &str) {
        if !self.choice_ok(choice) {
            return;
        }
        if !matches!(self.last_part(choice), Some(Part::Reasoning { .. })) {
            if self.part_limit_reached(choice) {
                return;
            }
            self.emit(StreamEvent::PartStart {
                choice,
                kind: Flow::Reasoning,
            });
        }
        if let Some(part) = self.last_part_position(choice) {
            self.reasoning_signature_at(choice, part, signature);
        }
    }

    /// Sets the signature of the reasoning part at `position` in
    /// `choice`'s content (an earlier one is replaced); whether that part
    /// is reasoning.
    pub(crate) fn reasoning_signature_at(
        &mut self,
        choice: u64,
        position: usize,
        signature: &str,
    ) -> bool {
        let part = self
            .message
            .choices
            .get(&choice)
            .and_then(|c| c.content.get(position));
        if !matches!(part, Some(Part::Reasoning { .. })) {
            return false;
        }
        self.emit(StreamEvent::ReasoningSignature {
            choice,
            part: position,
            signature: String::from(signature),
        });
        true
    }

    /// Keeps a block as the provider sent it; its position in the
    /// choice's content (to update it in place as the wire fills it in),
    /// unless a limit refused it.
    pub fn raw_part(&mut self, choice: u64, value: Value) -> Option<usize> {
        if !self.choice_ok(choice) || self.part_limit_reached(choice) {
            return None;
        }
        self.emit(StreamEvent::RawPart { choice, value });
        self.last_part_position(choice)
    }

    /// The raw part at `position` of `choice`, if it is one.
    pub(crate) fn raw_part_at(&self, choice: u64, position: usize) -> Option<&Value> {
        match self.message.choices.get(&choice)?.content.get(position)? {
            Part::Raw(value) => Some(value),
            _ => None,
        }
    }

    /// Sets a member of the raw part (an object) at `position`.
    pub(crate) fn raw_part_member(
        &mut self,
        choice: u64,
        position: usize,
        member: &str,
        value: Value,
    ) {
        if matches!(self.raw_part_at(choice, position), Some(Value::Object(_))) {
            self.emit(StreamEvent::RawPartMember {
                choice,
                part: position,
                member: String::from(member),
                value,
            });
        }
    }

    /// Appends text to a string member of the raw part (an object) at
    /// `position` (sets it when it is not a string): costs the text, not
    /// the member, so that a block growing over many deltas stays linear.
    pub(crate) fn raw_part_append(
        &mut self,
        choice: u64,
        position: usize,
        member: &str,
        text: &str,
    ) {
        if matches!(self.raw_part_at(choice, position), Some(Value::Object(_))) {
            self.emit(StreamEvent::RawPartAppend {
                choice,
                part: position,
                member: String::from(member),
                text: String::from(text),
            });
        }
    }

    /// Replaces the raw part at `position` whole.
    pub(crate) fn raw_part_replace(&mut self, choice: u64, position: usize, value: Value) {
        if self.raw_part_at(choice, position).is_some() {
            self.emit(StreamEvent::RawPartReplace {
                choice,
                part: position,
                value,
            });
        }
    }

    /// Appends log probabilities of tokens of `choice`'s answer text
    /// (OpenAI Chat's `logprobs.content`, Gemini's `logprobsResult`) to
    /// its latest text part: the one the text that came with them went to,
    /// whatever parts the same chunk added after it (a tool call, a
    /// signature). With no text part yet, to a new, empty one that the
    /// text to come extends.
    pub fn logprobs(&mut self, choice: u64, items: impl IntoIterator<Item = Value>) {
        self.flow_logprobs(choice, Flow::Text, items);
    }

    /// [`MessageBuilder::logprobs`] for refusal text (OpenAI Chat's
    /// `logprobs.refusal`), on a refusal part.
    pub(crate) fn refusal_logprobs(&mut self, choice: u64, items: impl IntoIterator<Item = Value>) {
        self.flow_logprobs(choice, Flow::Refusal, items);
    }

    fn flow_logprobs(&mut self, choice: u64, flow: Flow, items: impl IntoIterator<Item = Value>) {
        let items: Vec<Value> = items.into_iter().collect();
        if items.is_empty() {
            return;
        }
        let latest = self
            .message
            .choices
            .get(&choice)
            .and_then(|c| c.content.iter().rposition(|p| flow.owns(p)));
        if let Some(position) = latest.or_else(|| self.part_for(choice, flow)) {
            self.logprobs_at(choice, position, items);
        }
    }

    /// Appends log probabilities of tokens of the text or refusal part at
    /// `position` in `choice`'s content (OpenAI Responses: each
    /// `output_text` part has its own). Returns whether that part is text
    /// or a refusal (nothing is kept otherwise).
    pub(crate) fn logprobs_at(
        &mut self,
        choice: u64,
        position: usize,
        items: impl IntoIterator<Item = Value>,
    ) -> bool {
        let part = self
            .message
            .choices
            .get(&choice)
            .and_then(|c| c.content.get(position));
        if !matches!(part, Some(Part::Text(_) | Part::Refusal(_))) {
            return false;
        }
        self.emit(StreamEvent::Logprobs {
            choice,
            part: position,
            logprobs: items.into_iter().collect(),
        });
        true
    }

    /// The part of `flow` that text of `choice` arriving now would extend,
    /// for what comes before that text (a citation, log probabilities):
    /// the latest part, if it is of `flow` and no part break is pending;
    /// else a new, empty one (`None` if a limit refused it, or the choice).
    fn part_for(&mut self, choice: u64, flow: Flow) -> Option<usize> {
        let pending = self.part_break.get(&choice).copied().unwrap_or(false);
        if !self.choice_ok(choice) {
            return None;
        }
        if pending || !self.last_part(choice).is_some_and(|p| flow.owns(p)) {
            self.begin(choice, flow);
        }
        let position = self.last_part_position(choice)?;
        self.last_part(choice)
            .filter(|p| flow.owns(p))
            .map(|_| position)
    }

    /// Whether the tool call exists.
    pub fn has_tool_call(&self, choice: u64, call: u64) -> bool {
        self.message.tool_call(choice, call).is_some()
    }

    /// Begins a tool call whose arguments are JSON; see
    /// [`MessageBuilder::tool_call_start_with`].
    pub(crate) fn tool_call_start(&mut self, choice: u64, call: u64, id: &str, name: &str) {
        self.tool_call_start_with(choice, call, id, name, None, ArgumentStream::json());
    }

    /// Begins a tool call (or completes the id and name of one that
    /// exists: each is set once, so a fragment repeating them changes
    /// nothing). `kind` is the wire's type (`function`, `custom`, …).
    pub fn tool_call_start_with(
        &mut self,
        choice: u64,
        call: u64,
        id: &str,
        name: &str,
        kind: Option<&str>,
        mut arguments: ArgumentStream,
    ) {
        if self.has_tool_call(choice, call) {
            self.tool_call_identify(choice, call, Some(id), Some(name));
            return;
        }
        if !self.choice_ok(choice) {
            return;
        }
        let max_calls = self.limits.max_tool_calls;
        let calls = self
            .message
            .choices
            .get(&choice)
            .map_or(0, |c| c.tool_calls.len());
        if calls >= max_calls {
            self.error(ErrorInfo::new(format!(
                "more than {max_calls} tool calls in choice {choice}: call {call} ignored"
            )));
            return;
        }
        if self.part_limit_reached(choice) {
            return;
        }
        arguments.drop_text();
        self.arguments.insert((choice, call), Box::new(arguments));
        self.open.insert((choice, call));
        self.emit(StreamEvent::ToolCallStart {
            choice,
            call,
            id: String::from(id),
            name: String::from(name),
            kind: kind.map(String::from),
        });
    }

    /// Sets a tool call's id and name where still empty.
    pub fn tool_call_identify(
        &mut self,
        choice: u64,
        call: u64,
        id: Option<&str>,
        name: Option<&str>,
    ) {
        let Some(tc) = self.message.tool_call(choice, call) else {
            return;
        };
        let id = id.filter(|s| !s.is_empty() && tc.id.is_empty());
        let name = name.filter(|s| !s.is_empty() && tc.name.is_empty());
        if id.is_none() && name.is_none() {
            return;
        }
        self.emit(StreamEvent::ToolCallIdentity {
            choice,
            call,
            id: id.map(String::from),
            name: name.map(String::from),
        });
    }

    /// Appends a fragment of a tool call's arguments (the call is started
    /// with an empty id and name if the wire never announced it).
    pub fn tool_call_arguments(&mut self, choice: u64, call: u64, fragment: &str) {
        if !self.has_tool_call(choice, call) {
            self.tool_call_start(choice, call, "", "");
            if !self.has_tool_call(choice, call) {
                return;
            }
        }
        if fragment.is_empty() {
            return;
        }
        let ended = self
            .arguments
            .get(&(choice, call))
            .is_none_or(|s| s.is_ended());
        if ended {
            // Arguments that ended (complete JSON, or the wire's end of the
            // call) take no more, nor does their text, which stays what the
            // end reported: whitespace may follow; other text (two calls'
            // objects run together, a gateway repeating the text) is left
            // out, and said once, as the call's error and as an error event
            // (its end event went out already).
            let text_after = !fragment
                .trim_start_matches([' ', '\t', '\n', '\r'])
                .is_empty();
            let Some(tc) = self.message.tool_call(choice, call) else {
                return;
            };
            if text_after && tc.arguments_error.is_none() {
                let message = format!(
                    "tool call {:?} (choice {choice}, call {call}): text after its arguments ended was left out",
                    tc.id
                );
                self.emit(StreamEvent::ArgumentsError {
                    choice,
                    call,
                    error: String::from("text after the arguments ended was left out"),
                });
                self.error(ErrorInfo::new(message));
            }
            return;
        }
        self.emit(StreamEvent::ToolCallDelta {
            choice,
            call,
            fragment: String::from(fragment),
        });
        // The argument events change nothing in the message (the live
        // value is the stream's, here): queued as they come.
        let events = &mut self.events;
        if let Some(stream) = self.arguments.get_mut(&(choice, call)) {
            stream.feed_with(fragment, |event| {
                events.push_back(StreamEvent::Argument {
                    choice,
                    call,
                    event,
                });
            });
        }
    }

    /// Replaces a tool call's argument text with `text`, parsed afresh into
    /// `arguments` (a new stream of the same kind the call began with).
    ///
    /// For wires that repeat the whole text at the end (OpenAI Responses'
    /// `function_call_arguments.done`) when it disagrees with the streamed
    /// fragments: the repeated text is authoritative. No delta events are
    /// emitted for it — the fragments already reported cannot be taken
    /// back — but one [`StreamEvent::ArgumentsReplace`]; the
    /// [`StreamEvent::ToolCallEnd`] that follows carries the corrected
    /// arguments. A call that already ended gets its final arguments
    /// recomputed (in that event) without a second end event.
    pub(crate) fn tool_call_replace_arguments(
        &mut self,
        choice: u64,
        call: u64,
        mut arguments: ArgumentStream,
        text: &str,
    ) {
        let Some(tc) = self.message.tool_call(choice, call) else {
            return;
        };
        arguments.drop_text();
        arguments.feed_with(text, |_| {});
        let (value, error) = if tc.ended {
            let value = arguments.end_of(text, |_| {});
            (Some(value), arguments.error().map(|e| format!("{e}")))
        } else {
            (None, None)
        };
        self.arguments.insert((choice, call), Box::new(arguments));
        self.emit(StreamEvent::ArgumentsReplace {
            choice,
            call,
            text: String::from(text),
            arguments: value,
            arguments_error: error,
        });
    }

    /// The provider began another message in the same stream after saying
    /// the last one was complete (OpenAI Responses bodies that concatenate
    /// several responses): the message is incomplete again until the next
    /// end signal.
    pub(crate) fn reopen(&mut self) {
        if self.message.complete {
            self.emit(StreamEvent::Reopen);
        }
    }

    /// The raw argument text of a tool call so far.
    pub(crate) fn tool_call_text(&self, choice: u64, call: u64) -> Option<&str> {
        let tc = self.message.tool_call(choice, call)?;
        Some(tc.arguments_text.as_str())
    }

    /// Ends a tool call: its final arguments (see [`ArgumentStream::finish`])
    /// and the end event. Ending twice does nothing.
    pub fn tool_call_end(&mut self, choice: u64, call: u64) {
        let Some(stream) = self.arguments.get_mut(&(choice, call)) else {
            return;
        };
        if stream.is_ended() {
            return;
        }
        self.open.remove(&(choice, call));
        let Some(tc) = self.message.tool_call(choice, call) else {
            return;
        };
        // As in `tool_call_arguments`, the argument events are queued as
        // they come: they change nothing in the message.
        let events = &mut self.events;
        let arguments = stream.end_of(&tc.arguments_text, |event| {
            events.push_back(StreamEvent::Argument {
                choice,
                call,
                event,
            });
        });
        let error = stream.error().map(|e| format!("{e}"));
        let (id, name) = (tc.id.clone(), tc.name.clone());
        self.emit(StreamEvent::ToolCallEnd {
            choice,
            call,
            id,
            name,
            arguments,
            arguments_error: error,
        });
    }

    /// Ends every tool call still open (at a finish, or the end of the
    /// stream), in key order.
    pub(crate) fn end_tool_calls(&mut self) {
        let open: Vec<(u64, u64)> = self.open.iter().copied().collect();
        for (choice, call) in open {
            self.tool_call_end(choice, call);
        }
    }

    /// Ends the open tool calls of one choice.
    fn end_tool_calls_of(&mut self, choice: u64) {
        let open: Vec<u64> = self
            .open
            .range((choice, 0)..=(choice, u64::MAX))
            .map(|&(_, call)| call)
            .collect();
        for call in open {
            self.tool_call_end(choice, call);
        }
    }

    /// Sets the signature that came with a tool call (Gemini's
    /// `thoughtSignature` on a `functionCall` part), which the caller must
    /// send back with the call.
    pub(crate) fn tool_call_signature(&mut self, choice: u64, call: u64, signature: &str) {
        if self.has_tool_call(choice, call) {
            self.emit(StreamEvent::ToolCallSignature {
                choice,
                call,
                signature: String::from(signature),
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

    /// Starts a new, empty text part now, consuming a pending
    /// [`MessageBuilder::break_part`]: for a block that carries something
    /// before its first text (Anthropic's citations arrive before the text
    /// they cite), so that it lands on this block's part and the text that
    /// follows merges into it.
    pub fn begin_text(&mut self, choice: u64) {
        self.begin(choice, Flow::Text);
    }

    /// Starts a new, empty reasoning part now, consuming a pending
    /// [`MessageBuilder::break_part`]: for a signature that arrives in a
    /// block with no reasoning text, so that it does not overwrite the
    /// signature of an earlier block's part.
    pub(crate) fn begin_reasoning(&mut self, choice: u64) {
        self.begin(choice, Flow::Reasoning);
    }

    /// Starts a new, empty part of `flow`, consuming a pending part break
    /// (a refusal part makes [`Choice::refusal`](super::Choice::refusal)
    /// `Some`, as its text would).
    fn begin(&mut self, choice: u64, flow: Flow) {
        if !self.choice_ok(choice) || self.part_limit_reached(choice) {
            return;
        }
        self.part_break.remove(&choice);
        self.emit(StreamEvent::PartStart { choice, kind: flow });
    }

    /// Attaches a citation to the latest text part of `choice` (starting an
    /// empty one when the latest part is not text or a part break is
    /// pending). Citations are appended, in arrival order.
    pub fn citation(&mut self, choice: u64, citation: Value) {
        if let Some(position) = self.part_for(choice, Flow::Text) {
            self.citation_at(choice, position, citation);
        }
    }

    /// The position in [`Choice::content`](super::Choice::content) of the
    /// latest part of `choice` (`None` before its first part): where a
    /// part just added landed, so that it can be found again after later
    /// parts follow.
    pub fn last_part_position(&self, choice: u64) -> Option<usize> {
        let c = self.message.choices.get(&choice)?;
        c.content.len().checked_sub(1)
    }

    /// Replaces the citation at `index` of the text part at `position`
    /// with a fuller copy the provider sent again (Gemini repeats its
    /// `groundingMetadata` on later chunks).
    pub(crate) fn citation_replace(
        &mut self,
        choice: u64,
        position: usize,
        index: usize,
        citation: Value,
    ) {
        let exists = self
            .message
            .choices
            .get(&choice)
            .and_then(|c| c.citations.get(&position))
            .is_some_and(|list| index < list.len());
        if exists {
            self.emit(StreamEvent::CitationReplace {
                choice,
                part: position,
                index,
                citation,
            });
        }
    }

    /// The part at `position` of `flow` gets `text` as its final copy,
    /// its running total with it: for wires that repeat a finished text
    /// whole (OpenAI Responses' `output_text.done`, `output_item.done`,
    /// `response.completed`) when it disagrees with the streamed deltas.
    /// Returns whether that part is of `flow` (nothing changes otherwise).
    pub(crate) fn replace_at(
        &mut self,
        choice: u64,
        position: usize,
        flow: Flow,
        text: &str,
    ) -> bool {
        let part = self
            .message
            .choices
            .get(&choice)
            .and_then(|c| c.content.get(position));
        if !part.is_some_and(|p| flow.owns(p)) {
            return false;
        }
        self.emit(StreamEvent::PartReplace {
            choice,
            part: position,
            kind: flow,
            text: String::from(text),
        });
        true
    }

    /// Reorders the content parts of `choice` from `start` on: the part
    /// now at `start + order[i]` goes to `start + i`, with everything kept
    /// by part position (see [`StreamEvent::PartsReorder`]). Returns where
    /// each part went (the new position of the part that was at
    /// `start + i`, at `i`); `None`, with nothing changed, unless `order`
    /// names each position from `start` to the end once.
    ///
    /// For parts that belong before some already there, though they came
    /// after them (OpenAI Responses items that only the terminal
    /// `response.output` carries, each placed by its `output_index`): the
    /// accumulator appends them as usual, then puts them in place in one
    /// pass — inserting them one by one would move the parts and text
    /// after each insertion point once per part.
    pub(crate) fn reorder(
        &mut self,
        choice: u64,
        start: usize,
        order: &[usize],
    ) -> Option<Vec<usize>> {
        let c = self.message.choices.get(&choice)?;
        let count = c.content.len().checked_sub(start)?;
        let moved_to = reorder_positions(start, count, order)?;
        self.emit(StreamEvent::PartsReorder {
            choice,
            start,
            order: order.to_vec(),
        });
        Some(moved_to)
    }

    /// Attaches a citation to the text part at `position` in `choice`'s
    /// content, which need not be the latest part (OpenAI Responses
    /// annotations name the item and part they belong to). Returns its
    /// index among that part's citations; `None`, with nothing attached,
    /// if that part is not text.
    pub fn citation_at(&mut self, choice: u64, position: usize, citation: Value) -> Option<usize> {
        let c = self.message.choices.get(&choice)?;
        if !matches!(c.content.get(position), Some(Part::Text(_))) {
            return None;
        }
        let index = c.citations.get(&position).map_or(0, Vec::len);
        self.emit(StreamEvent::Citation {
            choice,
            part: position,
            citation,
        });
        Some(index)
    }

    /// Sets the phase of the text part at `position` in `choice`'s content
    /// (OpenAI Responses `phase`), if it is text and has none yet.
    pub(crate) fn text_phase_at(&mut self, choice: u64, position: usize, phase: &str) {
        let Some(c) = self.message.choices.get(&choice) else {
            return;
        };
        if matches!(c.content.get(position), Some(Part::Text(_)))
            && !c.phases.contains_key(&position)
        {
            self.emit(StreamEvent::Phase {
                choice,
                part: position,
                phase: String::from(phase),
            });
        }
    }
}

/// The error event of `error`.
fn error_event(error: ErrorInfo, from_provider: bool) -> StreamEvent {
    StreamEvent::Error {
        message: error.message,
        kind: error.kind,
        raw: error.raw,
        from_provider,
    }
}
