//! The typed push API every wire format's accumulator drives.
//!
//! Wire formats differ in framing and quirks; what they say is the same
//! handful of facts (text arrived, a tool call began, its arguments grew,
//! a choice finished). Each provider module translates its payloads into
//! calls on a [`MessageBuilder`], which keeps the [`Message`] and queues the
//! normalized [`StreamEvent`]s. It depends on no JSON library: callers pass
//! plain strings and numbers.

use alloc::boxed::Box;
use alloc::collections::{BTreeMap, BTreeSet, VecDeque};
use alloc::format;
use alloc::string::String;

use super::arguments::{ArgumentEvent, ArgumentStream};
use super::event::{FinishReason, StreamEvent, Usage};
use super::message::{Choice, ErrorInfo, Message, Part, ToolCall};
use super::sorted_map::SortedMap;
use super::Provider;
use crate::json::Value;

/// Bounds on what one stream may create, so a hostile or broken stream
/// cannot exhaust memory through wire indices. Indices themselves are map
/// keys: index 2^63 costs what index 0 does. What is over a bound is
/// reported as a [`StreamEvent::Error`] and left out. Set them with
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

/// The three streams of prose a choice carries, each both in its content
/// parts and in a running concatenation ([`Choice::text`],
/// [`Choice::reasoning`], [`Choice::refusal`]).
/// The one place that knows which parts and running text each is (the
/// builder and the OpenAI Responses accumulator find a part's text and
/// where it lies in the running text through it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    Text,
    Reasoning,
    Refusal,
}

impl Flow {
    pub(crate) const ALL: [Flow; 3] = [Flow::Text, Flow::Reasoning, Flow::Refusal];

    /// Whether `part` is a part of this flow (so new text may extend it).
    fn owns(self, part: &Part) -> bool {
        self.text_of(part).is_some()
    }

    /// The text of `part`, if it is a part of this flow.
    pub(crate) fn text_of(self, part: &Part) -> Option<&str> {
        match (self, part) {
            (Flow::Text, Part::Text(t))
            | (Flow::Reasoning, Part::Reasoning { text: t, .. })
            | (Flow::Refusal, Part::Refusal(t)) => Some(t),
            _ => None,
        }
    }

    /// The text of `part`, mutably, if it is a part of this flow.
    fn text_of_mut(self, part: &mut Part) -> Option<&mut String> {
        match (self, part) {
            (Flow::Text, Part::Text(t))
            | (Flow::Reasoning, Part::Reasoning { text: t, .. })
            | (Flow::Refusal, Part::Refusal(t)) => Some(t),
            _ => None,
        }
    }

    /// The bytes of this flow's text in `parts`.
    pub(crate) fn len(self, parts: &[Part]) -> usize {
        parts
            .iter()
            .filter_map(|p| self.text_of(p))
            .map(str::len)
            .sum()
    }

    fn part(self, text: &str) -> Part {
        match self {
            Flow::Text => Part::Text(String::from(text)),
            Flow::Reasoning => Part::Reasoning {
                text: String::from(text),
                signature: None,
            },
            Flow::Refusal => Part::Refusal(String::from(text)),
        }
    }

    /// The choice's running concatenation of this flow (a refusal's made
    /// `Some` on first use).
    fn running(self, c: &mut Choice) -> &mut String {
        match self {
            Flow::Text => &mut c.text,
            Flow::Reasoning => &mut c.reasoning,
            Flow::Refusal => c.refusal.get_or_insert_with(String::new),
        }
    }

    /// The choice's running concatenation of this flow ("" for no refusal).
    pub(crate) fn running_ref(self, c: &Choice) -> &str {
        match self {
            Flow::Text => &c.text,
            Flow::Reasoning => &c.reasoning,
            Flow::Refusal => c.refusal.as_deref().unwrap_or(""),
        }
    }

    fn event(self, choice: u64, text: String) -> StreamEvent {
        match self {
            Flow::Text => StreamEvent::TextDelta { choice, text },
            Flow::Reasoning => StreamEvent::ReasoningDelta { choice, text },
            Flow::Refusal => StreamEvent::RefusalDelta { choice, text },
        }
    }
}

