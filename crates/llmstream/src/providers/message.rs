//! The message so far: what every accumulator builds, whatever the wire.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use super::builder::ProviderLimits;
use super::event::{opt_str, FinishReason, FromValueError, PartKind, Reader, StreamEvent, Usage};
use super::sorted_map::SortedMap;
use super::{ArgumentsError, Provider};
use crate::json::{self, Map, Value};

/// The message a stream has built so far (final once the stream ended).
///
/// It is the fold of the stream's events: `Message::default()` with every
/// [`StreamEvent`] applied in order ([`Message::apply`]) is the message the
/// builder built, which changes its message only through the same
/// reducer. `Message::default()` is an empty OpenAI Chat message: the
/// provider comes with [`StreamEvent::MessageStart`], which a builder
/// sends before any other event (and at the end of the stream if there
/// was none), so that a fold of its events has the right provider.
///
/// ```
/// use llmstream::providers::{Message, Pipeline};
///
/// let body = concat!(
///     "event: message_start\n",
///     "data: {\"type\":\"message_start\",\"message\":{\"id\":\"m1\",\"model\":\"claude\",\"role\":\"assistant\"}}\n\n",
///     "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n",
///     "data: {\"type\":\"message_stop\"}\n\n",
/// );
/// let mut pipeline = Pipeline::new();
/// pipeline.feed(body.as_bytes())?;
/// pipeline.finish()?;
/// let mut folded = Message::default();
/// while let Some(event) = pipeline.next_event() {
///     folded.apply(&event);
/// }
/// assert_eq!(Some(&folded), pipeline.message());
/// assert_eq!(folded.choice().unwrap().text, "Hi");
/// # Ok::<(), llmstream::providers::PipelineError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// The wire format it came in.
    pub provider: Provider,
    /// The provider's message / response id.
    pub id: Option<String>,
    /// The model that answered.
    pub model: Option<String>,
    /// The choices (candidates), by the wire's index.
    pub choices: SortedMap<u64, Choice>,
    /// The last token counts reported.
    pub usage: Option<Usage>,
    /// Whether the provider signalled the end of the message (a finish
    /// reason, `message_stop`, `response.completed`, `[DONE]`, …).
    pub complete: bool,
    /// What the provider said of the message beyond the fields above, by
    /// its wire name, as sent: Anthropic's `container` and
    /// `context_management`, Gemini's `promptFeedback`.
    pub details: Map,
    /// The first error the provider reported; failing that, the first
    /// problem found in the stream (a protocol violation, a limit). Every
    /// one of them is also a [`StreamEvent::Error`](super::StreamEvent::Error).
    pub error: Option<ErrorInfo>,
}

/// One answer of a message.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Choice {
    /// The role (`assistant`): the first one sent wins.
    pub role: Option<String>,
    /// Content parts in the order they began.
    pub content: Vec<Part>,
    /// All answer text, concatenated.
    pub text: String,
    /// All reasoning text, concatenated.
    pub reasoning: String,
    /// All refusal text, concatenated (`None` if there was none).
    pub refusal: Option<String>,
    /// The tool calls the client must answer (functions, custom tools,
    /// client-executed actions), by the wire's key.
    pub tool_calls: SortedMap<u64, ToolCall>,
    /// The tools the provider ran itself (Anthropic's `server_tool_use`
    /// and `mcp_tool_use`, OpenAI Responses' hosted tools, Groq's
    /// `executed_tools`, Gemini's code execution), with their results, by
    /// the wire's key: never to be run or answered by the client.
    pub provider_tools: SortedMap<u64, ToolCall>,
    /// The provider's own finish reason.
    pub finish_reason: Option<String>,
    /// The finish reason in provider-neutral terms.
    pub finish: Option<FinishReason>,
    /// Log probabilities, one per token in the order the tokens came, by
    /// the position in [`Choice::content`] of the text or refusal part
    /// whose tokens they score: OpenAI Chat's `logprobs.content` on text
    /// parts and `logprobs.refusal` on refusal parts, each Responses
    /// `output_text` part's `logprobs` on its part, Gemini's
    /// `logprobsResult` steps (shape in [`gemini`](super::gemini)).
    pub logprobs: SortedMap<usize, Vec<Value>>,
    /// Citations, by the position in [`Choice::content`] of the text part
    /// they support, in arrival order, each as its wire sent it: Anthropic
    /// `citations_delta`, OpenAI Chat `delta.annotations` and Responses
    /// annotations (`url_citation`, `file_citation`, …), Gemini's
    /// `{"groundingMetadata":…}`, `{"citationSource":…}` and
    /// `{"urlContextMetadata":…}` (shapes in [`gemini`](super::gemini)).
    pub citations: SortedMap<usize, Vec<Value>>,
    /// The phase of a text part, by its position in [`Choice::content`]
    /// (OpenAI Responses `phase`: `commentary` for a preamble between tool
    /// calls, `final_answer`), which must be sent back with it. The text
    /// of every phase is in [`Choice::text`], as in the SDK's
    /// `output_text`.
    pub phases: SortedMap<usize, String>,
    /// The provider's explanation of the finish, when it sends one:
    /// Anthropic's `stop_details` and the `stop_sequence` that matched
    /// (shapes in [`anthropic`](super::anthropic)), Gemini's
    /// `finishMessage`.
    pub finish_details: Option<Value>,
    /// What the provider said of the choice beyond the fields above, by
    /// its wire name, as sent (Gemini's `safetyRatings`).
    pub details: Map,
}

