//! Anthropic Messages streams (`message_start`, `content_block_*`,
//! `message_delta`, `message_stop`).
//!
//! One stream is one message with one answer (choice 0). Its content is a
//! sequence of blocks addressed by `index`; each block becomes its own part
//! of the message (text, reasoning, a tool call, or a raw value). The
//! quirks handled, each with a test:
//!
//! - `message_start` repeated with the same id is ignored; one with a
//!   different id is a protocol error, after which the stream is not read
//!   further (its block indices restart and would corrupt the first
//!   message).
//! - `index` is a key into a map, not an offset: any value costs the same.
//! - `tool_use` / `server_tool_use` blocks carry `input: {}` in their start
//!   block; the arguments are the `input_json_delta` fragments (the first
//!   one is often empty; none at all means `{}`). Only when no fragment
//!   arrives is a non-empty start `input` used.
//! - `signature_delta` is assigned, `citations_delta` appended to the text
//!   part of its block.
//! - A `compaction` block starts with `content` and `encrypted_content`
//!   null; its `compaction_delta`s fill them in, in its raw part: the
//!   `content` pieces are appended, the `encrypted_content` replaced (the
//!   last wins), as the TypeScript SDK's `BetaMessageStream` does. The
//!   block must go back as it ends, or the compacted context is lost.
//! - `message_delta.usage` is cumulative: members present overwrite,
//!   members absent keep their earlier value (`input_tokens` from
//!   `message_start` survives a `message_delta` without it). Its
//!   `server_tool_use` (the web searches and fetches the server ran,
//!   billed per request) is kept as sent, in
//!   [`Usage::server_tool_use`](super::Usage::server_tool_use).
//! - The choice's [`finish_details`](super::Choice::finish_details) say
//!   more about the stop: `delta.stop_details` as sent (a refusal's
//!   category), or `{"stop_sequence":S}` with the stop sequence that
//!   matched; when a stream sends both,
//!   `{"stop_details":D,"stop_sequence":S}`.
//! - The stop reason (or `message_stop`) completes the message, as every
//!   wire's finish does, even with a block still open: a tool call cut by
//!   `max_tokens` inside its JSON gets no `content_block_stop`. The call
//!   then ends with its partial arguments and an `arguments_error`, and
//!   the finish says `length`; the stream itself ended properly. (An
//!   incomplete message is one the provider never finished: a body cut
//!   short, or an `error` event.)
//! - `ping` and unknown event types are ignored; `error` events are
//!   recorded.

use alloc::format;
use alloc::string::String;

use super::sorted_map::SortedMap;
use super::{
    get_str, get_u64, Accumulator as Accumulate, ArgumentStream, ErrorInfo, FinishReason,
    MessageBuilder, Provider, Usage,
};
use crate::json::{Map, Value, View};

/// Anthropic streams have a single answer.
const CHOICE: u64 = 0;

/// The key of the first block sent whole in `message_start` (the wire's
/// block indices count from 0: these keys are past any of them).
const START_BLOCKS: u64 = 1 << 32;

/// Whether a `*tool_use` block is a tool the provider runs itself.
fn provider_run(block_type: &str) -> bool {
    matches!(block_type, "server_tool_use" | "mcp_tool_use")
}

/// What kind of content an open block is.
#[derive(Clone, Debug, PartialEq)]
enum BlockKind {
    /// `text`: text deltas and citations.
    Text,
    /// `thinking`: reasoning deltas and a signature.
    Thinking,
    /// `tool_use`, `server_tool_use`, `mcp_tool_use`: a tool call keyed by
    /// the block index. `input` is the start block's input, used only if no
    /// fragment ever arrives.
    Tool {
        input: Option<Value>,
        fragments: bool,
    },
    /// `compaction`: kept whole, its deltas filling in `content` and
    /// `encrypted_content`. `part` is the position of its raw part in the
    /// choice's content, once it has one.
    Compaction { part: Option<usize> },
    /// Anything kept whole (`redacted_thinking`, `*_tool_result`, unknown
    /// types): its deltas, if any, are ignored.
    Raw,
}

/// An open content block.
#[derive(Clone, Debug)]
struct Block {
    kind: BlockKind,
    /// Whether this block already has a part in the message (so a
    /// signature or citation knows whether to start one).
    has_part: bool,
}

