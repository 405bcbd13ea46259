//! Helpers shared by the OpenAI provider tests: run a stream whole, byte by
//! byte and in random pieces, and check that every feeding gives the same
//! message and events.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use llmstream::json::{self, Value};
use llmstream::providers::{Message, Pipeline, Provider, StreamEvent, ToolCall};

#[path = "../common/mod.rs"]
mod common;

/// What a stream gave.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub message: Message,
    pub events: Vec<StreamEvent>,
}

impl Outcome {
    /// The events of one kind, by their CLI name.
    pub fn events_named(&self, name: &str) -> Vec<&StreamEvent> {
        self.events.iter().filter(|e| e.name() == name).collect()
    }

    /// The concatenated text of the `text_delta` events of a choice.
    pub fn streamed_text(&self, choice: u64) -> String {
        self.events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::TextDelta { choice: c, text } if *c == choice => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The tool call `call` of choice `choice`.
    pub fn call(&self, choice: u64, call: u64) -> &ToolCall {
        &self.message.choices[&choice].tool_calls[&call]
    }
}

/// `CARGO_MANIFEST_DIR/../../../shared/fixtures/providers/<rel>`, or `None`
/// (with the reason printed) when the shared fixtures are absent.
pub fn fixture(rel: &str) -> Option<PathBuf> {
    let Some(dir) = common::fixtures_dir() else {
        eprintln!("skipped: ../shared/fixtures is absent (only on the project machine)");
        return None;
    };
    let path = dir.join("providers").join(rel);
    assert!(path.is_file(), "fixture {} missing", path.display());
    Some(path)
}

/// A synthetic stream of this repository.
pub fn data(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/openai")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn pipeline_run<'a>(
    provider: Option<Provider>,
    pieces: impl IntoIterator<Item = &'a [u8]>,
) -> Outcome {
    let mut pipeline = match provider {
        Some(p) => Pipeline::with_provider(p),
        None => Pipeline::new(),
    };
    let mut events = Vec::new();
    for piece in pieces {
        pipeline.feed(piece).expect("SSE limits not exceeded");
        while let Some(e) = pipeline.next_event() {
            events.push(e);
        }
    }
    pipeline.finish().expect("SSE body ends cleanly");
    while let Some(e) = pipeline.next_event() {
        events.push(e);
    }
    let message = pipeline.message().expect("provider known").clone();
    Outcome { message, events }
}

/// Feeds a raw SSE body through [`Pipeline`] (provider detected) whole,
/// byte by byte and in random pieces of several seeds; asserts the
/// message (`to_value()`) and the event sequence are identical every time,
/// and returns them.
pub fn sse(body: &[u8], expected: Provider) -> Outcome {
    let whole = pipeline_run(None, [body]);
    assert_eq!(whole.message.provider, expected, "detected provider");
    let forced = pipeline_run(Some(expected), [body]);
    same(&whole, &forced, "provider given instead of detected");
    let bytes = pipeline_run(None, body.chunks(1));
    same(&whole, &bytes, "byte by byte");
    for seed in [1, 7, 42, 1234] {
        let pieces = common::random_pieces(body, seed);
        let random = pipeline_run(None, pieces);
        same(&whole, &random, &format!("random pieces, seed {seed}"));
    }
    whole
}

fn same(a: &Outcome, b: &Outcome, how: &str) {
    assert_eq!(
        a.message.to_value().to_json(),
        b.message.to_value().to_json(),
        "final message differs when fed {how}"
    );
    assert_eq!(a.events, b.events, "events differ when fed {how}");
}

/// Feeds JSON-lines payloads (`*.chunks.txt`) to the accumulator directly,
/// then ends the stream; also checks that the same payloads framed as SSE
/// give the identical message and events through [`Pipeline`], however fed.
pub fn lines(text: &str, provider: Provider) -> Outcome {
    let mut acc = provider.accumulator();
    let mut events = Vec::new();
    let mut body = String::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let payload = json::parse(line.as_bytes()).expect("each line is a JSON payload");
        acc.push("message", &payload);
        while let Some(e) = acc.next_event() {
            events.push(e);
        }
        body.push_str("data: ");
        body.push_str(line);
        body.push_str("\n\n");
    }
    acc.end_stream();
    while let Some(e) = acc.next_event() {
        events.push(e);
    }
    let direct = Outcome {
        message: acc.message().clone(),
        events,
    };
    let framed = sse(body.as_bytes(), provider);
    same(&direct, &framed, "as SSE through the pipeline");
    direct
}

/// Parses expected JSON text.
pub fn v(text: &str) -> Value {
    json::parse(text.as_bytes()).expect("expected value is JSON")
}

/// Reads a fixture as bytes.
pub fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
