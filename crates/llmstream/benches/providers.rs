//! End to end, raw body bytes → final message: llmstream's `Pipeline`
//! against stream-rs 0.1.0 (its SSE parser and accumulators, the payloads
//! parsed with serde_json).
//!
//! Inputs are generated (deterministic), in the exact wire shapes of the demo
//! recordings `crates/llmstream-cli/demo/openai-parallel-tools.sse` and
//! `anthropic-thinking-tool.sse`, of `tests/data/gemini/` and of
//! `tests/data/openai/resp_*.sse`, but long:
//!
//! - `providers/openai_chat`: a role chunk, 3,000 small content deltas, a
//!   small `get_weather` call, then a `write_file` call whose 256 KiB of
//!   arguments arrive in 6–14-byte fragments, `finish_reason`, the usage
//!   chunk and `data: [DONE]`.
//! - `providers/anthropic`: `message_start`, a thinking block of 1,500
//!   deltas plus its signature, a ping, a text block of 1,500 deltas, a
//!   `tool_use` block with 256 KiB of `input_json_delta` fragments (the first
//!   one empty), `message_delta`, `message_stop`.
//! - `providers/gemini`: the `gemini_stream` body of benches/sse.rs
//!   (`streamGenerateContent?alt=sse`, CRLF line ends): 6,000 chunks of one
//!   60–400-byte text part each (Gemini sends larger text parts than the
//!   others), then one chunk with a whole `functionCall` (`write_file`,
//!   64 KiB of `args`, as Gemini sends them: one object, not fragments)
//!   and `finishReason: STOP`; every chunk with `usageMetadata`. It has no
//!   `thought: true` parts and no streamed `partialArgs` (which stream-rs
//!   cannot accumulate).
//! - `providers/openai_responses`: `response.created`, `.in_progress`; a
//!   reasoning item whose summary streams in 1,500
//!   `reasoning_summary_text.delta` events; a message item
//!   (`content_part.added`, 3,000 `output_text.delta`, `output_text.done`,
//!   `content_part.done`, `output_item.done`); a `write_file`
//!   function_call item whose 256 KiB of arguments stream in 6–14-byte
//!   `function_call_arguments.delta` fragments, `.done`,
//!   `output_item.done`; `response.completed` with the whole output again
//!   and usage. Every event has its `event:` line and `sequence_number`,
//!   the deltas their `obfuscation` padding.
//!
//! All are fed in 1,460-byte pieces (one TCP segment each). Each iteration
//! builds the final message from scratch:
//!
//! - `llmstream`: `Pipeline::with_provider`, `feed` every piece and drain
//!   every normalized event, `finish`. Tool arguments are parsed
//!   incrementally, so the message holds them as values.
//! - `stream-rs+serde_json::Value`: `SseParser::feed`, each payload parsed
//!   with `serde_json::from_str::<Value>` and dispatched to
//!   `OpenAiAccumulator` / `AnthropicAccumulator` / `GeminiAccumulator`;
//!   at the end each tool call's accumulated arguments text is parsed with
//!   serde_json (so both sides end with the arguments as values). For
//!   Gemini the `args` object is already a `Value`: it is serialized for
//!   `push_function_call` (which takes the arguments as JSON text) and
//!   kept as the value.
//! - `stream-rs+serde_json typed`: the same, with the payloads deserialized
//!   into borrowed `#[derive(Deserialize)]` structs (`Cow<str>`), chosen by
//!   the SSE event name for Anthropic — the fastest way we know to use it.
//!   For Gemini, `args` is deserialized as a `Value` and serialized for the
//!   accumulator, as in the `Value` job: borrowing it verbatim would need
//!   serde_json's `raw_value` feature, which the dev-dependency does not
//!   enable; the typed structs cover the rest of each chunk.
//! - `providers/openai_responses` is llmstream alone: stream-rs 0.1.0 has
//!   no accumulator for the Responses API.
//!
//! stream-rs has no thinking block: its driver keeps thinking in a `Text`
//! block and the signature in a local string. It keeps no tool-use id or
//! name for Anthropic. Its Gemini accumulator keeps each candidate's text,
//! function calls (name and arguments text) and finish reason: no call id
//! (llmstream makes one up when Gemini sends none) and no thought text
//! (the drivers would keep `thought: true` text in a string of their own;
//! this body has none).
//!
//! Before timing, the bench asserts that all sides give the same final
//! text, reasoning, finish reason and tool arguments (text and value), and
//! for Anthropic and Gemini the tool ids only where stream-rs keeps them
//! (Anthropic: neither id nor name; Gemini: the name, not the id). For
//! Gemini the arguments are compared as values only: llmstream's text is
//! the `args` object written compactly in wire order, stream-rs's is what
//! the driver hands it (here serde_json's writing of a `Value`, keys
//! sorted), and neither is the wire text (`", "` separators). For
//! `openai_responses`, llmstream's message is checked against what the
//! generator streamed: the text, the reasoning summary, `completed`, and
//! the call's id, name, arguments text and value.
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
use stream_rs::accumulators::gemini::GeminiAccumulator;
use stream_rs::accumulators::openai::OpenAiAccumulator;
use stream_rs::sse::{SseEvent, SseParser};

