//! The normalized event model: one vocabulary over every wire format.

use alloc::string::String;
use alloc::vec::Vec;

use super::{ArgumentsError, ErrorInfo, Provider};
use crate::json::{Map, Number, PathBuf, Value};
use crate::tools::ArgumentEvent;

/// Something that happened in a provider stream, in provider-neutral terms.
///
/// The events are the truth: every change to the [`Message`](super::Message)
/// is one of them, so that [`Message::default`](super::Message) folded over
/// a stream's events with [`Message::apply`](super::Message::apply) is the
/// message the stream built (the builder changes its message only that way).
///
/// `choice` is the choice (OpenAI `n`) or candidate (Gemini) index, 0 for
/// providers that have one answer per stream. `call` is the wire's key for
/// the tool call: OpenAI's tool-call index, Anthropic's content-block index,
/// the Responses `output_index`, the ordinal of a Gemini function call.
/// `part` is a position in the choice's
/// [`content`](super::Choice::content).
#[derive(Clone, Debug, PartialEq)]
pub enum StreamEvent {
    /// The message began, or its id or model became known (sent again
    /// then, with both as the message now has them). The id and the model
    /// are each set once: a later start does not change them.
    MessageStart {
        /// The wire format the stream is in.
        provider: Provider,
        /// The provider's message / response id.
        id: Option<String>,
        /// The model that answers.
        model: Option<String>,
    },
    /// The role of a choice (the first one wins); the choice exists from
    /// here on, even when `role` is empty.
    Role {
        /// Choice index.
        choice: u64,
        /// `assistant`, as the wire says it.
        role: String,
    },
    /// A new, empty content part of this kind begins: the text of its
    /// kind that follows extends it (text of a kind extends the latest
    /// part when it is of that kind, or begins a part of its own).
    PartStart {
        /// Choice index.
        choice: u64,
        /// What the part holds.
        kind: PartKind,
    },
    /// More answer text.
    TextDelta {
        /// Choice index.
        choice: u64,
        /// The new text.
        text: String,
    },
    /// More reasoning ("thinking") text, or a reasoning summary.
    ReasoningDelta {
        /// Choice index.
        choice: u64,
        /// The new text.
        text: String,
    },
    /// More refusal text.
    RefusalDelta {
        /// Choice index.
        choice: u64,
        /// The new text.
        text: String,
    },
    /// The final text of a part, which replaces what streamed into it
    /// (OpenAI Responses repeats a finished text whole; when it differs
    /// from the deltas, the copy is what the server stored).
    PartReplace {
        /// Choice index.
        choice: u64,
        /// The part's position.
        part: usize,
        /// The part's kind (nothing changes if the part is not of it).
        kind: PartKind,
        /// Its final text.
        text: String,
    },
    /// The signature of the reasoning part at `part` (Anthropic
    /// `signature`, Gemini `thoughtSignature`, Responses
    /// `encrypted_content`), to be sent back with it.
    ReasoningSignature {
        /// Choice index.
        choice: u64,
        /// The reasoning part's position.
        part: usize,
        /// The opaque signature.
        signature: String,
    },
    /// A block kept as the provider sent it (redacted thinking, a server
    /// tool's result, audio, …) becomes a part.
    RawPart {
        /// Choice index.
        choice: u64,
        /// The block.
        value: Value,
    },
    /// A member of the raw part at `part` (an object) is set.
    RawPartMember {
        /// Choice index.
        choice: u64,
        /// The raw part's position.
        part: usize,
        /// The member's name.
        member: String,
        /// Its new value.
        value: Value,
    },
    /// Text is appended to a string member of the raw part at `part` (an
    /// audio transcript, a compaction summary, as they stream).
    RawPartAppend {
        /// Choice index.
        choice: u64,
        /// The raw part's position.
        part: usize,
        /// The member's name.
        member: String,
        /// The text appended.
        text: String,
    },
    /// The raw part at `part` is replaced whole (a fuller copy the wire
    /// sent again).
    RawPartReplace {
        /// Choice index.
        choice: u64,
        /// The raw part's position.
        part: usize,
        /// The new block.
        value: Value,
    },
    /// A citation of the text part at `part`, as its wire sent it.
    Citation {
        /// Choice index.
        choice: u64,
        /// The text part's position.
        part: usize,
        /// The citation.
        citation: Value,
    },
    /// The citation at `index` of the text part at `part` is replaced by
    /// a fuller copy.
    CitationReplace {
        /// Choice index.
        choice: u64,
        /// The text part's position.
        part: usize,
        /// The citation's index among the part's citations.
        index: usize,
        /// The citation.
        citation: Value,
    },
    /// Log probabilities of tokens of the text or refusal part at `part`,
    /// appended to its list.
    Logprobs {
        /// Choice index.
        choice: u64,
        /// The part's position.
        part: usize,
        /// One item per token, as the wire sent it.
        logprobs: Vec<Value>,
    },
    /// The phase of the text part at `part` (OpenAI Responses:
    /// `commentary`, `final_answer`); the first one wins.
    Phase {
        /// Choice index.
        choice: u64,
        /// The text part's position.
        part: usize,
        /// The phase.
        phase: String,
    },
    /// The parts from `start` on are put in another order: the part at
    /// `start + order[i]` goes to `start + i`, with what is kept by part
    /// position (citations, logprobs, phases); the running texts follow.
    PartsReorder {
        /// Choice index.
        choice: u64,
        /// The first position that moves.
        start: usize,
        /// Each new position's old one, relative to `start`.
        order: Vec<usize>,
    },
    /// A tool call the client must answer began: its id and name are
    /// known. (A tool the provider runs itself is a
    /// [`StreamEvent::ProviderToolStart`], never this.)
    ToolCallStart {
        /// Choice index.
        choice: u64,
        /// The call's key.
        call: u64,
        /// The call id the result must quote.
        id: String,
        /// The tool's name.
        name: String,
        /// The wire's type of the call (`function`, `custom`,
        /// `server_tool_use`, …), when it says one.
        kind: Option<String>,
    },
    /// The id or name of a tool call came after its start (each is set
    /// once, where still empty).
    ToolCallIdentity {
        /// Choice index.
        choice: u64,
        /// The call's key.
        call: u64,
        /// The call id, if this is it.
        id: Option<String>,
        /// The tool's name, if this is it.
        name: Option<String>,
    },
    /// The opaque signature of a tool call (Gemini `thoughtSignature`),
    /// to be sent back with it.
    ToolCallSignature {
        /// Choice index.
        choice: u64,
        /// The call's key.
        call: u64,
        /// The signature.
        signature: String,
    },
    /// A raw fragment of a tool call's argument text, as it arrived.
    ToolCallDelta {
        /// Choice index.
        choice: u64,
        /// The call's key.
        call: u64,
        /// The new argument text.
        fragment: String,
    },
    /// More text of a string inside the arguments, at a path such as
    /// `blocks[0].content` ([`ArgumentEvent::Delta`], named `argument_delta`
    /// in JSON), or a value inside them completed ([`ArgumentEvent::Value`],
    /// named `argument`).
    Argument {
        /// Choice index.
        choice: u64,
        /// The call's key.
        call: u64,
        /// What the call's arguments revealed.
        event: ArgumentEvent,
    },
    /// A tool call's argument text is replaced by the final copy the wire
    /// sent (OpenAI Responses' `function_call_arguments.done`, when it
    /// differs from the fragments). For a call that had already ended,
    /// its final arguments, recomputed (no second end event follows).
    ArgumentsReplace {
        /// Choice index.
        choice: u64,
        /// The call's key.
        call: u64,
        /// The whole argument text.
        text: String,
        /// The call's new final arguments, if it had ended.
        arguments: Option<Value>,
        /// Why those are not valid JSON, if they are not.
        arguments_error: Option<ArgumentsError>,
    },
    /// A tool call's arguments are complete.
    ToolCallEnd {
        /// Choice index.
        choice: u64,
        /// The call's key.
        call: u64,
        /// The call id.
        id: String,
        /// The tool's name.
        name: String,
        /// The arguments: the parsed JSON (`{}` when none were sent); JSON
        /// cut short by the end of the stream, as its best-effort value
        /// (see `arguments_error`); for free-text tools and invalid JSON,
        /// the text as a string.
        arguments: Value,
        /// Why the arguments are not valid JSON (invalid, or cut short by
        /// the end of the stream): the call's
        /// [`arguments_error`](super::ToolCall::arguments_error), here so
        /// that a caller reading events learns it with the call's end, not
        /// only from the final message.
        arguments_error: Option<ArgumentsError>,
    },
    /// Text came after a tool call's arguments ended: left out, and the
    /// call's `arguments_error` (if it had none) says so.
    ArgumentsError {
        /// Choice index.
        choice: u64,
        /// The call's key.
        call: u64,
        /// What was wrong.
        error: ArgumentsError,
    },
    /// A tool the provider runs itself began (see
    /// [`Choice::provider_tools`](super::Choice::provider_tools)): never a
    /// call for the client to run or answer. Sent again with an id or
    /// name that came later, which fills them where still empty.
    ProviderToolStart {
        /// Choice index.
        choice: u64,
        /// The tool call's key.
        call: u64,
        /// The call id.
        id: String,
        /// The tool's name (a hosted tool's item type when it has none).
        name: String,
        /// The wire's type of the call (`server_tool_use`,
        /// `web_search_call`, …), when it says one.
        kind: Option<String>,
    },
    /// A fragment of a provider-run tool's input (its arguments, or the
    /// code a code interpreter runs), as it arrived.
    ProviderToolDelta {
        /// Choice index.
        choice: u64,
        /// The tool call's key.
        call: u64,
        /// The new text.
        fragment: String,
    },
    /// A provider-run tool made progress: its status (`in_progress`,
    /// `searching`, `generating`, `completed`, …) and what came with it
    /// (a partial image, the query), for a UI to show.
    ProviderToolProgress {
        /// Choice index.
        choice: u64,
        /// The tool call's key.
        call: u64,
        /// The status, as the wire names it.
        status: String,
        /// The payload's own detail, when it has one beyond its status.
        detail: Option<Value>,
    },
    /// A provider-run tool's result, as the wire sent it (replacing any
    /// earlier one).
    ProviderToolResult {
        /// Choice index.
        choice: u64,
        /// The tool call's key.
        call: u64,
        /// The result.
        result: Value,
    },
    /// A provider-run tool's input is complete.
    ProviderToolEnd {
        /// Choice index.
        choice: u64,
        /// The tool call's key.
        call: u64,
        /// Its input, parsed as a tool call's arguments are.
        arguments: Value,
        /// Why the input is not valid JSON, if it is not.
        arguments_error: Option<ArgumentsError>,
    },
    /// What the provider said of the message (`choice` absent) or of a
    /// choice beyond the normalized fields, under its wire name
    /// (Anthropic's `container`, Gemini's `promptFeedback` and
    /// `safetyRatings`): kept in `details`, replacing an earlier value.
    Detail {
        /// The choice, or `None` for the message.
        choice: Option<u64>,
        /// The wire's name.
        key: String,
        /// The value, as sent.
        value: Value,
    },
    /// Token counts (cumulative: a later event replaces an earlier one).
    Usage(Usage),
    /// A choice finished.
    Finish {
        /// Choice index.
        choice: u64,
        /// The provider's own reason string (`stop`, `end_turn`, `STOP`, …).
        reason: String,
        /// The reason in provider-neutral terms.
        normalized: FinishReason,
    },
    /// The provider's explanation of a choice's finish (Anthropic's
    /// `stop_details` and stop sequence, Gemini's `finishMessage`),
    /// replacing any earlier one.
    FinishDetails {
        /// Choice index.
        choice: u64,
        /// The details, as [`Choice::finish_details`](super::Choice::finish_details).
        details: Value,
    },
    /// The provider reported an error, or the stream broke its protocol.
    /// The message keeps the first error the provider reported; failing
    /// that, the first one found.
    Error(ErrorInfo),
    /// The provider said the message is complete (`[DONE]`,
    /// `message_stop`, `response.completed`, every choice finished, …).
    Complete,
    /// The provider began another message in the same stream after
    /// saying the last one was complete (bodies that concatenate several
    /// responses): incomplete again until the next end.
    Reopen,
}

