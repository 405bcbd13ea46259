//! Harness shared by the provider tests: run a stream whole, byte by byte
//! and in random pieces through [`Pipeline`], check that every feeding
//! gives the same message and events, and read the recordings and
//! synthetic streams each test file is about.
#![allow(dead_code)]

use std::path::PathBuf;

use llmstream::json::{self, Value};
use llmstream::providers::{Choice, Message, Pipeline, Provider, StreamEvent, ToolCall};

/// Seeds of the random piece sizes every SSE body is also fed in.
const SEEDS: &[u64] = &[0, 1, 2, 3, 4, 5, 7, 42, 1234];

/// What a stream gave: the final message and every event, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub message: Message,
    pub events: Vec<StreamEvent>,
}

impl Run {
    /// The message's choice.
    pub fn choice(&self) -> &Choice {
        self.message.choice().expect("the message has a choice")
    }

    /// The events of one kind, by their CLI name.
    pub fn events_named(&self, name: &str) -> Vec<&StreamEvent> {
        self.events.iter().filter(|e| e.name() == name).collect()
    }

    /// Input, output and total token counts of the message.
    pub fn usage(&self) -> (Option<u64>, Option<u64>, Option<u64>) {
        let u = self.message.usage.as_ref().expect("usage reported");
        (u.input_tokens, u.output_tokens, u.total_tokens)
    }

    /// The tool call of the message's choice with this id.
    pub fn tool(&self, id: &str) -> &ToolCall {
        self.choice()
            .tool_calls
            .values()
            .find(|c| c.id == id)
            .unwrap_or_else(|| panic!("no tool call {id}"))
    }

    /// The provider-run tool call of the message's choice with this id.
    pub fn provider_tool(&self, id: &str) -> &ToolCall {
        self.choice()
            .provider_tools
            .values()
            .find(|c| c.id == id)
            .unwrap_or_else(|| panic!("no provider-run tool call {id}"))
    }

    /// The concatenated text of the `text_delta` events of a choice.
    pub fn streamed_text(&self, choice: u64) -> String {
        self.text_deltas(choice).concat()
    }

    /// The texts of the `text_delta` events of a choice, one by one.
    pub fn text_deltas(&self, choice: u64) -> Vec<&str> {
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
        self.message.tool_call(choice, call).unwrap()
    }
}

/// The streams of one provider: its recordings in
/// `../shared/fixtures/providers/<fixtures>` and its synthetic streams in
/// `tests/data/<data>`.
#[derive(Debug, Clone, Copy)]
pub struct Streams {
    pub provider: Provider,
    /// Subdirectory of `../shared/fixtures/providers` (empty for the
    /// folder itself, names then carry their subdirectory).
    pub fixtures: &'static str,
    /// Subdirectory of `tests/data`.
    pub data: &'static str,
}

impl Streams {
    pub const fn new(provider: Provider, fixtures: &'static str, data: &'static str) -> Self {
        Streams {
            provider,
            fixtures,
            data,
        }
    }

