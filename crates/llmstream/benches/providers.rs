//! End to end, raw body bytes → final message: llmstream's `Pipeline`
//! against stream-rs 0.1.0 (its SSE parser and accumulators, the payloads
//! parsed with serde_json).
//!
//! Inputs are generated (deterministic), in the exact wire shapes of the demo
//! recordings `crates/llmstream-cli/demo/openai-parallel-tools.sse` and
//! `anthropic-thinking-tool.sse`, but long:
//!
//! - `providers/openai_chat`: a role chunk, 3,000 small content deltas, a
//!   small `get_weather` call, then a `write_file` call whose 256 KiB of
//!   arguments arrive in 6–14-byte fragments, `finish_reason`, the usage
//!   chunk and `data: [DONE]`.
//! - `providers/anthropic`: `message_start`, a thinking block of 1,500
//!   deltas plus its signature, a ping, a text block of 1,500 deltas, a
//!   `tool_use` block with 256 KiB of `input_json_delta` fragments (the first
//!   one empty), `message_delta`, `message_stop`.
//!
//! Both are fed in 1,460-byte pieces (one TCP segment each). Each iteration
//! builds the final message from scratch:
//!
//! - `llmstream`: `Pipeline::with_provider`, `feed` every piece and drain
//!   every normalized event, `finish`. Tool arguments are parsed
//!   incrementally, so the message holds them as values.
//! - `stream-rs+serde_json::Value`: `SseParser::feed`, each payload parsed
//!   with `serde_json::from_str::<Value>` and dispatched to
//!   `OpenAiAccumulator` / `AnthropicAccumulator`; at the end each tool
//!   call's accumulated arguments text is parsed with serde_json (so both
//!   sides end with the arguments as values).
//! - `stream-rs+serde_json typed`: the same, with the payloads deserialized
//!   into borrowed `#[derive(Deserialize)]` structs (`Cow<str>`), chosen by
//!   the SSE event name for Anthropic — the fastest way we know to use it.
//!
//! stream-rs has no thinking block: its driver keeps thinking in a `Text`
//! block and the signature in a local string. It keeps no tool-use id or
//! name for Anthropic.
//!
//! Before timing, the bench asserts that all three give the same final text,
//! reasoning, finish reason and tool arguments (text and value).
//! `PROVBENCH_SIZES=1` prints the input sizes; `PROVBENCH_ONE` (see `one`)
//! runs a single job for callgrind.
//! Run: `cargo bench -p llmstream --bench providers`. Results: BENCHMARKS.md.

use std::borrow::Cow;
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use llmstream::providers::{Pipeline, Provider};
use serde::Deserialize;
use stream_rs::accumulators::anthropic::{AnthropicAccumulator, BlockKind};
use stream_rs::accumulators::openai::OpenAiAccumulator;
use stream_rs::sse::{SseEvent, SseParser};

/// One TCP segment.
const PIECE: usize = 1460;

// Inputs: generated SSE bodies, shared with benches/sse.rs.
mod common;
use common::bodies::{anthropic_stream, openai_stream};

// ---------------------------------------------------------------------------
// What the assertion compares

#[derive(Debug, PartialEq)]
struct Outcome {
    text: String,
    reasoning: String,
    finish_reason: Option<String>,
    /// (id, name, arguments text, arguments value); id and name are empty
    /// where stream-rs does not keep them (Anthropic).
    tools: Vec<(String, String, String, serde_json::Value)>,
}

// ---------------------------------------------------------------------------
// llmstream

fn llmstream(bytes: &[u8], provider: Provider) -> Pipeline {
    let mut pipeline = Pipeline::with_provider(provider);
    for piece in bytes.chunks(PIECE) {
        pipeline.feed(piece).unwrap();
        while let Some(event) = pipeline.next_event() {
            black_box(&event);
        }
    }
    pipeline.finish().unwrap();
    while let Some(event) = pipeline.next_event() {
        black_box(&event);
    }
    pipeline
}

