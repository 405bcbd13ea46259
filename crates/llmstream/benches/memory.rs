//! Memory: `size_of` of each parser, decoder and accumulator; heap
//! allocations and peak heap per document; heap for 10,000 concurrent
//! idle and half-way tool-call streams (the figure a gateway needs for
//! capacity planning).
//!
//! A counting global allocator (in this bench binary only) records the
//! live bytes, their peak and the number of allocations. Nothing is timed;
//! the figures are deterministic. Prints markdown tables.
//!
//! Run: `cargo bench -p llmstream --bench memory`. Results: BENCHMARKS.md.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::mem::size_of;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use llmstream::json::{self, Options, Parser};
use llmstream::providers::{self, ArgumentStream, MessageBuilder, Pipeline, Provider};
use llmstream::sse;

mod common;
use common::bodies::{openai_chunk, openai_tool_call, Rng};
use common::{geojson, text_args, twitter, KIB, MIB};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static ALLOCS: AtomicUsize = AtomicUsize::new(0);

fn grow(bytes: usize) {
    let live = LIVE.fetch_add(bytes, Relaxed) + bytes;
    PEAK.fetch_max(live, Relaxed);
}

// SAFETY: every call is forwarded to `System` unchanged; only counters are
// updated around it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        grow(layout.size());
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        grow(layout.size());
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        // The old and the new block may both be live during the move.
        grow(new_size);
        LIVE.fetch_sub(layout.size(), Relaxed);
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// What `f` did to the heap: allocations (including reallocations), the
/// peak of live bytes above the start, and the bytes still live after it
/// (held by its result).
struct Heap {
    allocs: usize,
    peak: usize,
    retained: usize,
}

fn heap<R>(f: impl FnOnce() -> R) -> (R, Heap) {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let allocs = ALLOCS.load(Relaxed);
    let result = black_box(f());
    let heap = Heap {
        allocs: ALLOCS.load(Relaxed) - allocs,
        peak: PEAK.load(Relaxed) - base,
        retained: LIVE.load(Relaxed).saturating_sub(base),
    };
    (result, heap)
}

fn sizes() {
    println!("## size_of\n");
    println!("| type | bytes |\n|---|---:|");
    let rows: [(&str, usize); 17] = [
        ("llmstream `json::Parser`", size_of::<Parser>()),
        ("llmstream `json::Value`", size_of::<json::Value>()),
        ("llmstream `sse::Decoder`", size_of::<sse::Decoder>()),
        ("llmstream `providers::Pipeline`", size_of::<Pipeline>()),
        (
            "llmstream `providers::MessageBuilder`",
            size_of::<MessageBuilder>(),
        ),
        (
            "llmstream `providers::openai_chat::OpenAiChatAccumulator`",
            size_of::<providers::openai_chat::OpenAiChatAccumulator>(),
        ),
        (
            "llmstream `providers::openai_responses::OpenAiResponsesAccumulator`",
            size_of::<providers::openai_responses::OpenAiResponsesAccumulator>(),
        ),
        (
            "llmstream `providers::anthropic::AnthropicAccumulator`",
            size_of::<providers::anthropic::AnthropicAccumulator>(),
        ),
        (
            "llmstream `providers::gemini::GeminiAccumulator`",
            size_of::<providers::gemini::GeminiAccumulator>(),
        ),
        ("llmstream `ArgumentStream`", size_of::<ArgumentStream>()),
        ("serde_json `Value`", size_of::<serde_json::Value>()),
        ("jiter `JsonValue`", size_of::<jiter::JsonValue>()),
        ("stream-rs `SseParser`", size_of::<stream_rs::SseParser>()),
        (
            "stream-rs `JsonSplitter`",
            size_of::<stream_rs::JsonSplitter>(),
        ),
        (
            "stream-rs `OpenAiAccumulator`",
            size_of::<stream_rs::accumulators::openai::OpenAiAccumulator>(),
        ),
        (
            "stream-rs `AnthropicAccumulator`",
            size_of::<stream_rs::accumulators::anthropic::AnthropicAccumulator>(),
        ),
        (
            "stream-rs `GeminiAccumulator`",
            size_of::<stream_rs::accumulators::gemini::GeminiAccumulator>(),
        ),
    ];
    for (name, bytes) in rows {
        println!("| {name} | {bytes} |");
    }
    println!();
}