/// A content part, in stream order.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    /// Answer text.
    Text(String),
    /// Reasoning text, with the provider's signature when it sends one.
    Reasoning {
        /// The reasoning text (or summary).
        text: String,
        /// Anthropic's `signature`, Gemini's `thoughtSignature`.
        signature: Option<String>,
    },
    /// Refusal text.
    Refusal(String),
    /// The tool call with this key (see [`Choice::tool_calls`]).
    ToolCall(u64),
    /// The provider-run tool call with this key (see
    /// [`Choice::provider_tools`]).
    ProviderTool(u64),
    /// A block kept as the provider sent it (redacted thinking, server tool
    /// results, citations, …).
    Raw(Value),
}

/// A tool call, its arguments parsed as they arrived.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    /// The call id (set once; a repeat of the same id is not appended).
    pub id: String,
    /// The tool name (set once).
    pub name: String,
    /// The wire's type of the call: `function`, `custom`, `tool_use`,
    /// `local_shell_call`, … (for a provider-run tool, see
    /// [`Choice::provider_tools`]: `server_tool_use`, `web_search_call`, …).
    pub kind: Option<String>,
    /// The raw argument text received so far, up to the end of the
    /// arguments (text after it is left out, and is the call's
    /// `arguments_error`).
    pub arguments_text: String,
    /// The final arguments, set when the call ends (`None` before): as
    /// [`StreamEvent::ToolCallEnd`](super::StreamEvent::ToolCallEnd)'s
    /// (JSON cut short is its best-effort value, with `arguments_error`
    /// saying so; invalid JSON is its text as a string). The
    /// live partial value while the call streams is
    /// [`MessageBuilder::arguments`](super::MessageBuilder::arguments):
    /// copying it into every message on every fragment would make the
    /// stream quadratic.
    pub arguments: Option<Value>,
    /// Whether the arguments are known to be complete.
    pub ended: bool,
    /// Why the arguments are not valid JSON, if they are not.
    pub arguments_error: Option<ArgumentsError>,
    /// The opaque signature that came with the call (Gemini
    /// `thoughtSignature`), to be sent back with it.
    pub signature: Option<String>,
    /// For a provider-run tool: its latest progress (`in_progress`,
    /// `searching`, `completed`, …).
    pub status: Option<String>,
    /// For a provider-run tool: its result, as the wire sent it (the
    /// result block, or the finished hosted item).
    pub result: Option<Value>,
}

/// An error reported by the provider or found in the stream.
#[derive(Clone, Debug, PartialEq)]
pub struct ErrorInfo {
    /// What went wrong.
    pub message: String,
    /// The provider's error type or code, when given.
    pub kind: Option<String>,
    /// The error payload as sent, when there was one.
    pub raw: Option<Value>,
    /// When a payload was not JSON: the parser's error, its offset within
    /// the payload's data (boxed: events that may carry one stay small).
    pub parse_error: Option<Box<json::Error>>,
    /// Whether the provider reported it (the message keeps the first such
    /// error over any found in the stream). Not part of the JSON form of
    /// the message: [`Message::from_value`] reads it as `false`.
    pub from_provider: bool,
}

impl Default for Message {
    /// An empty OpenAI Chat message: what a fold of events starts from
    /// (see [`Message`]).
    fn default() -> Self {
        Message::new(Provider::OpenAiChat)
    }
}

impl Message {
    /// Applies one event: the one reducer every message is built by,
    /// within the default [`ProviderLimits`] (see [`Message::apply_with`]).
    pub fn apply(&mut self, event: &StreamEvent) {
        self.apply_with(event, &ProviderLimits::default());
    }

