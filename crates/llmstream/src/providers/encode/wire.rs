//! What every wire's writer shares: the queue of outputs, SSE framing,
//! losses said once, JSON objects built in order, the finish reasons and
//! the ids a wire needs when its source had none.

use alloc::collections::{BTreeMap, BTreeSet, VecDeque};
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::{Loss, LossKind, Output};
use crate::json::{Map, Value};
use crate::providers::{FinishReason, PartKind, Provider, StreamEvent};

/// Where a wire's writer puts what it makes.
#[derive(Debug)]
pub(super) struct Sink {
    target: Provider,
    /// The wire the events came from (their `MessageStart`).
    pub(super) source: Option<Provider>,
    pub(super) queue: VecDeque<Output>,
    pub(super) finished: bool,
    said: BTreeSet<(LossKind, Option<u64>)>,
    /// The message's id and model, as the source first sent them.
    pub(super) id: Option<String>,
    pub(super) model: Option<String>,
    /// The source's parts, for what names one by its position.
    pub(super) shape: Shape,
}

impl Sink {
    pub(super) fn new(target: Provider) -> Self {
        Sink {
            target,
            source: None,
            queue: VecDeque::new(),
            finished: false,
            said: BTreeSet::new(),
            id: None,
            model: None,
            shape: Shape::default(),
        }
    }

    /// One SSE event: `event: name` (when named) and `data:` with `data`
    /// written compactly (one line: JSON text has no raw line breaks).
    pub(super) fn event(&mut self, name: Option<&str>, data: &Value) {
        let mut out = Vec::new();
        if let Some(name) = name {
            out.extend_from_slice(b"event: ");
            out.extend_from_slice(name.as_bytes());
            out.push(b'\n');
        }
        out.extend_from_slice(b"data: ");
        out.extend_from_slice(data.to_string().as_bytes());
        out.extend_from_slice(b"\n\n");
        self.queue.push_back(Output::Sse(out));
    }

    /// `data: [DONE]`, OpenAI Chat's terminator.
    pub(super) fn done(&mut self) {
        self.queue
            .push_back(Output::Sse(b"data: [DONE]\n\n".to_vec()));
    }

    /// Says that `event`'s kind of content is lost, for an event the wire
    /// has no place for (nothing for the events a wire need not write:
    /// argument values, part starts, …).
    pub(super) fn lose(&mut self, event: &StreamEvent) {
        if let Some(kind) = loss_of(event) {
            self.loss(kind, event.choice());
        }
    }

    /// Says that `kind` is lost, once per kind and choice.
    pub(super) fn loss(&mut self, kind: LossKind, choice: Option<u64>) {
        if self.said.insert((kind, choice)) {
            self.queue.push_back(Output::Loss(Loss {
                target: self.target,
                kind,
                choice,
            }));
        }
    }

    /// The finish reason the target writes for a choice that finished
    /// with `reason` (the source's own word) and `normalized`: the word
    /// itself when source and target are one wire, else the table of
    /// docs/TRANSLATION.md.
    pub(super) fn finish_reason(&self, reason: &str, normalized: FinishReason) -> String {
        if self.source == Some(self.target) {
            return reason.to_string();
        }
        // A reason with no neutral name (`pause_turn`, an unknown enum)
        // keeps its word where the target's word is free text.
        if normalized == FinishReason::Other && self.target != Provider::Gemini {
            return reason.to_string();
        }
        let word = match (self.target, normalized) {
            (Provider::OpenAiChat, FinishReason::Length) => "length",
            (Provider::OpenAiChat, FinishReason::ToolCalls) => "tool_calls",
            (Provider::OpenAiChat, FinishReason::ContentFilter | FinishReason::Refusal) => {
                "content_filter"
            }
            (Provider::OpenAiChat, _) => "stop",
            (Provider::Anthropic, FinishReason::Length) => "max_tokens",
            (Provider::Anthropic, FinishReason::ToolCalls) => "tool_use",
            (Provider::Anthropic, FinishReason::ContentFilter | FinishReason::Refusal) => "refusal",
            (Provider::Anthropic, _) => "end_turn",
            (Provider::Gemini, FinishReason::Length) => "MAX_TOKENS",
            (Provider::Gemini, FinishReason::ContentFilter | FinishReason::Refusal) => "SAFETY",
            (Provider::Gemini, FinishReason::Other) => "OTHER",
            (Provider::Gemini, _) => "STOP",
            (Provider::OpenAiResponses, FinishReason::Length) => "max_output_tokens",
            (Provider::OpenAiResponses, FinishReason::ContentFilter | FinishReason::Refusal) => {
                "content_filter"
            }
            (Provider::OpenAiResponses, _) => "completed",
        };
        word.to_string()
    }
}