fn idle() {
    println!("## A new, idle instance: heap\n");
    println!("| constructor | allocations | heap bytes |\n|---|---:|---:|");
    fn row<R>(name: &str, f: impl FnOnce() -> R) {
        let (value, h) = heap(f);
        println!("| {name} | {} | {} |", h.allocs, h.retained);
        drop(value);
    }
    row("`json::Parser::new()`", Parser::new);
    row("`sse::Decoder::new()`", sse::Decoder::new);
    row("`Pipeline::new()`", Pipeline::new);
    row("`Pipeline::with_provider(OpenAiChat)`", || {
        Pipeline::with_provider(Provider::OpenAiChat)
    });
    row("`ArgumentStream::json()`", ArgumentStream::json);
    row("`MessageBuilder::new(OpenAiChat)`", || {
        MessageBuilder::new(Provider::OpenAiChat)
    });
    row(
        "`openai_chat::OpenAiChatAccumulator::new()`",
        providers::openai_chat::OpenAiChatAccumulator::new,
    );
    row(
        "`openai_responses::OpenAiResponsesAccumulator::new()`",
        providers::openai_responses::OpenAiResponsesAccumulator::new,
    );
    row(
        "`anthropic::AnthropicAccumulator::new()`",
        providers::anthropic::AnthropicAccumulator::new,
    );
    row(
        "`gemini::GeminiAccumulator::new()`",
        providers::gemini::GeminiAccumulator::new,
    );
    println!();
}

fn documents() {
    println!("## Per document: allocations, peak heap, heap held by the result\n");
    println!(
        "| input | bytes | job | allocations | peak heap | peak / document | result holds |\n\
         |---|---:|---|---:|---:|---:|---:|"
    );
    let inputs = [
        ("text 64\u{a0}KiB", text_args(64 * KIB)),
        ("text 1\u{a0}MiB", text_args(MIB)),
        ("text 16\u{a0}MiB", text_args(16 * MIB)),
        ("geojson 1\u{a0}MiB", geojson(MIB)),
        ("twitter 1\u{a0}MiB", twitter(MIB)),
    ];
    for (name, doc) in &inputs {
        let doc = doc.as_slice();
        let n = doc.len();
        let row = |job: &str, h: Heap| {
            println!(
                "| {name} | {n} | {job} | {} | {} | {:.2}× | {} |",
                h.allocs,
                h.peak,
                h.peak as f64 / n as f64,
                h.retained
            );
        };
        let (v, h) = heap(|| json::parse(doc).expect("valid"));
        drop(v);
        row("llmstream `json::parse`", h);
        let (v, h) = heap(|| {
            let mut parser = Parser::with_options(Options::new().events(false));
            for piece in doc.chunks(16) {
                parser.feed(piece).expect("valid");
                black_box(parser.snapshot());
            }
            parser.finish().expect("valid");
            parser.into_value()
        });
        drop(v);
        row("llmstream 16-byte pieces + `snapshot()`", h);
        // A complete document read in place: one vector of entries over
        // the input, and the decoded text of the strings with escapes; no
        // tree of values.
        let (v, h) = heap(|| {
            let mut tape = json::Tape::new();
            tape.parse(doc).expect("valid");
            tape
        });
        drop(v);
        row("llmstream `json::Tape` (new)", h);
        let (v, h) = heap(|| serde_json::from_slice::<serde_json::Value>(doc).expect("valid"));
        drop(v);
        row("`serde_json::from_slice::<Value>`", h);
        let (v, h) = heap(|| {
            jiter::JsonValue::parse(doc, false)
                .expect("valid")
                .into_static()
        });
        drop(v);
        row("jiter `JsonValue::parse`", h);
    }
    println!();
}

/// `text` cut into pieces of about `size` bytes at character boundaries.
fn str_pieces(text: &str, size: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(&text[start..end]);
        start = end;
    }
    out
}

/// An OpenAI Chat body with one tool call whose arguments are `args`, in
/// 6–14-byte fragments.
fn tool_call_body(args: &str) -> Vec<u8> {
    let mut rng = Rng(0x5EED_0FCA_11ED);
    let mut out = String::new();
    openai_chunk(
        &mut out,
        "{\"role\":\"assistant\",\"content\":null,\"refusal\":null}",
        "null",
    );
    openai_tool_call(&mut out, &mut rng, 0, "call_wr1te", "write_file", args);
    openai_chunk(&mut out, "{}", "\"tool_calls\"");
    out.push_str("data: [DONE]\n\n");
    out.into_bytes()
}

const STREAMS: usize = 10_000;