fn llmstream_outcome(pipeline: &Pipeline, keep_ids: bool) -> Outcome {
    let message = pipeline.message().unwrap();
    assert!(message.error.is_none(), "{:?}", message.error);
    let choice = message.choice().unwrap();
    Outcome {
        text: choice.text.clone(),
        reasoning: choice.reasoning.clone(),
        finish_reason: choice.finish_reason.clone(),
        tools: choice
            .tool_calls
            .values()
            .map(|call| {
                assert!(call.ended && call.arguments_error.is_none());
                let value = call.arguments.as_ref().unwrap().to_json();
                let (id, name) = if keep_ids {
                    (call.id.clone(), call.name.clone())
                } else {
                    (String::new(), String::new())
                };
                (
                    id,
                    name,
                    call.arguments_text.clone(),
                    serde_json::from_str(&value).unwrap(),
                )
            })
            .collect(),
    }
}

// ---------------------------------------------------------------------------
// stream-rs, OpenAI

/// Feeds the body to stream-rs's SSE parser and hands every event over.
fn sse_events(bytes: &[u8], mut each: impl FnMut(&SseEvent)) {
    let mut parser = SseParser::new();
    let mut events = Vec::new();
    for piece in bytes.chunks(PIECE) {
        parser.feed(piece, &mut events);
        for event in &events {
            each(event);
        }
        events.clear();
    }
    parser.finish(&mut events);
    for event in &events {
        each(event);
    }
}

struct OpenAiResult {
    acc: OpenAiAccumulator,
    arguments: Vec<serde_json::Value>,
}

fn openai_arguments(acc: &OpenAiAccumulator) -> Vec<serde_json::Value> {
    acc.choices()
        .flat_map(|(_, choice)| choice.tool_calls.values())
        .map(|call| serde_json::from_str(&call.arguments).unwrap())
        .collect()
}

fn stream_rs_openai_value(bytes: &[u8]) -> OpenAiResult {
    use serde_json::Value;
    let mut acc = OpenAiAccumulator::new();
    sse_events(bytes, |event| {
        if event.data == "[DONE]" {
            return;
        }
        let chunk: Value = serde_json::from_str(&event.data).unwrap();
        let Some(choices) = chunk.get("choices").and_then(Value::as_array) else {
            return;
        };
        for choice in choices {
            let index = choice["index"].as_u64().unwrap() as usize;
            if let Some(delta) = choice.get("delta") {
                if let Some(role) = delta.get("role").and_then(Value::as_str) {
                    acc.push_role(index, role);
                }
                if let Some(content) = delta.get("content").and_then(Value::as_str) {
                    acc.push_content(index, content);
                }
                if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
                    for call in calls {
                        let function = call.get("function");
                        acc.push_tool_call(
                            index,
                            call["index"].as_u64().unwrap() as usize,
                            call.get("id").and_then(Value::as_str),
                            function.and_then(|f| f.get("name")).and_then(Value::as_str),
                            function
                                .and_then(|f| f.get("arguments"))
                                .and_then(Value::as_str),
                        );
                    }
                }
            }
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                acc.set_finish_reason(index, reason);
            }
        }
    });
    let arguments = openai_arguments(&acc);
    OpenAiResult { acc, arguments }
}

#[derive(Deserialize)]
struct Chunk<'a> {
    #[serde(borrow, default)]
    choices: Vec<ChunkChoice<'a>>,
}

#[derive(Deserialize)]
struct ChunkChoice<'a> {
    index: usize,
    #[serde(borrow, default)]
    delta: Option<ChunkDelta<'a>>,
    #[serde(borrow, default)]
    finish_reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct ChunkDelta<'a> {
    #[serde(borrow, default)]
    role: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_calls: Vec<ToolCallDelta<'a>>,
}

#[derive(Deserialize)]
struct ToolCallDelta<'a> {
    index: usize,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    function: Option<FunctionDelta<'a>>,
}

#[derive(Deserialize)]
struct FunctionDelta<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<Cow<'a, str>>,
}

