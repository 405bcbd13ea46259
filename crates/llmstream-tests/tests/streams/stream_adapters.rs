//! Feature `futures`: the Stream adapters, in memory — equal to the
//! non-async path, cancellation-safe, errors passed through.

use std::pin::Pin;
use std::task::{Context, Poll};

use crate::common::recordings::{pieces, pipeline_reference, recorded_bodies};
use crate::common::Rng;
use futures::executor::block_on;
use futures::stream::{self, Stream, StreamExt};
use futures::FutureExt;
use llmstream::providers::StreamEvent;
use llmstream::sse::{self, Decoder, Item, Limits};
use llmstream::stream::{BodyStreamExt, EventStream, SseStream, StreamError};

/// A body that is `Pending` before every other piece (waking itself), as a
/// network body is between packets.
struct Stuttering {
    pieces: std::vec::IntoIter<Result<Vec<u8>, String>>,
    rng: Rng,
}

impl Stuttering {
    fn new(pieces: Vec<Result<Vec<u8>, String>>, seed: u64) -> Self {
        Stuttering {
            pieces: pieces.into_iter(),
            rng: Rng::new(seed),
        }
    }
}

impl Stream for Stuttering {
    type Item = Result<Vec<u8>, String>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.rng.range(0, 1) == 0 {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        Poll::Ready(self.pieces.next())
    }
}

fn ok_pieces(body: &[u8], seed: u64) -> Vec<Result<Vec<u8>, String>> {
    pieces(body, seed, 24).into_iter().map(Ok).collect()
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn provider_events_equal_the_pipeline_on_every_recording() {
    let bodies = recorded_bodies();
    for (seed, (name, body)) in bodies.iter().enumerate() {
        let (want_events, want_message) = pipeline_reference(body);
        let mut events =
            Stuttering::new(ok_pieces(body, seed as u64), seed as u64).provider_events();
        let got: Vec<StreamEvent> = block_on(events.by_ref().map(|e| e.unwrap()).collect());
        assert_eq!(got, want_events, "{name}");
        assert_eq!(
            events.message().map(|m| m.to_value()),
            want_message,
            "{name}"
        );
        // Fused: None again.
        assert!(block_on(events.next()).is_none());
    }
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn sse_items_equal_decode_on_every_recording() {
    let bodies = recorded_bodies();
    for (seed, (name, body)) in bodies.iter().enumerate() {
        let want = sse::decode(body).unwrap();
        let got: Vec<Item> = block_on(
            Stuttering::new(ok_pieces(body, seed as u64), seed as u64)
                .sse_items()
                .map(|e| e.unwrap())
                .collect(),
        );
        assert_eq!(got, want, "{name}");
    }
}

/// Polling with a future that is dropped whenever it is pending (as a
/// `select!` or a timeout drops it) loses nothing.
#[test]
fn dropping_a_pending_poll_loses_nothing() {
    let body = concat!(
        "retry: 100\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n",
        ": keep-alive\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"},\"finish_reason\":\"stop\"}]}\n\n",
        "data: [DONE]\n\n"
    );
    for seed in 0..20 {
        let mut items = SseStream::new(Stuttering::new(ok_pieces(body.as_bytes(), seed), seed));
        let mut got = Vec::new();
        let mut polls = 0;
        loop {
            polls += 1;
            assert!(polls < 10_000, "the stream never ended");
            match items.next().now_or_never() {
                None => continue, // the future is dropped while pending
                Some(None) => break,
                Some(Some(item)) => got.push(item.unwrap()),
            }
        }
        assert_eq!(got, sse::decode(body.as_bytes()).unwrap(), "seed {seed}");

        let mut events = EventStream::new(Stuttering::new(ok_pieces(body.as_bytes(), seed), seed));
        let mut text = String::new();
        loop {
            match events.next().now_or_never() {
                None => continue,
                Some(None) => break,
                Some(Some(event)) => {
                    if let StreamEvent::TextDelta { text: t, .. } = event.unwrap() {
                        text.push_str(&t);
                    }
                }
            }
        }
        assert_eq!(text, "ab");
        assert!(events.message().unwrap().complete);
    }
}

#[test]
fn body_errors_pass_through_and_reading_goes_on() {
    let body = vec![
        Ok(b"data: one\n".to_vec()),
        Err("connection reset".to_string()),
        Ok(b"\ndata: two\n\n".to_vec()),
    ];
    let got: Vec<_> = block_on(stream::iter(body).sse_items().collect());
    assert_eq!(
        got,
        [
            Err(StreamError::Body("connection reset".to_string())),
            Ok(Item::Event(sse::Event::message("one"))),
            Ok(Item::Event(sse::Event::message("two"))),
        ]
    );

    let body = vec![
        Ok(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}\n\n".to_vec()),
        Err("timeout".to_string()),
    ];
    let got: Vec<_> = block_on(stream::iter(body).provider_events().collect());
    assert_eq!(got.len(), 3, "{got:?}");
    assert!(matches!(&got[0], Ok(StreamEvent::MessageStart { .. })));
    assert!(matches!(&got[1], Ok(StreamEvent::TextDelta { text, .. }) if text == "x"));
    assert_eq!(got[2], Err(StreamError::Body("timeout".to_string())));
    let error = StreamError::<std::io::Error>::Body(std::io::Error::other("reset"));
    assert_eq!(error.to_string(), "reading the body: reset");
    assert!(std::error::Error::source(&error).is_some());
}

#[test]
fn an_sse_limit_ends_the_stream_with_its_error() {
    let body = vec![Ok::<_, ()>(
        b"data: short\n\ndata: far too long a line\n\ndata: after\n\n".to_vec(),
    )];
    let decoder = Decoder::with_limits(Limits::new().with_max_line_bytes(12));
    let got: Vec<_> =
        block_on(SseStream::with_decoder(stream::iter(body.clone()), decoder).collect());
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0], Ok(Item::Event(sse::Event::message("short"))));
    let Err(StreamError::Sse(e)) = &got[1] else {
        panic!("{got:?}");
    };
    assert_eq!(e.kind(), sse::ErrorKind::LineTooLong { limit: 12 });
    assert!(StreamError::<String>::Sse(e.clone())
        .to_string()
        .starts_with("decoding the event stream: line longer"));
}

#[test]
fn an_unfinished_tool_call_ends_with_the_body() {
    // No content_block_stop: the pipeline is finished when the body ends.
    let body = concat!(
        "data: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"c\",\"role\":\"assistant\"}}\n\n",
        "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"f\",\"input\":{}}}\n\n",
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\":[1,2\"}}\n\n",
    );
    let events: Vec<_> = block_on(
        stream::iter([Ok::<_, ()>(body.as_bytes())])
            .provider_events()
            .map(Result::unwrap)
            .collect(),
    );
    let (want, _) = pipeline_reference(body.as_bytes());
    assert_eq!(events, want);
    assert!(matches!(
        events.last(),
        Some(StreamEvent::ToolCallEnd { .. })
    ));
}