/// One TCP segment.
const PIECE: usize = 1460;

// Inputs: generated SSE bodies, shared with benches/sse.rs.
mod common;
use common::bodies::{
    anthropic_stream, gemini_stream, openai_stream, responses_expected, responses_stream,
};

// ---------------------------------------------------------------------------
// What the assertion compares

#[derive(Debug, PartialEq)]
struct Outcome {
    text: String,
    reasoning: String,
    finish_reason: Option<String>,
    /// (id, name, arguments text, arguments value); blank where stream-rs
    /// does not keep them, or not in the same form (see `Outcome::blank`).
    tools: Vec<(String, String, String, serde_json::Value)>,
}

impl Outcome {
    /// Blanks the tool ids, names or arguments texts, to compare with a
    /// peer that keeps no such thing (Anthropic: ids and names; Gemini:
    /// ids) or keeps it in another form (Gemini's arguments texts).
    fn blank(mut self, ids: bool, names: bool, texts: bool) -> Self {
        for (id, name, text, _) in &mut self.tools {
            if ids {
                id.clear();
            }
            if names {
                name.clear();
            }
            if texts {
                text.clear();
            }
        }
        self
    }
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

fn llmstream_outcome(pipeline: &Pipeline) -> Outcome {
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
                (
                    call.id.clone(),
                    call.name.clone(),
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
// stream-rs, Gemini

struct GeminiResult {
    acc: GeminiAccumulator,
    /// `thought: true` text (stream-rs keeps none), of candidate 0.
    thoughts: String,
    /// Each function call's `args`, in arrival order.
    arguments: Vec<serde_json::Value>,
}

impl GeminiResult {
    fn new() -> Self {
        GeminiResult {
            acc: GeminiAccumulator::new(),
            thoughts: String::new(),
            arguments: Vec::new(),
        }
    }

    fn text(&mut self, index: usize, text: &str, thought: bool) {
        if thought {
            assert_eq!(index, 0);
            self.thoughts.push_str(text);
        } else {
            self.acc.push_text(index, text);
        }
    }

    /// A whole `functionCall`: stream-rs takes the arguments as JSON text.
    fn call(&mut self, index: usize, name: &str, args: Option<serde_json::Value>) {
        let args = args.unwrap_or_else(|| serde_json::Value::Object(Default::default()));
        self.acc.push_function_call(index, name, &args.to_string());
        self.arguments.push(args);
    }
}

fn stream_rs_gemini_value(bytes: &[u8]) -> GeminiResult {
    use serde_json::Value;
    let mut result = GeminiResult::new();
    sse_events(bytes, |event| {
        let mut chunk: Value = serde_json::from_str(&event.data).unwrap();
        let Some(candidates) = chunk.get_mut("candidates").and_then(Value::as_array_mut) else {
            return;
        };
        for candidate in candidates {
            let index = candidate.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
            let parts = candidate
                .get_mut("content")
                .and_then(|c| c.get_mut("parts"))
                .and_then(Value::as_array_mut);
            for part in parts.into_iter().flatten() {
                if let Some(text) = part.get("text").and_then(Value::as_str) {
                    let thought = part.get("thought").and_then(Value::as_bool) == Some(true);
                    result.text(index, text, thought);
                } else if let Some(call) = part.get_mut("functionCall") {
                    let args = call.get_mut("args").map(Value::take);
                    let name = call.get("name").and_then(Value::as_str).unwrap_or("");
                    result.call(index, name, args);
                }
            }
            if let Some(reason) = candidate.get("finishReason").and_then(Value::as_str) {
                result.acc.set_finish_reason(index, reason);
            }
        }
    });
    result
}

#[derive(Deserialize)]
struct GeminiChunk<'a> {
    #[serde(borrow, default)]
    candidates: Vec<GeminiCandidate<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct GeminiCandidate<'a> {
    #[serde(default)]
    index: usize,
    #[serde(borrow, default)]
    content: Option<GeminiContent<'a>>,
    #[serde(borrow, default)]
    finish_reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct GeminiContent<'a> {
    #[serde(borrow, default)]
    parts: Vec<GeminiPart<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct GeminiPart<'a> {
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(default)]
    thought: bool,
    #[serde(borrow, default)]
    function_call: Option<GeminiCall<'a>>,
}

#[derive(Deserialize)]
struct GeminiCall<'a> {
    #[serde(borrow, default)]
    name: Cow<'a, str>,
    /// A `Value`: borrowing the text would need serde_json's `raw_value`.
    #[serde(default)]
    args: Option<serde_json::Value>,
}

