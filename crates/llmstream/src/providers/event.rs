//! The normalized event model: one vocabulary over every wire format.

use alloc::string::String;

use crate::json::{Map, Number, PathBuf, Value};

/// Something that happened in a provider stream, in provider-neutral terms.
///
/// `choice` is the choice (OpenAI `n`) or candidate (Gemini) index, 0 for
/// providers that have one answer per stream. `call` is the wire's key for
/// the tool call: OpenAI's tool-call index, Anthropic's content-block index,
/// the Responses `output_index`, the ordinal of a Gemini function call.
#[derive(Clone, Debug, PartialEq)]
pub enum StreamEvent {
    /// The message began (or its id and model became known).
    MessageStart {
        /// The provider's message / response id.
        id: Option<String>,
        /// The model that answers.
        model: Option<String>,
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
    /// A tool call began: its id and name are known. Whether the provider
    /// runs the tool itself (Anthropic's server tools: do not run it, nor
    /// answer it) is in the message:
    /// [`ToolCall::executed_by_provider`](super::ToolCall::executed_by_provider)
    /// of `message.tool_call(choice, call)`; the CLI prints it on the event.
    ToolCallStart {
        /// Choice index.
        choice: u64,
        /// The call's key.
        call: u64,
        /// The call id the result must quote.
        id: String,
        /// The tool's name.
        name: String,
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
    /// More text of a string inside the arguments, at a path.
    ArgumentDelta {
        /// Choice index.
        choice: u64,
        /// The call's key.
        call: u64,
        /// Where in the arguments: `blocks[0].content`.
        path: PathBuf,
        /// The new decoded text.
        text: String,
    },
    /// A value inside the arguments completed.
    Argument {
        /// Choice index.
        choice: u64,
        /// The call's key.
        call: u64,
        /// Where in the arguments.
        path: PathBuf,
        /// The completed value.
        value: Value,
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
        arguments_error: Option<String>,
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
    /// The provider reported an error, or the stream broke its protocol.
    Error {
        /// What went wrong.
        message: String,
    },
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
    /// The name used in JSON output: `text_delta`, `tool_call_start`, …
    pub fn name(&self) -> &'static str {
        match self {
            StreamEvent::MessageStart { .. } => "message_start",
            StreamEvent::TextDelta { .. } => "text_delta",
            StreamEvent::ReasoningDelta { .. } => "reasoning_delta",
            StreamEvent::RefusalDelta { .. } => "refusal_delta",
            StreamEvent::ToolCallStart { .. } => "tool_call_start",
            StreamEvent::ToolCallDelta { .. } => "tool_call_delta",
            StreamEvent::ArgumentDelta { .. } => "argument_delta",
            StreamEvent::Argument { .. } => "argument",
            StreamEvent::ToolCallEnd { .. } => "tool_call_end",
            StreamEvent::Usage(_) => "usage",
            StreamEvent::Finish { .. } => "finish",
            StreamEvent::Error { .. } => "error",
        }
    }

    /// The event as the CLI contract (docs/CLI.md) prints it:
    /// `{"type":"text_delta","choice":0,"text":"Hi"}`.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.push("type", Value::from(self.name()));
        match self {
            StreamEvent::MessageStart { id, model } => {
                m.push("id", opt_str(id.as_deref()));
                m.push("model", opt_str(model.as_deref()));
            }
            StreamEvent::TextDelta { choice, text }
            | StreamEvent::ReasoningDelta { choice, text }
            | StreamEvent::RefusalDelta { choice, text } => {
                m.push("choice", Value::from(*choice));
                m.push("text", Value::from(text.as_str()));
            }
            StreamEvent::ToolCallStart {
                choice,
                call,
                id,
                name,
            } => {
                m.push("choice", Value::from(*choice));
                m.push("call", Value::from(*call));
                m.push("id", Value::from(id.as_str()));
                m.push("name", Value::from(name.as_str()));
            }
            StreamEvent::ToolCallDelta {
                choice,
                call,
                fragment,
            } => {
                m.push("choice", Value::from(*choice));
                m.push("call", Value::from(*call));
                m.push("fragment", Value::from(fragment.as_str()));
            }
            StreamEvent::ArgumentDelta {
                choice,
                call,
                path,
                text,
            } => {
                m.push("choice", Value::from(*choice));
                m.push("call", Value::from(*call));
                m.push("path", Value::from(alloc::format!("{path}")));
                m.push("text", Value::from(text.as_str()));
            }
            StreamEvent::Argument {
                choice,
                call,
                path,
                value,
            } => {
                m.push("choice", Value::from(*choice));
                m.push("call", Value::from(*call));
                m.push("path", Value::from(alloc::format!("{path}")));
                m.push("value", value.clone());
            }
            StreamEvent::ToolCallEnd {
                choice,
                call,
                id,
                name,
                arguments,
                arguments_error,
            } => {
                m.push("choice", Value::from(*choice));
                m.push("call", Value::from(*call));
                m.push("id", Value::from(id.as_str()));
                m.push("name", Value::from(name.as_str()));
                m.push("arguments", arguments.clone());
                if let Some(error) = arguments_error {
                    m.push("arguments_error", Value::from(error.as_str()));
                }
            }
            StreamEvent::Usage(usage) => {
                if let Value::Object(counts) = usage.to_value() {
                    for (k, v) in counts {
                        m.push(k, v);
                    }
                }
            }
            StreamEvent::Finish {
                choice,
                reason,
                normalized,
            } => {
                m.push("choice", Value::from(*choice));
                m.push("reason", Value::from(reason.as_str()));
                m.push("normalized", Value::from(normalized.as_str()));
            }
            StreamEvent::Error { message } => {
                m.push("message", Value::from(message.as_str()));
            }
        }
        Value::Object(m)
    }
}
