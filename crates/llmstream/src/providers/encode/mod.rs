//! Normalized events written back out as a provider's stream: the SSE
//! bytes that OpenAI Chat, OpenAI Responses, Anthropic or Gemini would
//! have sent for the same message, so that a stream read from one provider
//! can be served as another's (`llmstream translate`, a gateway).
//!
//! A [`WireEncoder`] has the shape of every stage: [`feed`](WireEncoder::feed)
//! a [`StreamEvent`], pull [`Output`]s with
//! [`next_event`](WireEncoder::next_event), [`finish`](WireEncoder::finish)
//! at the end of the input. Each delta goes out in the `feed` that brought
//! it; what a wire places at the end (token counts, the finish reason of
//! Anthropic's `message_delta`, Responses' `response.completed`, the
//! terminators `[DONE]` and `message_stop`) goes out at `finish`. What the
//! target cannot carry is an [`Output::Loss`], once per kind and choice,
//! never dropped silently. docs/TRANSLATION.md has the mapping tables.
//!
//! ```
//! use llmstream::providers::encode::{Output, WireEncoder};
//! use llmstream::providers::{Pipeline, Provider};
//!
//! let body = b"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m1\",\"model\":\"claude\",\"usage\":{\"input_tokens\":3,\"output_tokens\":0}}}\n\n\
//! event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n\
//! event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n\
//! event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n\
//! event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
//! let mut pipeline = Pipeline::new();
//! let mut encoder = WireEncoder::new(Provider::OpenAiChat);
//! pipeline.feed(body).unwrap();
//! pipeline.finish().unwrap();
//! while let Some(event) = pipeline.next_event() {
//!     encoder.feed(&event);
//! }
//! encoder.finish().unwrap();
//! let mut chat = Vec::new();
//! while let Some(output) = encoder.next_event() {
//!     if let Output::Sse(bytes) = output {
//!         chat.extend_from_slice(&bytes);
//!     }
//! }
//! let mut back = Pipeline::new();
//! back.feed(&chat).unwrap();
//! back.finish().unwrap();
//! let message = back.message().unwrap();
//! assert_eq!(message.provider, Provider::OpenAiChat);
//! assert_eq!(message.choices.get(&0).unwrap().text, "Hi");
//! assert_eq!(message.choices.get(&0).unwrap().finish_reason.as_deref(), Some("stop"));
//! ```

mod anthropic;
mod citation;
mod gemini;
mod loss;
mod openai_chat;
mod openai_responses;
mod wire;

use alloc::collections::VecDeque;
use alloc::vec::Vec;
use core::convert::Infallible;

pub use loss::{Loss, LossKind};

use super::{Provider, StreamEvent};
use wire::Sink;

/// What a [`WireEncoder`] gives out, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// One event of the target's SSE stream, framed (`event:` and `data:`
    /// lines and the blank line that ends it).
    Sse(Vec<u8>),
    /// Something of the input the target's wire cannot carry.
    Loss(Loss),
}

/// Normalized events in, a provider's SSE stream out.
#[derive(Debug)]
pub struct WireEncoder {
    target: Provider,
    wire: Wire,
    sink: Sink,
}

#[derive(Debug)]
enum Wire {
    Chat(openai_chat::Chat),
    Responses(openai_responses::Responses),
    Anthropic(anthropic::Anthropic),
    Gemini(gemini::Gemini),
}

impl WireEncoder {
    /// An encoder writing `target`'s wire format.
    pub fn new(target: Provider) -> Self {
        let wire = match target {
            Provider::OpenAiChat => Wire::Chat(openai_chat::Chat::default()),
            Provider::OpenAiResponses => Wire::Responses(openai_responses::Responses::default()),
            Provider::Anthropic => Wire::Anthropic(anthropic::Anthropic::default()),
            Provider::Gemini => Wire::Gemini(gemini::Gemini::default()),
        };
        WireEncoder {
            target,
            wire,
            sink: Sink::new(target),
        }
    }

    /// The wire format written.
    pub fn target(&self) -> Provider {
        self.target
    }

    /// Takes the next normalized event; what it makes waits for
    /// [`next_event`](Self::next_event).
    pub fn feed(&mut self, event: &StreamEvent) {
        if self.sink.finished {
            return;
        }
        if let StreamEvent::MessageStart {
            provider,
            id,
            model,
        } = event
        {
            let source = *self.sink.source.get_or_insert(*provider);
            let openai = matches!(self.wire, Wire::Chat(_) | Wire::Responses(_));
            self.sink.shape.keep_text = openai && source == Provider::Gemini;
            if self.sink.id.is_none() {
                self.sink.id.clone_from(id);
            }
            if self.sink.model.is_none() {
                self.sink.model.clone_from(model);
            }
        }
        self.sink.shape.follow(event);
        // Anthropic and Responses have one answer per stream.
        let one_choice = matches!(self.wire, Wire::Anthropic(_) | Wire::Responses(_));
        if let Some(choice) = event.choice().filter(|&c| c != 0 && one_choice) {
            self.sink.loss(LossKind::Choice, Some(choice));
            return;
        }
        match &mut self.wire {
            Wire::Chat(w) => w.event(event, &mut self.sink),
            Wire::Responses(w) => w.event(event, &mut self.sink),
            Wire::Anthropic(w) => w.event(event, &mut self.sink),
            Wire::Gemini(w) => w.event(event, &mut self.sink),
        }
    }

    /// The next output, oldest first; `None` when all were taken.
    pub fn next_event(&mut self) -> Option<Output> {
        self.sink.queue.pop_front()
    }

    /// The input ended: what the wire writes at the end of a stream is
    /// queued (token counts, the last finish, the terminator when the
    /// input said the message was complete). Later feeds are ignored.
    /// Nothing fails here: what the target cannot carry is an
    /// [`Output::Loss`].
    pub fn finish(&mut self) -> Result<(), Infallible> {
        if self.sink.finished {
            return Ok(());
        }
        match &mut self.wire {
            Wire::Chat(w) => w.finish(&mut self.sink),
            Wire::Responses(w) => w.finish(&mut self.sink),
            Wire::Anthropic(w) => w.finish(&mut self.sink),
            Wire::Gemini(w) => w.finish(&mut self.sink),
        }
        self.sink.finished = true;
        Ok(())
    }
}

/// Every output of `events` encoded for `target`, the end included.
pub fn encode_all(target: Provider, events: &[StreamEvent]) -> VecDeque<Output> {
    let mut encoder = WireEncoder::new(target);
    let mut out = VecDeque::new();
    for event in events {
        encoder.feed(event);
        while let Some(output) = encoder.next_event() {
            out.push_back(output);
        }
    }
    let Ok(()) = encoder.finish();
    while let Some(output) = encoder.next_event() {
        out.push_back(output);
    }
    out
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_carried;