/// Folds Anthropic Messages payloads into a message.
#[derive(Debug, Clone)]
pub struct AnthropicAccumulator {
    builder: MessageBuilder,
    /// Blocks started and not yet stopped, by their wire index.
    blocks: SortedMap<u64, Block>,
    /// The token counts so far as Anthropic reports them (each report
    /// overwrites what it names): `input_tokens` without the cache's,
    /// which are in `cached_input_tokens` (read) and
    /// `cache_write_input_tokens` (written).
    usage: Usage,
    /// `message_delta.delta.stop_details`, when one was sent (not null).
    stop_details: Option<Value>,
    /// `message_delta.delta.stop_sequence`: the stop sequence that matched.
    stop_sequence: Option<String>,
    /// A protocol error was found: everything after it is ignored.
    broken: bool,
}

impl Default for AnthropicAccumulator {
    fn default() -> Self {
        AnthropicAccumulator::new()
    }
}

impl AnthropicAccumulator {
    /// An empty accumulator.
    pub fn new() -> Self {
        AnthropicAccumulator::with_builder(MessageBuilder::new(Provider::Anthropic))
    }

    /// An accumulator over this builder (for custom limits).
    pub fn with_builder(builder: MessageBuilder) -> Self {
        AnthropicAccumulator {
            builder,
            blocks: SortedMap::new(),
            usage: Usage::default(),
            stop_details: None,
            stop_sequence: None,
            broken: false,
        }
    }

    /// Streams sometimes skip `message_start` (or a proxy drops it): the
    /// message still starts, so the event sequence always opens with it.
    fn ensure_started(&mut self) {
        if !self.builder.is_started() {
            self.builder.start(None, None);
        }
    }