/// What a content part holds, for the events that begin or replace one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartKind {
    /// Answer text.
    Text,
    /// Reasoning text.
    Reasoning,
    /// Refusal text.
    Refusal,
}

impl PartKind {
    /// The JSON name: `text`, `reasoning`, `refusal`.
    pub fn as_str(&self) -> &'static str {
        match self {
            PartKind::Text => "text",
            PartKind::Reasoning => "reasoning",
            PartKind::Refusal => "refusal",
        }
    }

    /// The kind with this JSON name.
    pub fn from_name(name: &str) -> Option<PartKind> {
        [PartKind::Text, PartKind::Reasoning, PartKind::Refusal]
            .into_iter()
            .find(|k| k.as_str() == name)
    }
}

/// Why a choice finished, in provider-neutral terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FinishReason {
    /// The model finished its answer (or hit a stop sequence).
    Stop,
    /// A token limit cut the answer.
    Length,
    /// The model stopped to call tools.
    ToolCalls,
    /// A safety or content filter stopped the answer.
    ContentFilter,
    /// The model refused.
    Refusal,
    /// Anything else (`pause_turn`, `MALFORMED_FUNCTION_CALL`, …).
    Other,
}

impl FinishReason {
    /// The reason with this lower-case name.
    pub fn from_name(name: &str) -> Option<FinishReason> {
        [
            FinishReason::Stop,
            FinishReason::Length,
            FinishReason::ToolCalls,
            FinishReason::ContentFilter,
            FinishReason::Refusal,
            FinishReason::Other,
        ]
        .into_iter()
        .find(|r| r.as_str() == name)
    }