/// A JSON object with these members, in this order.
pub(super) fn obj<const N: usize>(members: [(&str, Value); N]) -> Value {
    let mut map = Map::new();
    for (key, value) in members {
        map.push(key, value);
    }
    Value::Object(map)
}

/// The arguments of a call whose text never streamed (Gemini sends them
/// whole), as the text one fragment carries: a string as it is (a
/// free-text tool's input, invalid JSON), a value written as JSON.
pub(super) fn whole_arguments(arguments: &Value) -> String {
    match arguments {
        Value::String(text) => text.clone(),
        value => value.to_string(),
    }
}

/// A count, or `null` when unreported.
pub(super) fn count(n: Option<u64>) -> Value {
    n.map_or(Value::Null, Value::from)
}

/// What is lost when a wire has no place for `event`: `None` for the
/// events that only repeat what others carry or need not be written.
fn loss_of(event: &StreamEvent) -> Option<LossKind> {
    Some(match event {
        StreamEvent::ReasoningSignature { .. } => LossKind::ReasoningSignature,
        StreamEvent::ToolCallSignature { .. } => LossKind::ToolCallSignature,
        StreamEvent::RawPart { .. }
        | StreamEvent::RawPartMember { .. }
        | StreamEvent::RawPartAppend { .. }
        | StreamEvent::RawPartReplace { .. } => LossKind::RawPart,
        StreamEvent::Citation { .. } | StreamEvent::CitationReplace { .. } => LossKind::Citation,
        StreamEvent::Logprobs { .. } => LossKind::Logprobs,
        StreamEvent::Phase { .. } => LossKind::Phase,
        StreamEvent::PartsReorder { .. } => LossKind::Reorder,
        StreamEvent::PartReplace { .. } | StreamEvent::ArgumentsReplace { .. } => {
            LossKind::Replaced
        }
        StreamEvent::ProviderToolStart { .. }
        | StreamEvent::ProviderToolDelta { .. }
        | StreamEvent::ProviderToolResult { .. }
        | StreamEvent::ProviderToolEnd { .. } => LossKind::ProviderTool,
        StreamEvent::Detail { .. } | StreamEvent::FinishDetails { .. } => LossKind::Detail,
        StreamEvent::Reopen => LossKind::Reopen,
        _ => return None,
    })
}

/// The source's content parts as far as a citation or log probabilities
/// need them: the events name the part they belong to by its position in
/// the source's content, and a target can place them only on the text it
/// is writing now, the source's latest part. Followed by the rules of
/// [`Message::apply`](crate::providers::Message::apply), the limits left
/// aside (past them a position is never the latest: the event is a loss).
#[derive(Debug, Default)]
pub(super) struct Shape {
    choices: BTreeMap<u64, ChoiceShape>,
    /// Whether each choice's answer text is kept: Gemini's grounding
    /// names the text it supports by byte offsets, which an OpenAI target
    /// counts in characters.
    pub(super) keep_text: bool,
}