    /// Applies one event within `limits`: a choice, tool call or content
    /// part over a limit is left out, so that no sequence of events, even
    /// an untrusted one, grows the message past them. An event that does
    /// not fit the message (a position with no part of its kind, a call
    /// that does not exist) changes nothing.
    pub fn apply_with(&mut self, event: &StreamEvent, limits: &ProviderLimits) {
        match event {
            StreamEvent::MessageStart {
                provider,
                id,
                model,
            } => {
                self.provider = *provider;
                if self.id.is_none() {
                    self.id = id.as_deref().filter(|s| !s.is_empty()).map(String::from);
                }
                if self.model.is_none() {
                    self.model = model.as_deref().filter(|s| !s.is_empty()).map(String::from);
                }
            }
            StreamEvent::Role { choice, role } => {
                if let Some(c) = self.choice_mut(*choice, limits) {
                    if c.role.is_none() && !role.is_empty() {
                        c.role = Some(role.clone());
                    }
                }
            }
            StreamEvent::PartStart { choice, kind } => {
                if let Some(c) = self.choice_mut(*choice, limits) {
                    if c.content.len() < limits.max_parts {
                        kind.running(c);
                        c.content.push(kind.part(""));
                    }
                }
            }
            StreamEvent::TextDelta { choice, text } => {
                self.append(*choice, PartKind::Text, text, limits)
            }
            StreamEvent::ReasoningDelta { choice, text } => {
                self.append(*choice, PartKind::Reasoning, text, limits)
            }
            StreamEvent::RefusalDelta { choice, text } => {
                self.append(*choice, PartKind::Refusal, text, limits)
            }
            StreamEvent::PartReplace {
                choice,
                part,
                kind,
                text,
            } => {
                if let Some(c) = self.choices.get_mut(choice) {
                    c.replace_at(*part, *kind, text);
                }
            }
            StreamEvent::ReasoningSignature {
                choice,
                part,
                signature,
            } => {
                if let Some(Part::Reasoning { signature: s, .. }) = self.part_mut(*choice, *part) {
                    *s = Some(signature.clone());
                }
            }
            StreamEvent::RawPart { choice, value } => {
                if let Some(c) = self.choice_mut(*choice, limits) {
                    if c.content.len() < limits.max_parts {
                        c.content.push(Part::Raw(value.clone()));
                    }
                }
            }
            StreamEvent::RawPartMember {
                choice,
                part,
                member,
                value,
            } => {
                if let Some(Part::Raw(Value::Object(block))) = self.part_mut(*choice, *part) {
                    match block.get_mut(member) {
                        Some(held) => *held = value.clone(),
                        None => block.push(member.as_str(), value.clone()),
                    }
                }
            }
            StreamEvent::RawPartAppend {
                choice,
                part,
                member,
                text,
            } => {
                if let Some(Part::Raw(Value::Object(block))) = self.part_mut(*choice, *part) {
                    match block.get_mut(member) {
                        Some(Value::String(held)) => held.push_str(text),
                        Some(held) => *held = Value::from(text.as_str()),
                        None => block.push(member.as_str(), Value::from(text.as_str())),
                    }
                }
            }
            StreamEvent::RawPartReplace {
                choice,
                part,
                value,
            } => {
                if let Some(Part::Raw(held)) = self.part_mut(*choice, *part) {
                    *held = value.clone();
                }
            }
            StreamEvent::Citation {
                choice,
                part,
                citation,
            } => {
                let Some(c) = self.choices.get_mut(choice) else {
                    return;
                };
                if matches!(c.content.get(*part), Some(Part::Text(_))) {
                    if let Some(list) = c.citations.get_or_default(*part) {
                        list.push(citation.clone());
                    }
                }
            }
            StreamEvent::CitationReplace {
                choice,
                part,
                index,
                citation,
            } => {
                let slot = self
                    .choices
                    .get_mut(choice)
                    .and_then(|c| c.citations.get_mut(part))
                    .and_then(|list| list.get_mut(*index));
                if let Some(slot) = slot {
                    *slot = citation.clone();
                }
            }
            StreamEvent::Logprobs {
                choice,
                part,
                logprobs,
            } => {
                let Some(c) = self.choices.get_mut(choice) else {
                    return;
                };
                if matches!(c.content.get(*part), Some(Part::Text(_) | Part::Refusal(_))) {
                    if let Some(list) = c.logprobs.get_or_default(*part) {
                        list.extend(logprobs.iter().cloned());
                    }
                }
            }
            StreamEvent::Phase {
                choice,
                part,
                phase,
            } => {
                let Some(c) = self.choices.get_mut(choice) else {
                    return;
                };
                if matches!(c.content.get(*part), Some(Part::Text(_)))
                    && !c.phases.contains_key(part)
                {
                    c.phases.insert(*part, phase.clone());
                }
            }
            StreamEvent::PartsReorder {
                choice,
                start,
                order,
            } => {
                if let Some(c) = self.choices.get_mut(choice) {
                    c.reorder(*start, order);
                }
            }
            StreamEvent::ToolCallStart {
                choice,
                call,
                id,
                name,
                kind,
            } => {
                let Some(c) = self.choice_mut(*choice, limits) else {
                    return;
                };
                if c.tool_calls.contains_key(call)
                    || c.provider_tools.contains_key(call)
                    || c.calls() >= limits.max_tool_calls
                    || c.content.len() >= limits.max_parts
                {
                    return;
                }
                let mut tool_call = ToolCall::new(id, name);
                tool_call.kind = kind.clone();
                c.tool_calls.insert(*call, tool_call);
                c.content.push(Part::ToolCall(*call));
            }
            StreamEvent::ProviderToolStart {
                choice,
                call,
                id,
                name,
                kind,
            } => {
                let Some(c) = self.choice_mut(*choice, limits) else {
                    return;
                };
                if let Some(tool) = c.provider_tools.get_mut(call) {
                    // Sent again: what came later fills what is empty.
                    if tool.id.is_empty() {
                        tool.id.clone_from(id);
                    }
                    if tool.name.is_empty() {
                        tool.name.clone_from(name);
                    }
                    return;
                }
                if c.tool_calls.contains_key(call)
                    || c.calls() >= limits.max_tool_calls
                    || c.content.len() >= limits.max_parts
                {
                    return;
                }
                let mut tool = ToolCall::new(id, name);
                tool.kind = kind.clone();
                c.provider_tools.insert(*call, tool);
                c.content.push(Part::ProviderTool(*call));
            }
            StreamEvent::ProviderToolDelta {
                choice,
                call,
                fragment,
            } => {
                if let Some(tool) = self.provider_tool_mut(*choice, *call) {
                    if !tool.ended {
                        tool.arguments_text.push_str(fragment);
                    }
                }
            }
            StreamEvent::ProviderToolProgress {
                choice,
                call,
                status,
                ..
            } => {
                if let Some(tool) = self.provider_tool_mut(*choice, *call) {
                    tool.status = Some(status.clone());
                }
            }
            StreamEvent::ProviderToolResult {
                choice,
                call,
                result,
            } => {
                if let Some(tool) = self.provider_tool_mut(*choice, *call) {
                    tool.result = Some(result.clone());
                }
            }
            StreamEvent::ProviderToolEnd {
                choice,
                call,
                arguments,
                arguments_error,
            } => {
                if let Some(tool) = self.provider_tool_mut(*choice, *call) {
                    if !tool.ended {
                        tool.arguments = Some(arguments.clone());
                        tool.ended = true;
                        tool.arguments_error = arguments_error.clone();
                    }
                }
            }
            StreamEvent::Detail { choice, key, value } => match choice {
                None => {
                    self.details.insert(key.as_str(), value.clone());
                }
                Some(choice) => {
                    if let Some(c) = self.choice_mut(*choice, limits) {
                        c.details.insert(key.as_str(), value.clone());
                    }
                }
            },
            StreamEvent::ToolCallIdentity {
                choice,
                call,
                id,
                name,
            } => {
                if let Some(tc) = self.tool_call_mut(*choice, *call) {
                    if let Some(id) = id.as_deref().filter(|s| !s.is_empty()) {
                        if tc.id.is_empty() {
                            tc.id = String::from(id);
                        }
                    }
                    if let Some(name) = name.as_deref().filter(|s| !s.is_empty()) {
                        if tc.name.is_empty() {
                            tc.name = String::from(name);
                        }
                    }
                }
            }
            StreamEvent::ToolCallSignature {
                choice,
                call,
                signature,
            } => {
                if let Some(tc) = self.tool_call_mut(*choice, *call) {
                    tc.signature = Some(signature.clone());
                }
            }
            StreamEvent::ToolCallDelta {
                choice,
                call,
                fragment,
            } => {
                if let Some(tc) = self.tool_call_mut(*choice, *call) {
                    if !tc.ended {
                        tc.arguments_text.push_str(fragment);
                    }
                }
            }
            // The live value of the arguments is the builder's, not the
            // message's (see `ToolCall::arguments`).
            StreamEvent::Argument { .. } => {}
            StreamEvent::ArgumentsReplace {
                choice,
                call,
                text,
                arguments,
                arguments_error,
            } => {
                if let Some(tc) = self.tool_call_mut(*choice, *call) {
                    tc.arguments_text = text.clone();
                    if tc.ended {
                        tc.arguments = arguments.clone();
                        tc.arguments_error = arguments_error.clone();
                    }
                }
            }
            StreamEvent::ToolCallEnd {
                choice,
                call,
                arguments,
                arguments_error,
                ..
            } => {
                if let Some(tc) = self.tool_call_mut(*choice, *call) {
                    if !tc.ended {
                        tc.arguments = Some(arguments.clone());
                        tc.ended = true;
                        tc.arguments_error = arguments_error.clone();
                    }
                }
            }
            StreamEvent::ArgumentsError {
                choice,
                call,
                error,
            } => {
                if let Some(tc) = self.tool_call_mut(*choice, *call) {
                    if tc.arguments_error.is_none() {
                        tc.arguments_error = Some(error.clone());
                    }
                }
            }
            StreamEvent::Usage(usage) => self.usage = Some(usage.clone()),
            StreamEvent::Finish {
                choice,
                reason,
                normalized,
            } => {
                if let Some(c) = self.choice_mut(*choice, limits) {
                    c.finish_reason = Some(reason.clone());
                    c.finish = Some(*normalized);
                }
            }
            StreamEvent::FinishDetails { choice, details } => {
                if let Some(c) = self.choice_mut(*choice, limits) {
                    c.finish_details = Some(details.clone());
                }
            }
            StreamEvent::Error(error) => {
                let keep = match &self.error {
                    None => true,
                    Some(held) => error.from_provider && !held.from_provider,
                };
                if keep {
                    self.error = Some(error.clone());
                }
            }
            StreamEvent::Complete => self.complete = true,
            StreamEvent::Reopen => self.complete = false,
        }
    }