    /// The lower-case name: `stop`, `length`, `tool_calls`, …
    pub fn as_str(&self) -> &'static str {
        match self {
            FinishReason::Stop => "stop",
            FinishReason::Length => "length",
            FinishReason::ToolCalls => "tool_calls",
            FinishReason::ContentFilter => "content_filter",
            FinishReason::Refusal => "refusal",
            FinishReason::Other => "other",
        }
    }
}

/// Token counts, with one meaning whatever the provider.
///
/// Providers split their counts differently: Anthropic's `input_tokens`
/// leaves out the tokens read from or written to its cache, and Gemini's
/// `candidatesTokenCount` leaves out the thinking tokens, where OpenAI's
/// counts include both. Here the input is every prompt token and the
/// output every generated one, so that a cost or a context budget reads
/// the same way for all four; the cached and reasoning counts are parts of
/// them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Every prompt token, cached or not: OpenAI `prompt_tokens` /
    /// `input_tokens`; Anthropic `input_tokens` +
    /// `cache_creation_input_tokens` + `cache_read_input_tokens`; Gemini
    /// `promptTokenCount` + `toolUsePromptTokenCount`.
    pub input_tokens: Option<u64>,
    /// Every generated token, reasoning included: OpenAI
    /// `completion_tokens` / `output_tokens`; Anthropic `output_tokens`;
    /// Gemini `candidatesTokenCount` + `thoughtsTokenCount`.
    pub output_tokens: Option<u64>,
    /// Their total, as reported, or their sum when not reported.
    pub total_tokens: Option<u64>,
    /// The reasoning tokens among the output, where reported.
    pub reasoning_tokens: Option<u64>,
    /// The input tokens read from a cache, where reported.
    pub cached_input_tokens: Option<u64>,
    /// The input tokens written to a cache, where reported (Anthropic
    /// `cache_creation_input_tokens`).
    pub cache_write_input_tokens: Option<u64>,
    /// The requests the provider's own tools made, billed apart from
    /// tokens, as sent: Anthropic's `usage.server_tool_use`
    /// (`{"web_search_requests":2}`).
    pub server_tool_use: Option<Value>,
}

/// The sum of two counts, either of which may be unreported (absent only
/// when both are).
pub(crate) fn add_counts(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.saturating_add(b)),
        (a, b) => a.or(b),
    }
}

impl Usage {
    /// Fills `total_tokens` from input + output when the provider omits it.
    pub fn with_total(mut self) -> Self {
        if self.total_tokens.is_none() {
            if let (Some(i), Some(o)) = (self.input_tokens, self.output_tokens) {
                self.total_tokens = i.checked_add(o);
            }
        }
        self
    }

    /// `{"input_tokens":…,"output_tokens":…,"total_tokens":…}` (and the
    /// optional counts when known).
    pub fn to_value(&self) -> Value {
        let mut map = Map::new();
        map.push("input_tokens", opt_u64(self.input_tokens));
        map.push("output_tokens", opt_u64(self.output_tokens));
        map.push("total_tokens", opt_u64(self.total_tokens));
        if let Some(n) = self.reasoning_tokens {
            map.push("reasoning_tokens", Value::from(n));
        }
        if let Some(n) = self.cached_input_tokens {
            map.push("cached_input_tokens", Value::from(n));
        }
        if let Some(n) = self.cache_write_input_tokens {
            map.push("cache_write_input_tokens", Value::from(n));
        }
        if let Some(counts) = &self.server_tool_use {
            map.push("server_tool_use", counts.clone());
        }
        Value::Object(map)
    }
}

pub(crate) fn opt_u64(n: Option<u64>) -> Value {
    n.map_or(Value::Null, |n| Value::Number(Number::from(n)))
}

pub(crate) fn opt_str(s: Option<&str>) -> Value {
    s.map_or(Value::Null, Value::from)
}

