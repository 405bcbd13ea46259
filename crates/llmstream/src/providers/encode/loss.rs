//! What a target wire cannot carry: said once per kind and choice, with
//! the target, so that a translation never drops anything silently.

use alloc::format;
use core::fmt;

use crate::json::{Map, Value};
use crate::providers::Provider;

/// A kind of thing a wire format has no place for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub enum LossKind {
    /// A choice other than the first, into a format with one answer per
    /// stream (Anthropic, OpenAI Responses).
    Choice,
    /// Refusal text, into a format without refusals (Anthropic, Gemini):
    /// sent as answer text.
    RefusalAsText,
    /// The signature of a reasoning part (OpenAI Chat has none).
    ReasoningSignature,
    /// The signature of a tool call (only Gemini has them).
    ToolCallSignature,
    /// A block kept as the source sent it (redacted thinking, a server
    /// tool's result, audio), where the target has no such block.
    RawPart,
    /// A citation, where the target has no place for the source's form
    /// (or for a part other than the latest).
    Citation,
    /// Token log probabilities, where the target has no place for the
    /// source's form (or for a part other than the latest).
    Logprobs,
    /// A Responses text part's phase.
    Phase,
    /// A reordering of parts already sent.
    Reorder,
    /// A final text that differs from what streamed, after it streamed.
    Replaced,
    /// A tool the provider ran itself, where the target has no
    /// provider-run tools of that form (never sent as a call the client
    /// would answer).
    ProviderTool,
    /// What the provider said beyond the normalized fields (Anthropic's
    /// `container`, Gemini's `promptFeedback`, finish details).
    Detail,
    /// Arguments for a tool call whose block was already closed (argument
    /// fragments of calls interleaved, into a wire of one open block).
    LateArguments,
    /// Arguments that are not a JSON object, into Gemini (whose `args` is
    /// one).
    NonObjectArguments,
    /// A second message in the same stream.
    Reopen,
}

impl LossKind {
    /// The name in the JSON form: `choice`, `refusal_as_text`, …
    pub fn name(&self) -> &'static str {
        match self {
            LossKind::Choice => "choice",
            LossKind::RefusalAsText => "refusal_as_text",
            LossKind::ReasoningSignature => "reasoning_signature",
            LossKind::ToolCallSignature => "tool_call_signature",
            LossKind::RawPart => "raw_part",
            LossKind::Citation => "citation",
            LossKind::Logprobs => "logprobs",
            LossKind::Phase => "phase",
            LossKind::Reorder => "reorder",
            LossKind::Replaced => "replaced",
            LossKind::ProviderTool => "provider_tool",
            LossKind::Detail => "detail",
            LossKind::LateArguments => "late_arguments",
            LossKind::NonObjectArguments => "non_object_arguments",
            LossKind::Reopen => "reopen",
        }
    }

    fn says(&self) -> &'static str {
        match self {
            LossKind::Choice => "choices beyond the first are left out",
            LossKind::RefusalAsText => "refusal text is sent as answer text",
            LossKind::ReasoningSignature => "reasoning signatures are left out",
            LossKind::ToolCallSignature => "tool-call signatures are left out",
            LossKind::RawPart => "blocks kept as the source sent them are left out",
            LossKind::Citation => "citations are left out",
            LossKind::Logprobs => "log probabilities are left out",
            LossKind::Phase => "text phases are left out",
            LossKind::Reorder => "parts reordered after they were sent keep their order",
            LossKind::Replaced => "a final text that differs from the streamed one is left out",
            LossKind::ProviderTool => "provider-run tools are left out",
            LossKind::Detail => "provider details are left out",
            LossKind::LateArguments => {
                "arguments of a tool call whose block had closed are left out"
            }
            LossKind::NonObjectArguments => {
                "tool arguments that are not an object are sent as {\"value\": …}"
            }
            LossKind::Reopen => "a second message in the stream is read as part of the first",
        }
    }
}

/// Something the target wire cannot carry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loss {
    /// The wire written.
    pub target: Provider,
    /// What is lost.
    pub kind: LossKind,
    /// The choice it belongs to, when it belongs to one.
    pub choice: Option<u64>,
}

impl Loss {
    /// `{"type":"loss","target":…,"kind":…,"choice":…,"message":…}`.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.push("type", Value::from("loss"));
        m.push("target", Value::from(self.target.name()));
        m.push("kind", Value::from(self.kind.name()));
        if let Some(choice) = self.choice {
            m.push("choice", Value::from(choice));
        }
        m.push("message", Value::from(format!("{self}")));
        Value::Object(m)
    }
}

impl fmt::Display for Loss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.target.name(), self.kind.says())?;
        if let Some(choice) = self.choice {
            write!(f, " (choice {choice})")?;
        }
        Ok(())
    }
}
