//! OpenAI Responses streams (`response.*` events).
//!
//! A response is a list of output items (a message, a function call, a
//! custom tool call, reasoning, server tools…), each streamed by events that
//! name its `output_index`, and within it a `content_index` or
//! `summary_index`. The rules, and the quirks they answer:
//!
//! - Everything is keyed by `output_index` / `content_index` /
//!   `summary_index`, never by `item_id`: proxies (GitHub Copilot) rotate
//!   item ids on every event, so an id-keyed accumulator loses everything.
//!   A tool call's key (`call` in the events) is its output index.
//! - `output_text` and `refusal` deltas are appended; reasoning summary and
//!   reasoning text deltas are reasoning. Each (item, part) is its own
//!   content part. A `.done` event whose part streamed no delta supplies
//!   the text (for proxies that only send the finished part); otherwise it
//!   is redundant and ignored. The same holds for the items in
//!   `output_item.done`.
//! - `function_call_arguments.delta` is parsed incrementally as JSON;
//!   `custom_tool_call_input.delta` is free text, kept as text.
//!   `function_call_arguments.done` / `custom_tool_call_input.done` repeat
//!   the whole text: it is checked against what the deltas accumulated.
//!   Equal: nothing happens. Nothing accumulated, or the deltas are a
//!   prefix of it: the missing text is appended as one more fragment (lost
//!   or never-sent deltas are not an error). Anything else is a mismatch:
//!   an error is reported and the `.done` text is kept as authoritative —
//!   it is what the server stored and will quote back — replacing the
//!   argument text without further delta events; the `tool_call_end`
//!   event carries the corrected arguments.
//! - `output_item.done` ends a tool call. A reasoning item's
//!   `encrypted_content` becomes its reasoning part's signature (the blob
//!   a stateless client must send back). Items of other types (web search,
//!   file search, image generation, MCP, …) are kept whole as raw parts.
//! - `response.completed` finishes with reason `completed` (normalized to
//!   tool calls when the response called a tool, to stop otherwise);
//!   `response.incomplete` with the reason in `incomplete_details`
//!   (`max_output_tokens` normalizes to length, `content_filter` to content
//!   filter); `response.failed` with `failed` and its error. Each carries
//!   the usage, and each ends the message as complete.
//! - The `error` event is read in both shapes: fields at the top level (as
//!   the API reference documents) or nested under `error` (as recorded).
//!   A `response.failed` repeating the error already reported for the same
//!   response is not reported twice.
//! - Several responses concatenated in one body (an agent's steps, each a
//!   `response.created` … `response.completed` with `sequence_number`
//!   starting again at 0) fold into one message: the id and model are the
//!   first response's, later responses' output items continue after the
//!   earlier ones (output index 0 of the second response gets the key after
//!   the last key used), the finish reason is the last response's, usage
//!   is the sum over the responses (each reports only its own call), and
//!   the message is complete again only when the last one ends. A
//!   `response.created` counts as a new response once the current one has
//!   ended or has output items; a repeated one before that is ignored.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::String;

use super::{
    get_str, get_u64, Accumulator as Accumulate, ArgumentStream, ErrorInfo, FinishReason,
    MessageBuilder, Part, Provider, Usage,
};
use crate::json::{Value, View};

/// Responses streams have one answer: everything goes to choice 0.
const CHOICE: u64 = 0;

/// Folds OpenAI Responses payloads into a message.
///
/// ```
/// use llmstream::json;
/// use llmstream::providers::{openai_responses, Accumulator};
///
/// let mut acc = openai_responses::Accumulator::new();
/// for line in [
///     r#"{"type":"response.created","response":{"id":"r1","model":"m","status":"in_progress"}}"#,
///     r#"{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","call_id":"c1","name":"f"}}"#,
///     r#"{"type":"response.function_call_arguments.delta","output_index":0,"delta":"{\"a\":1}"}"#,
///     r#"{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","call_id":"c1","name":"f","arguments":"{\"a\":1}"}}"#,
///     r#"{"type":"response.completed","response":{"id":"r1","status":"completed","usage":{"input_tokens":3,"output_tokens":2}}}"#,
/// ] {
///     acc.push("message", &json::parse(line.as_bytes()).unwrap());
/// }
/// let choice = acc.message().choice().unwrap();
/// assert_eq!(choice.tool_calls.get(&0).unwrap().name, "f");
/// assert_eq!(choice.finish_reason.as_deref(), Some("completed"));
/// assert_eq!(acc.message().usage.as_ref().unwrap().total_tokens, Some(5));
/// ```
#[derive(Debug, Clone)]
pub struct Accumulator {
    builder: MessageBuilder,
    /// Added to the wire's `output_index`: 0 for the first response, the
    /// key after the last one used for each later concatenated response.
    offset: u64,
    /// The highest key used so far.
    max_key: Option<u64>,
    /// Tool calls by key: whether their arguments are JSON (else text).
    calls: BTreeMap<u64, bool>,
    /// The text segment the last delta belonged to: a delta for another
    /// one starts a new content part.
    segment: Option<Segment>,
    /// Segments that received at least one delta.
    streamed: BTreeSet<Segment>,
    /// State of the current response.
    response: ResponseState,
    /// Summed usage of the responses that ended, and of the current one.
    usage_before: Option<Usage>,
    usage_after: Option<Usage>,
}