    /// The choice at `index`, created on first use within the limit. A
    /// choice not seen before makes a message that was complete (every
    /// choice then seen had finished) incomplete again: `n` > 1 streams
    /// finish their choices one by one.
    fn choice_mut(&mut self, index: u64, limits: &ProviderLimits) -> Option<&mut Choice> {
        if !self.choices.contains_key(&index) {
            if self.choices.len() >= limits.max_choices {
                return None;
            }
            self.complete = false;
        }
        self.choices.get_or_default(index)
    }

    fn part_mut(&mut self, choice: u64, part: usize) -> Option<&mut Part> {
        self.choices.get_mut(&choice)?.content.get_mut(part)
    }

    fn tool_call_mut(&mut self, choice: u64, call: u64) -> Option<&mut ToolCall> {
        self.choices.get_mut(&choice)?.tool_calls.get_mut(&call)
    }

    fn provider_tool_mut(&mut self, choice: u64, call: u64) -> Option<&mut ToolCall> {
        self.choices.get_mut(&choice)?.provider_tools.get_mut(&call)
    }

    /// The call with this key, the client's or the provider's (their
    /// keys are the wire's, one space for both).
    pub(crate) fn any_call(&self, choice: u64, call: u64) -> Option<&ToolCall> {
        let c = self.choices.get(&choice)?;
        c.tool_calls
            .get(&call)
            .or_else(|| c.provider_tools.get(&call))
    }

    /// Appends prose of `kind`: to the choice's running total, to the
    /// last part when it is of the same kind, else to a new part (within
    /// the part limit). Empty text changes nothing.
    fn append(&mut self, choice: u64, kind: PartKind, text: &str, limits: &ProviderLimits) {
        if text.is_empty() {
            return;
        }
        let Some(c) = self.choice_mut(choice, limits) else {
            return;
        };
        let merge = c.content.last().is_some_and(|p| kind.owns(p));
        if !merge && c.content.len() >= limits.max_parts {
            return;
        }
        kind.running(c).push_str(text);
        match c
            .content
            .last_mut()
            .filter(|_| merge)
            .and_then(|p| kind.text_of_mut(p))
        {
            Some(t) => t.push_str(text),
            None => c.content.push(kind.part(text)),
        }
    }

    /// An empty message of this wire format.
    pub fn new(provider: Provider) -> Self {
        Message {
            provider,
            id: None,
            model: None,
            choices: SortedMap::new(),
            usage: None,
            complete: false,
            error: None,
            details: Map::new(),
        }
    }

    /// The first choice (most streams have only one).
    pub fn choice(&self) -> Option<&Choice> {
        self.choices.values().next()
    }

    /// The tool call with key `call` in choice `choice`.
    pub fn tool_call(&self, choice: u64, call: u64) -> Option<&ToolCall> {
        self.choices.get(&choice)?.tool_calls.get(&call)
    }

