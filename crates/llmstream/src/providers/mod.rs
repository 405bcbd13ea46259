//! Provider streams folded into messages, with one normalized event model.
//!
//! Each wire format has a module whose accumulator takes the parsed
//! payloads of its stream and drives a [`MessageBuilder`] — the typed push
//! API they share — which turns them into [`StreamEvent`]s, queued and
//! folded into the [`Message`] so far by [`Message::apply`]: the events
//! alone rebuild the message. [`Pipeline`] does the whole job from raw HTTP body
//! bytes: SSE decoding, JSON parsing of each payload, provider detection.
//!
//! Wire indices (choice, tool call, content block, output item) are keys
//! into sparse maps, never offsets into vectors; tool-call arguments are
//! parsed incrementally as they arrive ([`ArgumentStream`]).

mod arguments;
mod body;
mod builder;
mod event;
mod message;
mod pipeline;
#[cfg(feature = "serde")]
mod serde_impl;
mod sorted_map;

pub mod anthropic;
pub mod encode;
pub mod gemini;
pub mod openai_chat;
pub mod openai_responses;

use core::fmt;

pub use arguments::{ArgumentEvent, ArgumentStream, ArgumentsError};
pub use builder::{MessageBuilder, ProviderLimits};
pub use event::{FinishReason, FromValueError, PartKind, StreamEvent, Usage};
pub use message::{Choice, ErrorInfo, Message, Part, ToolCall};
pub use pipeline::{Pipeline, PipelineError};
pub use sorted_map::SortedMap;

use crate::json::{Node, Value, View};

/// The wire formats llmstream reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Provider {
    /// OpenAI Chat Completions (`chat.completion.chunk`), and the many
    /// OpenAI-compatible gateways.
    OpenAiChat,
    /// OpenAI Responses (`response.*` events).
    OpenAiResponses,
    /// Anthropic Messages (`message_start`, `content_block_delta`, …).
    Anthropic,
    /// Google Gemini `streamGenerateContent?alt=sse`.
    Gemini,
}

impl Provider {
    /// Every provider, in the order detection tries them.
    pub const ALL: [Provider; 4] = [
        Provider::OpenAiChat,
        Provider::OpenAiResponses,
        Provider::Anthropic,
        Provider::Gemini,
    ];

