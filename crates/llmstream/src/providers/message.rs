//! The message so far: what every accumulator builds, whatever the wire.

use alloc::string::String;
use alloc::vec::Vec;

use super::event::{opt_str, FinishReason, Usage};
use super::sorted_map::SortedMap;
use super::Provider;
use crate::json::{Map, Value};

/// The message a stream has built so far (final once the stream ended).
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
    /// Tool calls, by the wire's key.
    pub tool_calls: SortedMap<u64, ToolCall>,
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
    /// `server_tool_use`, … (see [`ToolCall::executed_by_provider`]).
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
    pub arguments_error: Option<String>,
    /// The opaque signature that came with the call (Gemini
    /// `thoughtSignature`), to be sent back with it.
    pub signature: Option<String>,
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
}

impl Message {
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
        Value::Object(m)
    }
}

impl Choice {
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
        m.push("finish_reason", opt_str(self.finish_reason.as_deref()));
        if let Some(details) = &self.finish_details {
            m.push("finish_details", details.clone());
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
        }
    }

    /// Whether the provider ran the tool itself (Anthropic's
    /// `server_tool_use` and `mcp_tool_use`: web search, code execution,
    /// MCP connectors): its result follows in the stream, and the caller
    /// must not run it, nor answer it with a tool result (the API rejects
    /// one for such an id).
    pub fn executed_by_provider(&self) -> bool {
        matches!(
            self.kind.as_deref(),
            Some("server_tool_use" | "mcp_tool_use")
        )
    }

    /// `{"id":…,"name":…,"arguments":V,"arguments_text":…}`, with
    /// `"type"` (the wire's) when known, `"executed_by_provider":true`
    /// for a call the provider ran itself, and the error and signature
    /// when there are.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.push("id", Value::from(self.id.as_str()));
        m.push("name", Value::from(self.name.as_str()));
        if let Some(kind) = &self.kind {
            m.push("type", Value::from(kind.as_str()));
        }
        if self.executed_by_provider() {
            m.push("executed_by_provider", Value::Bool(true));
        }
        m.push("arguments", self.arguments.clone().unwrap_or(Value::Null));
        m.push("arguments_text", Value::from(self.arguments_text.as_str()));
        if let Some(e) = &self.arguments_error {
            m.push("arguments_error", Value::from(e.as_str()));
        }
        if let Some(sig) = &self.signature {
            m.push("signature", Value::from(sig.as_str()));
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
        }
    }

    /// `{"message":…,"type":…,"raw":…}`.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.push("message", Value::from(self.message.as_str()));
        m.push("type", opt_str(self.kind.as_deref()));
        if let Some(raw) = &self.raw {
            m.push("raw", raw.clone());
        }
        Value::Object(m)
    }
}