/// What the accumulator knows about the response being streamed.
#[derive(Debug, Clone, Copy, Default)]
struct ResponseState {
    /// A `response.created` was seen (for any response).
    created: bool,
    /// The current response has output items.
    has_items: bool,
    /// The current response called a tool.
    has_calls: bool,
    /// The current response reported an error.
    has_error: bool,
    /// The current response reached a terminal event.
    ended: bool,
}

/// A streamed text: its kind, the key of its item, its part index.
type Segment = (SegmentKind, u64, u64);

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum SegmentKind {
    Text,
    Refusal,
    Summary,
    ReasoningText,
}

impl Default for Accumulator {
    fn default() -> Self {
        Accumulator::new()
    }
}

impl Accumulator {
    /// An empty accumulator.
    pub fn new() -> Self {
        Accumulator::with_builder(MessageBuilder::new(Provider::OpenAiResponses))
    }

    /// An accumulator over this builder (to choose its limits).
    pub fn with_builder(builder: MessageBuilder) -> Self {
        Accumulator {
            builder,
            offset: 0,
            max_key: None,
            calls: BTreeMap::new(),
            segment: None,
            streamed: BTreeSet::new(),
            response: ResponseState::default(),
            usage_before: None,
            usage_after: None,
        }
    }

    /// The key of the item at the payload's `output_index` (0 when absent).
    fn key<'v>(&mut self, payload: impl View<'v>) -> Option<u64> {
        let index = match payload.get("output_index").filter(|v| !v.is_null()) {
            None => 0,
            Some(v) => match v.as_u64() {
                Some(i) => i,
                None => {
                    self.builder.error(ErrorInfo::new(format!(
                        "output_index {} is not a non-negative integer: event ignored",
                        v.to_json()
                    )));
                    return None;
                }
            },
        };
        let Some(key) = self.offset.checked_add(index) else {
            self.builder.error(ErrorInfo::new(format!(
                "output_index {index} of a concatenated response is out of range: event ignored"
            )));
            return None;
        };
        self.max_key = Some(self.max_key.map_or(key, |m| m.max(key)));
        Some(key)
    }

    /// Starts the message if nothing did (streams whose first events were
    /// lost), so that every event sequence begins with `message_start`.
    fn ensure_started(&mut self) {
        if !self.builder.is_started() {
            self.builder.start(None, None);
        }
    }

    fn created<'v>(&mut self, response: Option<impl View<'v>>) {
        if self.response.created && (self.response.ended || self.response.has_items) {
            // A new response of a concatenated body.
            self.offset = self.max_key.map_or(0, |m| m.saturating_add(1));
            self.usage_before = self.usage_after.clone();
            self.response = ResponseState::default();
            self.builder.reopen();
        }
        self.response.created = true;
        self.start(response);
    }

    fn start<'v>(&mut self, response: Option<impl View<'v>>) {
        let id = response.and_then(|r| get_str(r, "id"));
        let model = response.and_then(|r| get_str(r, "model"));
        self.builder.start(id, model);
    }

    /// Appends streamed text to its segment, starting a new content part
    /// when the segment changes.
    fn segment_text(&mut self, segment: Segment, text: &str) {
        if text.is_empty() {
            return;
        }
        self.ensure_started();
        if self.segment != Some(segment) {
            self.builder.break_part(CHOICE);
            self.segment = Some(segment);
        }
        self.streamed.insert(segment);
        match segment.0 {
            SegmentKind::Text => self.builder.text(CHOICE, text),
            SegmentKind::Refusal => self.builder.refusal(CHOICE, text),
            SegmentKind::Summary | SegmentKind::ReasoningText => {
                self.builder.reasoning(CHOICE, text)
            }
        }
    }

    /// A finished part's whole text: used only if its deltas never came.
    fn segment_done(&mut self, segment: Segment, text: Option<&str>) {
        if let Some(text) = text {
            if !self.streamed.contains(&segment) {
                self.segment_text(segment, text);
            }
        }
    }

    fn delta<'v>(&mut self, kind: SegmentKind, sub: &str, payload: impl View<'v>, field: &str) {
        let Some(key) = self.key(payload) else {
            return;
        };
        let segment = (kind, key, get_u64(payload, sub).unwrap_or(0));
        match field {
            "delta" => {
                if let Some(text) = get_str(payload, "delta") {
                    self.segment_text(segment, text);
                }
            }
            _ => self.segment_done(segment, get_str(payload, field)),
        }
    }

    /// Begins the tool call at `key` if it has not begun.
    fn call_start<'v>(&mut self, key: u64, item: Option<impl View<'v>>, json: bool) {
        self.ensure_started();
        self.response.has_items = true;
        self.response.has_calls = true;
        let id = item.and_then(|i| get_str(i, "call_id"));
        let name = item.and_then(|i| get_str(i, "name"));
        if self.builder.has_tool_call(CHOICE, key) {
            self.builder.tool_call_identify(CHOICE, key, id, name);
            return;
        }
        let (kind, stream) = if json {
            ("function", ArgumentStream::json())
        } else {
            ("custom", ArgumentStream::text())
        };
        self.builder.tool_call_start_with(
            CHOICE,
            key,
            id.unwrap_or(""),
            name.unwrap_or(""),
            Some(kind),
            stream,
        );
        if self.builder.has_tool_call(CHOICE, key) {
            self.calls.insert(key, json);
        }
    }

    fn call_delta<'v>(&mut self, payload: impl View<'v>, json: bool) {
        let Some(key) = self.key(payload) else {
            return;
        };
        if !self.builder.has_tool_call(CHOICE, key) {
            self.call_start(key, None::<&Value>, json);
        }
        if let Some(fragment) = get_str(payload, "delta") {
            self.builder.tool_call_arguments(CHOICE, key, fragment);
        }
    }

    /// Checks a repeated whole argument text against the accumulated one
    /// (see the module documentation for the policy).
    fn call_reconcile(&mut self, key: u64, text: Option<&str>, json: bool) {
        let Some(text) = text.filter(|t| !t.is_empty()) else {
            return;
        };
        if !self.builder.has_tool_call(CHOICE, key) {
            self.call_start(key, None::<&Value>, json);
        }
        let accumulated = self.builder.tool_call_text(CHOICE, key).unwrap_or("");
        if accumulated == text {
            return;
        }
        if let Some(rest) = text.strip_prefix(accumulated) {
            let rest = String::from(rest);
            self.builder.tool_call_arguments(CHOICE, key, &rest);
            return;
        }
        self.builder.error(ErrorInfo {
            message: format!(
                "tool call {key}: the repeated argument text differs from the streamed deltas; \
                 keeping the repeated text"
            ),
            kind: Some(String::from("arguments_mismatch")),
            raw: None,
        });
        let json = self.calls.get(&key).copied().unwrap_or(json);
        let stream = if json {
            ArgumentStream::json()
        } else {
            ArgumentStream::text()
        };
        self.builder
            .tool_call_replace_arguments(CHOICE, key, stream, text);
    }

    fn call_done<'v>(&mut self, payload: impl View<'v>, field: &str, json: bool) {
        if let Some(key) = self.key(payload) {
            self.call_reconcile(key, get_str(payload, field), json);
        }
    }

    /// An `output_item.*` event's key and item; either one marks the
    /// response as started and as having output.
    fn item<'v, V: View<'v>>(&mut self, payload: V) -> Option<(u64, V)> {
        let key = self.key(payload)?;
        self.ensure_started();
        self.response.has_items = true;
        let item = payload.get("item")?;
        // Every output item is the model's: a reply that only calls a tool
        // (no `message` item to carry a role) is the assistant's too.
        if get_str(item, "type") != Some("message") {
            self.builder.role(CHOICE, "assistant");
        }
        Some((key, item))
    }

    fn item_added<'v>(&mut self, payload: impl View<'v>) {
        let Some((key, item)) = self.item(payload) else {
            return;
        };
        match get_str(item, "type") {
            Some("message") => {
                if let Some(role) = get_str(item, "role") {
                    self.builder.role(CHOICE, role);
                }
            }
            Some("function_call") => {
                self.call_start(key, Some(item), true);
                self.call_reconcile(key, get_str(item, "arguments"), true);
            }
            Some("custom_tool_call") => {
                self.call_start(key, Some(item), false);
                self.call_reconcile(key, get_str(item, "input"), false);
            }
            _ => {}
        }
    }

    fn item_done<'v>(&mut self, payload: impl View<'v>) {
        let Some((key, item)) = self.item(payload) else {
            return;
        };
        match get_str(item, "type") {
            Some("message") => {
                if let Some(role) = get_str(item, "role") {
                    self.builder.role(CHOICE, role);
                }
                let parts = item.get("content").into_iter().flat_map(View::elements);
                for (index, part) in parts.enumerate() {
                    let kind = match get_str(part, "type") {
                        Some("output_text") => SegmentKind::Text,
                        Some("refusal") => SegmentKind::Refusal,
                        _ => continue,
                    };
                    let field = if kind == SegmentKind::Text {
                        "text"
                    } else {
                        "refusal"
                    };
                    self.segment_done((kind, key, index as u64), get_str(part, field));
                }
            }
            Some(kind @ ("function_call" | "custom_tool_call")) => {
                let (json, field) = if kind == "function_call" {
                    (true, "arguments")
                } else {
                    (false, "input")
                };
                self.call_start(key, Some(item), json);
                self.call_reconcile(key, get_str(item, field), json);
                self.builder.tool_call_end(CHOICE, key);
            }
            Some("reasoning") => self.reasoning_done(key, item),
            _ => self.builder.raw_part(CHOICE, item.to_value()),
        }
    }

    /// A finished reasoning item: its summary if none streamed, and its
    /// encrypted content as the signature of its reasoning part.
    fn reasoning_done<'v>(&mut self, key: u64, item: impl View<'v>) {
        let summary = item.get("summary").into_iter().flat_map(View::elements);
        for (index, part) in summary.enumerate() {
            self.segment_done(
                (SegmentKind::Summary, key, index as u64),
                get_str(part, "text"),
            );
        }
        let Some(blob) = get_str(item, "encrypted_content") else {
            return;
        };
        // The signature goes on the latest reasoning part: this item's if
        // it streamed any, a new one if the latest part is not reasoning.
        // Otherwise it would overwrite another item's signature, so the
        // item is kept whole instead.
        let own = matches!(
            self.segment,
            Some((SegmentKind::Summary | SegmentKind::ReasoningText, k, _)) if k == key
        );
        let last_is_reasoning = matches!(
            self.builder
                .message()
                .choices
                .get(&CHOICE)
                .and_then(|c| c.content.last()),
            Some(Part::Reasoning { .. })
        );
        if own || !last_is_reasoning {
            self.builder.reasoning_signature(CHOICE, blob);
        } else {
            self.builder.raw_part(CHOICE, item.to_value());
        }
    }

    /// `response.completed` / `.incomplete` / `.failed` / `.cancelled`.
    fn terminal<'v>(&mut self, ty: &str, payload: impl View<'v>) {
        let response = payload.get("response");
        self.start(response);
        let status = match ty {
            "response.completed" => "completed",
            "response.incomplete" => "incomplete",
            "response.cancelled" => "cancelled",
            _ => "failed",
        };
        if status == "failed" && !self.response.has_error {
            if let Some(error) = response
                .and_then(|r| r.get("error"))
                .filter(|e| !e.is_null())
            {
                self.error(payload, Some(error));
            }
        }
        if let Some(counts) = response
            .and_then(|r| r.get("usage"))
            .filter(|u| u.is_object())
        {
            let total = sum(self.usage_before.as_ref(), usage(counts));
            self.usage_after = Some(total.clone());
            self.builder.usage(total);
        }
        let reason = match status {
            "incomplete" => response
                .and_then(|r| r.get("incomplete_details"))
                .and_then(|d| get_str(d, "reason"))
                .unwrap_or("incomplete"),
            other => other,
        };
        let normalized = match reason {
            "completed" if self.response.has_calls => FinishReason::ToolCalls,
            "completed" => FinishReason::Stop,
            "max_output_tokens" => FinishReason::Length,
            "content_filter" => FinishReason::ContentFilter,
            _ => FinishReason::Other,
        };
        let reason = String::from(reason);
        self.builder.finish(CHOICE, &reason, normalized);
        self.builder.complete();
        self.response.ended = true;
    }

    /// An error: `{"type":"error","code":…,"message":…}` or
    /// `{"type":"error","error":{"type":…,"code":…,"message":…}}`, or a
    /// failed response's `error` object.
    fn error<'v, V: View<'v>>(&mut self, payload: V, nested: Option<V>) {
        let fields = nested
            .or_else(|| payload.get("error").filter(|e| e.is_object()))
            .unwrap_or(payload);
        let message = get_str(fields, "message")
            .or_else(|| get_str(payload, "message"))
            .map(String::from)
            .unwrap_or_else(|| fields.to_json());
        let code = |v: V| {
            let code = v.get("code")?;
            code.as_str().or_else(|| code.as_number()).map(String::from)
        };
        let kind = get_str(fields, "type")
            .filter(|t| *t != "error")
            .map(String::from)
            .or_else(|| code(fields))
            .or_else(|| code(payload));
        self.response.has_error = true;
        self.builder.provider_error(ErrorInfo {
            message,
            kind,
            raw: Some(payload.to_value()),
        });
    }
}

