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

    /// The length of the choice's running text of this kind.
    fn prose_len(&self, kind: SegmentKind) -> usize {
        let choice = self.builder.message().choices.get(&CHOICE);
        choice.map_or(0, |c| kind.flow().running_ref(c).len())
    }

    /// The text of the content part at `position`, if it is of this kind.
    fn part_prose(&self, kind: SegmentKind, position: usize) -> Option<&str> {
        let choice = self.builder.message().choices.get(&CHOICE)?;
        kind.flow().text_of(choice.content.get(position)?)
    }

    /// Appends streamed text to its segment, starting a new content part
    /// when the segment changes.
    fn segment_text(&mut self, segment: Segment, text: &str) {
        if text.is_empty() {
            return;
        }
        self.ensure_started();
        self.enter(segment);
        if self.segment != Some(segment) {
            self.builder.break_part(CHOICE);
            self.segment = Some(segment);
        }
        let kind = segment.0;
        let before = self.prose_len(kind);
        self.budget = self.budget.saturating_add(text.len());
        self.builder.append(CHOICE, kind.flow(), text);
        let grew = self.prose_len(kind) > before;
        let position = self.builder.last_part_position(CHOICE);
        let state = self.segments.entry(segment).or_default();
        state.streamed = true;
        // Text that was kept landed in the latest part: remember which, so
        // that its final copies, annotations and signature find it.
        let (true, Some(position)) = (grew, position) else {
            return;
        };
        match state.part {
            Some(part) if part == position => return,
            Some(_) => state.split = true,
            None => {}
        }
        state.part = Some(position);
        if kind == SegmentKind::Text {
            if let Some(phase) = self.phases.get(&segment.1) {
                self.builder.text_phase_at(CHOICE, position, phase);
            }
        }
    }

    /// The content part of an answer text, started empty if it has none
    /// yet (an annotation before its text); `None` if a limit refused it.
    fn text_part(&mut self, segment: Segment) -> Option<usize> {
        if let Some(part) = self.segments.get(&segment).and_then(|s| s.part) {
            return Some(part);
        }
        self.ensure_started();
        self.enter(segment);
        let before = self.builder.last_part_position(CHOICE);
        self.builder.break_part(CHOICE);
        self.builder.begin_text(CHOICE);
        let position = self.builder.last_part_position(CHOICE)?;
        if before == Some(position) {
            return None;
        }
        self.segment = Some(segment);
        self.segments.entry(segment).or_default().part = Some(position);
        if let Some(phase) = self.phases.get(&segment.1) {
            self.builder.text_phase_at(CHOICE, position, phase);
        }
        Some(position)
    }

    /// A final copy of a streamed text, of any kind (see the module
    /// documentation for the policy): the text the server stored,
    /// authoritative.
    fn prose_final(&mut self, segment: Segment, text: Option<&str>, copy: Final) {
        let Some(text) = text.filter(|t| !t.is_empty()) else {
            return;
        };
        self.budget = self.budget.saturating_add(text.len());
        let state = self.segments.entry(segment).or_default();
        if state.copy >= copy {
            return;
        }
        state.copy = copy;
        let (streamed, part, split) = (state.streamed, state.part, state.split);
        let Some(position) = part else {
            // Nothing streamed: the copy is the text (a text that streamed
            // and has no part was refused by a limit, and still is).
            if !streamed {
                self.segment_text(segment, text);
            }
            return;
        };
        let kind = segment.0;
        let Some(current) = self.part_prose(kind, position) else {
            return;
        };
        if split || current == text {
            return;
        }
        let (head, tail) = (text.starts_with(current), text.ends_with(current));
        let streamed_len = current.len();
        let last = self.builder.last_part_position(CHOICE) == Some(position);
        if head && last {
            // Deltas lost at the end (or never sent): the rest streams on.
            let rest = text.get(streamed_len..).unwrap_or("");
            let expected = self.prose_len(kind).saturating_add(rest.len());
            self.segment = Some(segment);
            self.builder.append(CHOICE, kind.flow(), rest);
            if self.prose_len(kind) == expected && self.part_prose(kind, position) == Some(text) {
                return;
            }
        }
        let (key, index) = (segment.1, segment.2);
        let (sub, what) = kind.names();
        let cost = self.prose_after(kind.flow(), position);
        if cost > self.budget {
            self.builder.error(ErrorInfo::new(format!(
                "output {key}, {sub} {index}: the final {what} differs from the streamed \
                 deltas, and too many earlier parts were corrected already: not corrected"
            )));
            return;
        }
        self.budget -= cost;
        if !head && !tail {
            // Neither the head missing (a stream resumed with
            // `starting_after`) nor the tail: the deltas were wrong.
            self.builder.error(ErrorInfo {
                message: format!(
                    "output {key}, {sub} {index}: the final {what} differs from the streamed \
                     deltas; keeping the final text"
                ),
                kind: Some(String::from("text_mismatch")),
                raw: None,
                from_provider: false,
            });
        }
        self.builder.replace_at(CHOICE, position, kind.flow(), text);
    }

    /// The text of this kind after the part at `position`: what replacing
    /// that part's text moves.
    fn prose_after(&self, flow: Flow, position: usize) -> usize {
        let Some(choice) = self.builder.message().choices.get(&CHOICE) else {
            return 0;
        };
        let after = choice.content.get(position.saturating_add(1)..);
        flow.len(after.unwrap_or_default())
    }

    /// Log probabilities of an answer text: every delta's are kept; a
    /// final copy's only if none came for that text before.
    fn logprobs<'v>(&mut self, segment: Segment, list: Option<impl View<'v>>, fill: bool) {
        let Some(list) = list else {
            return;
        };
        if list.elements().next().is_none() {
            return;
        }
        let state = self.segments.entry(segment).or_default();
        if fill && state.logprobs {
            return;
        }
        state.logprobs = true;
        if let Some(position) = self.text_part(segment) {
            let items = list.elements().map(View::to_value);
            self.builder.logprobs_at(CHOICE, position, items);
        }
    }

    /// Attaches an annotation to its text's part, unless the one with the
    /// same index already was (`output_item.done` repeats those
    /// `annotation.added` sent). Without an index, it is the next one.
    fn annotate<'v>(&mut self, segment: Segment, index: Option<u64>, annotation: impl View<'v>) {
        if annotation.is_null() {
            return;
        }
        let state = self.segments.entry(segment).or_default();
        let index = index.unwrap_or(state.annotations.len() as u64);
        if state.annotations.contains(&index) {
            return;
        }
        let Some(position) = self.text_part(segment) else {
            return;
        };
        let attached = self
            .builder
            .citation_at(CHOICE, position, annotation.to_value());
        if attached.is_some() {
            self.segments
                .entry(segment)
                .or_default()
                .annotations
                .insert(index);
        }
    }

    /// The `annotations` of a finished text part, by their index.
    fn annotations<'v>(&mut self, segment: Segment, list: Option<impl View<'v>>) {
        let list = list.into_iter().flat_map(View::elements);
        for (index, annotation) in list.enumerate() {
            self.annotate(segment, Some(index as u64), annotation);
        }
    }

    /// The phase of a message item: kept for its text parts to come, and
    /// set on those it has.
    fn phase(&mut self, key: u64, phase: Option<&str>) {
        let Some(phase) = phase.filter(|p| !p.is_empty()) else {
            return;
        };
        // The first one wins; parts begun after it get it as they begin.
        if self.phases.contains_key(&key) {
            return;
        }
        let phase = self.phases.entry(key).or_insert(String::from(phase));
        let range = (SegmentKind::Text, key, 0)..=(SegmentKind::Text, key, u64::MAX);
        for state in self.segments.range(range).map(|(_, s)| s) {
            if let Some(position) = state.part {
                self.builder.text_phase_at(CHOICE, position, phase);
            }
        }
    }

    fn delta<'v>(&mut self, kind: SegmentKind, sub: &str, payload: impl View<'v>, field: &str) {
        let Some(key) = self.key(payload) else {
            return;
        };
        let segment = (kind, key, get_u64(payload, sub).unwrap_or(0));
        match (kind, field) {
            (_, "delta") => {
                if let Some(text) = get_str(payload, "delta") {
                    self.segment_text(segment, text);
                }
                if kind == SegmentKind::Text {
                    self.logprobs(segment, payload.get("logprobs"), false);
                }
            }
            _ => {
                self.prose_final(segment, get_str(payload, field), Final::Part);
                if kind == SegmentKind::Text {
                    self.logprobs(segment, payload.get("logprobs"), true);
                }
            }
        }
    }

    /// `response.output_text.annotation.added`.
    fn annotation_added<'v>(&mut self, payload: impl View<'v>) {
        let Some(key) = self.key(payload) else {
            return;
        };
        let segment = (
            SegmentKind::Text,
            key,
            get_u64(payload, "content_index").unwrap_or(0),
        );
        if let Some(annotation) = payload.get("annotation") {
            let index = get_u64(payload, "annotation_index");
            self.annotate(segment, index, annotation);
        }
    }

    /// The segment a content part of item `key` is, and the field holding
    /// its text: `output_text`, `refusal`, and `reasoning_text` (the
    /// content of a reasoning item).
    fn part_segment<'v>(key: u64, index: u64, part: impl View<'v>) -> Option<(Segment, &'v str)> {
        let (kind, field) = match get_str(part, "type")? {
            "output_text" => (SegmentKind::Text, "text"),
            "refusal" => (SegmentKind::Refusal, "refusal"),
            "reasoning_text" => (SegmentKind::ReasoningText, "text"),
            _ => return None,
        };
        Some(((kind, key, index), field))
    }

    /// A finished content part (`content_part.done`, and each of a
    /// finished item's `content`).
    fn content_part<'v>(&mut self, key: u64, index: u64, part: impl View<'v>, copy: Final) {
        if let Some((segment, field)) = Self::part_segment(key, index, part) {
            self.part_final(segment, field, part, copy);
        }
    }

    /// The final copy of a part's text (in its member `field`), and of an
    /// answer text's log probabilities and annotations.
    fn part_final<'v>(&mut self, segment: Segment, field: &str, part: impl View<'v>, copy: Final) {
        self.prose_final(segment, get_str(part, field), copy);
        if segment.0 == SegmentKind::Text {
            self.logprobs(segment, part.get("logprobs"), true);
            self.annotations(segment, part.get("annotations"));
        }
    }

    /// The part a `content_part.*` (`content_index`) or
    /// `reasoning_summary_part.*` (`summary_index`) payload is about: its
    /// segment, the member holding its text, and the part.
    fn payload_part<'v, V: View<'v>>(&mut self, payload: V) -> Option<(Segment, &'v str, V)> {
        let key = self.key(payload)?;
        let part = payload.get("part")?;
        let (segment, field) = match payload.get("summary_index") {
            Some(index) => {
                if get_str(part, "type") != Some("summary_text") {
                    return None;
                }
                (
                    (SegmentKind::Summary, key, index.as_u64().unwrap_or(0)),
                    "text",
                )
            }
            None => {
                let index = get_u64(payload, "content_index").unwrap_or(0);
                Self::part_segment(key, index, part)?
            }
        };
        Some((segment, field, part))
    }

    /// `response.content_part.done` and
    /// `response.reasoning_summary_part.done`.
    fn part_done<'v>(&mut self, payload: impl View<'v>) {
        if let Some((segment, field, part)) = self.payload_part(payload) {
            self.part_final(segment, field, part, Final::Part);
        }
    }

    /// `response.content_part.added` and
    /// `response.reasoning_summary_part.added`: a part may begin with
    /// text. It is the part's first delta (the SDK's snapshot keeps the
    /// added part and appends the deltas to it), so the deltas and the
    /// message agree and the final copies find it. Only before anything
    /// streamed into it: a repeated `added` is not its text again.
    fn part_added<'v>(&mut self, payload: impl View<'v>) {
        let Some((segment, field, part)) = self.payload_part(payload) else {
            return;
        };
        if self.segments.get(&segment).is_some_and(|s| s.streamed) {
            return;
        }
        if let Some(text) = get_str(part, field) {
            self.segment_text(segment, text);
        }
        if segment.0 == SegmentKind::Text {
            self.logprobs(segment, part.get("logprobs"), false);
            self.annotations(segment, part.get("annotations"));
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
            from_provider: false,
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
                self.phase(key, get_str(item, "phase"));
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
        self.done.insert(key);
        self.item_finished(key, item, Final::Item);
    }

    /// A finished output item (of `output_item.done`, or of the terminal
    /// event's `response.output` when its own never came).
    fn item_finished<'v>(&mut self, key: u64, item: impl View<'v>, copy: Final) {
        match get_str(item, "type") {
            Some("message") => self.message_done(key, item, copy),
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
            Some("reasoning") => self.reasoning_done(key, item, copy),
            _ => {
                self.builder.raw_part(CHOICE, item.to_value());
            }
        }
    }

    /// A finished message item: its role, phase, and each content part's
    /// final text, log probabilities and annotations.
    fn message_done<'v>(&mut self, key: u64, item: impl View<'v>, copy: Final) {
        if let Some(role) = get_str(item, "role") {
            self.builder.role(CHOICE, role);
        }
        self.phase(key, get_str(item, "phase"));
        let parts = item.get("content").into_iter().flat_map(View::elements);
        for (index, part) in parts.enumerate() {
            self.content_part(key, index as u64, part, copy);
        }
    }

    /// The terminal event's `response.output`, the response as the server
    /// stored it: each message's and reasoning item's texts are checked
    /// against what streamed, and an item whose `output_item.done` never
    /// came (a resumed stream, a body with only the terminal event) is read
    /// from it, its new parts put where its output index says.
    ///
    /// The items that streamed are read first, while their parts are where
    /// the stream left them: a copy that only adds to the latest part's
    /// text streams on as its delta, which a new item's part appended
    /// before it would have turned into a correction without events.
    fn output<'v>(&mut self, output: impl View<'v>) {
        self.sync_parts();
        let first_new = self.part_keys.len();
        for seen in [true, false] {
            for (index, item) in output.elements().enumerate() {
                let Some(key) = self.key_at(index as u64) else {
                    break;
                };
                let done = self.done.contains(&key);
                if (done || self.keys_with_parts.contains(&key)) != seen {
                    continue;
                }
                if done {
                    match get_str(item, "type") {
                        Some("message") => self.message_done(key, item, Final::Response),
                        Some("reasoning") => self.reasoning_texts(key, item, Final::Response),
                        _ => {}
                    }
                    continue;
                }
                self.ensure_started();
                self.response.has_items = true;
                if get_str(item, "type") != Some("message") {
                    self.builder.role(CHOICE, "assistant");
                }
                self.done.insert(key);
                self.item_finished(key, item, Final::Response);
            }
        }
        self.sync_parts();
        self.place_parts(first_new);
    }

    /// Puts the parts made from `first_new` on (by the terminal response's
    /// output) where their items' keys say among the current response's
    /// parts: in key order (an item's parts in the order made), each
    /// after the parts already there of its item and earlier ones. The
    /// parts already there keep their order.
    fn place_parts(&mut self, first_new: usize) {
        let keys = &self.part_keys;
        let end = keys.len();
        let key = |p: usize| keys.get(p).copied().unwrap_or((u64::MAX, 0, 0));
        // Made in two passes (the items that streamed, then the others),
        // the new parts need not be in key order themselves.
        let mut new: Vec<usize> = (first_new..end).collect();
        new.sort_by_key(|&p| key(p));
        let Some(&least) = new.first() else {
            return;
        };
        // The first part that a new one goes before: nothing moves before it.
        let from = self.first_part.min(first_new);
        let start = (from..first_new)
            .find(|&p| key(p) > key(least))
            .unwrap_or(first_new);
        let (mut old, mut order) = (start, Vec::with_capacity(end - start));
        for &p in &new {
            while old < first_new && key(old) <= key(p) {
                order.push(old - start);
                old += 1;
            }
            order.push(p - start);
        }
        order.extend((old..first_new).map(|p| p - start));
        if order.iter().enumerate().all(|(to, &at)| to == at) {
            return;
        }
        // What moves: the text of every part from `start` on.
        let cost = self.builder.message().choices.get(&CHOICE).map_or(0, |c| {
            let parts = c.content.get(start..).unwrap_or_default();
            Flow::ALL.iter().map(|flow| flow.len(parts)).sum()
        });
        if cost > self.budget {
            self.builder.error(ErrorInfo::new(format!(
                "{} output items of the final response were left after the items that \
                 streamed: too many were put in place already",
                end - first_new
            )));
            return;
        }
        let Some(moved_to) = self.builder.reorder(CHOICE, start, &order) else {
            return;
        };
        self.budget -= cost;
        // Every position kept here moves with its part.
        let keys: Vec<PartKey> = order
            .iter()
            .filter_map(|&at| self.part_keys.get(start + at).copied())
            .collect();
        self.part_keys.truncate(start);
        self.part_keys.extend(keys);
        for kind in SegmentKind::ALL {
            let range = (kind, self.offset, 0)..=(kind, u64::MAX, u64::MAX);
            for state in self.segments.range_mut(range).map(|(_, s)| s) {
                if let Some(part) = state.part.as_mut() {
                    if let Some(&to) = part.checked_sub(start).and_then(|at| moved_to.get(at)) {
                        *part = to;
                    }
                }
            }
        }
        // The latest part may be another now: the next delta starts its
        // own part rather than extending whichever is last.
        self.segment = None;
    }

    /// The final copies of a reasoning item's texts: each of its
    /// `summary` and of its `content` (`reasoning_text` parts).
    fn reasoning_texts<'v>(&mut self, key: u64, item: impl View<'v>, copy: Final) {
        let summary = item.get("summary").into_iter().flat_map(View::elements);
        for (index, part) in summary.enumerate() {
            let segment = (SegmentKind::Summary, key, index as u64);
            self.prose_final(segment, get_str(part, "text"), copy);
        }
        let content = item.get("content").into_iter().flat_map(View::elements);
        for (index, part) in content.enumerate() {
            self.content_part(key, index as u64, part, copy);
        }
    }

    /// A finished reasoning item: its texts' final copies, and its
    /// encrypted content as the signature of its reasoning part.
    fn reasoning_done<'v>(&mut self, key: u64, item: impl View<'v>, copy: Final) {
        self.reasoning_texts(key, item, copy);
        let Some(blob) = get_str(item, "encrypted_content") else {
            return;
        };
        // On the part its reasoning streamed into, wherever that is now
        // (text may have followed it before its end came: with the end
        // lost, from the terminal response's output).
        let streamed = [SegmentKind::Summary, SegmentKind::ReasoningText]
            .into_iter()
            .flat_map(|kind| self.segments.range((kind, key, 0)..=(kind, key, u64::MAX)))
            .filter_map(|(_, state)| state.part)
            .max();
        if let Some(position) = streamed {
            if self.builder.reasoning_signature_at(CHOICE, position, blob) {
                return;
            }
        }
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
            // Server-tool progress: nothing to accumulate.
            _ => {}
        }
        self.sync_parts();
    }
}
