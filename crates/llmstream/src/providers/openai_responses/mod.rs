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
//!   content part, so two message items are two text parts;
//!   [`Choice::text`](super::Choice::text) is all of them, as the SDK's
//!   `output_text`. A message item's `phase` (`commentary` for a preamble,
//!   `final_answer`), from `output_item.added` or `.done`, is set on each
//!   of its text parts ([`Choice::phases`](super::Choice::phases)).
//! - A part may begin with text: `content_part.added`'s `part.text`
//!   (`output_text`, `reasoning_text`) or `part.refusal`, and
//!   `reasoning_summary_part.added`'s `part.text`. It is the part's first
//!   delta (as the SDK, whose snapshot keeps the added part and appends
//!   the deltas to it), so the delta events and the message agree and the
//!   final copies below find it; only before anything streamed into that
//!   part (a repeated `added` is not its text again).
//! - Every text is repeated whole when it is finished: answer text by
//!   `output_text.done` and `content_part.done`, a refusal by
//!   `refusal.done` and its `refusal` content part, a reasoning summary by
//!   `reasoning_summary_text.done` and `reasoning_summary_part.done`,
//!   reasoning text by `reasoning_text.done` and its `reasoning_text`
//!   content part; then each by the item of `output_item.done` (a
//!   message's `content`, a reasoning item's `summary` and `content`), and
//!   by the terminal event's `response.output`. These copies are what the
//!   server stored (and what a stateless client sends back), and the
//!   message follows them, whatever the kind of text:
//!   each is read once per part, a later one only if it is more final
//!   (in that order). Equal to what streamed: nothing happens. Nothing
//!   streamed: the copy is the text, streamed as one delta. The deltas a
//!   prefix of it (deltas lost at the end) and the part the latest: the
//!   rest is one more delta. Otherwise the part's text is replaced by the
//!   copy, and `Choice::text` (or `reasoning`, `refusal`) with it, without
//!   events — the deltas already
//!   reported stay as they were, and the message is authoritative: a
//!   stream resumed with `starting_after` reports only the deltas it got
//!   but ends with the whole text. That is an error (`text_mismatch`)
//!   unless the deltas were the copy's end (a resumed stream) or its
//!   start. Correcting a part that is not the latest moves the text of
//!   its kind after it: such corrections (and the placing of items below)
//!   may move as many bytes as the text received, no more (beyond that one
//!   is reported and left out). A text whose deltas were interleaved with
//!   another's (so split over several parts: never seen on the wire) is
//!   left as streamed.
//! - `output_text.annotation.added` attaches its annotation to its text
//!   part's citations ([`Choice::citations`](super::Choice::citations)),
//!   by `output_index` and `content_index` (an empty text part is begun
//!   for one that comes before its text). The `annotations` of a finished
//!   part (`content_part.done`, `output_item.done`, `response.output`) are
//!   attached by their index unless `annotation_index` already brought
//!   that one. Each `output_text.delta`'s `logprobs` are appended to its
//!   text part's; a final copy's only for a text whose deltas had none.
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
//! - The terminal event's `response.output` also supplies every item
//!   whose `output_item.done` never came (a resumed stream, a body with
//!   only `response.created` and `response.completed`), read as that
//!   event would have been: messages, refusals, tool calls, reasoning,
//!   server tools kept raw. Their parts go where their output index says
//!   among the parts of the same response (an item before the point where
//!   a stream resumed before those that streamed), and within an item
//!   where their content (or summary) index says; the running texts in
//!   that order; the citations, phases and log probabilities of the parts
//!   they go before move with those parts. Parts already there keep their
//!   order. The events cannot say so: the text of a part put before
//!   others went out as a delta after them.
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
use alloc::vec::Vec;

use super::builder::Flow;
use super::{
    get_str, get_u64, Accumulator as Accumulate, ArgumentStream, ErrorInfo, FinishReason,
    MessageBuilder, Part, Provider, Usage,
};
use crate::json::{Value, View};

mod calls;
mod items;
mod prose;
mod tools;

use tools::ItemTool;

/// Responses streams have one answer: everything goes to choice 0.
const CHOICE: u64 = 0;