/// Responses token counts: `input_tokens`, `output_tokens`,
/// `total_tokens`, with the reasoning and cached counts from the details.
fn usage<'v>(usage: impl View<'v>) -> Usage {
    Usage {
        input_tokens: get_u64(usage, "input_tokens"),
        output_tokens: get_u64(usage, "output_tokens"),
        total_tokens: get_u64(usage, "total_tokens"),
        reasoning_tokens: usage
            .get("output_tokens_details")
            .and_then(|d| get_u64(d, "reasoning_tokens")),
        cached_input_tokens: usage
            .get("input_tokens_details")
            .and_then(|d| get_u64(d, "cached_tokens")),
        cache_write_input_tokens: None,
    }
    .with_total()
}

/// The counts of earlier responses plus this one's (a count absent from
/// both stays absent).
fn sum(before: Option<&Usage>, now: Usage) -> Usage {
    let Some(before) = before else {
        return now;
    };
    let add = super::event::add_counts;
    Usage {
        input_tokens: add(before.input_tokens, now.input_tokens),
        output_tokens: add(before.output_tokens, now.output_tokens),
        total_tokens: add(before.total_tokens, now.total_tokens),
        reasoning_tokens: add(before.reasoning_tokens, now.reasoning_tokens),
        cached_input_tokens: add(before.cached_input_tokens, now.cached_input_tokens),
        cache_write_input_tokens: add(
            before.cache_write_input_tokens,
            now.cache_write_input_tokens,
        ),
    }
}