impl StreamEvent {
    /// The choice the event belongs to, when it belongs to one (the
    /// message's own events, usage, errors and the end belong to none).
    pub fn choice(&self) -> Option<u64> {
        match self {
            StreamEvent::Role { choice, .. }
            | StreamEvent::PartStart { choice, .. }
            | StreamEvent::TextDelta { choice, .. }
            | StreamEvent::ReasoningDelta { choice, .. }
            | StreamEvent::RefusalDelta { choice, .. }
            | StreamEvent::PartReplace { choice, .. }
            | StreamEvent::ReasoningSignature { choice, .. }
            | StreamEvent::RawPart { choice, .. }
            | StreamEvent::RawPartMember { choice, .. }
            | StreamEvent::RawPartAppend { choice, .. }
            | StreamEvent::RawPartReplace { choice, .. }
            | StreamEvent::Citation { choice, .. }
            | StreamEvent::CitationReplace { choice, .. }
            | StreamEvent::Logprobs { choice, .. }
            | StreamEvent::Phase { choice, .. }
            | StreamEvent::PartsReorder { choice, .. }
            | StreamEvent::ToolCallStart { choice, .. }
            | StreamEvent::ToolCallIdentity { choice, .. }
            | StreamEvent::ToolCallSignature { choice, .. }
            | StreamEvent::ToolCallDelta { choice, .. }
            | StreamEvent::Argument { choice, .. }
            | StreamEvent::ArgumentsReplace { choice, .. }
            | StreamEvent::ToolCallEnd { choice, .. }
            | StreamEvent::ArgumentsError { choice, .. }
            | StreamEvent::ProviderToolStart { choice, .. }
            | StreamEvent::ProviderToolDelta { choice, .. }
            | StreamEvent::ProviderToolProgress { choice, .. }
            | StreamEvent::ProviderToolResult { choice, .. }
            | StreamEvent::ProviderToolEnd { choice, .. }
            | StreamEvent::Finish { choice, .. }
            | StreamEvent::FinishDetails { choice, .. } => Some(*choice),
            StreamEvent::Detail { choice, .. } => *choice,
            StreamEvent::MessageStart { .. }
            | StreamEvent::Usage(_)
            | StreamEvent::Error(_)
            | StreamEvent::Complete
            | StreamEvent::Reopen => None,
        }
    }

    /// The choice the event belongs to, to renumber it (a translation that
    /// serves one choice of several as the only one).
    pub fn choice_mut(&mut self) -> Option<&mut u64> {
        match self {
            StreamEvent::Role { choice, .. }
            | StreamEvent::PartStart { choice, .. }
            | StreamEvent::TextDelta { choice, .. }
            | StreamEvent::ReasoningDelta { choice, .. }
            | StreamEvent::RefusalDelta { choice, .. }
            | StreamEvent::PartReplace { choice, .. }
            | StreamEvent::ReasoningSignature { choice, .. }
            | StreamEvent::RawPart { choice, .. }
            | StreamEvent::RawPartMember { choice, .. }
            | StreamEvent::RawPartAppend { choice, .. }
            | StreamEvent::RawPartReplace { choice, .. }
            | StreamEvent::Citation { choice, .. }
            | StreamEvent::CitationReplace { choice, .. }
            | StreamEvent::Logprobs { choice, .. }
            | StreamEvent::Phase { choice, .. }
            | StreamEvent::PartsReorder { choice, .. }
            | StreamEvent::ToolCallStart { choice, .. }
            | StreamEvent::ToolCallIdentity { choice, .. }
            | StreamEvent::ToolCallSignature { choice, .. }
            | StreamEvent::ToolCallDelta { choice, .. }
            | StreamEvent::Argument { choice, .. }
            | StreamEvent::ArgumentsReplace { choice, .. }
            | StreamEvent::ToolCallEnd { choice, .. }
            | StreamEvent::ArgumentsError { choice, .. }
            | StreamEvent::ProviderToolStart { choice, .. }
            | StreamEvent::ProviderToolDelta { choice, .. }
            | StreamEvent::ProviderToolProgress { choice, .. }
            | StreamEvent::ProviderToolResult { choice, .. }
            | StreamEvent::ProviderToolEnd { choice, .. }
            | StreamEvent::Finish { choice, .. }
            | StreamEvent::FinishDetails { choice, .. } => Some(choice),
            StreamEvent::Detail { choice, .. } => choice.as_mut(),
            StreamEvent::MessageStart { .. }
            | StreamEvent::Usage(_)
            | StreamEvent::Error(_)
            | StreamEvent::Complete
            | StreamEvent::Reopen => None,
        }
    }