fn stream_rs_openai_typed(bytes: &[u8]) -> OpenAiResult {
    let mut acc = OpenAiAccumulator::new();
    sse_events(bytes, |event| {
        if event.data == "[DONE]" {
            return;
        }
        let chunk: Chunk<'_> = serde_json::from_str(&event.data).unwrap();
        for choice in chunk.choices {
            if let Some(delta) = choice.delta {
                if let Some(role) = delta.role {
                    acc.push_role(choice.index, &role);
                }
                if let Some(content) = delta.content {
                    acc.push_content(choice.index, &content);
                }
                for call in delta.tool_calls {
                    let (name, arguments) = match call.function {
                        Some(f) => (f.name, f.arguments),
                        None => (None, None),
                    };
                    acc.push_tool_call(
                        choice.index,
                        call.index,
                        call.id.as_deref(),
                        name.as_deref(),
                        arguments.as_deref(),
                    );
                }
            }
            if let Some(reason) = choice.finish_reason {
                acc.set_finish_reason(choice.index, &reason);
            }
        }
    });
    let arguments = openai_arguments(&acc);
    OpenAiResult { acc, arguments }
}

fn openai_outcome(result: &OpenAiResult) -> Outcome {
    let choice = result.acc.choice(0).unwrap();
    Outcome {
        text: choice.content.clone(),
        reasoning: String::new(),
        finish_reason: choice.finish_reason.clone(),
        tools: choice
            .tool_calls
            .values()
            .zip(&result.arguments)
            .map(|(call, value)| {
                (
                    call.id.clone().unwrap_or_default(),
                    call.name.clone().unwrap_or_default(),
                    call.arguments.clone(),
                    value.clone(),
                )
            })
            .collect(),
    }
}

// ---------------------------------------------------------------------------
// stream-rs, Anthropic

struct AnthropicResult {
    acc: AnthropicAccumulator,
    /// Thinking blocks (kept as `Text` blocks: stream-rs has no thinking kind).
    thinking: Vec<usize>,
    signature: String,
    arguments: Vec<serde_json::Value>,
}

impl AnthropicResult {
    fn new() -> Self {
        AnthropicResult {
            acc: AnthropicAccumulator::new(),
            thinking: Vec::new(),
            signature: String::new(),
            arguments: Vec::new(),
        }
    }

    fn start(&mut self, index: usize, kind: &str) {
        let kind = match kind {
            "tool_use" => BlockKind::ToolUse,
            "thinking" => {
                self.thinking.push(index);
                BlockKind::Text
            }
            _ => BlockKind::Text,
        };
        self.acc.content_block_start(index, kind).unwrap();
    }

    fn delta(&mut self, index: usize, kind: &str, fragment: &str) {
        match kind {
            "text_delta" | "thinking_delta" => self.acc.text_delta(index, fragment).unwrap(),
            "input_json_delta" => self.acc.input_json_delta(index, fragment).unwrap(),
            "signature_delta" => self.signature = fragment.to_string(),
            _ => {}
        }
    }

    fn end(&mut self) {
        self.arguments = self
            .acc
            .blocks()
            .filter(|(_, block)| block.kind == BlockKind::ToolUse)
            .map(|(_, block)| {
                if block.text.is_empty() {
                    serde_json::Value::Object(Default::default())
                } else {
                    serde_json::from_str(&block.text).unwrap()
                }
            })
            .collect();
    }
}

fn stream_rs_anthropic_value(bytes: &[u8]) -> AnthropicResult {
    use serde_json::Value;
    let mut result = AnthropicResult::new();
    sse_events(bytes, |event| {
        let payload: Value = serde_json::from_str(&event.data).unwrap();
        let index = || payload["index"].as_u64().unwrap() as usize;
        match payload["type"].as_str().unwrap_or("") {
            "message_start" => result.acc.message_start(),
            "content_block_start" => {
                let kind = payload["content_block"]["type"].as_str().unwrap();
                result.start(index(), kind);
            }
            "content_block_delta" => {
                let delta = &payload["delta"];
                let kind = delta["type"].as_str().unwrap();
                let field = match kind {
                    "text_delta" => "text",
                    "thinking_delta" => "thinking",
                    "input_json_delta" => "partial_json",
                    "signature_delta" => "signature",
                    _ => return,
                };
                result.delta(index(), kind, delta[field].as_str().unwrap());
            }
            "content_block_stop" => result.acc.content_block_stop(index()).unwrap(),
            "message_delta" => result
                .acc
                .message_delta(payload["delta"]["stop_reason"].as_str()),
            "message_stop" => result.acc.message_stop(),
            _ => {}
        }
    });
    result.end();
    result
}