    /// The CLI name: `openai-chat`, `openai-responses`, `anthropic`, `gemini`.
    pub fn name(&self) -> &'static str {
        match self {
            Provider::OpenAiChat => "openai-chat",
            Provider::OpenAiResponses => "openai-responses",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
        }
    }

    /// The provider with this CLI name.
    pub fn from_name(name: &str) -> Option<Provider> {
        Provider::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Which wire format a payload belongs to, from its shape (and the SSE
    /// event type, which Anthropic and Responses streams also send).
    pub fn detect(event_type: &str, payload: &Value) -> Option<Provider> {
        Provider::detect_in(event_type, payload)
    }

    /// [`Provider::detect`] over any [`View`].
    pub(crate) fn detect_in<'v>(event_type: &str, payload: impl View<'v>) -> Option<Provider> {
        let ty = get_str(payload, "type").unwrap_or("");
        if ty.starts_with("response.") || event_type.starts_with("response.") {
            return Some(Provider::OpenAiResponses);
        }
        const ANTHROPIC: [&str; 7] = [
            "message_start",
            "message_delta",
            "message_stop",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "ping",
        ];
        if ANTHROPIC.contains(&ty) || ANTHROPIC.contains(&event_type) {
            return Some(Provider::Anthropic);
        }
        if ty == "error" {
            // Both Anthropic and Responses send `{"type":"error",…}`; only
            // Responses numbers its events, and puts `code` or `param` at
            // the top (Anthropic nests its error under `error`): either
            // tells it, should a proxy drop the number.
            let responses = ["sequence_number", "code", "param"]
                .iter()
                .any(|key| payload.get(key).is_some());
            return Some(if responses {
                Provider::OpenAiResponses
            } else {
                Provider::Anthropic
            });
        }
        if let Some(error) = payload.get("error") {
            // Google's errors carry a status name (`INVALID_ARGUMENT`);
            // OpenAI-style ones (and most gateways') do not.
            return Some(if error.get("status").is_some() {
                Provider::Gemini
            } else {
                Provider::OpenAiChat
            });
        }
        if payload.get("candidates").is_some()
            || payload.get("usageMetadata").is_some()
            || payload.get("modelVersion").is_some()
            || payload.get("promptFeedback").is_some()
        {
            return Some(Provider::Gemini);
        }
        if payload.get("choices").is_some()
            || get_str(payload, "object") == Some("chat.completion.chunk")
        {
            return Some(Provider::OpenAiChat);
        }
        None
    }

    /// A fresh accumulator for this wire format.
    pub fn accumulator(&self) -> alloc::boxed::Box<dyn Accumulator> {
        self.accumulator_with(ProviderLimits::default())
    }

    /// An accumulator for this wire format whose message keeps to `limits`.
    pub fn accumulator_with(&self, limits: ProviderLimits) -> alloc::boxed::Box<dyn Accumulator> {
        use alloc::boxed::Box;
        let builder = MessageBuilder::with_limits(*self, limits);
        match self {
            Provider::OpenAiChat => {
                Box::new(openai_chat::OpenAiChatAccumulator::with_builder(builder))
            }
            Provider::OpenAiResponses => Box::new(
                openai_responses::OpenAiResponsesAccumulator::with_builder(builder),
            ),
            Provider::Anthropic => Box::new(anthropic::AnthropicAccumulator::with_builder(builder)),
            Provider::Gemini => Box::new(gemini::GeminiAccumulator::with_builder(builder)),
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The part of an [`Accumulator`] implementation that is the same for
/// every wire format: both kinds of payload go to the accumulator's own
/// `read` (generic over [`View`], so one code path reads owned values and
/// tape nodes alike), and the builder is its `builder` field.
macro_rules! read_payloads {
    () => {
        fn feed(&mut self, event_type: &str, payload: &crate::json::Value) {
            self.read(event_type, payload);
        }

        fn feed_borrowed(&mut self, event_type: &str, payload: crate::json::Node<'_>) {
            self.read(event_type, payload);
        }

        fn builder(&self) -> &MessageBuilder {
            &self.builder
        }

        fn builder_mut(&mut self) -> &mut MessageBuilder {
            &mut self.builder
        }
    };
}
use read_payloads;

/// What every wire format's accumulator does: take one payload at a time,
/// keep the message, queue the events. `Send + Sync`: a pipeline can move
/// between threads, and a shared reference to one be read from several.
pub trait Accumulator: fmt::Debug + Send + Sync {
    /// One parsed payload (an SSE event's data, or one line of a JSON-lines
    /// recording), with its SSE event type (`"message"` when none).
    fn feed(&mut self, event_type: &str, payload: &Value);

    /// One payload read from a [`Tape`](crate::json::Tape) — what
    /// [`Pipeline`] does, so that a stream's payloads cost no allocation
    /// each: the lending variant of [`Accumulator::feed`], the same with the
    /// node's value; every accumulator here reads the node in place.
    fn feed_borrowed(&mut self, event_type: &str, payload: Node<'_>) {
        self.feed(event_type, &payload.to_value());
    }

    /// The stream's own end marker arrived (OpenAI's `data: [DONE]`).
    fn feed_done(&mut self) {
        self.builder_mut().complete();
    }

    /// The stream ended (the connection closed): open tool calls end with
    /// what they have; the message stays incomplete unless the provider
    /// said it was complete.
    ///
    /// It cannot fail: what the payloads got wrong is in the events and
    /// the message ([`StreamEvent::Error`], [`Message::complete`]), and
    /// `Infallible` says so where every other stage's `finish` returns its
    /// error type.
    fn finish(&mut self) -> Result<(), core::convert::Infallible> {
        self.builder_mut().end_stream();
        Ok(())
    }

    /// The builder behind it (the message so far, the live arguments).
    fn builder(&self) -> &MessageBuilder;

    /// The builder, mutably.
    fn builder_mut(&mut self) -> &mut MessageBuilder;

    /// The message so far.
    fn message(&self) -> &Message {
        self.builder().message()
    }

    /// The next queued event.
    fn next_event(&mut self) -> Option<StreamEvent> {
        self.builder_mut().next_event()
    }
}

/// Reads an unsigned integer member (wire indices and token counts).
/// Inline, as [`get_str`]: a tape node carries its input (32 bytes), so a
/// call costs more than the lookup it makes.
#[inline]
pub(crate) fn get_u64<'v>(value: impl View<'v>, key: &str) -> Option<u64> {
    value.get(key).and_then(View::as_u64)
}

/// Reads a string member. Inlined at every call: with the key a constant
/// there, the member lookup's comparisons are a few instructions, where a
/// call compares through `memcmp`, a large share of reading a payload.
#[inline(always)]
pub(crate) fn get_str<'v>(value: impl View<'v>, key: &str) -> Option<&'v str> {
    value.get(key).and_then(View::as_str)
}