    /// The name used in JSON output: `text_delta`, `tool_call_start`, …
    pub fn name(&self) -> &'static str {
        match self {
            StreamEvent::MessageStart { .. } => "message_start",
            StreamEvent::Role { .. } => "role",
            StreamEvent::PartStart { .. } => "part_start",
            StreamEvent::TextDelta { .. } => "text_delta",
            StreamEvent::ReasoningDelta { .. } => "reasoning_delta",
            StreamEvent::RefusalDelta { .. } => "refusal_delta",
            StreamEvent::PartReplace { .. } => "part_replace",
            StreamEvent::ReasoningSignature { .. } => "reasoning_signature",
            StreamEvent::RawPart { .. } => "raw_part",
            StreamEvent::RawPartMember { .. } => "raw_part_member",
            StreamEvent::RawPartAppend { .. } => "raw_part_append",
            StreamEvent::RawPartReplace { .. } => "raw_part_replace",
            StreamEvent::Citation { .. } => "citation",
            StreamEvent::CitationReplace { .. } => "citation_replace",
            StreamEvent::Logprobs { .. } => "logprobs",
            StreamEvent::Phase { .. } => "phase",
            StreamEvent::PartsReorder { .. } => "parts_reorder",
            StreamEvent::ToolCallStart { .. } => "tool_call_start",
            StreamEvent::ToolCallIdentity { .. } => "tool_call_identity",
            StreamEvent::ToolCallSignature { .. } => "tool_call_signature",
            StreamEvent::ToolCallDelta { .. } => "tool_call_delta",
            StreamEvent::Argument {
                event: ArgumentEvent::Delta { .. },
                ..
            } => "argument_delta",
            StreamEvent::Argument {
                event: ArgumentEvent::Value { .. },
                ..
            } => "argument",
            StreamEvent::ArgumentsReplace { .. } => "arguments_replace",
            StreamEvent::ToolCallEnd { .. } => "tool_call_end",
            StreamEvent::ArgumentsError { .. } => "arguments_error",
            StreamEvent::ProviderToolStart { .. } => "provider_tool_start",
            StreamEvent::ProviderToolDelta { .. } => "provider_tool_delta",
            StreamEvent::ProviderToolProgress { .. } => "provider_tool_progress",
            StreamEvent::ProviderToolResult { .. } => "provider_tool_result",
            StreamEvent::ProviderToolEnd { .. } => "provider_tool_end",
            StreamEvent::Detail { .. } => "detail",
            StreamEvent::Usage(_) => "usage",
            StreamEvent::Finish { .. } => "finish",
            StreamEvent::FinishDetails { .. } => "finish_details",
            StreamEvent::Error(_) => "error",
            StreamEvent::Complete => "complete",
            StreamEvent::Reopen => "reopen",
        }
    }

    /// The event as the CLI contract (docs/CLI.md) prints it:
    /// `{"type":"text_delta","choice":0,"text":"Hi"}`. Members that are
    /// `None` are left out, except the `id` and `model` of
    /// `message_start` (null when unknown).
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.push("type", Value::from(self.name()));
        let choice = |m: &mut Map, choice: &u64| m.push("choice", Value::from(*choice));
        let text = |m: &mut Map, key: &str, text: &str| m.push(key, Value::from(text));
        let opt = |m: &mut Map, key: &str, text: &Option<String>| {
            if let Some(text) = text {
                m.push(key, Value::from(text.as_str()));
            }
        };
        let part = |m: &mut Map, part: &usize| m.push("part", Value::from(*part as u64));
        match self {
            StreamEvent::MessageStart {
                provider,
                id,
                model,
            } => {
                m.push("id", opt_str(id.as_deref()));
                m.push("model", opt_str(model.as_deref()));
                text(&mut m, "provider", provider.name());
            }
            StreamEvent::Role { choice: c, role } => {
                choice(&mut m, c);
                text(&mut m, "role", role);
            }
            StreamEvent::PartStart { choice: c, kind } => {
                choice(&mut m, c);
                text(&mut m, "kind", kind.as_str());
            }
            StreamEvent::TextDelta { choice: c, text: t }
            | StreamEvent::ReasoningDelta { choice: c, text: t }
            | StreamEvent::RefusalDelta { choice: c, text: t } => {
                choice(&mut m, c);
                text(&mut m, "text", t);
            }
            StreamEvent::PartReplace {
                choice: c,
                part: p,
                kind,
                text: t,
            } => {
                choice(&mut m, c);
                part(&mut m, p);
                text(&mut m, "kind", kind.as_str());
                text(&mut m, "text", t);
            }
            StreamEvent::ReasoningSignature {
                choice: c,
                part: p,
                signature,
            } => {
                choice(&mut m, c);
                part(&mut m, p);
                text(&mut m, "signature", signature);
            }
            StreamEvent::RawPart { choice: c, value } => {
                choice(&mut m, c);
                m.push("value", value.clone());
            }
            StreamEvent::RawPartMember {
                choice: c,
                part: p,
                member,
                value,
            } => {
                choice(&mut m, c);
                part(&mut m, p);
                text(&mut m, "member", member);
                m.push("value", value.clone());
            }
            StreamEvent::RawPartAppend {
                choice: c,
                part: p,
                member,
                text: t,
            } => {
                choice(&mut m, c);
                part(&mut m, p);
                text(&mut m, "member", member);
                text(&mut m, "text", t);
            }
            StreamEvent::RawPartReplace {
                choice: c,
                part: p,
                value,
            } => {
                choice(&mut m, c);
                part(&mut m, p);
                m.push("value", value.clone());
            }
            StreamEvent::Citation {
                choice: c,
                part: p,
                citation,
            } => {
                choice(&mut m, c);
                part(&mut m, p);
                m.push("citation", citation.clone());
            }
            StreamEvent::CitationReplace {
                choice: c,
                part: p,
                index,
                citation,
            } => {
                choice(&mut m, c);
                part(&mut m, p);
                m.push("index", Value::from(*index as u64));
                m.push("citation", citation.clone());
            }
            StreamEvent::Logprobs {
                choice: c,
                part: p,
                logprobs,
            } => {
                choice(&mut m, c);
                part(&mut m, p);
                m.push("logprobs", Value::Array(logprobs.clone()));
            }
            StreamEvent::Phase {
                choice: c,
                part: p,
                phase,
            } => {
                choice(&mut m, c);
                part(&mut m, p);
                text(&mut m, "phase", phase);
            }
            StreamEvent::PartsReorder {
                choice: c,
                start,
                order,
            } => {
                choice(&mut m, c);
                m.push("start", Value::from(*start as u64));
                let order = order.iter().map(|&o| Value::from(o as u64)).collect();
                m.push("order", Value::Array(order));
            }
            StreamEvent::ToolCallStart {
                choice: c,
                call,
                id,
                name,
                kind,
            } => {
                choice(&mut m, c);
                m.push("call", Value::from(*call));
                text(&mut m, "id", id);
                text(&mut m, "name", name);
                opt(&mut m, "kind", kind);
            }
            StreamEvent::ToolCallIdentity {
                choice: c,
                call,
                id,
                name,
            } => {
                choice(&mut m, c);
                m.push("call", Value::from(*call));
                opt(&mut m, "id", id);
                opt(&mut m, "name", name);
            }
            StreamEvent::ToolCallSignature {
                choice: c,
                call,
                signature,
            } => {
                choice(&mut m, c);
                m.push("call", Value::from(*call));
                text(&mut m, "signature", signature);
            }
            StreamEvent::ToolCallDelta {
                choice: c,
                call,
                fragment,
            } => {
                choice(&mut m, c);
                m.push("call", Value::from(*call));
                text(&mut m, "fragment", fragment);
            }
            StreamEvent::Argument {
                choice: c,
                call,
                event,
            } => {
                choice(&mut m, c);
                m.push("call", Value::from(*call));
                match event {
                    ArgumentEvent::Delta { path, text: t } => {
                        m.push("path", Value::from(alloc::format!("{path}")));
                        text(&mut m, "text", t);
                    }
                    ArgumentEvent::Value { path, value } => {
                        m.push("path", Value::from(alloc::format!("{path}")));
                        m.push("value", value.clone());
                    }
                }
            }
            StreamEvent::ArgumentsReplace {
                choice: c,
                call,
                text: t,
                arguments,
                arguments_error,
            } => {
                choice(&mut m, c);
                m.push("call", Value::from(*call));
                text(&mut m, "text", t);
                if let Some(arguments) = arguments {
                    m.push("arguments", arguments.clone());
                }
                if let Some(error) = arguments_error {
                    m.push("arguments_error", error.to_value());
                }
            }
            StreamEvent::ToolCallEnd {
                choice: c,
                call,
                id,
                name,
                arguments,
                arguments_error,
            } => {
                choice(&mut m, c);
                m.push("call", Value::from(*call));
                text(&mut m, "id", id);
                text(&mut m, "name", name);
                m.push("arguments", arguments.clone());
                if let Some(error) = arguments_error {
                    m.push("arguments_error", error.to_value());
                }
            }
            StreamEvent::ArgumentsError {
                choice: c,
                call,
                error,
            } => {
                choice(&mut m, c);
                m.push("call", Value::from(*call));
                m.push("error", error.to_value());
            }
            StreamEvent::ProviderToolStart {
                choice: c,
                call,
                id,
                name,
                kind,
            } => {
                choice(&mut m, c);
                m.push("call", Value::from(*call));
                text(&mut m, "id", id);
                text(&mut m, "name", name);
                opt(&mut m, "kind", kind);
            }
            StreamEvent::ProviderToolDelta {
                choice: c,
                call,
                fragment,
            } => {
                choice(&mut m, c);
                m.push("call", Value::from(*call));
                text(&mut m, "fragment", fragment);
            }
            StreamEvent::ProviderToolProgress {
                choice: c,
                call,
                status,
                detail,
            } => {
                choice(&mut m, c);
                m.push("call", Value::from(*call));
                text(&mut m, "status", status);
                if let Some(detail) = detail {
                    m.push("detail", detail.clone());
                }
            }
            StreamEvent::ProviderToolResult {
                choice: c,
                call,
                result,
            } => {
                choice(&mut m, c);
                m.push("call", Value::from(*call));
                m.push("result", result.clone());
            }
            StreamEvent::ProviderToolEnd {
                choice: c,
                call,
                arguments,
                arguments_error,
            } => {
                choice(&mut m, c);
                m.push("call", Value::from(*call));
                m.push("arguments", arguments.clone());
                if let Some(error) = arguments_error {
                    m.push("arguments_error", error.to_value());
                }
            }
            StreamEvent::Detail {
                choice: c,
                key,
                value,
            } => {
                if let Some(c) = c {
                    choice(&mut m, c);
                }
                text(&mut m, "key", key);
                m.push("value", value.clone());
            }
            StreamEvent::Usage(usage) => {
                if let Value::Object(counts) = usage.to_value() {
                    for (k, v) in counts {
                        m.push(k, v);
                    }
                }
            }
            StreamEvent::Finish {
                choice: c,
                reason,
                normalized,
            } => {
                choice(&mut m, c);
                text(&mut m, "reason", reason);
                text(&mut m, "normalized", normalized.as_str());
            }
            StreamEvent::FinishDetails { choice: c, details } => {
                choice(&mut m, c);
                m.push("details", details.clone());
            }
            StreamEvent::Error(error) => {
                error.write_members(&mut m, "kind");
                if error.from_provider {
                    m.push("from_provider", Value::Bool(true));
                }
            }
            StreamEvent::Complete | StreamEvent::Reopen => {}
        }
        Value::Object(m)
    }

    /// The event of a JSON form that [`StreamEvent::to_value`] gives
    /// (members it does not know are ignored; a missing optional member is
    /// `None`).
    ///
    /// ```
    /// use llmstream::json::parse;
    /// use llmstream::providers::StreamEvent;
    ///
    /// let value = parse(br#"{"type":"text_delta","choice":0,"text":"Hi"}"#)?;
    /// let event = StreamEvent::from_value(&value).unwrap();
    /// assert_eq!(event, StreamEvent::TextDelta { choice: 0, text: "Hi".into() });
    /// assert_eq!(event.to_value(), value);
    /// # Ok::<(), llmstream::json::Error>(())
    /// ```
    pub fn from_value(value: &Value) -> Result<StreamEvent, FromValueError> {
        let r = Reader::new(value)?;
        let ty = r.str("type")?;
        Ok(match ty.as_str() {
            "message_start" => StreamEvent::MessageStart {
                provider: match r.opt_str("provider")? {
                    None => Provider::OpenAiChat,
                    Some(name) => Provider::from_name(&name)
                        .ok_or_else(|| FromValueError::new("provider", "a provider's name"))?,
                },
                id: r.opt_str("id")?,
                model: r.opt_str("model")?,
            },
            "role" => StreamEvent::Role {
                choice: r.u64("choice")?,
                role: r.str("role")?,
            },
            "part_start" => StreamEvent::PartStart {
                choice: r.u64("choice")?,
                kind: r.kind()?,
            },
            "text_delta" => StreamEvent::TextDelta {
                choice: r.u64("choice")?,
                text: r.str("text")?,
            },
            "reasoning_delta" => StreamEvent::ReasoningDelta {
                choice: r.u64("choice")?,
                text: r.str("text")?,
            },
            "refusal_delta" => StreamEvent::RefusalDelta {
                choice: r.u64("choice")?,
                text: r.str("text")?,
            },
            "part_replace" => StreamEvent::PartReplace {
                choice: r.u64("choice")?,
                part: r.usize("part")?,
                kind: r.kind()?,
                text: r.str("text")?,
            },
            "reasoning_signature" => StreamEvent::ReasoningSignature {
                choice: r.u64("choice")?,
                part: r.usize("part")?,
                signature: r.str("signature")?,
            },
            "raw_part" => StreamEvent::RawPart {
                choice: r.u64("choice")?,
                value: r.value("value")?,
            },
            "raw_part_member" => StreamEvent::RawPartMember {
                choice: r.u64("choice")?,
                part: r.usize("part")?,
                member: r.str("member")?,
                value: r.value("value")?,
            },
            "raw_part_append" => StreamEvent::RawPartAppend {
                choice: r.u64("choice")?,
                part: r.usize("part")?,
                member: r.str("member")?,
                text: r.str("text")?,
            },
            "raw_part_replace" => StreamEvent::RawPartReplace {
                choice: r.u64("choice")?,
                part: r.usize("part")?,
                value: r.value("value")?,
            },
            "citation" => StreamEvent::Citation {
                choice: r.u64("choice")?,
                part: r.usize("part")?,
                citation: r.value("citation")?,
            },
            "citation_replace" => StreamEvent::CitationReplace {
                choice: r.u64("choice")?,
                part: r.usize("part")?,
                index: r.usize("index")?,
                citation: r.value("citation")?,
            },
            "logprobs" => StreamEvent::Logprobs {
                choice: r.u64("choice")?,
                part: r.usize("part")?,
                logprobs: match r.value("logprobs")? {
                    Value::Array(items) => items,
                    _ => return Err(FromValueError::new("logprobs", "an array")),
                },
            },
            "phase" => StreamEvent::Phase {
                choice: r.u64("choice")?,
                part: r.usize("part")?,
                phase: r.str("phase")?,
            },
            "parts_reorder" => StreamEvent::PartsReorder {
                choice: r.u64("choice")?,
                start: r.usize("start")?,
                order: match r.value("order")? {
                    Value::Array(items) => items
                        .iter()
                        .map(|v| v.as_u64().and_then(|n| usize::try_from(n).ok()))
                        .collect::<Option<Vec<usize>>>()
                        .ok_or_else(|| FromValueError::new("order", "an array of positions"))?,
                    _ => return Err(FromValueError::new("order", "an array of positions")),
                },
            },
            "tool_call_start" => StreamEvent::ToolCallStart {
                choice: r.u64("choice")?,
                call: r.u64("call")?,
                id: r.str("id")?,
                name: r.str("name")?,
                kind: r.opt_str("kind")?,
            },
            "tool_call_identity" => StreamEvent::ToolCallIdentity {
                choice: r.u64("choice")?,
                call: r.u64("call")?,
                id: r.opt_str("id")?,
                name: r.opt_str("name")?,
            },
            "tool_call_signature" => StreamEvent::ToolCallSignature {
                choice: r.u64("choice")?,
                call: r.u64("call")?,
                signature: r.str("signature")?,
            },
            "tool_call_delta" => StreamEvent::ToolCallDelta {
                choice: r.u64("choice")?,
                call: r.u64("call")?,
                fragment: r.str("fragment")?,
            },
            "argument_delta" => StreamEvent::Argument {
                choice: r.u64("choice")?,
                call: r.u64("call")?,
                event: ArgumentEvent::Delta {
                    path: r.path()?,
                    text: r.str("text")?,
                },
            },
            "argument" => StreamEvent::Argument {
                choice: r.u64("choice")?,
                call: r.u64("call")?,
                event: ArgumentEvent::Value {
                    path: r.path()?,
                    value: r.value("value")?,
                },
            },
            "arguments_replace" => StreamEvent::ArgumentsReplace {
                choice: r.u64("choice")?,
                call: r.u64("call")?,
                text: r.str("text")?,
                arguments: r.opt_value("arguments"),
                arguments_error: r.opt_arguments_error("arguments_error")?,
            },
            "tool_call_end" => StreamEvent::ToolCallEnd {
                choice: r.u64("choice")?,
                call: r.u64("call")?,
                id: r.str("id")?,
                name: r.str("name")?,
                arguments: r.value("arguments")?,
                arguments_error: r.opt_arguments_error("arguments_error")?,
            },
            "arguments_error" => StreamEvent::ArgumentsError {
                choice: r.u64("choice")?,
                call: r.u64("call")?,
                error: r
                    .opt_arguments_error("error")?
                    .ok_or_else(|| FromValueError::new("error", "an arguments error"))?,
            },
            "provider_tool_start" => StreamEvent::ProviderToolStart {
                choice: r.u64("choice")?,
                call: r.u64("call")?,
                id: r.str("id")?,
                name: r.str("name")?,
                kind: r.opt_str("kind")?,
            },
            "provider_tool_delta" => StreamEvent::ProviderToolDelta {
                choice: r.u64("choice")?,
                call: r.u64("call")?,
                fragment: r.str("fragment")?,
            },
            "provider_tool_progress" => StreamEvent::ProviderToolProgress {
                choice: r.u64("choice")?,
                call: r.u64("call")?,
                status: r.str("status")?,
                detail: r.opt_value("detail"),
            },
            "provider_tool_result" => StreamEvent::ProviderToolResult {
                choice: r.u64("choice")?,
                call: r.u64("call")?,
                result: r.value("result")?,
            },
            "provider_tool_end" => StreamEvent::ProviderToolEnd {
                choice: r.u64("choice")?,
                call: r.u64("call")?,
                arguments: r.value("arguments")?,
                arguments_error: r.opt_arguments_error("arguments_error")?,
            },
            "detail" => StreamEvent::Detail {
                choice: r.opt_u64("choice")?,
                key: r.str("key")?,
                value: r.value("value")?,
            },
            "usage" => StreamEvent::Usage(Usage::from_value(value)?),
            "finish" => StreamEvent::Finish {
                choice: r.u64("choice")?,
                reason: r.str("reason")?,
                normalized: match r.opt_str("normalized")? {
                    None => FinishReason::Other,
                    Some(name) => FinishReason::from_name(&name).ok_or_else(|| {
                        FromValueError::new("normalized", "a normalized finish reason")
                    })?,
                },
            },
            "finish_details" => StreamEvent::FinishDetails {
                choice: r.u64("choice")?,
                details: r.value("details")?,
            },
            "error" => StreamEvent::Error(ErrorInfo {
                from_provider: match r.0.get("from_provider") {
                    None | Some(Value::Null) => false,
                    Some(Value::Bool(b)) => *b,
                    Some(_) => return Err(FromValueError::new("from_provider", "a boolean")),
                },
                ..ErrorInfo::read(&r, "kind")?
            }),
            "complete" => StreamEvent::Complete,
            "reopen" => StreamEvent::Reopen,
            _ => return Err(FromValueError::new("type", "an event type")),
        })
    }
}