#[derive(Debug, Default)]
struct ChoiceShape {
    /// How many parts.
    len: usize,
    /// The kind of the latest part, `None` for one that is not text (or
    /// unknown, after a reordering).
    last: Option<PartKind>,
    /// The tool calls' keys (a key begins one part, once).
    calls: BTreeSet<u64>,
    /// Characters of answer text so far, and before the latest text part:
    /// where OpenAI's citation offsets (into the choice's text in Chat,
    /// into one part in Responses) start.
    text_chars: u64,
    text_start: u64,
    /// The span of each text part in characters of the answer text, by
    /// its position.
    spans: BTreeMap<usize, (u64, u64)>,
    /// The answer text, when kept.
    text: String,
}

impl Shape {
    /// Follows `event`.
    pub(super) fn follow(&mut self, event: &StreamEvent) {
        match event {
            StreamEvent::PartStart { choice, kind } => self.push(*choice, Some(*kind)),
            StreamEvent::TextDelta { choice, text } => self.text(*choice, PartKind::Text, text),
            StreamEvent::ReasoningDelta { choice, text } => {
                self.text(*choice, PartKind::Reasoning, text)
            }
            StreamEvent::RefusalDelta { choice, text } => {
                self.text(*choice, PartKind::Refusal, text)
            }
            StreamEvent::RawPart { choice, .. } => self.push(*choice, None),
            StreamEvent::ToolCallStart { choice, call, .. }
            | StreamEvent::ProviderToolStart { choice, call, .. } => self.call(*choice, *call),
            StreamEvent::PartsReorder { choice, .. } => {
                self.choices.entry(*choice).or_default().last = None;
            }
            _ => {}
        }
    }

    /// A tool call begins a part, the first time its key comes.
    fn call(&mut self, choice: u64, call: u64) {
        if self.choices.entry(choice).or_default().calls.insert(call) {
            self.push(choice, None);
        }
    }

    fn push(&mut self, choice: u64, kind: Option<PartKind>) {
        let c = self.choices.entry(choice).or_default();
        c.len += 1;
        c.last = kind;
        if kind == Some(PartKind::Text) {
            c.text_start = c.text_chars;
            c.spans.insert(c.len - 1, (c.text_chars, c.text_chars));
        }
    }

    fn text(&mut self, choice: u64, kind: PartKind, text: &str) {
        if text.is_empty() {
            return;
        }
        if self.choices.get(&choice).and_then(|c| c.last) != Some(kind) {
            self.push(choice, Some(kind));
        }
        if kind == PartKind::Text {
            let keep = self.keep_text;
            let c = self.choices.entry(choice).or_default();
            c.text_chars += text.chars().count() as u64;
            let latest = c.len.checked_sub(1);
            if let Some(span) = latest.and_then(|at| c.spans.get_mut(&at)) {
                span.1 = c.text_chars;
            }
            if keep {
                c.text.push_str(text);
            }
        }
    }

    /// The kind of the part at `part` when it is the latest part of
    /// `choice` and text of a kind.
    pub(super) fn latest(&self, choice: u64, part: usize) -> Option<PartKind> {
        let c = self.choices.get(&choice)?;
        (part + 1 == c.len).then_some(c.last).flatten()
    }

    /// The characters of `choice`'s answer text before its latest text
    /// part.
    pub(super) fn text_start(&self, choice: u64) -> u64 {
        self.choices.get(&choice).map_or(0, |c| c.text_start)
    }

    /// Where the text part at `part` of `choice` lies in its answer text,
    /// in characters, as far as its text came.
    pub(super) fn span(&self, choice: u64, part: usize) -> Option<(u64, u64)> {
        self.choices.get(&choice)?.spans.get(&part).copied()
    }

    /// The answer text of `choice` so far, when kept (`keep_text`).
    pub(super) fn text_of(&self, choice: u64) -> &str {
        self.choices.get(&choice).map_or("", |c| c.text.as_str())
    }
}