/// Builds a [`Message`] from provider-neutral facts and queues the
/// normalized events.
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
    started: bool,
    /// Choices whose next text starts a new content part.
    part_break: BTreeMap<u64, bool>,
    /// `message.error` is one the provider sent, not one found here.
    provider_error: bool,
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
            part_break: BTreeMap::new(),
            provider_error: false,
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
    /// text once, as the call's [`ToolCall::arguments_text`](super::ToolCall::arguments_text)
    /// (see [`MessageBuilder::tool_call_text`]).
    pub fn argument_stream(&self, choice: u64, call: u64) -> Option<&ArgumentStream> {
        self.arguments.get(&(choice, call)).map(|s| &**s)
    }

    fn emit(&mut self, event: StreamEvent) {
        self.events.push_back(event);
    }

    /// The message began: id and model, each set once. The start event is
    /// emitted the first time.
    pub fn start(&mut self, id: Option<&str>, model: Option<&str>) {
        if self.message.id.is_none() {
            self.message.id = id.filter(|s| !s.is_empty()).map(String::from);
        }
        if self.message.model.is_none() {
            self.message.model = model.filter(|s| !s.is_empty()).map(String::from);
        }
        if !self.started {
            self.started = true;
            self.emit(StreamEvent::MessageStart {
                id: self.message.id.clone(),
                model: self.message.model.clone(),
            });
        }
    }

    /// Whether [`MessageBuilder::start`] was called.
    pub fn is_started(&self) -> bool {
        self.started
    }

    /// The choice at `index`, created on first use (within the limit).
    fn choice(&mut self, index: u64) -> Option<&mut Choice> {
        if !self.message.choices.contains_key(&index) {
            if self.message.choices.len() >= self.limits.max_choices {
                let limit = self.limits.max_choices;
                self.error(ErrorInfo::new(format!(
                    "more than {limit} choices: choice {index} ignored"
                )));
                return None;
            }
            // A choice not seen before: a message found complete because
            // every choice then seen had finished was not complete after
            // all (`n` > 1 streams finish their choices one by one).
            self.message.complete = false;
        }
        self.message.choices.get_or_default(index)
    }

    /// Sets the role of a choice; the first one wins.
    pub fn role(&mut self, choice: u64, role: &str) {
        if let Some(c) = self.choice(choice) {
            if c.role.is_none() && !role.is_empty() {
                c.role = Some(String::from(role));
            }
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
            .is_some_and(|c| c.content.len() >= limit);
        if full {
            self.error(ErrorInfo::new(format!(
                "more than {limit} content parts in choice {choice}"
            )));
        }
        full
    }

    /// Appends answer text.
    pub fn text(&mut self, choice: u64, text: &str) {
        self.append(choice, Flow::Text, text);
    }

    /// Appends reasoning text (thinking, or a reasoning summary).
    pub fn reasoning(&mut self, choice: u64, text: &str) {
        self.append(choice, Flow::Reasoning, text);
    }

    /// Appends text, reasoning or refusal: to the choice's running total,
    /// to the last part when it is of the same kind (and no part break was
    /// asked for), else to a new part; then the delta event.
    pub(crate) fn append(&mut self, choice: u64, flow: Flow, text: &str) {
        if text.is_empty() || self.choice(choice).is_none() {
            return;
        }
        let fresh = self.part_break.remove(&choice).unwrap_or(false);
        let last = self
            .message
            .choices
            .get(&choice)
            .and_then(|c| c.content.last());
        let merge = !fresh && last.is_some_and(|p| flow.owns(p));
        if !merge && self.part_limit_reached(choice) {
            return;
        }
        if let Some(c) = self.message.choices.get_mut(&choice) {
            flow.running(c).push_str(text);
            match c
                .content
                .last_mut()
                .filter(|_| merge)
                .and_then(|p| flow.text_of_mut(p))
            {
                Some(t) => t.push_str(text),
                None => c.content.push(flow.part(text)),
            }
        }
        self.emit(flow.event(choice, String::from(text)));
    }

    /// Sets the signature of the latest reasoning part (creating an empty
    /// one if the reasoning itself was redacted or not streamed).
    pub fn reasoning_signature(&mut self, choice: u64, signature: &str) {
        let Some(c) = self.choice(choice) else {
            return;
        };
        match c.content.last_mut() {
            Some(Part::Reasoning { signature: s, .. }) => *s = Some(String::from(signature)),
            _ => c.content.push(Part::Reasoning {
                text: String::new(),
                signature: Some(String::from(signature)),
            }),
        }
    }

    /// Sets the signature of the reasoning part at `position` in
    /// `choice`'s content (an earlier one is replaced); whether that part
    /// is reasoning.
    pub fn reasoning_signature_at(
        &mut self,
        choice: u64,
        position: usize,
        signature: &str,
    ) -> bool {
        let part = self
            .message
            .choices
            .get_mut(&choice)
            .and_then(|c| c.content.get_mut(position));
        match part {
            Some(Part::Reasoning { signature: s, .. }) => {
                *s = Some(String::from(signature));
                true
            }
            _ => false,
        }
    }

    /// Appends refusal text (to the latest part if it is a refusal and no
    /// part break was asked for, as text does). Empty text still makes the
    /// choice's [`Choice::refusal`] `Some`.
    pub fn refusal(&mut self, choice: u64, text: &str) {
        let Some(c) = self.choice(choice) else {
            return;
        };
        c.refusal.get_or_insert_with(String::new);
        self.append(choice, Flow::Refusal, text);
    }

    /// Keeps a block as the provider sent it; its position in the
    /// choice's content (to update it in place with
    /// [`MessageBuilder::raw_part_at_mut`]), unless a limit refused it.
    pub fn raw_part(&mut self, choice: u64, value: Value) -> Option<usize> {
        if self.choice(choice).is_none() || self.part_limit_reached(choice) {
            return None;
        }
        let c = self.message.choices.get_mut(&choice)?;
        c.content.push(Part::Raw(value));
        Some(c.content.len() - 1)
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
    pub fn refusal_logprobs(&mut self, choice: u64, items: impl IntoIterator<Item = Value>) {
        self.flow_logprobs(choice, Flow::Refusal, items);
    }

    fn flow_logprobs(&mut self, choice: u64, flow: Flow, items: impl IntoIterator<Item = Value>) {
        let mut items = items.into_iter().peekable();
        if items.peek().is_none() {
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
    pub fn logprobs_at(
        &mut self,
        choice: u64,
        position: usize,
        items: impl IntoIterator<Item = Value>,
    ) -> bool {
        let Some(c) = self.message.choices.get_mut(&choice) else {
            return false;
        };
        if !matches!(
            c.content.get(position),
            Some(Part::Text(_) | Part::Refusal(_))
        ) {
            return false;
        }
        match c.logprobs.get_or_default(position) {
            Some(list) => {
                list.extend(items);
                true
            }
            None => false,
        }
    }

    /// The part of `flow` that text of `choice` arriving now would extend,
    /// for what comes before that text (a citation, log probabilities):
    /// the latest part, if it is of `flow` and no part break is pending;
    /// else a new, empty one (`None` if a limit refused it, or the choice).
    fn part_for(&mut self, choice: u64, flow: Flow) -> Option<usize> {
        let pending = self.part_break.get(&choice).copied().unwrap_or(false);
        let last = self.choice(choice)?.content.last();
        if pending || !last.is_some_and(|p| flow.owns(p)) {
            self.begin(choice, flow);
        }
        let c = self.message.choices.get(&choice)?;
        let position = c.content.len().checked_sub(1)?;
        c.content
            .get(position)
            .filter(|p| flow.owns(p))
            .map(|_| position)
    }

    /// The tool call `call` of `choice`, mutably.
    fn tool_call_mut(&mut self, choice: u64, call: u64) -> Option<&mut ToolCall> {
        self.message
            .choices
            .get_mut(&choice)
            .and_then(|c| c.tool_calls.get_mut(&call))
    }

    /// Whether the tool call exists.
    pub fn has_tool_call(&self, choice: u64, call: u64) -> bool {
        self.message
            .choices
            .get(&choice)
            .is_some_and(|c| c.tool_calls.contains_key(&call))
    }

    /// Begins a tool call whose arguments are JSON; see
    /// [`MessageBuilder::tool_call_start_with`].
    pub fn tool_call_start(&mut self, choice: u64, call: u64, id: &str, name: &str) {
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
        let max_calls = self.limits.max_tool_calls;
        let Some(c) = self.choice(choice) else {
            return;
        };
        if c.tool_calls.len() >= max_calls {
            self.error(ErrorInfo::new(format!(
                "more than {max_calls} tool calls in choice {choice}: call {call} ignored"
            )));
            return;
        }
        if self.part_limit_reached(choice) {
            return;
        }
        let mut tool_call = ToolCall::new(id, name);
        tool_call.kind = kind.map(String::from);
        if let Some(c) = self.message.choices.get_mut(&choice) {
            c.tool_calls.insert(call, tool_call);
            c.content.push(Part::ToolCall(call));
        }
        arguments.drop_text();
        self.arguments.insert((choice, call), Box::new(arguments));
        self.open.insert((choice, call));
        self.emit(StreamEvent::ToolCallStart {
            choice,
            call,
            id: String::from(id),
            name: String::from(name),
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
        let Some(tc) = self.tool_call_mut(choice, call) else {
            return;
        };
        if let Some(id) = id.filter(|s| !s.is_empty()) {
            if tc.id.is_empty() {
                tc.id = String::from(id);
            }
        }
        if let Some(name) = name.filter(|s| !s.is_empty()) {
            if tc.name.is_empty() {
                tc.name = String::from(name);
            }
        }
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
        // The stream, the call and the queue are apart: one lookup each.
        let (Some(stream), Some(tc)) = (
            self.arguments.get_mut(&(choice, call)),
            self.message
                .choices
                .get_mut(&choice)
                .and_then(|c| c.tool_calls.get_mut(&call)),
        ) else {
            return;
        };
        if stream.is_ended() {
            // Arguments that ended (complete JSON, or the wire's end of the
            // call) take no more, nor does their text, which stays what the
            // end reported: whitespace may follow; other text (two calls'
            // objects run together, a gateway repeating the text) is left
            // out, and said once, as the call's error and as an error event
            // (its end event went out already).
            let text_after = !fragment
                .trim_start_matches([' ', '\t', '\n', '\r'])
                .is_empty();
            if text_after && tc.arguments_error.is_none() {
                let message = format!(
                    "tool call {:?} (choice {choice}, call {call}): text after its arguments ended was left out",
                    tc.id
                );
                tc.arguments_error =
                    Some(String::from("text after the arguments ended was left out"));
                self.error(ErrorInfo::new(message));
            }
            return;
        }
        tc.arguments_text.push_str(fragment);
        let events = &mut self.events;
        events.push_back(StreamEvent::ToolCallDelta {
            choice,
            call,
            fragment: String::from(fragment),
        });
        stream.push(fragment, |event| {
            events.push_back(argument_event(choice, call, event));
        });
    }

    /// Replaces a tool call's argument text with `text`, parsed afresh into
    /// `arguments` (a new stream of the same kind the call began with).
    ///
    /// For wires that repeat the whole text at the end (OpenAI Responses'
    /// `function_call_arguments.done`) when it disagrees with the streamed
    /// fragments: the repeated text is authoritative. No delta events are
    /// emitted for it — the fragments already reported cannot be taken
    /// back, so the [`StreamEvent::ToolCallEnd`] that follows carries the
    /// corrected arguments. A call that already ended gets its final
    /// arguments recomputed without a second end event.
    pub fn tool_call_replace_arguments(
        &mut self,
        choice: u64,
        call: u64,
        mut arguments: ArgumentStream,
        text: &str,
    ) {
        let Some(tc) = self.tool_call_mut(choice, call) else {
            return;
        };
        arguments.drop_text();
        arguments.push(text, |_| {});
        tc.arguments_text = String::from(text);
        if tc.ended {
            let value = arguments.end_of(text, |_| {});
            tc.arguments_error = arguments.error().map(|e| format!("{e}"));
            tc.arguments = Some(value);
        }
        self.arguments.insert((choice, call), Box::new(arguments));
    }

    /// The provider began another message in the same stream after saying
    /// the last one was complete (OpenAI Responses bodies that concatenate
    /// several responses): the message is incomplete again until the next
    /// end signal.
    pub fn reopen(&mut self) {
        self.message.complete = false;
    }

    /// The raw argument text of a tool call so far.
    pub fn tool_call_text(&self, choice: u64, call: u64) -> Option<&str> {
        let tc = self.message.tool_call(choice, call)?;
        Some(tc.arguments_text.as_str())
    }

    /// Ends a tool call: its final arguments (see [`ArgumentStream::end`])
    /// and the end event. Ending twice does nothing.
    pub fn tool_call_end(&mut self, choice: u64, call: u64) {
        let Some(stream) = self.arguments.get_mut(&(choice, call)) else {
            return;
        };
        if stream.is_ended() {
            return;
        }
        self.open.remove(&(choice, call));
        let Some(tc) = self
            .message
            .choices
            .get_mut(&choice)
            .and_then(|c| c.tool_calls.get_mut(&call))
        else {
            return;
        };
        let events = &mut self.events;
        let arguments = stream.end_of(&tc.arguments_text, |event| {
            events.push_back(argument_event(choice, call, event));
        });
        let error = stream.error().map(|e| format!("{e}"));
        tc.arguments = Some(arguments.clone());
        tc.ended = true;
        tc.arguments_error = error.clone();
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
    pub fn end_tool_calls(&mut self) {
        let open: alloc::vec::Vec<(u64, u64)> = self.open.iter().copied().collect();
        for (choice, call) in open {
            self.tool_call_end(choice, call);
        }
    }

    /// Ends the open tool calls of one choice.
    pub fn end_tool_calls_of(&mut self, choice: u64) {
        let open: alloc::vec::Vec<u64> = self
            .open
            .range((choice, 0)..=(choice, u64::MAX))
            .map(|&(_, call)| call)
            .collect();
        for call in open {
            self.tool_call_end(choice, call);
        }
    }

    /// Replaces the token counts (they are cumulative on every wire).
    pub fn usage(&mut self, usage: Usage) {
        let usage = usage.with_total();
        self.message.usage = Some(usage.clone());
        self.emit(StreamEvent::Usage(usage));
    }

    /// A choice finished: its open tool calls end, then the finish event.
    pub fn finish(&mut self, choice: u64, reason: &str, normalized: FinishReason) {
        self.end_tool_calls_of(choice);
        let Some(c) = self.choice(choice) else {
            return;
        };
        c.finish_reason = Some(String::from(reason));
        c.finish = Some(normalized);
        self.emit(StreamEvent::Finish {
            choice,
            reason: String::from(reason),
            normalized,
        });
    }

    /// Records an error found in the stream: a protocol violation, a limit
    /// (every one is reported as an event; the message keeps the first,
    /// unless the provider reports one).
    pub fn error(&mut self, error: ErrorInfo) {
        self.emit(StreamEvent::Error {
            message: error.message.clone(),
        });
        if self.message.error.is_none() {
            self.message.error = Some(error);
        }
    }

    /// Records an error the provider reported (an error payload or event).
    /// The message keeps the first of these over any found in the stream:
    /// it is what the caller has to act on (overloaded, rate-limited…),
    /// where a warning found earlier is a detail.
    pub fn provider_error(&mut self, error: ErrorInfo) {
        self.emit(StreamEvent::Error {
            message: error.message.clone(),
        });
        if !self.provider_error {
            self.provider_error = true;
            self.message.error = Some(error);
        }
    }

    /// The provider said the message is complete.
    pub fn complete(&mut self) {
        self.message.complete = true;
    }

    /// The stream ended: open tool calls end with what they have.
    pub fn end_stream(&mut self) {
        self.end_tool_calls();
    }

    /// The limits this builder enforces (accumulators bound their own
    /// per-block bookkeeping by the same numbers).
    pub fn limits(&self) -> &ProviderLimits {
        &self.limits
    }

    /// Whether the choice exists (it is created on first use, unless the
    /// choice limit refused it).
    pub fn has_choice(&self, choice: u64) -> bool {
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
    pub fn begin_reasoning(&mut self, choice: u64) {
        self.begin(choice, Flow::Reasoning);
    }

    /// Starts a new, empty part of `flow`, consuming a pending part break
    /// (a refusal part makes [`Choice::refusal`] `Some`, as its text would).
    fn begin(&mut self, choice: u64, flow: Flow) {
        if self.choice(choice).is_none() || self.part_limit_reached(choice) {
            return;
        }
        self.part_break.remove(&choice);
        if let Some(c) = self.message.choices.get_mut(&choice) {
            flow.running(c);
            c.content.push(flow.part(""));
        }
    }

    /// Attaches a citation to the latest text part of `choice` (starting an
    /// empty one when the latest part is not text or a part break is
    /// pending). Citations are appended, in arrival order.
    pub fn citation(&mut self, choice: u64, citation: Value) {
        if let Some(position) = self.part_for(choice, Flow::Text) {
            self.citation_at(choice, position, citation);
        }
    }

    /// Sets the signature that came with a tool call (Gemini's
    /// `thoughtSignature` on a `functionCall` part), which the caller must
    /// send back with the call.
    pub fn tool_call_signature(&mut self, choice: u64, call: u64, signature: &str) {
        if let Some(tc) = self.tool_call_mut(choice, call) {
            tc.signature = Some(String::from(signature));
        }
    }

    /// Keeps the provider's explanation of a finish (Anthropic's
    /// `stop_details` and stop sequence, Gemini's `finishMessage`) on the
    /// choice, replacing what was kept.
    pub fn finish_details(&mut self, choice: u64, details: Value) {
        if let Some(c) = self.choice(choice) {
            c.finish_details = Some(details);
        }
    }

    /// The position in [`Choice::content`] of the latest part of `choice`
    /// (`None` before its first part): where a part just added landed, so
    /// that it can be found again with [`MessageBuilder::raw_part_at_mut`]
    /// or [`MessageBuilder::citations_at_mut`] after later parts follow.
    pub fn last_part_position(&self, choice: u64) -> Option<usize> {
        let c = self.message.choices.get(&choice)?;
        c.content.len().checked_sub(1)
    }

    /// The kept block at `position` in `choice`'s content, to update in
    /// place as the wire fills it in (Anthropic's `compaction` block,
    /// whose `compaction_delta`s carry its summary; OpenAI Chat's audio);
    /// `None` if that part
    /// is not a raw one. In place, so that a block growing over many
    /// deltas costs each delta's size, not the block's.
    pub fn raw_part_at_mut(&mut self, choice: u64, position: usize) -> Option<&mut Value> {
        match self
            .message
            .choices
            .get_mut(&choice)?
            .content
            .get_mut(position)?
        {
            Part::Raw(value) => Some(value),
            _ => None,
        }
    }

    /// The citations of the text part at `position` in `choice`'s content,
    /// to update one the provider sends again, fuller (Gemini repeats its
    /// `groundingMetadata` on later chunks); `None` if the part has none.
    pub fn citations_at_mut(
        &mut self,
        choice: u64,
        position: usize,
    ) -> Option<&mut alloc::vec::Vec<Value>> {
        self.message
            .choices
            .get_mut(&choice)?
            .citations
            .get_mut(&position)
    }

    // ---- OpenAI Responses: a text part found again by its position ----

    /// Replaces the text of the text part at `position` in `choice`'s
    /// content with `text`, keeping [`Choice::text`] the concatenation of
    /// the text parts: for wires that repeat a finished text whole (OpenAI
    /// Responses' `output_text.done`, `output_item.done`,
    /// `response.completed`) when it disagrees with the streamed deltas.
    /// No event is emitted: the deltas already reported cannot be taken
    /// back, the message is authoritative. Returns whether that part is
    /// text (nothing changes otherwise).
    pub fn replace_text_at(&mut self, choice: u64, position: usize, text: &str) -> bool {
        self.replace_at(choice, position, Flow::Text, text)
    }

    /// Replaces the text of the reasoning part at `position` in
    /// `choice`'s content, keeping [`Choice::reasoning`] the concatenation
    /// of the reasoning parts; its signature stays. As
    /// [`MessageBuilder::replace_text_at`], for reasoning the wire repeats
    /// whole when it is finished (OpenAI Responses'
    /// `reasoning_summary_text.done`, `reasoning_text.done`, the reasoning
    /// item's `summary` and `content`), which is what the server stored and
    /// what a stateless client sends back. Returns whether that part is
    /// reasoning.
    pub fn replace_reasoning_at(&mut self, choice: u64, position: usize, text: &str) -> bool {
        self.replace_at(choice, position, Flow::Reasoning, text)
    }

    /// Replaces the text of the refusal part at `position` in `choice`'s
    /// content, keeping [`Choice::refusal`] the concatenation of the
    /// refusal parts. As [`MessageBuilder::replace_text_at`], for a refusal
    /// the wire repeats whole (OpenAI Responses' `refusal.done`, a
    /// `refusal` content part of a finished item). Returns whether that
    /// part is a refusal.
    pub fn replace_refusal_at(&mut self, choice: u64, position: usize, text: &str) -> bool {
        self.replace_at(choice, position, Flow::Refusal, text)
    }

    /// The part at `position` of `flow` gets `text`, its running total
    /// with it (in place: the bytes after it move once).
    pub(crate) fn replace_at(
        &mut self,
        choice: u64,
        position: usize,
        flow: Flow,
        text: &str,
    ) -> bool {
        let Some(c) = self.message.choices.get_mut(&choice) else {
            return false;
        };
        // Where the part's text lies in the running text: after the parts
        // of its flow before it.
        let start = flow.len(c.content.get(..position).unwrap_or_default());
        let Some(old) = c.content.get(position).and_then(|p| flow.text_of(p)) else {
            return false;
        };
        let end = start.saturating_add(old.len());
        let in_place = flow.running_ref(c).get(start..end) == Some(old);
        if let Some(t) = c
            .content
            .get_mut(position)
            .and_then(|p| flow.text_of_mut(p))
        {
            *t = String::from(text);
        }
        if in_place {
            flow.running(c).replace_range(start..end, text);
        } else {
            // The running text is not the parts' concatenation (text added
            // by other means): made so again.
            rebuild(c, flow);
        }
        true
    }

    /// Reorders the content parts of `choice` from `start` on: the part
    /// now at `start + order[i]` goes to `start + i`. Everything kept by
    /// part position moves with its part ([`Choice::citations`],
    /// [`Choice::phases`]), and the running [`Choice::text`],
    /// [`Choice::reasoning`] and [`Choice::refusal`] follow the new order.
    /// Returns whether it was done: nothing changes unless `order` names
    /// each position from `start` to the end once.
    ///
    /// For parts that belong before some already there, though they came
    /// after them (OpenAI Responses items that only the terminal
    /// `response.output` carries, each placed by its `output_index`): the
    /// accumulator appends them as usual, then puts them in place in one
    /// pass — inserting them one by one would move the parts and text
    /// after each insertion point once per part. The caller moves the
    /// positions it keeps itself the same way; it costs the parts and the
    /// running text from `start` on, and a pass over the choice's
    /// citations and phases.
    ///
    /// ```
    /// use llmstream::json::Value;
    /// use llmstream::providers::{MessageBuilder, Part, Provider};
    ///
    /// let mut b = MessageBuilder::new(Provider::OpenAiResponses);
    /// b.text(0, "Answer.");
    /// b.citation(0, Value::from("source"));
    /// b.break_part(0);
    /// b.text(0, "Intro. ");
    /// // The intro belongs first: the part at 1, then the one at 0.
    /// assert!(!b.reorder_parts(0, 0, &[1, 1]));
    /// assert!(b.reorder_parts(0, 0, &[1, 0]));
    /// let c = b.message().choice().unwrap();
    /// assert_eq!(
    ///     c.content,
    ///     [Part::Text("Intro. ".into()), Part::Text("Answer.".into())]
    /// );
    /// assert_eq!(c.text, "Intro. Answer.");
    /// assert_eq!(c.citations.get(&1), Some(&vec![Value::from("source")]));
    /// assert_eq!(c.citations.get(&0), None);
    /// ```
    pub fn reorder_parts(&mut self, choice: u64, start: usize, order: &[usize]) -> bool {
        self.reorder(choice, start, order).is_some()
    }

    /// [`MessageBuilder::reorder_parts`], returning where each part went:
    /// the new position of the part that was at `start + i`, at `i`.
    pub(crate) fn reorder(
        &mut self,
        choice: u64,
        start: usize,
        order: &[usize],
    ) -> Option<alloc::vec::Vec<usize>> {
        let c = self.message.choices.get_mut(&choice)?;
        let count = c.content.len().checked_sub(start)?;
        if order.len() != count {
            return None;
        }
        // The new position of each part, by its old one.
        let mut moved_to = alloc::vec![usize::MAX; count];
        for (new, &old) in order.iter().enumerate() {
            match moved_to.get_mut(old) {
                Some(slot) if *slot == usize::MAX => *slot = start + new,
                _ => return None,
            }
        }
        // Where each flow's running text holds the parts from `start` on:
        // its end, if it is their concatenation.
        let tails = Flow::ALL.map(|flow| running_tail(c, flow, start));
        let mut old: alloc::vec::Vec<Option<Part>> = c.content.drain(start..).map(Some).collect();
        for &at in order {
            if let Some(part) = old.get_mut(at).and_then(Option::take) {
                c.content.push(part);
            }
        }
        let moved = |position: usize| match position.checked_sub(start) {
            Some(at) => moved_to.get(at).copied().unwrap_or(position),
            None => position,
        };
        remap(&mut c.citations, moved);
        remap(&mut c.logprobs, moved);
        remap(&mut c.phases, moved);
        for (flow, tail) in Flow::ALL.into_iter().zip(tails) {
            let Some(cut) = tail else {
                rebuild(c, flow);
                continue;
            };
            let parts = c.content.get(start..).unwrap_or_default();
            let moved_text: String = parts.iter().filter_map(|p| flow.text_of(p)).collect();
            // None of this flow's text moved: its running text stays (and
            // a refusal that never came stays `None`).
            if !moved_text.is_empty() {
                let running = flow.running(c);
                running.truncate(cut);
                running.push_str(&moved_text);
            }
        }
        Some(moved_to)
    }

    /// Attaches a citation to the text part at `position` in `choice`'s
    /// content, which need not be the latest part (OpenAI Responses
    /// annotations name the item and part they belong to). Returns its
    /// index among that part's citations (to replace it later with
    /// [`MessageBuilder::citations_at_mut`]); `None`, with nothing
    /// attached, if that part is not text.
    pub fn citation_at(&mut self, choice: u64, position: usize, citation: Value) -> Option<usize> {
        let c = self.message.choices.get_mut(&choice)?;
        if !matches!(c.content.get(position), Some(Part::Text(_))) {
            return None;
        }
        let list = c.citations.get_or_default(position)?;
        list.push(citation);
        Some(list.len() - 1)
    }

    /// Sets the phase of the text part at `position` in `choice`'s content
    /// (OpenAI Responses `phase`), if it is text and has none yet.
    pub fn text_phase_at(&mut self, choice: u64, position: usize, phase: &str) {
        let Some(c) = self.message.choices.get_mut(&choice) else {
            return;
        };
        if matches!(c.content.get(position), Some(Part::Text(_)))
            && !c.phases.contains_key(&position)
        {
            c.phases.insert(position, String::from(phase));
        }
    }
}

/// A tool call's argument event as a stream event of call `call` of
/// `choice`.
fn argument_event(choice: u64, call: u64, event: ArgumentEvent) -> StreamEvent {
    match event {
        ArgumentEvent::Delta { path, text } => StreamEvent::ArgumentDelta {
            choice,
            call,
            path,
            text,
        },
        ArgumentEvent::Value { path, value } => StreamEvent::Argument {
            choice,
            call,
            path,
            value,
        },
    }
}

/// Moves what `map` keeps by part position where `moved` says.
fn remap<V>(map: &mut SortedMap<usize, V>, moved: impl Fn(usize) -> usize) {
    *map = core::mem::take(map)
        .into_iter()
        .map(|(p, v)| (moved(p), v))
        .collect();
}

/// Makes `flow`'s running text of `c` the concatenation of its parts
/// again (a refusal stays `None` if there is none).
fn rebuild(c: &mut Choice, flow: Flow) {
    let mut all = String::new();
    for t in c.content.iter().filter_map(|p| flow.text_of(p)) {
        all.push_str(t);
    }
    match flow {
        Flow::Refusal if c.refusal.is_none() && all.is_empty() => {}
        _ => *flow.running(c) = all,
    }
}

/// Where `flow`'s running text of `c` holds the text of the parts from
/// `start` on, if it ends with their concatenation (`None` otherwise, or
/// if there is no running text and they have some).
fn running_tail(c: &Choice, flow: Flow, start: usize) -> Option<usize> {
    let parts = c.content.get(start..).unwrap_or_default();
    let running = flow.running_ref(c);
    let cut = running.len().checked_sub(flow.len(parts))?;
    let mut rest = running.get(cut..)?;
    for t in parts.iter().filter_map(|p| flow.text_of(p)) {
        rest = rest.strip_prefix(t)?;
    }
    Some(cut)
}
