//! Anthropic Messages: `message_start`, one content block at a time
//! (`content_block_start`, its deltas, `content_block_stop`): text,
//! `thinking` with its `signature_delta`, `tool_use` with
//! `input_json_delta`; at the end `message_delta` with the stop reason and
//! the usage, then `message_stop`. One answer per stream: choices beyond
//! the first are a loss.

use alloc::collections::BTreeMap;
use alloc::string::String;

use super::wire::{obj, whole_arguments, Sink};
use super::LossKind;
use crate::json::{Map, Value};
use crate::providers::{PartKind, StreamEvent, Usage};

/// The content block open now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Block {
    Text,
    Thinking,
    Tool(u64),
    ServerTool(u64),
}

#[derive(Debug, Default)]
pub(super) struct Anthropic {
    started: bool,
    /// The open block and its index.
    open: Option<(Block, u64)>,
    next_index: u64,
    /// Tool calls (client and provider-run) by key: whether argument text
    /// was sent, and whether their block closed.
    calls: BTreeMap<u64, (bool, bool)>,
    stop_reason: Option<String>,
    usage: Option<Usage>,
    complete: bool,
}

impl Anthropic {
    pub(super) fn event(&mut self, event: &StreamEvent, sink: &mut Sink) {
        match event {
            StreamEvent::Role { .. } => self.start(sink),
            StreamEvent::PartStart { .. } => self.close(sink),
            StreamEvent::TextDelta { text, .. } => self.text(Block::Text, text, sink),
            StreamEvent::RefusalDelta { text, .. } => {
                sink.loss(LossKind::RefusalAsText, Some(0));
                self.text(Block::Text, text, sink);
            }
            StreamEvent::ReasoningDelta { text, .. } => self.text(Block::Thinking, text, sink),
            StreamEvent::ReasoningSignature { signature, .. } => match self.open {
                Some((Block::Thinking, index)) => {
                    let delta = obj([
                        ("type", Value::from("signature_delta")),
                        ("signature", Value::from(signature.as_str())),
                    ]);
                    block_delta(index, delta, sink);
                }
                _ => sink.loss(LossKind::ReasoningSignature, Some(0)),
            },
            StreamEvent::ToolCallStart { call, id, name, .. } => {
                self.open_block(
                    Block::Tool(*call),
                    obj([
                        ("type", Value::from("tool_use")),
                        ("id", Value::from(id.as_str())),
                        ("name", Value::from(name.as_str())),
                        ("input", Value::Object(Map::new())),
                    ]),
                    sink,
                );
                self.calls.insert(*call, (false, false));
            }
            StreamEvent::ProviderToolStart { call, id, name, .. } => {
                if sink.source != Some(crate::providers::Provider::Anthropic) {
                    sink.loss(LossKind::ProviderTool, Some(0));
                    return;
                }
                if self.calls.contains_key(call) {
                    return;
                }
                self.open_block(
                    Block::ServerTool(*call),
                    obj([
                        ("type", Value::from("server_tool_use")),
                        ("id", Value::from(id.as_str())),
                        ("name", Value::from(name.as_str())),
                        ("input", Value::Object(Map::new())),
                    ]),
                    sink,
                );
                self.calls.insert(*call, (false, false));
            }
            StreamEvent::ToolCallDelta { call, fragment, .. } => {
                self.arguments(Block::Tool(*call), fragment, sink)
            }
            StreamEvent::ProviderToolDelta { call, fragment, .. } => {
                if self.calls.contains_key(call) {
                    self.arguments(Block::ServerTool(*call), fragment, sink);
                }
            }
            StreamEvent::ToolCallEnd {
                call, arguments, ..
            } => self.end_call(Block::Tool(*call), arguments, sink),
            StreamEvent::ProviderToolEnd {
                call, arguments, ..
            } => {
                if self.calls.contains_key(call) {
                    self.end_call(Block::ServerTool(*call), arguments, sink);
                }
            }
            StreamEvent::ProviderToolResult { result, .. }
            | StreamEvent::RawPart { value: result, .. } => {
                // Anthropic's own blocks (a server tool's result, redacted
                // thinking) go back as they came.
                if sink.source == Some(crate::providers::Provider::Anthropic)
                    && result.get("type").is_some()
                {
                    self.close(sink);
                    self.start(sink);
                    let index = self.next_index;
                    self.next_index += 1;
                    sink.event(
                        Some("content_block_start"),
                        &obj([
                            ("type", Value::from("content_block_start")),
                            ("index", Value::from(index)),
                            ("content_block", result.clone()),
                        ]),
                    );
                    block_stop(index, sink);
                } else {
                    sink.loss(LossKind::RawPart, Some(0));
                }
            }
            StreamEvent::Finish {
                reason, normalized, ..
            } => self.stop_reason = Some(sink.finish_reason(reason, *normalized)),
            StreamEvent::Usage(usage) => self.usage = Some(usage.clone()),
            StreamEvent::Error(error) => {
                let body = obj([
                    (
                        "type",
                        Value::from(error.kind.as_deref().unwrap_or("api_error")),
                    ),
                    ("message", Value::from(error.message.as_str())),
                ]);
                sink.event(
                    Some("error"),
                    &obj([("type", Value::from("error")), ("error", body)]),
                );
            }
            StreamEvent::Citation { part, citation, .. } => self.citation(*part, citation, sink),
            StreamEvent::Complete => self.complete = true,
            other => sink.lose(other),
        }
    }