fn stream_rs_gemini_typed(bytes: &[u8]) -> GeminiResult {
    let mut result = GeminiResult::new();
    sse_events(bytes, |event| {
        let chunk: GeminiChunk<'_> = serde_json::from_str(&event.data).unwrap();
        for candidate in chunk.candidates {
            let index = candidate.index;
            for part in candidate.content.into_iter().flat_map(|c| c.parts) {
                if let Some(text) = part.text {
                    result.text(index, &text, part.thought);
                } else if let Some(call) = part.function_call {
                    result.call(index, &call.name, call.args);
                }
            }
            if let Some(reason) = candidate.finish_reason {
                result.acc.set_finish_reason(index, &reason);
            }
        }
    });
    result
}

/// Arguments texts left blank (see the module doc).
fn gemini_outcome(result: &GeminiResult) -> Outcome {
    let candidate = result.acc.candidate(0).unwrap();
    assert_eq!(candidate.function_calls.len(), result.arguments.len());
    Outcome {
        text: candidate.text.clone(),
        reasoning: result.thoughts.clone(),
        finish_reason: candidate.finish_reason.clone(),
        tools: candidate
            .function_calls
            .iter()
            .zip(&result.arguments)
            .map(|(call, value)| {
                let text: serde_json::Value = serde_json::from_str(&call.args).unwrap();
                assert_eq!(&text, value);
                (
                    String::new(),
                    call.name.clone(),
                    String::new(),
                    value.clone(),
                )
            })
            .collect(),
    }
}

// ---------------------------------------------------------------------------

fn check(name: &str, ours: &Outcome, theirs: &Outcome, peer: &str) {
    assert!(!ours.text.is_empty() && !ours.tools.is_empty());
    assert_eq!(ours, theirs, "{peer} gives a different {name} message");
}

/// The input of a group.
fn body(group: &str) -> Vec<u8> {
    match group {
        "openai_chat" => openai_stream(),
        "anthropic" => anthropic_stream(),
        "gemini" => gemini_stream(),
        "openai_responses" => responses_stream(),
        _ => panic!("unknown group {group}"),
    }
}

/// A job: builds the final message from the body and drops it.
type Job = fn(&[u8]);

/// The jobs of a group, by implementation.
fn jobs(group: &str) -> Vec<(&'static str, Job)> {
    match group {
        "openai_chat" => vec![
            ("llmstream", |b| {
                drop(black_box(llmstream(b, Provider::OpenAiChat)))
            }),
            ("stream-rs+Value", |b| {
                drop(black_box(stream_rs_openai_value(b)))
            }),
            ("stream-rs+typed", |b| {
                drop(black_box(stream_rs_openai_typed(b)))
            }),
        ],
        "anthropic" => vec![
            ("llmstream", |b| {
                drop(black_box(llmstream(b, Provider::Anthropic)))
            }),
            ("stream-rs+Value", |b| {
                drop(black_box(stream_rs_anthropic_value(b)))
            }),
            ("stream-rs+typed", |b| {
                drop(black_box(stream_rs_anthropic_typed(b)))
            }),
        ],
        "gemini" => vec![
            ("llmstream", |b| {
                drop(black_box(llmstream(b, Provider::Gemini)))
            }),
            ("stream-rs+Value", |b| {
                drop(black_box(stream_rs_gemini_value(b)))
            }),
            ("stream-rs+typed", |b| {
                drop(black_box(stream_rs_gemini_typed(b)))
            }),
        ],
        // stream-rs has no Responses accumulator.
        "openai_responses" => vec![("llmstream", |b| {
            drop(black_box(llmstream(b, Provider::OpenAiResponses)))
        })],
        _ => panic!("unknown group {group}"),
    }
}

const GROUPS: [&str; 4] = ["openai_chat", "anthropic", "gemini", "openai_responses"];