fn concurrent() {
    println!("## {STREAMS} concurrent streams: heap, and bytes per stream (heap / {STREAMS} + size_of)\n");
    println!(
        "| streams | arguments | fed | allocations | heap | bytes per stream |\n\
         |---|---:|---:|---:|---:|---:|"
    );
    let row = |what: &str, args: usize, fed: usize, h: Heap, each: usize| {
        println!(
            "| {STREAMS} × {what} | {args} | {fed} | {} | {} | {} |",
            h.allocs,
            h.retained,
            h.retained / STREAMS + each
        );
    };
    let (v, h) = heap(|| (0..STREAMS).map(|_| Parser::new()).collect::<Vec<_>>());
    let vec_bytes = STREAMS * size_of::<Parser>();
    row(
        "`json::Parser`, idle",
        0,
        0,
        Heap {
            retained: h.retained - vec_bytes,
            ..h
        },
        size_of::<Parser>(),
    );
    drop(v);
    let (v, h) = heap(|| {
        (0..STREAMS)
            .map(|_| ArgumentStream::json())
            .collect::<Vec<_>>()
    });
    let vec_bytes = STREAMS * size_of::<ArgumentStream>();
    row(
        "`ArgumentStream`, idle",
        0,
        0,
        Heap {
            retained: h.retained - vec_bytes,
            ..h
        },
        size_of::<ArgumentStream>(),
    );
    drop(v);
    let (v, h) = heap(|| {
        (0..STREAMS)
            .map(|_| Pipeline::with_provider(Provider::OpenAiChat))
            .collect::<Vec<_>>()
    });
    let vec_bytes = STREAMS * size_of::<Pipeline>();
    row(
        "`Pipeline`, idle",
        0,
        0,
        Heap {
            retained: h.retained - vec_bytes,
            ..h
        },
        size_of::<Pipeline>(),
    );
    drop(v);

    for size in [KIB, 16 * KIB] {
        let args = String::from_utf8(text_args(size)).expect("UTF-8");
        let mut cut = size / 2;
        while !args.is_char_boundary(cut) {
            cut -= 1;
        }
        let half = str_pieces(&args[..cut], 16);
        let fed: usize = half.iter().map(|p| p.len()).sum();
        let (v, h) = heap(|| {
            (0..STREAMS)
                .map(|_| {
                    let mut stream = ArgumentStream::json();
                    for piece in &half {
                        stream.feed(piece);
                        while let Some(event) = stream.next_event() {
                            drop(black_box(event));
                        }
                    }
                    stream
                })
                .collect::<Vec<_>>()
        });
        let vec_bytes = STREAMS * size_of::<ArgumentStream>();
        row(
            "`ArgumentStream`, half-way (16-byte fragments)",
            size,
            fed,
            Heap {
                retained: h.retained - vec_bytes,
                ..h
            },
            size_of::<ArgumentStream>(),
        );
        drop(v);

        if size > KIB {
            // 10,000 pipelines over half of a 460 KB body take a minute.
            continue;
        }
        let body = tool_call_body(&args);
        let half_body = &body[..body.len() / 2];
        let (v, h) = heap(|| {
            (0..STREAMS)
                .map(|_| {
                    let mut pipeline = Pipeline::with_provider(Provider::OpenAiChat);
                    for piece in half_body.chunks(1460) {
                        pipeline.feed(piece).expect("valid");
                        while let Some(event) = pipeline.next_event() {
                            drop(black_box(event));
                        }
                    }
                    pipeline
                })
                .collect::<Vec<_>>()
        });
        let vec_bytes = STREAMS * size_of::<Pipeline>();
        row(
            &format!(
                "`Pipeline` (OpenAI Chat), half of a {}-byte body",
                body.len()
            ),
            size,
            half_body.len(),
            Heap {
                retained: h.retained - vec_bytes,
                ..h
            },
            size_of::<Pipeline>(),
        );
        drop(v);
        let (v, h) = heap(|| {
            (0..STREAMS)
                .map(|_| {
                    let mut decoder = sse::Decoder::new();
                    for piece in half_body.chunks(1460) {
                        decoder.feed(piece);
                        while let Some(item) = decoder.next_event() {
                            drop(black_box(item));
                        }
                    }
                    decoder
                })
                .collect::<Vec<_>>()
        });
        let vec_bytes = STREAMS * size_of::<sse::Decoder>();
        row(
            "`sse::Decoder` alone, the same half body",
            size,
            half_body.len(),
            Heap {
                retained: h.retained - vec_bytes,
                ..h
            },
            size_of::<sse::Decoder>(),
        );
        drop(v);
    }
    println!();
}

fn main() {
    sizes();
    idle();
    if std::env::args().any(|a| a == "--bench") {
        documents();
        concurrent();
    }
}