    pub(super) fn finish(&mut self, sink: &mut Sink) {
        if !self.started && self.stop_reason.is_none() && self.usage.is_none() && !self.complete {
            return;
        }
        self.start(sink);
        self.close(sink);
        let usage = self.usage.take().unwrap_or_default();
        let delta = obj([
            (
                "stop_reason",
                self.stop_reason.take().map_or(Value::Null, Value::from),
            ),
            ("stop_sequence", Value::Null),
        ]);
        sink.event(
            Some("message_delta"),
            &obj([
                ("type", Value::from("message_delta")),
                ("delta", delta),
                ("usage", usage_value(&usage)),
            ]),
        );
        if self.complete {
            sink.event(
                Some("message_stop"),
                &obj([("type", Value::from("message_stop"))]),
            );
        }
    }

    /// `message_start`, once, before anything else.
    fn start(&mut self, sink: &mut Sink) {
        if self.started {
            return;
        }
        self.started = true;
        let message = obj([
            (
                "id",
                Value::from(sink.id.as_deref().unwrap_or("msg_llmstream")),
            ),
            ("type", Value::from("message")),
            ("role", Value::from("assistant")),
            ("model", Value::from(sink.model.as_deref().unwrap_or(""))),
            ("content", Value::Array(alloc::vec![])),
            ("stop_reason", Value::Null),
            ("stop_sequence", Value::Null),
            (
                "usage",
                obj([
                    ("input_tokens", Value::from(0u64)),
                    ("output_tokens", Value::from(0u64)),
                ]),
            ),
        ]);
        sink.event(
            Some("message_start"),
            &obj([("type", Value::from("message_start")), ("message", message)]),
        );
    }

    /// Text of a kind: into the open block of that kind, or a new one.
    fn text(&mut self, kind: Block, text: &str, sink: &mut Sink) {
        let index = match self.open {
            Some((open, index)) if open == kind => index,
            _ => {
                let block = match kind {
                    Block::Thinking => obj([
                        ("type", Value::from("thinking")),
                        ("thinking", Value::from("")),
                        ("signature", Value::from("")),
                    ]),
                    _ => obj([("type", Value::from("text")), ("text", Value::from(""))]),
                };
                self.open_block(kind, block, sink)
            }
        };
        let delta = match kind {
            Block::Thinking => obj([
                ("type", Value::from("thinking_delta")),
                ("thinking", Value::from(text)),
            ]),
            _ => obj([
                ("type", Value::from("text_delta")),
                ("text", Value::from(text)),
            ]),
        };
        block_delta(index, delta, sink);
    }