/// `PROVBENCH_ONE=openai_chat/llmstream` (etc.: `gemini/stream-rs+typed`,
/// `openai_responses/llmstream`) runs that one job `PROVBENCH_RUNS` times
/// (default 1) without criterion or the checks, for instruction counts:
/// run it with 0 and 1 and subtract (the body is generated either way).
fn one(spec: &str) {
    let runs: usize = std::env::var("PROVBENCH_RUNS").map_or(1, |n| n.parse().unwrap());
    let (group, implementation) = spec.split_once('/').expect("group/implementation");
    let bytes = body(group);
    let (_, job) = jobs(group)
        .into_iter()
        .find(|(name, _)| *name == implementation)
        .unwrap_or_else(|| panic!("unknown implementation {implementation}"));
    for _ in 0..runs {
        job(&bytes);
    }
}

/// `PROVBENCH_DUMP=<dir>` writes the four bodies there (`<group>.sse`)
/// and measures nothing: the Python package's benchmark reads them.
fn dump(dir: &std::ffi::OsStr) {
    let dir = std::path::Path::new(dir);
    std::fs::create_dir_all(dir).expect("the dump folder");
    for group in GROUPS {
        std::fs::write(dir.join(format!("{group}.sse")), body(group)).expect("a body written");
    }
}

fn benches(c: &mut Criterion) {
    if let Some(dir) = std::env::var_os("PROVBENCH_DUMP") {
        dump(&dir);
        std::process::exit(0);
    }
    if let Ok(spec) = std::env::var("PROVBENCH_ONE") {
        one(&spec);
        std::process::exit(0);
    }
    let openai = openai_stream();
    let ours = llmstream_outcome(&llmstream(&openai, Provider::OpenAiChat));
    assert_eq!(ours.tools.len(), 2);
    assert!(ours.tools[1].2.len() >= 256 * 1024);
    let value = openai_outcome(&stream_rs_openai_value(&openai));
    check("OpenAI", &ours, &value, "stream-rs+Value");
    let typed = openai_outcome(&stream_rs_openai_typed(&openai));
    check("OpenAI", &ours, &typed, "stream-rs+typed");

    let anthropic = anthropic_stream();
    let ours =
        llmstream_outcome(&llmstream(&anthropic, Provider::Anthropic)).blank(true, true, false);
    assert!(!ours.reasoning.is_empty());
    let value = anthropic_outcome(&stream_rs_anthropic_value(&anthropic));
    check("Anthropic", &ours, &value, "stream-rs+Value");
    let typed = anthropic_outcome(&stream_rs_anthropic_typed(&anthropic));
    check("Anthropic", &ours, &typed, "stream-rs+typed");

    let gemini = gemini_stream();
    let ours = llmstream_outcome(&llmstream(&gemini, Provider::Gemini));
    assert_eq!(ours.tools.len(), 1);
    assert!(ours.tools[0].2.len() >= 60 * 1024);
    assert_eq!(ours.finish_reason.as_deref(), Some("STOP"));
    let ours = ours.blank(true, false, true);
    let value = gemini_outcome(&stream_rs_gemini_value(&gemini));
    check("Gemini", &ours, &value, "stream-rs+Value");
    let typed = gemini_outcome(&stream_rs_gemini_typed(&gemini));
    check("Gemini", &ours, &typed, "stream-rs+typed");

    let expected = responses_expected();
    let responses = responses_stream();
    assert_eq!(responses, expected.body);
    let ours = llmstream_outcome(&llmstream(&responses, Provider::OpenAiResponses));
    assert!(!ours.reasoning.is_empty());
    assert!(ours.tools[0].2.len() >= 256 * 1024);
    let wanted = Outcome {
        text: expected.text.clone(),
        reasoning: expected.reasoning.clone(),
        finish_reason: Some("completed".to_string()),
        tools: vec![(
            expected.call_id.to_string(),
            expected.name.to_string(),
            expected.arguments.clone(),
            serde_json::from_str(&expected.arguments).unwrap(),
        )],
    };
    check("OpenAI Responses", &ours, &wanted, "the generator");

    if std::env::var_os("PROVBENCH_SIZES").is_some() {
        eprintln!(
            "openai: {} bytes, anthropic: {} bytes, gemini: {} bytes, openai_responses: {} bytes",
            openai.len(),
            anthropic.len(),
            gemini.len(),
            responses.len()
        );
    }

    for (name, bytes) in GROUPS
        .into_iter()
        .zip([&openai, &anthropic, &gemini, &responses])
    {
        let mut group = c.benchmark_group(format!("providers/{name}"));
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.sample_size(10);
        group.warm_up_time(Duration::from_secs(1));
        group.measurement_time(Duration::from_secs(4));
        for (implementation, job) in jobs(name) {
            group.bench_function(BenchmarkId::from_parameter(implementation), |b| {
                b.iter(|| job(black_box(bytes)))
            });
        }
        group.finish();
    }
}

criterion_group!(providers, benches);
criterion_main!(providers);