    /// The provider-run tool call `call` of choice `choice`.
    pub fn provider_tool(&self, choice: u64, call: u64) -> Option<&ToolCall> {
        self.choices.get(&choice)?.provider_tools.get(&call)
    }

    /// The message as the CLI contract (docs/CLI.md) prints it:
    /// `{"provider":…,"id":…,"model":…,"choices":[…],"usage":…,"complete":…,"error":…}`.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.push("provider", Value::from(self.provider.name()));
        m.push("id", opt_str(self.id.as_deref()));
        m.push("model", opt_str(self.model.as_deref()));
        let choices = self
            .choices
            .iter()
            .map(|(index, choice)| choice.to_value(*index))
            .collect();
        m.push("choices", Value::Array(choices));
        m.push(
            "usage",
            self.usage.as_ref().map_or(Value::Null, Usage::to_value),
        );
        m.push("complete", Value::Bool(self.complete));
        m.push(
            "error",
            self.error.as_ref().map_or(Value::Null, ErrorInfo::to_value),
        );
        if !self.details.is_empty() {
            m.push("details", Value::Object(self.details.clone()));
        }
        Value::Object(m)
    }
}

impl Choice {
    /// The calls of both families, against the one limit on tool calls.
    fn calls(&self) -> usize {
        self.tool_calls.len() + self.provider_tools.len()
    }

    /// The choice as the CLI contract prints it.
    pub fn to_value(&self, index: u64) -> Value {
        let mut m = Map::new();
        m.push("index", Value::from(index));
        m.push("role", opt_str(self.role.as_deref()));
        let content = self
            .content
            .iter()
            .enumerate()
            .map(|(i, p)| self.part_value(i, p))
            .collect();
        m.push("content", Value::Array(content));
        m.push("text", Value::from(self.text.as_str()));
        m.push("reasoning", Value::from(self.reasoning.as_str()));
        m.push("refusal", opt_str(self.refusal.as_deref()));
        let calls = self.tool_calls.values().map(ToolCall::to_value).collect();
        m.push("tool_calls", Value::Array(calls));
        if !self.provider_tools.is_empty() {
            let tools = self
                .provider_tools
                .values()
                .map(ToolCall::to_value)
                .collect();
            m.push("provider_tools", Value::Array(tools));
        }
        m.push("finish_reason", opt_str(self.finish_reason.as_deref()));
        if let Some(details) = &self.finish_details {
            m.push("finish_details", details.clone());
        }
        if !self.details.is_empty() {
            m.push("details", Value::Object(self.details.clone()));
        }
        Value::Object(m)
    }

    /// The log probabilities of the part at `position`, if any, as its
    /// member `logprobs`.
    fn push_logprobs(&self, m: &mut Map, position: usize) {
        if let Some(logprobs) = self.logprobs.get(&position) {
            m.push("logprobs", Value::Array(logprobs.clone()));
        }
    }

    fn part_value(&self, position: usize, part: &Part) -> Value {
        let mut m = Map::new();
        match part {
            Part::Text(text) => {
                m.push("type", Value::from("text"));
                m.push("text", Value::from(text.as_str()));
                if let Some(citations) = self.citations.get(&position) {
                    m.push("citations", Value::Array(citations.clone()));
                }
                if let Some(phase) = self.phases.get(&position) {
                    m.push("phase", Value::from(phase.as_str()));
                }
                self.push_logprobs(&mut m, position);
            }
            Part::Reasoning { text, signature } => {
                m.push("type", Value::from("reasoning"));
                m.push("text", Value::from(text.as_str()));
                if let Some(sig) = signature {
                    m.push("signature", Value::from(sig.as_str()));
                }
            }
            Part::Refusal(text) => {
                m.push("type", Value::from("refusal"));
                m.push("text", Value::from(text.as_str()));
                self.push_logprobs(&mut m, position);
            }
            Part::ToolCall(key) => {
                m.push("type", Value::from("tool_call"));
                let id = self.tool_calls.get(key).map(|c| c.id.as_str());
                m.push("id", opt_str(id));
            }
            Part::ProviderTool(key) => {
                m.push("type", Value::from("provider_tool"));
                let id = self.provider_tools.get(key).map(|c| c.id.as_str());
                m.push("id", opt_str(id));
            }
            Part::Raw(value) => {
                m.push("type", Value::from("raw"));
                m.push("value", value.clone());
            }
        }
        Value::Object(m)
    }
}

impl ToolCall {
    /// A call with this id and name and no arguments yet.
    pub fn new(id: &str, name: &str) -> Self {
        ToolCall {
            id: String::from(id),
            name: String::from(name),
            kind: None,
            arguments_text: String::new(),
            arguments: None,
            ended: false,
            arguments_error: None,
            signature: None,
            status: None,
            result: None,
        }
    }

    /// `{"id":…,"name":…,"arguments":V,"arguments_text":…}`, with
    /// `"type"` (the wire's) when known, and the error, signature, status
    /// and result when there are.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.push("id", Value::from(self.id.as_str()));
        m.push("name", Value::from(self.name.as_str()));
        if let Some(kind) = &self.kind {
            m.push("type", Value::from(kind.as_str()));
        }
        m.push("arguments", self.arguments.clone().unwrap_or(Value::Null));
        m.push("arguments_text", Value::from(self.arguments_text.as_str()));
        if let Some(e) = &self.arguments_error {
            m.push("arguments_error", e.to_value());
        }
        if let Some(sig) = &self.signature {
            m.push("signature", Value::from(sig.as_str()));
        }
        if let Some(status) = &self.status {
            m.push("status", Value::from(status.as_str()));
        }
        if let Some(result) = &self.result {
            m.push("result", result.clone());
        }
        Value::Object(m)
    }
}