/// A JSON value that is not the form of an event or a message: which
/// member did not fit, and what it should have been.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FromValueError {
    /// The member (`type`, `choice`, `choices[0].content[1].text`, …; empty
    /// for the value itself).
    pub member: String,
    /// What it should be (`a string`, `a non-negative integer`, …).
    pub expected: &'static str,
}

impl FromValueError {
    pub(crate) fn new(member: &str, expected: &'static str) -> Self {
        FromValueError {
            member: String::from(member),
            expected,
        }
    }

    /// The same error, inside `outer` (`choices[0]` + `text`).
    pub(crate) fn within(mut self, outer: &str) -> Self {
        self.member = if self.member.is_empty() {
            String::from(outer)
        } else if self.member.starts_with('[') {
            alloc::format!("{outer}{}", self.member)
        } else {
            alloc::format!("{outer}.{}", self.member)
        };
        self
    }
}

impl core::fmt::Display for FromValueError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.member.as_str() {
            "" => write!(f, "expected {}", self.expected),
            member => write!(f, "member `{member}`: expected {}", self.expected),
        }
    }
}

impl core::error::Error for FromValueError {}

/// Reads the members of an object, each error naming its member.
pub(crate) struct Reader<'a>(pub(crate) &'a Map);

impl<'a> Reader<'a> {
    pub(crate) fn new(value: &'a Value) -> Result<Self, FromValueError> {
        match value {
            Value::Object(m) => Ok(Reader(m)),
            _ => Err(FromValueError::new("", "an object")),
        }
    }

