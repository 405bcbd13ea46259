//! The SSE decoder against eventsource-stream 0.2.3, sse-stream 0.3 and
//! stream-rs 0.1.0 (its `SseParser`, fed the same pieces directly: it is a
//! push parser, no stream adapter).
//!
//! Every decoder reads the same in-memory stream of byte pieces
//! (`futures::stream::iter`, polled with `futures::executor::block_on`),
//! as an HTTP client would hand the body over:
//!
//! - `sse/chat_events`: 100,000 small events shaped like an OpenAI Chat
//!   Completions stream (`data: {"id":…,"choices":[{"delta":{"content":…}}]}`),
//!   read in 64 KiB pieces.
//! - `sse/long_line`: one event whose data is a single 4 MiB line (like a
//!   base64 image), read in 1,460-byte pieces (one TCP segment each).
//!
//! - `sse/openai_body`, `sse/anthropic_body`, `sse/gemini_body`: the
//!   provider-shaped bodies of `benches/common/bodies.rs` (8.3 MB, 4.1 MB
//!   and 2.9 MB; the Gemini one with CRLF line ends), read in 1,460-byte pieces.
//!
//! Each iteration decodes the whole stream with a fresh decoder and touches
//! every event's data. `SSEBENCH_ONE=<group>/<decoder>` (see `one`) runs a
//! single job for callgrind. Run: `cargo bench -p llmstream --bench sse`.
//! Results: BENCHMARKS.md.

use std::convert::Infallible;
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use eventsource_stream::Eventsource;
use futures::executor::block_on;
use futures::stream::{self, StreamExt};
use llmstream::sse::{Decoder, ItemRef};
use sse_stream::SseByteStream;

mod common;
use common::bodies::{anthropic_stream, gemini_stream, openai_stream};

/// 100,000 chat-completion chunks plus the `[DONE]` sentinel.
fn chat_stream() -> Vec<u8> {
    let words = [
        "The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", ".",
    ];
    let mut out = Vec::new();
    for i in 0..100_000usize {
        out.extend_from_slice(
            format!(
                "data: {{\"id\":\"chatcmpl-AJ3kq9Xb2\",\"object\":\"chat.completion.chunk\",\"created\":1729000000,\"model\":\"gpt-4o-2024-08-06\",\"system_fingerprint\":\"fp_6b68a8204b\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{}\"}},\"logprobs\":null,\"finish_reason\":null}}]}}\n\n",
                words[i % words.len()]
            )
            .as_bytes(),
        );
    }
    out.extend_from_slice(b"data: [DONE]\n\n");
    out
}

/// One event with a 4 MiB data line of base64-like text.
fn long_line_stream() -> Vec<u8> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = b"event: image\ndata: ".to_vec();
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    for _ in 0..4 << 20 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        out.push(ALPHABET[(state % 64) as usize]);
    }
    out.extend_from_slice(b"\n\n");
    out
}

fn pieces(bytes: &[u8], size: usize) -> impl futures::Stream<Item = Result<&[u8], Infallible>> {
    stream::iter(bytes.chunks(size).map(Ok))
}

/// (events, data bytes) — the same for every decoder, checked before timing.
fn llmstream(bytes: &[u8], size: usize) -> (usize, usize) {
    block_on(async {
        let mut body = pieces(bytes, size);
        let mut decoder = Decoder::new();
        let (mut events, mut data) = (0, 0);
        while let Some(Ok(piece)) = body.next().await {
            // Read in place: only a line the piece cuts is copied.
            let mut items = decoder.feed_borrowed(piece);
            while let Some(item) = items.next_event() {
                if let Ok(ItemRef::Event(event)) = item {
                    events += 1;
                    data += black_box(event.data).len();
                }
            }
        }
        let _ = decoder.finish();
        (events, data)
    })
}

fn eventsource_stream(bytes: &[u8], size: usize) -> (usize, usize) {
    block_on(async {
        let mut events_stream = pieces(bytes, size).eventsource();
        let (mut events, mut data) = (0, 0);
        while let Some(Ok(event)) = events_stream.next().await {
            events += 1;
            data += black_box(event.data).len();
        }
        (events, data)
    })
}

fn sse_stream(bytes: &[u8], size: usize) -> (usize, usize) {
    block_on(async {
        let mut blocks = SseByteStream::new(pieces(bytes, size));
        let (mut events, mut data) = (0, 0);
        while let Some(Ok(block)) = blocks.next().await {
            if let Some(d) = block.data {
                events += 1;
                data += black_box(d).len();
            }
        }
        (events, data)
    })
}

fn stream_rs(bytes: &[u8], size: usize) -> (usize, usize) {
    let mut parser = stream_rs::SseParser::new();
    let mut out = Vec::new();
    let (mut events, mut data) = (0, 0);
    for piece in bytes.chunks(size) {
        parser.feed(piece, &mut out);
        for event in out.drain(..) {
            events += 1;
            data += black_box(event.data).len();
        }
    }
    parser.finish(&mut out);
    for event in out.drain(..) {
        events += 1;
        data += black_box(event.data).len();
    }
    (events, data)
}

type Driver = fn(&[u8], usize) -> (usize, usize);

const DRIVERS: [(&str, Driver); 4] = [
    ("llmstream", llmstream),
    ("eventsource-stream", eventsource_stream),
    ("sse-stream", sse_stream),
    ("stream-rs", stream_rs),
];

fn run_group(c: &mut Criterion, name: &str, bytes: &[u8], piece: usize) {
    let expected = llmstream(bytes, piece);
    for (peer, driver) in DRIVERS {
        assert_eq!(
            driver(bytes, piece),
            expected,
            "{peer} decodes {name} differently"
        );
    }
    let mut group = c.benchmark_group(format!("sse/{name}"));
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(4));
    for (peer, driver) in DRIVERS {
        group.bench_with_input(BenchmarkId::from_parameter(peer), bytes, |b, bytes| {
            b.iter(|| driver(black_box(bytes), piece))
        });
    }
    group.finish();
}

/// The body and piece size of each group.
fn group_input(name: &str) -> (Vec<u8>, usize) {
    match name {
        "chat_events" => (chat_stream(), 64 * 1024),
        "long_line" => (long_line_stream(), 1460),
        "openai_body" => (openai_stream(), 1460),
        "anthropic_body" => (anthropic_stream(), 1460),
        "gemini_body" => (gemini_stream(), 1460),
        _ => panic!("unknown group {name}"),
    }
}

/// `SSEBENCH_ONE=openai_body/llmstream` (any group and decoder) runs that
/// one job `SSEBENCH_RUNS` times (default 1) without criterion or the
/// checks, for instruction counts: run it with 0 and 1 and subtract.
fn one(spec: &str) {
    let runs: usize = std::env::var("SSEBENCH_RUNS").map_or(1, |n| n.parse().expect("a count"));
    let (group, decoder) = spec.split_once('/').expect("group/decoder");
    let (bytes, piece) = group_input(group);
    let (_, driver) = DRIVERS
        .into_iter()
        .find(|(name, _)| *name == decoder)
        .expect("a decoder of DRIVERS");
    for _ in 0..runs {
        black_box(driver(&bytes, piece));
    }
}

fn benches(c: &mut Criterion) {
    if let Ok(spec) = std::env::var("SSEBENCH_ONE") {
        one(&spec);
        return;
    }
    for name in [
        "chat_events",
        "long_line",
        "openai_body",
        "anthropic_body",
        "gemini_body",
    ] {
        let (bytes, piece) = group_input(name);
        run_group(c, name, &bytes, piece);
    }
}

criterion_group!(sse, benches);
criterion_main!(sse);