#[derive(Deserialize)]
struct BlockStart<'a> {
    index: usize,
    #[serde(borrow)]
    content_block: BlockHead<'a>,
}

#[derive(Deserialize)]
struct BlockHead<'a> {
    #[serde(borrow, rename = "type")]
    kind: Cow<'a, str>,
}

#[derive(Deserialize)]
struct BlockDelta<'a> {
    index: usize,
    #[serde(borrow)]
    delta: DeltaBody<'a>,
}

#[derive(Deserialize)]
struct DeltaBody<'a> {
    #[serde(borrow, rename = "type")]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    thinking: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    partial_json: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    signature: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct BlockStop {
    index: usize,
}

#[derive(Deserialize)]
struct MessageDelta<'a> {
    #[serde(borrow)]
    delta: StopInfo<'a>,
}

#[derive(Deserialize)]
struct StopInfo<'a> {
    #[serde(borrow, default)]
    stop_reason: Option<Cow<'a, str>>,
}

fn stream_rs_anthropic_typed(bytes: &[u8]) -> AnthropicResult {
    let mut result = AnthropicResult::new();
    sse_events(bytes, |event| {
        let data = event.data.as_str();
        match event.event.as_deref().unwrap_or("message") {
            "message_start" => result.acc.message_start(),
            "content_block_start" => {
                let start: BlockStart<'_> = serde_json::from_str(data).unwrap();
                result.start(start.index, &start.content_block.kind);
            }
            "content_block_delta" => {
                let delta: BlockDelta<'_> = serde_json::from_str(data).unwrap();
                let body = delta.delta;
                let fragment = body
                    .text
                    .or(body.thinking)
                    .or(body.partial_json)
                    .or(body.signature)
                    .unwrap_or_default();
                result.delta(delta.index, &body.kind, &fragment);
            }
            "content_block_stop" => {
                let stop: BlockStop = serde_json::from_str(data).unwrap();
                result.acc.content_block_stop(stop.index).unwrap();
            }
            "message_delta" => {
                let delta: MessageDelta<'_> = serde_json::from_str(data).unwrap();
                result.acc.message_delta(delta.delta.stop_reason.as_deref());
            }
            "message_stop" => result.acc.message_stop(),
            _ => {}
        }
    });
    result.end();
    result
}

fn anthropic_outcome(result: &AnthropicResult) -> Outcome {
    let mut text = String::new();
    let mut reasoning = String::new();
    let mut tools = Vec::new();
    let mut arguments = result.arguments.iter();
    for (index, block) in result.acc.blocks() {
        assert!(block.stopped);
        match block.kind {
            BlockKind::Text if result.thinking.contains(&index) => reasoning.push_str(&block.text),
            BlockKind::Text => text.push_str(&block.text),
            BlockKind::ToolUse => tools.push((
                String::new(),
                String::new(),
                block.text.clone(),
                arguments.next().unwrap().clone(),
            )),
        }
    }
    assert!(!result.signature.is_empty());
    Outcome {
        text,
        reasoning,
        finish_reason: result.acc.stop_reason().map(str::to_string),
        tools,
    }
}

// ---------------------------------------------------------------------------

fn check(name: &str, ours: &Outcome, theirs: &Outcome, peer: &str) {
    assert!(!ours.text.is_empty() && !ours.tools.is_empty());
    assert_eq!(ours, theirs, "{peer} gives a different {name} message");
}