    /// Feeds these pieces through a [`Pipeline`] that detects the provider
    /// (or is given it), asserting the provider is this one.
    pub fn feed<'a>(&self, given: bool, pieces: impl IntoIterator<Item = &'a [u8]>) -> Run {
        let mut pipeline = if given {
            Pipeline::with_provider(self.provider)
        } else {
            Pipeline::new()
        };
        let mut events = Vec::new();
        for piece in pieces {
            pipeline.feed(piece).expect("the SSE stream is readable");
            while let Some(event) = pipeline.next_event() {
                events.push(event);
            }
        }
        pipeline.finish().expect("the SSE stream ends cleanly");
        while let Some(event) = pipeline.next_event() {
            events.push(event);
        }
        assert_eq!(
            pipeline.provider(),
            Some(self.provider),
            "detected provider"
        );
        let message = pipeline.message().expect("provider detected").clone();
        assert_eq!(message.provider, self.provider, "provider of the message");
        assert_fold(&events, &message);
        Run { message, events }
    }

    /// Runs a raw SSE body whole (provider detected, then given), byte by
    /// byte and in random pieces of several seeds; checks they all agree
    /// (message, its CLI JSON, events) and returns the result.
    pub fn sse(&self, bytes: &[u8]) -> Run {
        let whole = self.feed(false, [bytes]);
        same(
            &whole,
            &self.feed(true, [bytes]),
            "provider given instead of detected",
        );
        same(&whole, &self.feed(false, bytes.chunks(1)), "byte by byte");
        if let Some(by_values) = self.by_values(bytes) {
            same(
                &self.feed(true, [bytes]),
                &by_values,
                "each payload parsed into a Value and pushed",
            );
        }
        for &seed in SEEDS {
            let pieces = llmstream_tests::random_pieces(bytes, seed);
            let random = self.feed(false, pieces);
            same(&whole, &random, &format!("random pieces, seed {seed}"));
        }
        whole
    }

    /// The body's payloads each parsed into a `Value` and handed to the
    /// accumulator with `push` (the pipeline reads them from a tape with
    /// `push_node`); `None` if a payload is not JSON (the pipeline then
    /// reports it, which this does not imitate).
    fn by_values(&self, bytes: &[u8]) -> Option<Run> {
        // A body that ends inside an event (no closing blank line): the
        // pipeline reads it by its own rule, which this does not imitate.
        let mut probe = llmstream::sse::Decoder::new();
        probe.feed(bytes);
        while probe.next_event().is_some() {}
        probe.feed(b"\n\n");
        let mut pending = false;
        while let Some(item) = probe.next_event() {
            pending |= matches!(item, Ok(llmstream::sse::ItemRef::Event(_)));
        }
        if pending {
            return None;
        }
        let mut decoder = llmstream::sse::Decoder::new();
        let mut acc = self.provider.accumulator();
        let mut events = Vec::new();
        for last in [false, true] {
            if last {
                let _ = decoder.finish();
            } else {
                decoder.feed(bytes);
            }
            while let Some(item) = decoder.next_event() {
                let llmstream::sse::ItemRef::Event(event) = item.ok()? else {
                    continue;
                };
                let data = event.data.trim();
                if data == "[DONE]" {
                    acc.feed_done();
                } else if !data.is_empty() {
                    let payload = json::parse(data.as_bytes()).ok()?;
                    acc.feed(event.event_type, &payload);
                }
                while let Some(event) = acc.next_event() {
                    events.push(event);
                }
            }
        }
        acc.finish();
        while let Some(event) = acc.next_event() {
            events.push(event);
        }
        let message = acc.message().clone();
        Some(Run { message, events })
    }

    /// JSON-lines payloads (one per line) through the accumulator directly,
    /// then the end of the stream; the same payloads framed as SSE must
    /// give the same result through [`Pipeline`], however fed.
    pub fn lines(&self, text: &str) -> Run {
        let mut acc = self.provider.accumulator();
        let mut events = Vec::new();
        let mut sse = String::new();
        for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
            let payload = json::parse(line.as_bytes()).expect("each line is a JSON payload");
            acc.feed("message", &payload);
            while let Some(event) = acc.next_event() {
                events.push(event);
            }
            sse.push_str("data: ");
            sse.push_str(line);
            sse.push_str("\n\n");
        }
        acc.finish();
        while let Some(event) = acc.next_event() {
            events.push(event);
        }
        let direct = Run {
            message: acc.message().clone(),
            events,
        };
        assert_fold(&direct.events, &direct.message);
        same(
            &direct,
            &self.sse(sse.as_bytes()),
            "as SSE through the pipeline",
        );
        direct
    }

    /// `../shared/fixtures/providers/<fixtures>`.
    pub fn fixture_dir(&self) -> PathBuf {
        llmstream_tests::fixtures::path(&format!("providers/{}", self.fixtures))
    }

    /// The recording's bytes.
    pub fn fixture(&self, name: &str) -> Vec<u8> {
        llmstream_tests::fixtures::read(&format!("providers/{}/{name}", self.fixtures))
    }

    /// A recorded raw SSE body, run by [`Streams::sse`].
    pub fn fixture_sse(&self, name: &str) -> Run {
        self.sse(&self.fixture(name))
    }

    /// A recorded JSON-lines file, run by [`Streams::lines`].
    pub fn fixture_lines(&self, name: &str) -> Run {
        self.lines(&String::from_utf8(self.fixture(name)).expect("UTF-8"))
    }

    /// A recording, as JSON lines when it ends in `.chunks.txt`, else as SSE.
    pub fn fixture_any(&self, name: &str) -> Run {
        if name.ends_with(".chunks.txt") {
            self.fixture_lines(name)
        } else {
            self.fixture_sse(name)
        }
    }

    /// The bytes of a synthetic stream of this repository.
    pub fn data(&self, name: &str) -> Vec<u8> {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(self.data)
            .join(name);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// A synthetic SSE stream, run by [`Streams::sse`].
    pub fn synthetic(&self, name: &str) -> Run {
        self.sse(&self.data(name))
    }
}

/// `Message::default()` with every event applied.
pub fn fold(events: &[StreamEvent]) -> Message {
    let mut message = Message::default();
    for event in events {
        message.apply(event);
    }
    message
}

/// Asserts the events rebuild the message: their fold is it.
pub fn assert_fold(events: &[StreamEvent], message: &Message) {
    let folded = fold(events);
    assert_eq!(
        folded.to_value().to_json(),
        message.to_value().to_json(),
        "the fold of the events is not the message"
    );
    assert_eq!(
        &folded, message,
        "the fold of the events is not the message"
    );
}

/// Asserts two runs gave the same message (also as CLI JSON) and events.
fn same(a: &Run, b: &Run, how: &str) {
    assert_eq!(
        a.message.to_value().to_json(),
        b.message.to_value().to_json(),
        "final message differs when fed {how}"
    );
    assert_eq!(a.events, b.events, "events differ when fed {how}");
    assert_eq!(a, b, "result differs when fed {how}");
}

/// Parses expected JSON text.
pub fn obj(text: &str) -> Value {
    json::parse(text.as_bytes()).expect("test JSON")
}
