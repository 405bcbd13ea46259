//! Provider accumulators and the Pipeline.
//!
//! Flags bit 0 clear: the document is an HTTP body for a Pipeline (the
//! provider detected, or forced by bits 1-3). The events, the final message
//! and the results are the same whatever the cuts, and the message prints
//! as JSON that parses back to its own value.
//!
//! Flags bit 0 set: the document is JSON lines, each an optional
//! `event-type<TAB>` then a payload (or `[DONE]`). Every payload that
//! llmstream's json::parse accepts goes to each accumulator (from the
//! first that is not plainly another provider's); the same payloads framed
//! as SSE through a Pipeline forced to that provider give the very same
//! events and message.
#![no_main]

use fuzz_common::Input;
use libfuzzer_sys::fuzz_target;
use llmstream::json::{self, Value};
use llmstream::providers::{
    anthropic, gemini, openai_chat, openai_responses, Accumulator, ErrorInfo, Message, Pipeline,
    PipelineError, Provider, StreamEvent,
};

#[derive(Debug, PartialEq)]
struct Outcome {
    events: Vec<StreamEvent>,
    message: Option<Message>,
    results: Vec<Result<(), PipelineError>>,
}

fn run_pipeline<'a>(
    provider: Option<Provider>,
    pieces: impl IntoIterator<Item = &'a [u8]>,
) -> Outcome {
    let mut pipeline = match provider {
        Some(provider) => Pipeline::with_provider(provider),
        None => Pipeline::new(),
    };
    let mut events = Vec::new();
    let mut results = Vec::new();
    for piece in pieces {
        let result = pipeline.feed(piece);
        if result.is_err() {
            results.push(result);
        }
        events.extend(std::iter::from_fn(|| pipeline.next_event()));
    }
    results.push(pipeline.finish());
    events.extend(std::iter::from_fn(|| pipeline.next_event()));
    let message = pipeline.message().cloned();
    Outcome {
        events,
        message,
        results,
    }
}

fn check_message(message: &Message) {
    let value = message.to_value();
    let text = value.to_json();
    assert_eq!(json::parse(text.as_bytes()).as_ref(), Ok(&value), "{text}");
}

fn accumulator(provider: Provider) -> Box<dyn Accumulator> {
    match provider {
        Provider::OpenAiChat => Box::new(openai_chat::OpenAiChatAccumulator::new()),
        Provider::OpenAiResponses => Box::new(openai_responses::OpenAiResponsesAccumulator::new()),
        Provider::Anthropic => Box::new(anthropic::AnthropicAccumulator::new()),
        Provider::Gemini => Box::new(gemini::GeminiAccumulator::new()),
    }
}

enum Line<'a> {
    Payload(&'a str, Value),
    Done,
}

fn lines(doc: &[u8]) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    for line in doc.split(|&b| b == b'\n') {
        let Ok(line) = std::str::from_utf8(line) else {
            continue;
        };
        let (event_type, payload) = match line.split_once('\t') {
            Some((ty, payload)) if !ty.contains('\r') => (ty, payload),
            _ => ("", line),
        };
        if payload.trim() == "[DONE]" {
            out.push(Line::Done);
        } else if let Ok(value) = json::parse(payload.as_bytes()) {
            out.push(Line::Payload(event_type, value));
        }
    }
    out
}

fn accumulators(doc: &[u8]) {
    let mut lines = lines(doc);
    // A Pipeline ignores `[DONE]` before it knows the provider.
    let first = lines.iter().position(|l| matches!(l, Line::Payload(..)));
    lines.drain(..first.unwrap_or(lines.len()));
    if lines.is_empty() {
        return;
    }
    // The same payloads as an SSE body.
    let mut body = Vec::new();
    for line in &lines {
        match line {
            Line::Payload(ty, value) => {
                if !ty.is_empty() {
                    body.extend_from_slice(format!("event: {ty}\n").as_bytes());
                }
                body.extend_from_slice(format!("data: {value}\n\n").as_bytes());
            }
            Line::Done => body.extend_from_slice(b"data: [DONE]\n\n"),
        }
    }
    for provider in Provider::ALL {
        let mut acc = accumulator(provider);
        let mut events = Vec::new();
        // A pipeline given a provider leaves out (and reports) each payload
        // plainly another's before the first it accepts, ignoring `[DONE]`
        // until then; the message keeps the first report as its error. With
        // none accepted, there is no message.
        let mut accepted = false;
        let mut first_error = None;
        for (number, line) in (1..).zip(&lines) {
            if !accepted {
                let Line::Payload(ty, value) = line else {
                    continue;
                };
                let ty = if ty.is_empty() { "message" } else { ty };
                let is_error = value.get("error").is_some()
                    || value.get("type").and_then(Value::as_str) == Some("error");
                let seen = Provider::detect(ty, value).filter(|&seen| seen != provider);
                if let Some(seen) = seen.filter(|_| !is_error) {
                    let message = format!(
                        "SSE event {number}: the payload is shaped like {}, not {} as given",
                        seen.name(),
                        provider.name()
                    );
                    events.push(StreamEvent::Error(ErrorInfo::new(message.clone())));
                    first_error.get_or_insert(ErrorInfo::new(message));
                    continue;
                }
                accepted = true;
                if let Some(error) = first_error.take() {
                    // Reported already: applied, not queued again.
                    acc.builder_mut().record(&StreamEvent::Error(error));
                }
            }
            match line {
                Line::Payload(ty, value) => {
                    let ty = if ty.is_empty() { "message" } else { ty };
                    acc.feed(ty, value);
                }
                Line::Done => acc.feed_done(),
            }
            events.extend(std::iter::from_fn(|| acc.next_event()));
        }
        // With no payload accepted the pipeline has no accumulator to
        // finish: the stream's end adds nothing.
        if accepted {
            let Ok(()) = acc.finish();
            events.extend(std::iter::from_fn(|| acc.next_event()));
        }
        check_message(acc.message());
        let piped = run_pipeline(Some(provider), [&body[..]]);
        assert_eq!(piped.results, [Ok(())]);
        assert_eq!(piped.events, events, "{provider}: pipeline events differ");
        let message = accepted.then(|| acc.message());
        assert_eq!(piped.message.as_ref(), message, "{provider}");
    }
}

fuzz_target!(|data: &[u8]| {
    let Some(input) = Input::new(data) else {
        return;
    };
    if input.flags & 1 != 0 {
        accumulators(input.doc);
        return;
    }
    let provider = Provider::ALL
        .get(usize::from(input.flags >> 1 & 7))
        .copied();
    let whole = run_pipeline(provider, [input.doc]);
    if let Some(message) = &whole.message {
        check_message(message);
        // The events are the truth: their fold is the message.
        let mut folded = Message::default();
        for event in &whole.events {
            folded.apply(event);
        }
        assert_eq!(&folded, message, "the fold of the events is not the message");
    }
    let cut = run_pipeline(provider, input.pieces());
    assert_eq!(whole, cut, "outcome depends on the cuts {:?}", input.cuts);
});