    pub(crate) fn value(&self, key: &str) -> Result<Value, FromValueError> {
        self.0
            .get(key)
            .cloned()
            .ok_or_else(|| FromValueError::new(key, "a value"))
    }

    /// The member, `None` when absent or null.
    pub(crate) fn opt_value(&self, key: &str) -> Option<Value> {
        self.0.get(key).filter(|v| !v.is_null()).cloned()
    }

    pub(crate) fn str(&self, key: &str) -> Result<String, FromValueError> {
        self.0
            .get(key)
            .and_then(Value::as_str)
            .map(String::from)
            .ok_or_else(|| FromValueError::new(key, "a string"))
    }

    pub(crate) fn opt_str(&self, key: &str) -> Result<Option<String>, FromValueError> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(FromValueError::new(key, "a string or null")),
        }
    }

    pub(crate) fn u64(&self, key: &str) -> Result<u64, FromValueError> {
        self.0
            .get(key)
            .and_then(Value::as_u64)
            .ok_or_else(|| FromValueError::new(key, "a non-negative integer"))
    }

    pub(crate) fn opt_u64(&self, key: &str) -> Result<Option<u64>, FromValueError> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .map(Some)
                .ok_or_else(|| FromValueError::new(key, "a non-negative integer or null")),
        }
    }

    pub(crate) fn usize(&self, key: &str) -> Result<usize, FromValueError> {
        usize::try_from(self.u64(key)?).map_err(|_| FromValueError::new(key, "a position"))
    }

    fn kind(&self) -> Result<PartKind, FromValueError> {
        PartKind::from_name(&self.str("kind")?)
            .ok_or_else(|| FromValueError::new("kind", "text, reasoning or refusal"))
    }

    /// An [`ArgumentsError`]'s form, or null or absent.
    pub(crate) fn opt_arguments_error(
        &self,
        key: &str,
    ) -> Result<Option<ArgumentsError>, FromValueError> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => ArgumentsError::from_value(value)
                .map(Some)
                .ok_or_else(|| FromValueError::new(key, "an arguments error")),
        }
    }

    fn path(&self) -> Result<PathBuf, FromValueError> {
        PathBuf::parse(&self.str("path")?)
            .ok_or_else(|| FromValueError::new("path", "a path (`a.b[0]`)"))
    }
}

impl Usage {
    /// The counts of a JSON form that [`Usage::to_value`] gives (other
    /// members are ignored).
    pub fn from_value(value: &Value) -> Result<Usage, FromValueError> {
        let r = Reader::new(value)?;
        Ok(Usage {
            input_tokens: r.opt_u64("input_tokens")?,
            output_tokens: r.opt_u64("output_tokens")?,
            total_tokens: r.opt_u64("total_tokens")?,
            reasoning_tokens: r.opt_u64("reasoning_tokens")?,
            cached_input_tokens: r.opt_u64("cached_input_tokens")?,
            cache_write_input_tokens: r.opt_u64("cache_write_input_tokens")?,
            server_tool_use: r.opt_value("server_tool_use"),
        })
    }
}