    /// A citation from Anthropic, as the `citations_delta` of the text
    /// block of its part (opened for it: Anthropic cites before the text
    /// it supports). Other wires' citations have no `encrypted_index` to
    /// send back, nor the cited text: a loss.
    fn citation(&mut self, part: usize, citation: &Value, sink: &mut Sink) {
        let ours = sink.source == Some(crate::providers::Provider::Anthropic);
        if !ours || sink.shape.latest(0, part) != Some(PartKind::Text) {
            sink.loss(LossKind::Citation, Some(0));
            return;
        }
        let index = match self.open {
            Some((Block::Text, index)) => index,
            _ => self.open_block(
                Block::Text,
                obj([("type", Value::from("text")), ("text", Value::from(""))]),
                sink,
            ),
        };
        let delta = obj([
            ("type", Value::from("citations_delta")),
            ("citation", citation.clone()),
        ]);
        block_delta(index, delta, sink);
    }

    fn arguments(&mut self, block: Block, fragment: &str, sink: &mut Sink) {
        let key = match block {
            Block::Tool(k) | Block::ServerTool(k) => k,
            _ => return,
        };
        match self.open {
            Some((open, index)) if open == block => {
                if let Some(state) = self.calls.get_mut(&key) {
                    state.0 = true;
                }
                let delta = obj([
                    ("type", Value::from("input_json_delta")),
                    ("partial_json", Value::from(fragment)),
                ]);
                block_delta(index, delta, sink);
            }
            _ => sink.loss(LossKind::LateArguments, Some(0)),
        }
    }

    fn end_call(&mut self, block: Block, arguments: &Value, sink: &mut Sink) {
        let key = match block {
            Block::Tool(k) | Block::ServerTool(k) => k,
            _ => return,
        };
        let Some(&(sent, closed)) = self.calls.get(&key) else {
            return;
        };
        if closed {
            return;
        }
        if !sent {
            // No fragments came (Gemini sends arguments whole).
            let text = whole_arguments(arguments);
            self.arguments(block, &text, sink);
        }
        if matches!(self.open, Some((open, _)) if open == block) {
            self.close(sink);
        }
    }

    /// Opens a block (closing the one open); returns its index.
    fn open_block(&mut self, kind: Block, block: Value, sink: &mut Sink) -> u64 {
        self.close(sink);
        self.start(sink);
        let index = self.next_index;
        self.next_index += 1;
        sink.event(
            Some("content_block_start"),
            &obj([
                ("type", Value::from("content_block_start")),
                ("index", Value::from(index)),
                ("content_block", block),
            ]),
        );
        self.open = Some((kind, index));
        index
    }

    fn close(&mut self, sink: &mut Sink) {
        if let Some((block, index)) = self.open.take() {
            if let Block::Tool(k) | Block::ServerTool(k) = block {
                if let Some(state) = self.calls.get_mut(&k) {
                    state.1 = true;
                }
            }
            block_stop(index, sink);
        }
    }
}

fn block_delta(index: u64, delta: Value, sink: &mut Sink) {
    sink.event(
        Some("content_block_delta"),
        &obj([
            ("type", Value::from("content_block_delta")),
            ("index", Value::from(index)),
            ("delta", delta),
        ]),
    );
}

fn block_stop(index: u64, sink: &mut Sink) {
    sink.event(
        Some("content_block_stop"),
        &obj([
            ("type", Value::from("content_block_stop")),
            ("index", Value::from(index)),
        ]),
    );
}

/// Anthropic's counts: `input_tokens` without the cache's, which are
/// `cache_read_input_tokens` and `cache_creation_input_tokens`. There is
/// no reasoning count.
fn usage_value(usage: &Usage) -> Value {
    let cached = usage.cached_input_tokens.unwrap_or(0);
    let written = usage.cache_write_input_tokens.unwrap_or(0);
    let mut map = Map::new();
    map.push(
        "input_tokens",
        Value::from(
            usage
                .input_tokens
                .unwrap_or(0)
                .saturating_sub(cached)
                .saturating_sub(written),
        ),
    );
    map.push(
        "output_tokens",
        Value::from(usage.output_tokens.unwrap_or(0)),
    );
    if let Some(n) = usage.cached_input_tokens {
        map.push("cache_read_input_tokens", Value::from(n));
    }
    if let Some(n) = usage.cache_write_input_tokens {
        map.push("cache_creation_input_tokens", Value::from(n));
    }
    if let Some(counts) = &usage.server_tool_use {
        map.push("server_tool_use", counts.clone());
    }
    Value::Object(map)
}