/// `PROVBENCH_ONE=openai_chat/llmstream` (etc.) runs that one job
/// `PROVBENCH_RUNS` times (default 1) without criterion or the checks, for
/// instruction counts: run it with 0 and 1 and subtract.
fn one(spec: &str) {
    let runs: usize = std::env::var("PROVBENCH_RUNS").map_or(1, |n| n.parse().unwrap());
    let (group, implementation) = spec.split_once('/').expect("group/implementation");
    let bytes = match group {
        "openai_chat" => openai_stream(),
        "anthropic" => anthropic_stream(),
        _ => panic!("unknown group {group}"),
    };
    for _ in 0..runs {
        match (group, implementation) {
            ("openai_chat", "llmstream") => {
                drop(black_box(llmstream(&bytes, Provider::OpenAiChat)))
            }
            ("anthropic", "llmstream") => drop(black_box(llmstream(&bytes, Provider::Anthropic))),
            ("openai_chat", "stream-rs+Value") => drop(black_box(stream_rs_openai_value(&bytes))),
            ("openai_chat", "stream-rs+typed") => drop(black_box(stream_rs_openai_typed(&bytes))),
            ("anthropic", "stream-rs+Value") => drop(black_box(stream_rs_anthropic_value(&bytes))),
            ("anthropic", "stream-rs+typed") => drop(black_box(stream_rs_anthropic_typed(&bytes))),
            _ => panic!("unknown implementation {implementation}"),
        }
    }
}

fn benches(c: &mut Criterion) {
    if let Ok(spec) = std::env::var("PROVBENCH_ONE") {
        one(&spec);
        std::process::exit(0);
    }
    let openai = openai_stream();
    let ours = llmstream_outcome(&llmstream(&openai, Provider::OpenAiChat), true);
    assert_eq!(ours.tools.len(), 2);
    assert!(ours.tools[1].2.len() >= 256 * 1024);
    let value = openai_outcome(&stream_rs_openai_value(&openai));
    check("OpenAI", &ours, &value, "stream-rs+Value");
    let typed = openai_outcome(&stream_rs_openai_typed(&openai));
    check("OpenAI", &ours, &typed, "stream-rs+typed");

    let anthropic = anthropic_stream();
    let ours = llmstream_outcome(&llmstream(&anthropic, Provider::Anthropic), false);
    assert!(!ours.reasoning.is_empty());
    let value = anthropic_outcome(&stream_rs_anthropic_value(&anthropic));
    check("Anthropic", &ours, &value, "stream-rs+Value");
    let typed = anthropic_outcome(&stream_rs_anthropic_typed(&anthropic));
    check("Anthropic", &ours, &typed, "stream-rs+typed");

    if std::env::var_os("PROVBENCH_SIZES").is_some() {
        eprintln!(
            "openai: {} bytes, anthropic: {} bytes",
            openai.len(),
            anthropic.len()
        );
    }

    for (name, bytes, provider) in [
        ("openai_chat", &openai, Provider::OpenAiChat),
        ("anthropic", &anthropic, Provider::Anthropic),
    ] {
        let mut group = c.benchmark_group(format!("providers/{name}"));
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.sample_size(10);
        group.warm_up_time(Duration::from_secs(1));
        group.measurement_time(Duration::from_secs(4));
        group.bench_function(BenchmarkId::from_parameter("llmstream"), |b| {
            b.iter(|| llmstream(black_box(bytes), provider))
        });
        if provider == Provider::OpenAiChat {
            group.bench_function(BenchmarkId::from_parameter("stream-rs+Value"), |b| {
                b.iter(|| stream_rs_openai_value(black_box(bytes)))
            });
            group.bench_function(BenchmarkId::from_parameter("stream-rs+typed"), |b| {
                b.iter(|| stream_rs_openai_typed(black_box(bytes)))
            });
        } else {
            group.bench_function(BenchmarkId::from_parameter("stream-rs+Value"), |b| {
                b.iter(|| stream_rs_anthropic_value(black_box(bytes)))
            });
            group.bench_function(BenchmarkId::from_parameter("stream-rs+typed"), |b| {
                b.iter(|| stream_rs_anthropic_typed(black_box(bytes)))
            });
        }
        group.finish();
    }
}

criterion_group!(providers, benches);
criterion_main!(providers);