/// Folds OpenAI Responses payloads into a message.
///
/// ```
/// use llmstream::json;
/// use llmstream::providers::{openai_responses, Accumulator};
///
/// let mut acc = openai_responses::OpenAiResponsesAccumulator::new();
/// for line in [
///     r#"{"type":"response.created","response":{"id":"r1","model":"m","status":"in_progress"}}"#,
///     r#"{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","call_id":"c1","name":"f"}}"#,
///     r#"{"type":"response.function_call_arguments.delta","output_index":0,"delta":"{\"a\":1}"}"#,
///     r#"{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","call_id":"c1","name":"f","arguments":"{\"a\":1}"}}"#,
///     r#"{"type":"response.completed","response":{"id":"r1","status":"completed","usage":{"input_tokens":3,"output_tokens":2}}}"#,
/// ] {
///     acc.feed("message", &json::parse(line.as_bytes()).unwrap());
/// }
/// let choice = acc.message().choice().unwrap();
/// assert_eq!(choice.tool_calls.get(&0).unwrap().name, "f");
/// assert_eq!(choice.finish_reason.as_deref(), Some("completed"));
/// assert_eq!(acc.message().usage.as_ref().unwrap().total_tokens, Some(5));
/// ```
#[derive(Debug, Clone)]
pub struct OpenAiResponsesAccumulator {
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
    /// What is known of each streamed text (see [`SegmentState`]).
    segments: BTreeMap<Segment, SegmentState>,
    /// The `phase` of each message item, by key.
    phases: BTreeMap<u64, String>,
    /// Keys of the items whose `output_item.done` (or final copy in the
    /// terminal response) was read.
    done: BTreeSet<u64>,
    /// The keys of the items that streamed, by their `id`: the terminal
    /// response's `output` is matched to them by id where it has one the
    /// stream used (its positions may differ from the stream's output
    /// indices), else by position.
    item_ids: BTreeMap<String, u64>,
    /// Bytes the correction of a part that is not the latest may still
    /// move (the text of its kind after it), and the putting in place of
    /// items filled from the terminal response (the text of the parts
    /// after where they go): every text received (answer, refusal,
    /// reasoning; deltas and final copies, even one that changes nothing)
    /// adds its length, so that a stream sending wrong final
    /// copies of early parts, or many terminal events each with one more
    /// early item, costs work in proportion to its bytes, not more.
    budget: usize,
    /// Where each content part belongs, by position: its item's key, then
    /// its place in the item. Where an item filled from the terminal
    /// response goes.
    part_keys: Vec<PartKey>,
    /// The keys in `part_keys`: the items that have parts (keys are not
    /// reused across the responses of a body, so this serves them all).
    keys_with_parts: BTreeSet<u64>,
    /// The key of the item being read: the parts made from now on are its
    /// (see [`Accumulator::sync_parts`]).
    current: u64,
    /// The place in the current item of the parts made from now on.
    within: (u8, u64),
    /// The position of the current response's first part: parts before
    /// it are earlier responses', never moved.
    first_part: usize,
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

impl SegmentKind {
    const ALL: [SegmentKind; 4] = [
        SegmentKind::Text,
        SegmentKind::Refusal,
        SegmentKind::Summary,
        SegmentKind::ReasoningText,
    ];

    /// The running text and parts this kind goes to.
    fn flow(self) -> Flow {
        match self {
            SegmentKind::Text => Flow::Text,
            SegmentKind::Refusal => Flow::Refusal,
            SegmentKind::Summary | SegmentKind::ReasoningText => Flow::Reasoning,
        }
    }

    /// How errors name its index and its text.
    fn names(self) -> (&'static str, &'static str) {
        match self {
            SegmentKind::Text => ("content", "text"),
            SegmentKind::Refusal => ("content", "refusal"),
            SegmentKind::Summary => ("summary", "reasoning summary"),
            SegmentKind::ReasoningText => ("content", "reasoning text"),
        }
    }
}

/// Where a content part belongs: its item's key, then its place in the
/// item (see [`Accumulator::enter`]).
type PartKey = (u64, u8, u64);

/// What is known of one streamed text.
#[derive(Debug, Clone, Default)]
struct SegmentState {
    /// It received text (a delta, or a final copy filling it in).
    streamed: bool,
    /// The position in the choice's content of the part holding it (its
    /// latest one if `split`).
    part: Option<usize>,
    /// Its deltas went into more than one part (they were interleaved
    /// with another text's): its final copies are not checked against it.
    split: bool,
    /// The most final copy of its text read so far.
    copy: Final,
    /// Log probabilities were kept for it.
    logprobs: bool,
    /// The indices of the annotations attached to its part.
    annotations: BTreeSet<u64>,
}

/// The copies of a finished text the wire repeats, from the least final
/// to the most: each is read once per text, and a later one is read
/// only if it is more final than what was read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
enum Final {
    #[default]
    None,
    /// `output_text.done`, `content_part.done`.
    Part,
    /// The item of `output_item.done`.
    Item,
    /// The item in the terminal event's `response.output`.
    Response,
}

impl Default for OpenAiResponsesAccumulator {
    fn default() -> Self {
        OpenAiResponsesAccumulator::new()
    }
}

impl OpenAiResponsesAccumulator {
    /// An empty accumulator.
    pub fn new() -> Self {
        OpenAiResponsesAccumulator::with_builder(MessageBuilder::new(Provider::OpenAiResponses))
    }