    fn message_start<'v>(&mut self, payload: impl View<'v>) {
        let message = payload.get("message");
        let id = message.and_then(|m| get_str(m, "id"));
        let model = message.and_then(|m| get_str(m, "model"));
        if self.builder.is_started() {
            let known = self.builder.message().id.as_deref();
            match (known, id) {
                (Some(known), Some(id)) if !id.is_empty() && known != id => {
                    let mut error = ErrorInfo::new(format!(
                        "protocol error: message_start for {id} inside message {known}"
                    ));
                    error.kind = Some(String::from("protocol_error"));
                    error.raw = Some(payload.to_value());
                    self.builder.error(error);
                    self.broken = true;
                    return;
                }
                // The same message announced again (or an id only now
                // known): fill what is missing, change nothing else.
                _ => {
                    self.builder.start(id, model);
                    return;
                }
            }
        }
        self.builder.start(id, model);
        if let Some(role) = message.and_then(|m| get_str(m, "role")) {
            self.builder.role(CHOICE, role);
        }
        if let Some(usage) = message.and_then(|m| m.get("usage")) {
            self.update_usage(usage);
        }
        // Blocks sent whole in the message itself (programmatic tool
        // calling sends a `tool_use` here, then `message_stop`): each
        // opened and closed, under keys past any wire index.
        if let Some(content) = message.and_then(|m| m.get("content")) {
            for (i, block) in content.elements().enumerate() {
                let key = START_BLOCKS + i as u64;
                self.open_block(key, block);
                self.close_block(key);
            }
        }
        if let Some(message) = message {
            self.stop(message);
        }
    }

    /// Overwrites the counts `usage` names, keeps the others.
    fn update_usage<'v>(&mut self, usage: impl View<'v>) {
        if let Some(n) = get_u64(usage, "input_tokens") {
            self.usage.input_tokens = Some(n);
        }
        if let Some(n) = get_u64(usage, "output_tokens") {
            self.usage.output_tokens = Some(n);
        }
        if let Some(n) = get_u64(usage, "cache_read_input_tokens") {
            self.usage.cached_input_tokens = Some(n);
        }
        if let Some(n) = get_u64(usage, "cache_creation_input_tokens") {
            self.usage.cache_write_input_tokens = Some(n);
        }
        if let Some(counts) = usage.get("server_tool_use").filter(|c| c.is_object()) {
            self.usage.server_tool_use = Some(counts.to_value());
        }
        // The input counts every prompt token, as the other providers' do;
        // the total is derived from it.
        let cache = [
            self.usage.cached_input_tokens,
            self.usage.cache_write_input_tokens,
        ];
        let input = self
            .usage
            .input_tokens
            .map(|n| cache.into_iter().flatten().fold(n, u64::saturating_add));
        let usage = Usage {
            input_tokens: input,
            total_tokens: None,
            ..self.usage.clone()
        }
        .with_total();
        // A report that changes nothing (a repeated message_start) is not
        // an event.
        if self.builder.message().usage.as_ref() != Some(&usage) {
            self.builder.usage(usage);
        }
    }

    fn block_start<'v>(&mut self, payload: impl View<'v>) {
        let Some(index) = get_u64(payload, "index") else {
            return;
        };
        let Some(block) = payload.get("content_block") else {
            return;
        };
        self.open_block(index, block);
    }

    /// Opens the content block at `index` (its key for the tool call it
    /// may be).
    fn open_block<'v>(&mut self, index: u64, block: impl View<'v>) {
        if !self.blocks.contains_key(&index) && self.blocks.len() >= self.builder.limits().max_parts
        {
            let limit = self.builder.limits().max_parts;
            self.builder.error(ErrorInfo::new(format!(
                "more than {limit} open content blocks: block {index} ignored"
            )));
            return;
        }
        // Each block is its own part, even two text blocks in a row.
        self.builder.break_part(CHOICE);
        let ty = get_str(block, "type").unwrap_or("");
        let kind = match ty {
            "text" => BlockKind::Text,
            "thinking" => BlockKind::Thinking,
            _ if ty.ends_with("tool_use") => BlockKind::Tool {
                input: block.get("input").map(View::to_value),
                fragments: false,
            },
            "compaction" => BlockKind::Compaction { part: None },
            _ => BlockKind::Raw,
        };
        let mut state = Block {
            kind: kind.clone(),
            has_part: false,
        };
        match kind {
            BlockKind::Text => {
                if let Some(citations) = block.get("citations") {
                    for citation in citations.elements() {
                        self.builder.citation(CHOICE, citation.to_value());
                        state.has_part = true;
                    }
                }
                if let Some(text) = get_str(block, "text").filter(|t| !t.is_empty()) {
                    self.builder.text(CHOICE, text);
                    state.has_part = true;
                }
            }
            BlockKind::Thinking => {
                if let Some(text) = get_str(block, "thinking").filter(|t| !t.is_empty()) {
                    self.builder.reasoning(CHOICE, text);
                    state.has_part = true;
                }
                if let Some(sig) = get_str(block, "signature").filter(|s| !s.is_empty()) {
                    if !state.has_part {
                        self.builder.begin_reasoning(CHOICE);
                        state.has_part = true;
                    }
                    self.builder.reasoning_signature(CHOICE, sig);
                }
            }
            BlockKind::Tool { .. } => {
                let id = get_str(block, "id").unwrap_or("");
                let name = get_str(block, "name").unwrap_or("");
                if provider_run(ty) {
                    self.builder.provider_tool_start(
                        CHOICE,
                        index,
                        id,
                        name,
                        Some(ty),
                        ArgumentStream::json(),
                    );
                } else {
                    self.builder.tool_call_start_with(
                        CHOICE,
                        index,
                        id,
                        name,
                        Some(ty),
                        ArgumentStream::json(),
                    );
                }
                state.has_part = true;
            }
            BlockKind::Compaction { .. } => {
                state.kind = BlockKind::Compaction {
                    part: self.builder.raw_part(CHOICE, block.to_value()),
                };
                state.has_part = true;
            }
            BlockKind::Raw => {
                let value = block.to_value();
                // A provider-run tool's result (`web_search_tool_result`,
                // `mcp_tool_result`, …) is its call's result too; the block
                // stays a part, to be sent back in order.
                let call = get_str(block, "tool_use_id")
                    .and_then(|id| self.builder.provider_tool_key(CHOICE, id));
                if let Some(call) = call {
                    self.builder
                        .provider_tool_result(CHOICE, call, value.clone());
                }
                self.builder.raw_part(CHOICE, value);
                state.has_part = true;
            }
        }
        self.blocks.insert(index, state);
    }

    /// The open block at `index`, or one implied by the delta's type when
    /// the stream never started it (lenient: the content is not lost).
    fn ensure_block_for_delta(&mut self, index: u64, delta_type: &str) -> bool {
        if !self.blocks.contains_key(&index) {
            let kind = match delta_type {
                "text_delta" | "citations_delta" => BlockKind::Text,
                "thinking_delta" | "signature_delta" => BlockKind::Thinking,
                "input_json_delta" => BlockKind::Tool {
                    input: None,
                    fragments: false,
                },
                "compaction_delta" => BlockKind::Compaction { part: None },
                _ => return false,
            };
            if self.blocks.len() >= self.builder.limits().max_parts {
                return false;
            }
            self.builder.break_part(CHOICE);
            self.blocks.insert(
                index,
                Block {
                    kind,
                    has_part: false,
                },
            );
        }
        true
    }

    fn block_delta<'v, V: View<'v>>(&mut self, index: Option<V>, delta: Option<V>) {
        let Some(index) = index.and_then(View::as_u64) else {
            return;
        };
        let Some(delta) = delta else {
            return;
        };
        // The delta's members, read in one pass.
        let [delta_type, text, thinking, signature, partial_json] =
            delta.get_many(&["type", "text", "thinking", "signature", "partial_json"]);
        let delta_type = delta_type.and_then(View::as_str).unwrap_or("");
        if !self.ensure_block_for_delta(index, delta_type) {
            return;
        }
        if delta_type == "compaction_delta" {
            self.compaction_delta(index, delta);
            return;
        }
        let Some(block) = self.blocks.get_mut(&index) else {
            return;
        };
        let builder = &mut self.builder;
        match (&mut block.kind, delta_type) {
            (BlockKind::Text, "text_delta") => {
                if let Some(text) = text.and_then(View::as_str).filter(|t| !t.is_empty()) {
                    builder.text(CHOICE, text);
                    block.has_part = true;
                }
            }
            (BlockKind::Text, "citations_delta") => {
                if let Some(citation) = delta.get("citation") {
                    if !block.has_part {
                        builder.begin_text(CHOICE);
                        block.has_part = true;
                    }
                    builder.citation(CHOICE, citation.to_value());
                }
            }
            (BlockKind::Thinking, "thinking_delta") => {
                if let Some(text) = thinking.and_then(View::as_str).filter(|t| !t.is_empty()) {
                    builder.reasoning(CHOICE, text);
                    block.has_part = true;
                }
            }
            (BlockKind::Thinking, "signature_delta") => {
                if let Some(sig) = signature.and_then(View::as_str) {
                    if !block.has_part {
                        builder.begin_reasoning(CHOICE);
                        block.has_part = true;
                    }
                    builder.reasoning_signature(CHOICE, sig);
                }
            }
            (BlockKind::Tool { fragments, .. }, "input_json_delta") => {
                if !builder.has_tool_call(CHOICE, index) {
                    builder.tool_call_start(CHOICE, index, "", "");
                    block.has_part = true;
                }
                if let Some(fragment) = partial_json.and_then(View::as_str) {
                    if !fragment.is_empty() {
                        *fragments = true;
                    }
                    builder.tool_call_arguments(CHOICE, index, fragment);
                }
            }
            // A delta that does not fit its block (or an unknown delta
            // type) carries nothing this model can place.
            _ => {}
        }
    }

    /// Closes the content block at `index`.
    fn close_block(&mut self, index: u64) {
        let Some(block) = self.blocks.remove(&index) else {
            return;
        };
        if let BlockKind::Tool { input, fragments } = block.kind {
            if !fragments {
                // No fragment at all: the start block's input is the
                // arguments when it says something, `{}` otherwise.
                if let Some(input) = input.filter(|v| !is_empty_object(v)) {
                    self.builder
                        .tool_call_arguments(CHOICE, index, &input.to_json());
                }
            }
            self.builder.tool_call_end(CHOICE, index);
        }
    }

    /// A `compaction_delta` folded into its block's raw part: `content`
    /// appended (a null one becomes the first piece), `encrypted_content`
    /// replaced.
    fn compaction_delta<'v>(&mut self, index: u64, delta: impl View<'v>) {
        let part = match self.blocks.get(&index).map(|b| &b.kind) {
            Some(BlockKind::Compaction { part: Some(part) }) => Some(*part),
            Some(BlockKind::Compaction { part: None }) => {
                // A delta for a block never started: its part begins as
                // the start block would have made it.
                let mut start = Map::new();
                start.push("type", Value::from("compaction"));
                start.push("content", Value::Null);
                start.push("encrypted_content", Value::Null);
                let part = self.builder.raw_part(CHOICE, Value::Object(start));
                if let Some(block) = self.blocks.get_mut(&index) {
                    block.kind = BlockKind::Compaction { part };
                    block.has_part = true;
                }
                part
            }
            // A compaction delta in a block of another kind.
            _ => None,
        };
        let Some(part) = part else {
            return;
        };
        if let Some(piece) = get_str(delta, "content") {
            self.builder.raw_part_append(CHOICE, part, "content", piece);
        }
        if let Some(encrypted) = get_str(delta, "encrypted_content") {
            self.builder
                .raw_part_member(CHOICE, part, "encrypted_content", Value::from(encrypted));
        }
    }

    fn message_delta<'v>(&mut self, payload: impl View<'v>) {
        if let Some(usage) = payload.get("usage") {
            self.update_usage(usage);
        }
        if let Some(delta) = payload.get("delta") {
            for key in ["container", "context_management"] {
                if let Some(value) = delta.get(key).filter(|v| !v.is_null()) {
                    self.builder.detail(None, key, value.to_value());
                }
            }
            self.stop(delta);
        }
    }

    /// The stop reason, details and sequence of a `message_delta`'s delta
    /// or of the message in `message_start`.
    fn stop<'v>(&mut self, delta: impl View<'v>) {
        let delta = Some(delta);
        let details = delta
            .and_then(|d| d.get("stop_details"))
            .filter(|v| !v.is_null());
        let sequence = delta.and_then(|d| get_str(d, "stop_sequence"));
        if details.is_some() || sequence.is_some() {
            if let Some(details) = details {
                self.stop_details = Some(details.to_value());
            }
            if let Some(sequence) = sequence {
                self.stop_sequence = Some(String::from(sequence));
            }
            self.builder.finish_details(CHOICE, self.finish_details());
        }
        if let Some(reason) = delta.and_then(|d| get_str(d, "stop_reason")) {
            self.builder.finish(CHOICE, reason, normalize(reason));
            // The stop reason is the end of the message's content; the
            // `message_stop` after it may be lost (a body without its final
            // blank line drops the last event).
            self.message_stop();
        }
    }

    /// The stop details and stop sequence kept, in the shape the module
    /// documentation gives.
    fn finish_details(&self) -> Value {
        let sequence = self.stop_sequence.as_deref().map(Value::from);
        match (self.stop_details.clone(), sequence) {
            (Some(details), None) => details,
            (details, sequence) => {
                let mut m = Map::new();
                if let Some(details) = details {
                    m.push("stop_details", details);
                }
                if let Some(sequence) = sequence {
                    m.push("stop_sequence", sequence);
                }
                Value::Object(m)
            }
        }
    }

    fn message_stop(&mut self) {
        // The provider ended the message. A block still open was cut (by
        // `max_tokens`): its tool call ends with what it has, at the
        // finish or at the end of the stream, and says it is cut short.
        self.builder.complete();
    }

    fn stream_error<'v>(&mut self, payload: impl View<'v>) {
        let error = payload.get("error");
        let message = error
            .and_then(|e| get_str(e, "message"))
            .or_else(|| get_str(payload, "message"))
            .unwrap_or("error event");
        let mut info = ErrorInfo::new(message);
        info.kind = error.and_then(|e| get_str(e, "type")).map(String::from);
        info.raw = Some(payload.to_value());
        self.builder.provider_error(info);
    }
}