impl ErrorInfo {
    /// An error with only a message.
    pub fn new(message: impl Into<String>) -> Self {
        ErrorInfo {
            message: message.into(),
            kind: None,
            raw: None,
            parse_error: None,
            from_provider: false,
        }
    }

    /// The same error with `kind` as its type.
    pub fn with_kind(mut self, kind: &str) -> Self {
        self.kind = Some(String::from(kind));
        self
    }

    /// The same error, found parsing a payload that was not JSON.
    pub fn with_parse_error(mut self, error: json::Error) -> Self {
        self.parse_error = Some(Box::new(error));
        self
    }

    /// `{"message":…,"type":…,"raw":…,"parse_error":…}` (`raw` and
    /// `parse_error` when there are, the latter as
    /// [`json::Error::to_value`]).
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        self.write_members(&mut m, "type");
        Value::Object(m)
    }

    /// The members of the JSON form, the provider's error type named
    /// `kind_key` (`type` in a message, `kind` in an event, whose `type`
    /// is the event's).
    pub(crate) fn write_members(&self, m: &mut Map, kind_key: &str) {
        m.push("message", Value::from(self.message.as_str()));
        m.push(kind_key, opt_str(self.kind.as_deref()));
        if let Some(raw) = &self.raw {
            m.push("raw", raw.clone());
        }
        if let Some(error) = &self.parse_error {
            m.push("parse_error", error.to_value());
        }
    }

    /// Reads the members [`ErrorInfo::write_members`] writes (`from_provider`
    /// is `false`: it is not among them).
    pub(crate) fn read(r: &Reader<'_>, kind_key: &str) -> Result<ErrorInfo, FromValueError> {
        let parse_error = match r.opt_value("parse_error") {
            None | Some(Value::Null) => None,
            Some(value) => Some(
                json::Error::from_value(&value)
                    .map(Box::new)
                    .ok_or_else(|| FromValueError::new("parse_error", "a JSON error"))?,
            ),
        };
        Ok(ErrorInfo {
            message: r.str("message")?,
            kind: r.opt_str(kind_key)?,
            raw: r.opt_value("raw"),
            parse_error,
            from_provider: false,
        })
    }
}

/// The three streams of prose a choice carries, each both in its content
/// parts and in a running concatenation ([`Choice::text`],
/// [`Choice::reasoning`], [`Choice::refusal`]): the one place that knows
/// which parts and running text each is.
impl PartKind {
    pub(crate) const ALL: [PartKind; 3] = [PartKind::Text, PartKind::Reasoning, PartKind::Refusal];

    /// Whether `part` is a part of this kind (so new text may extend it).
    pub(crate) fn owns(self, part: &Part) -> bool {
        self.text_of(part).is_some()
    }

    /// The text of `part`, if it is a part of this kind.
    pub(crate) fn text_of(self, part: &Part) -> Option<&str> {
        match (self, part) {
            (PartKind::Text, Part::Text(t))
            | (PartKind::Reasoning, Part::Reasoning { text: t, .. })
            | (PartKind::Refusal, Part::Refusal(t)) => Some(t),
            _ => None,
        }
    }

    /// The text of `part`, mutably, if it is a part of this kind.
    fn text_of_mut(self, part: &mut Part) -> Option<&mut String> {
        match (self, part) {
            (PartKind::Text, Part::Text(t))
            | (PartKind::Reasoning, Part::Reasoning { text: t, .. })
            | (PartKind::Refusal, Part::Refusal(t)) => Some(t),
            _ => None,
        }
    }

    /// The bytes of this kind's text in `parts`.
    pub(crate) fn len(self, parts: &[Part]) -> usize {
        parts
            .iter()
            .filter_map(|p| self.text_of(p))
            .map(str::len)
            .sum()
    }

    fn part(self, text: &str) -> Part {
        match self {
            PartKind::Text => Part::Text(String::from(text)),
            PartKind::Reasoning => Part::Reasoning {
                text: String::from(text),
                signature: None,
            },
            PartKind::Refusal => Part::Refusal(String::from(text)),
        }
    }

    /// The choice's running concatenation of this kind (a refusal's made
    /// `Some` on first use).
    fn running(self, c: &mut Choice) -> &mut String {
        match self {
            PartKind::Text => &mut c.text,
            PartKind::Reasoning => &mut c.reasoning,
            PartKind::Refusal => c.refusal.get_or_insert_with(String::new),
        }
    }

    /// The choice's running concatenation of this kind ("" for no refusal).
    pub(crate) fn running_ref(self, c: &Choice) -> &str {
        match self {
            PartKind::Text => &c.text,
            PartKind::Reasoning => &c.reasoning,
            PartKind::Refusal => c.refusal.as_deref().unwrap_or(""),
        }
    }
}

impl Choice {
    /// The part at `position` of `kind` gets `text`, its running total
    /// with it (in place: the bytes after it move once). Nothing changes
    /// if that part is not of `kind`.
    fn replace_at(&mut self, position: usize, kind: PartKind, text: &str) {
        // Where the part's text lies in the running text: after the parts
        // of its kind before it.
        let start = kind.len(self.content.get(..position).unwrap_or_default());
        let Some(old) = self.content.get(position).and_then(|p| kind.text_of(p)) else {
            return;
        };
        let end = start.saturating_add(old.len());
        let in_place = kind.running_ref(self).get(start..end) == Some(old);
        if let Some(t) = self
            .content
            .get_mut(position)
            .and_then(|p| kind.text_of_mut(p))
        {
            *t = String::from(text);
        }
        if in_place {
            kind.running(self).replace_range(start..end, text);
        } else {
            // The running text is not the parts' concatenation: made so
            // again.
            self.rebuild(kind);
        }
    }