    /// An accumulator over this builder (to choose its limits).
    pub fn with_builder(builder: MessageBuilder) -> Self {
        OpenAiResponsesAccumulator {
            builder,
            offset: 0,
            max_key: None,
            calls: BTreeMap::new(),
            segment: None,
            segments: BTreeMap::new(),
            phases: BTreeMap::new(),
            done: BTreeSet::new(),
            item_ids: BTreeMap::new(),
            budget: 0,
            part_keys: Vec::new(),
            keys_with_parts: BTreeSet::new(),
            current: 0,
            within: (0, 0),
            first_part: 0,
            response: ResponseState::default(),
            usage_before: None,
            usage_after: None,
        }
    }

    /// The key of the item at the payload's `output_index` (0 when absent).
    fn key<'v>(&mut self, payload: impl View<'v>) -> Option<u64> {
        self.key_of(payload.get("output_index"))
    }

    /// The key of the item at this `output_index` (0 when absent).
    fn key_of<'v>(&mut self, output_index: Option<impl View<'v>>) -> Option<u64> {
        let index = match output_index.filter(|v| !v.is_null()) {
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
        self.key_at(index)
    }

    /// The key of the item at output index `index` of the current
    /// response, which becomes the item being read: the parts made before
    /// are the previous one's.
    fn key_at(&mut self, index: u64) -> Option<u64> {
        self.sync_parts();
        let Some(key) = self.offset.checked_add(index) else {
            self.builder.error(ErrorInfo::new(format!(
                "output_index {index} of a concatenated response is out of range: event ignored"
            )));
            return None;
        };
        self.max_key = Some(self.max_key.map_or(key, |m| m.max(key)));
        self.current = key;
        self.within = (0, 0);
        Some(key)
    }

    /// Records the parts made since the last call as the current item's
    /// (called before the item being read changes, and after each event):
    /// every part is made while reading an item's event, through whichever
    /// builder call, so this is the one place that keeps their keys.
    fn sync_parts(&mut self) {
        let count = self
            .builder
            .message()
            .choices
            .get(&CHOICE)
            .map_or(0, |c| c.content.len());
        // Parts are never taken out; were one, the keys stay aligned.
        self.part_keys.truncate(count);
        let missing = count - self.part_keys.len();
        if missing > 0 {
            self.keys_with_parts.insert(self.current);
        }
        let key = (self.current, self.within.0, self.within.1);
        self.part_keys.extend(core::iter::repeat_n(key, missing));
    }

    /// The parts made from now on are `segment`'s: its place in its item
    /// (a message's content index; a reasoning item's summary, then its
    /// content), so that a part of it that only the terminal response
    /// carries goes before the parts of the item's later texts.
    fn enter(&mut self, segment: Segment) {
        self.sync_parts();
        let rank = u8::from(segment.0 == SegmentKind::ReasoningText);
        self.within = (rank, segment.2);
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
            self.sync_parts();
            self.first_part = self.part_keys.len();
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
        if let Some(output) = response.and_then(|r| r.get("output")) {
            self.output(output);
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
            parse_error: None,
            from_provider: true,
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
        server_tool_use: None,
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
        server_tool_use: None,
    }
}

impl Accumulate for OpenAiResponsesAccumulator {
    super::read_payloads!();
}

impl OpenAiResponsesAccumulator {
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
            "response.output_text.annotation.added" => self.annotation_added(payload),
            "response.content_part.added" | "response.reasoning_summary_part.added" => {
                self.part_added(payload)
            }
            "response.content_part.done" | "response.reasoning_summary_part.done" => {
                self.part_done(payload)
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
            // The progress of a tool's item (hosted tools', and the
            // client actions' input, which comes whole when they finish).
            _ if ty.starts_with("response.") => self.tool_event(ty, payload),
            _ => {}
        }
        self.sync_parts();
    }
}