impl Accumulate for Accumulator {
    super::read_payloads!();
}

impl Accumulator {
    fn read<'v>(&mut self, event_type: &str, payload: impl View<'v>) {
        let ty = get_str(payload, "type").unwrap_or(event_type);
        match ty {
            "response.created" => self.created(payload.get("response")),
            "response.in_progress" | "response.queued" => self.start(payload.get("response")),
            "response.output_item.added" => self.item_added(payload),
            "response.output_item.done" => self.item_done(payload),
            "response.output_text.delta" => {
                self.delta(SegmentKind::Text, "content_index", payload, "delta")
            }
            "response.output_text.done" => {
                self.delta(SegmentKind::Text, "content_index", payload, "text")
            }
            "response.refusal.delta" => {
                self.delta(SegmentKind::Refusal, "content_index", payload, "delta")
            }
            "response.refusal.done" => {
                self.delta(SegmentKind::Refusal, "content_index", payload, "refusal")
            }
            "response.reasoning_summary_text.delta" => {
                self.delta(SegmentKind::Summary, "summary_index", payload, "delta")
            }
            "response.reasoning_summary_text.done" => {
                self.delta(SegmentKind::Summary, "summary_index", payload, "text")
            }
            "response.reasoning_text.delta" => self.delta(
                SegmentKind::ReasoningText,
                "content_index",
                payload,
                "delta",
            ),
            "response.reasoning_text.done" => {
                self.delta(SegmentKind::ReasoningText, "content_index", payload, "text")
            }
            "response.function_call_arguments.delta" => self.call_delta(payload, true),
            "response.function_call_arguments.done" => self.call_done(payload, "arguments", true),
            "response.custom_tool_call_input.delta" => self.call_delta(payload, false),
            "response.custom_tool_call_input.done" => self.call_done(payload, "input", false),
            "response.completed"
            | "response.incomplete"
            | "response.failed"
            | "response.cancelled" => self.terminal(ty, payload),
            "error" => self.error(payload, None),
            // Part boundaries, annotations, server-tool progress: nothing
            // to accumulate.
            _ => {}
        }
    }
}