    /// Puts the parts from `start` on in the order `order` gives (the
    /// part at `start + order[i]` goes to `start + i`), with everything
    /// kept by part position; nothing changes unless `order` names each
    /// position from `start` to the end once. It costs the parts and the
    /// running text from `start` on, and a pass over the choice's
    /// citations, logprobs and phases.
    fn reorder(&mut self, start: usize, order: &[usize]) {
        let Some(count) = self.content.len().checked_sub(start) else {
            return;
        };
        let Some(moved_to) = reorder_positions(start, count, order) else {
            return;
        };
        // Where each kind's running text holds the parts from `start` on:
        // its end, if it is their concatenation.
        let tails = PartKind::ALL.map(|kind| self.running_tail(kind, start));
        let mut old: Vec<Option<Part>> = self.content.drain(start..).map(Some).collect();
        for &at in order {
            if let Some(part) = old.get_mut(at).and_then(Option::take) {
                self.content.push(part);
            }
        }
        let moved = |position: usize| match position.checked_sub(start) {
            Some(at) => moved_to.get(at).copied().unwrap_or(position),
            None => position,
        };
        remap(&mut self.citations, moved);
        remap(&mut self.logprobs, moved);
        remap(&mut self.phases, moved);
        for (kind, tail) in PartKind::ALL.into_iter().zip(tails) {
            let Some(cut) = tail else {
                self.rebuild(kind);
                continue;
            };
            let parts = self.content.get(start..).unwrap_or_default();
            let moved_text: String = parts.iter().filter_map(|p| kind.text_of(p)).collect();
            // None of this kind's text moved: its running text stays (and
            // a refusal that never came stays `None`).
            if !moved_text.is_empty() {
                let running = kind.running(self);
                running.truncate(cut);
                running.push_str(&moved_text);
            }
        }
    }

    /// Makes `kind`'s running text the concatenation of its parts again
    /// (a refusal stays `None` if there is none).
    fn rebuild(&mut self, kind: PartKind) {
        let mut all = String::new();
        for t in self.content.iter().filter_map(|p| kind.text_of(p)) {
            all.push_str(t);
        }
        match kind {
            PartKind::Refusal if self.refusal.is_none() && all.is_empty() => {}
            _ => *kind.running(self) = all,
        }
    }

    /// Where `kind`'s running text holds the text of the parts from
    /// `start` on, if it ends with their concatenation (`None` otherwise,
    /// or if there is no running text and they have some).
    fn running_tail(&self, kind: PartKind, start: usize) -> Option<usize> {
        let parts = self.content.get(start..).unwrap_or_default();
        let running = kind.running_ref(self);
        let cut = running.len().checked_sub(kind.len(parts))?;
        let mut rest = running.get(cut..)?;
        for t in parts.iter().filter_map(|p| kind.text_of(p)) {
            rest = rest.strip_prefix(t)?;
        }
        Some(cut)
    }
}

/// The new position of each of the `count` parts from `start` on, by its
/// old one, when the part at `start + order[i]` goes to `start + i`;
/// `None` unless `order` names each of them once.
pub(crate) fn reorder_positions(start: usize, count: usize, order: &[usize]) -> Option<Vec<usize>> {
    if order.len() != count {
        return None;
    }
    let mut moved_to = alloc::vec![usize::MAX; count];
    for (new, &old) in order.iter().enumerate() {
        match moved_to.get_mut(old) {
            Some(slot) if *slot == usize::MAX => *slot = start + new,
            _ => return None,
        }
    }
    Some(moved_to)
}

/// Moves what `map` keeps by part position where `moved` says.
fn remap<V>(map: &mut SortedMap<usize, V>, moved: impl Fn(usize) -> usize) {
    *map = core::mem::take(map)
        .into_iter()
        .map(|(p, v)| (moved(p), v))
        .collect();
}

// ---- The JSON forms read back ----

impl Message {
    /// The message of a JSON form that [`Message::to_value`] gives. What
    /// the form does not hold comes out as the fold would have it: a
    /// choice's `finish` is its `finish_reason` normalized as
    /// [`FinishReason::Other`] unless a part says more, a tool call is
    /// `ended` when it has arguments, and the error's `from_provider` is
    /// `false`.
    pub fn from_value(value: &Value) -> Result<Message, FromValueError> {
        let r = Reader::new(value)?;
        let provider = Provider::from_name(&r.str("provider")?)
            .ok_or_else(|| FromValueError::new("provider", "a provider's name"))?;
        let mut message = Message::new(provider);
        message.id = r.opt_str("id")?;
        message.model = r.opt_str("model")?;
        let Some(Value::Array(choices)) = r.0.get("choices") else {
            return Err(FromValueError::new("choices", "an array"));
        };
        for (i, choice) in choices.iter().enumerate() {
            let (index, choice) = Choice::from_value(choice)
                .map_err(|e| e.within(&alloc::format!("choices[{i}]")))?;
            message.choices.insert(index, choice);
        }
        message.usage = match r.opt_value("usage") {
            None => None,
            Some(usage) => Some(Usage::from_value(&usage).map_err(|e| e.within("usage"))?),
        };
        message.complete = match r.0.get("complete") {
            Some(Value::Bool(b)) => *b,
            _ => return Err(FromValueError::new("complete", "a boolean")),
        };
        message.error = match r.opt_value("error") {
            None => None,
            Some(error) => {
                let e = Reader::new(&error).map_err(|e| e.within("error"))?;
                Some(ErrorInfo::read(&e, "type").map_err(|e| e.within("error"))?)
            }
        };
        message.details = read_details(&r)?;
        Ok(message)
    }
}