/// The normalized reason for an Anthropic `stop_reason`.
pub fn normalize(reason: &str) -> FinishReason {
    match reason {
        "end_turn" | "stop_sequence" => FinishReason::Stop,
        "max_tokens" | "model_context_window_exceeded" => FinishReason::Length,
        "tool_use" => FinishReason::ToolCalls,
        "refusal" => FinishReason::Refusal,
        _ => FinishReason::Other,
    }
}

fn is_empty_object(value: &Value) -> bool {
    matches!(value, Value::Object(map) if map.is_empty())
}

impl Accumulate for AnthropicAccumulator {
    super::read_payloads!();
}

impl AnthropicAccumulator {
    fn read<'v>(&mut self, event_type: &str, payload: impl View<'v>) {
        if self.broken {
            return;
        }
        // The payload's own type is authoritative; the SSE event name is
        // the fallback for payloads that omit it.
        let [ty, index, delta] = payload.get_many(&["type", "index", "delta"]);
        let ty = ty.and_then(View::as_str).unwrap_or(event_type);
        match ty {
            "message_start" => self.message_start(payload),
            "content_block_start" => {
                self.ensure_started();
                self.block_start(payload);
            }
            "content_block_delta" => {
                self.ensure_started();
                self.block_delta(index, delta);
            }
            "content_block_stop" => {
                if let Some(index) = index.and_then(View::as_u64) {
                    self.close_block(index);
                }
            }
            "message_delta" => {
                self.ensure_started();
                self.message_delta(payload);
            }
            "message_stop" => self.message_stop(),
            "error" => self.stream_error(payload),
            // `ping`, and event types added after this was written.
            _ => {}
        }
    }
}