impl Choice {
    /// A choice of the JSON form [`Choice::to_value`] gives, with its index.
    fn from_value(value: &Value) -> Result<(u64, Choice), FromValueError> {
        let r = Reader::new(value)?;
        let index = r.u64("index")?;
        let mut c = Choice {
            role: r.opt_str("role")?,
            text: r.str("text")?,
            reasoning: r.str("reasoning")?,
            refusal: r.opt_str("refusal")?,
            finish_reason: r.opt_str("finish_reason")?,
            finish_details: r.opt_value("finish_details"),
            ..Choice::default()
        };
        c.finish = c
            .finish_reason
            .as_deref()
            .map(|reason| FinishReason::from_name(reason).unwrap_or(FinishReason::Other));
        let Some(Value::Array(calls)) = r.0.get("tool_calls") else {
            return Err(FromValueError::new("tool_calls", "an array"));
        };
        // The calls' keys are not in the form: their order is.
        let mut by_id = alloc::vec::Vec::new();
        for (key, call) in calls.iter().enumerate() {
            let call = ToolCall::from_value(call)
                .map_err(|e| e.within(&alloc::format!("tool_calls[{key}]")))?;
            by_id.push(call.id.clone());
            c.tool_calls.insert(key as u64, call);
        }
        let mut tools_by_id = alloc::vec::Vec::new();
        if let Some(tools) = r.0.get("provider_tools") {
            let Value::Array(tools) = tools else {
                return Err(FromValueError::new("provider_tools", "an array"));
            };
            for (key, tool) in tools.iter().enumerate() {
                let tool = ToolCall::from_value(tool)
                    .map_err(|e| e.within(&alloc::format!("provider_tools[{key}]")))?;
                tools_by_id.push(tool.id.clone());
                c.provider_tools.insert(key as u64, tool);
            }
        }
        c.details = read_details(&r)?;
        let Some(Value::Array(content)) = r.0.get("content") else {
            return Err(FromValueError::new("content", "an array"));
        };
        for (position, part) in content.iter().enumerate() {
            c.part_from_value(position, part, &by_id, &tools_by_id)
                .map_err(|e| e.within(&alloc::format!("content[{position}]")))?;
        }
        Ok((index, c))
    }

    fn part_from_value(
        &mut self,
        position: usize,
        value: &Value,
        calls: &[String],
        tools: &[String],
    ) -> Result<(), FromValueError> {
        let r = Reader::new(value)?;
        let part = match r.str("type")?.as_str() {
            "text" => {
                if let Some(Value::Array(list)) = r.0.get("citations") {
                    self.citations.insert(position, list.clone());
                }
                if let Some(phase) = r.opt_str("phase")? {
                    self.phases.insert(position, phase);
                }
                if let Some(Value::Array(list)) = r.0.get("logprobs") {
                    self.logprobs.insert(position, list.clone());
                }
                Part::Text(r.str("text")?)
            }
            "reasoning" => Part::Reasoning {
                text: r.str("text")?,
                signature: r.opt_str("signature")?,
            },
            "refusal" => {
                if let Some(Value::Array(list)) = r.0.get("logprobs") {
                    self.logprobs.insert(position, list.clone());
                }
                Part::Refusal(r.str("text")?)
            }
            "tool_call" => Part::ToolCall(self.key_of(&r, calls, |p| match p {
                Part::ToolCall(key) => Some(*key),
                _ => None,
            })?),
            "provider_tool" => Part::ProviderTool(self.key_of(&r, tools, |p| match p {
                Part::ProviderTool(key) => Some(*key),
                _ => None,
            })?),
            "raw" => Part::Raw(r.value("value")?),
            _ => return Err(FromValueError::new("type", "a part type")),
        };
        self.content.push(part);
        Ok(())
    }
}

impl Choice {
    /// The key of the call a `tool_call` or `provider_tool` part names by
    /// its `id`: the n-th part naming an id is the n-th call with it
    /// (`ids` the calls' ids by key, `key` the key of a part of the kind).
    fn key_of(
        &self,
        r: &Reader<'_>,
        ids: &[String],
        key: impl Fn(&Part) -> Option<u64>,
    ) -> Result<u64, FromValueError> {
        let id = r.opt_str("id")?.unwrap_or_default();
        let seen = self
            .content
            .iter()
            .filter_map(&key)
            .filter(|k| ids.get(*k as usize) == Some(&id))
            .count();
        ids.iter()
            .enumerate()
            .filter(|(_, held)| **held == id)
            .nth(seen)
            .map(|(key, _)| key as u64)
            .ok_or_else(|| FromValueError::new("id", "the id of one of the calls"))
    }
}

/// The `details` member of a message's or choice's form (absent: none).
fn read_details(r: &Reader<'_>) -> Result<Map, FromValueError> {
    match r.0.get("details") {
        None => Ok(Map::new()),
        Some(Value::Object(details)) => Ok(details.clone()),
        Some(_) => Err(FromValueError::new("details", "an object")),
    }
}

impl ToolCall {
    /// A call of the JSON form [`ToolCall::to_value`] gives.
    fn from_value(value: &Value) -> Result<ToolCall, FromValueError> {
        let r = Reader::new(value)?;
        let mut call = ToolCall::new(&r.str("id")?, &r.str("name")?);
        call.kind = r.opt_str("type")?;
        call.arguments = r.opt_value("arguments");
        call.ended = call.arguments.is_some();
        call.arguments_text = r.str("arguments_text")?;
        call.arguments_error = r.opt_arguments_error("arguments_error")?;
        call.signature = r.opt_str("signature")?;
        call.status = r.opt_str("status")?;
        call.result = r.opt_value("result");
        Ok(call)
    }
}
