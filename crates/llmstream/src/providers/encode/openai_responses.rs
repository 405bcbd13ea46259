//! OpenAI Responses: `response.created` and `.in_progress`, then output
//! items, each `output_item.added`, its deltas and its `.done` events
//! (messages with `output_text` or `refusal` parts, reasoning items with a
//! summary, function calls with their argument deltas), and at the end
//! `response.completed` (or `.incomplete`, `.failed`) with every item
//! again and the usage. Every event has its `sequence_number`. One answer
//! per stream: choices beyond the first are a loss.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use super::citation::{chat_to_responses, holds, urls, Holder, Origin};
use super::wire::{obj, whole_arguments, Sink};
use super::LossKind;
use crate::json::{Map, Value};
use crate::providers::{PartKind, Provider, StreamEvent, Usage};

/// An output item, as far as it went.
#[derive(Debug)]
enum Item {
    /// A message: its text (`refusal`: a refusal part, not `output_text`),
    /// with the annotations and log probabilities its part went out with.
    Message {
        text: String,
        refusal: bool,
        annotations: Vec<Value>,
        logprobs: Vec<Value>,
    },
    Reasoning {
        text: String,
        signature: Option<String>,
    },
    Call {
        call_id: String,
        name: String,
        arguments: String,
    },
    /// A tool the provider ran (`web_search_call`, …), from a Responses
    /// source: the item as it began, then as its result came.
    Hosted(Value),
}

/// A hosted tool: begun, its item held until its result shows what it
/// is; or sent.
#[derive(Debug)]
enum Hosted {
    Pending(Value),
    Sent,
}

#[derive(Debug, Default)]
pub(super) struct Responses {
    started: bool,
    sequence: u64,
    /// Every item, by output index, and whether it is done.
    items: Vec<(Item, bool)>,
    /// The message or reasoning item texts go into now.
    open: Option<usize>,
    /// Tool calls by key: their output index.
    calls: BTreeMap<u64, usize>,
    /// Hosted tools by key.
    hosted: BTreeMap<u64, Hosted>,
    reason: Option<String>,
    usage: Option<Usage>,
    complete: bool,
    /// Anthropic's and Gemini's citations of the open text part, until
    /// it is done or the answer finishes.
    held: Holder,
}

impl Responses {
    pub(super) fn event(&mut self, event: &StreamEvent, sink: &mut Sink) {
        match event {
            StreamEvent::Role { .. } => self.start(sink),
            StreamEvent::PartStart { .. } => self.close_open(sink),
            StreamEvent::TextDelta { text, .. } => self.text(false, text, sink),
            StreamEvent::RefusalDelta { text, .. } => self.text(true, text, sink),
            StreamEvent::ReasoningDelta { text, .. } => self.reasoning(text, sink),
            StreamEvent::ReasoningSignature { signature, .. } => {
                let open = self.open.and_then(|at| self.items.get_mut(at));
                match open {
                    Some((
                        Item::Reasoning {
                            signature: held, ..
                        },
                        false,
                    )) => *held = Some(signature.clone()),
                    _ => sink.loss(LossKind::ReasoningSignature, Some(0)),
                }
            }
            StreamEvent::ToolCallStart { call, id, name, .. } => {
                self.close_open(sink);
                let at = self.add(
                    Item::Call {
                        call_id: id.clone(),
                        name: name.clone(),
                        arguments: String::new(),
                    },
                    sink,
                );
                self.calls.insert(*call, at);
            }
            StreamEvent::ToolCallDelta { call, fragment, .. } => {
                self.arguments(*call, fragment, sink)
            }
            StreamEvent::ToolCallEnd {
                call, arguments, ..
            } => {
                let Some(&at) = self.calls.get(call) else {
                    return;
                };
                if let Some((
                    Item::Call {
                        arguments: sent, ..
                    },
                    false,
                )) = self.items.get(at)
                {
                    if sent.is_empty() {
                        // No fragments came (Gemini sends arguments whole).
                        let text = whole_arguments(arguments);
                        self.arguments(*call, &text, sink);
                    }
                }
                self.done(at, sink);
            }
            StreamEvent::Finish {
                reason, normalized, ..
            } => {
                // The open part's text is complete: its held citations'
                // spans are known.
                if let Some(at) = self.open {
                    self.release(at, sink);
                }
                self.reason = Some(sink.finish_reason(reason, *normalized));
            }
            StreamEvent::Usage(usage) => self.usage = Some(usage.clone()),
            StreamEvent::Error(error) => {
                self.start(sink);
                let data = obj([
                    ("type", Value::from("error")),
                    (
                        "code",
                        error.kind.as_deref().map_or(Value::Null, Value::from),
                    ),
                    ("message", Value::from(error.message.as_str())),
                    ("param", Value::Null),
                ]);
                self.emit("error", data, sink);
            }
            StreamEvent::Citation { part, citation, .. } => self.citation(*part, citation, sink),
            StreamEvent::CitationReplace {
                part,
                index,
                citation,
                ..
            } => {
                if !self.held.replace(0, *part, *index, citation) {
                    sink.loss(LossKind::Citation, Some(0));
                }
            }
            StreamEvent::Logprobs { part, logprobs, .. } => self.logprobs(*part, logprobs, sink),
            StreamEvent::Complete => self.complete = true,
            StreamEvent::PartReplace { kind, text, .. } => {
                // The final copy of the open item's text goes out in its
                // `.done` events, as the source's did.
                let open = self.open.and_then(|at| self.items.get_mut(at));
                match (open, kind) {
                    (
                        Some((
                            Item::Message {
                                text: held,
                                refusal,
                                ..
                            },
                            false,
                        )),
                        PartKind::Text,
                    ) if !*refusal => held.clone_from(text),
                    (
                        Some((
                            Item::Message {
                                text: held,
                                refusal,
                                ..
                            },
                            false,
                        )),
                        PartKind::Refusal,
                    ) if *refusal => held.clone_from(text),
                    (Some((Item::Reasoning { text: held, .. }, false)), PartKind::Reasoning) => {
                        held.clone_from(text)
                    }
                    _ => sink.loss(LossKind::Replaced, Some(0)),
                }
            }
            // Responses' own hosted tools go back as the items they came
            // as (whole: the reader tells a hosted tool from a client's by
            // the item's members); from another wire they are not
            // Responses items.
            StreamEvent::ProviderToolStart { call, id, kind, .. }
                if sink.source == Some(Provider::OpenAiResponses) =>
            {
                let kind = kind.as_deref().unwrap_or("web_search_call");
                let item = obj([
                    ("id", Value::from(id.as_str())),
                    ("type", Value::from(kind)),
                    ("status", Value::from("in_progress")),
                ]);
                self.hosted.entry(*call).or_insert(Hosted::Pending(item));
            }
            StreamEvent::ProviderToolResult { call, result, .. }
                if self.hosted.contains_key(call) =>
            {
                if let Some(Hosted::Pending(_)) = self.hosted.get(call) {
                    self.close_open(sink);
                    let at = self.add(Item::Hosted(result.clone()), sink);
                    self.hosted.insert(*call, Hosted::Sent);
                    self.done(at, sink);
                }
            }
            StreamEvent::ProviderToolDelta { call, .. }
            | StreamEvent::ProviderToolProgress { call, .. }
            | StreamEvent::ProviderToolEnd { call, .. }
                if self.hosted.contains_key(call) => {}
            other => sink.lose(other),
        }
    }

    pub(super) fn finish(&mut self, sink: &mut Sink) {
        if !self.started && self.reason.is_none() && self.usage.is_none() && !self.complete {
            return;
        }
        self.start(sink);
        let pending: Vec<Value> = core::mem::take(&mut self.hosted)
            .into_values()
            .filter_map(|h| match h {
                Hosted::Pending(item) => Some(item),
                Hosted::Sent => None,
            })
            .collect();
        for item in pending {
            self.close_open(sink);
            self.add(Item::Hosted(item), sink);
        }
        for at in 0..self.items.len() {
            self.done(at, sink);
        }
        if !self.complete && self.reason.is_none() {
            return;
        }
        let reason = self
            .reason
            .take()
            .unwrap_or_else(|| "completed".to_string());
        let (kind, status, details) = match reason.as_str() {
            "completed" => ("response.completed", "completed", Value::Null),
            "failed" => ("response.failed", "failed", Value::Null),
            other => (
                "response.incomplete",
                "incomplete",
                obj([("reason", Value::from(other))]),
            ),
        };
        let output: Vec<Value> = (0..self.items.len())
            .filter_map(|at| self.item_value(at, true))
            .collect();
        let mut response = response(sink, status);
        if let Value::Object(map) = &mut response {
            map.push("incomplete_details", details);
            map.push("output", Value::Array(output));
            map.push(
                "usage",
                self.usage.take().map_or(Value::Null, |u| usage_value(&u)),
            );
        }
        self.emit(
            kind,
            obj([("type", Value::from(kind)), ("response", response)]),
            sink,
        );
    }

    /// `response.created` and `response.in_progress`, once.
    fn start(&mut self, sink: &mut Sink) {
        if self.started {
            return;
        }
        self.started = true;
        for kind in ["response.created", "response.in_progress"] {
            let mut response = response(sink, "in_progress");
            if let Value::Object(map) = &mut response {
                map.push("output", Value::Array(vec![]));
                map.push("usage", Value::Null);
            }
            self.emit(
                kind,
                obj([("type", Value::from(kind)), ("response", response)]),
                sink,
            );
        }
    }

    /// One event, its `type` first and its `sequence_number` added.
    fn emit(&mut self, kind: &str, data: Value, sink: &mut Sink) {
        let mut data = data;
        if let Value::Object(map) = &mut data {
            map.push("sequence_number", Value::from(self.sequence));
        }
        self.sequence += 1;
        sink.event(Some(kind), &data);
    }

    /// Adds an item (`output_item.added`); returns its output index.
    fn add(&mut self, item: Item, sink: &mut Sink) -> usize {
        self.start(sink);
        let at = self.items.len();
        self.items.push((item, false));
        if let Some(value) = self.item_value(at, false) {
            let data = obj([
                ("type", Value::from("response.output_item.added")),
                ("output_index", Value::from(at as u64)),
                ("item", value),
            ]);
            self.emit("response.output_item.added", data, sink);
        }
        at
    }

    fn text(&mut self, refusal: bool, text: &str, sink: &mut Sink) {
        let at = self.message(refusal, sink);
        if let Some((Item::Message { text: held, .. }, _)) = self.items.get_mut(at) {
            held.push_str(text);
        }
        let kind = match refusal {
            true => "response.refusal.delta",
            false => "response.output_text.delta",
        };
        let data = obj([
            ("type", Value::from(kind)),
            ("item_id", Value::from(item_id(at, "msg"))),
            ("output_index", Value::from(at as u64)),
            ("content_index", Value::from(0u64)),
            ("delta", Value::from(text)),
        ]);
        self.emit(kind, data, sink);
    }

    /// The open message item of this kind, or a new one (its item and
    /// its part added): its output index.
    fn message(&mut self, refusal: bool, sink: &mut Sink) -> usize {
        match self.open.and_then(|at| self.items.get(at).map(|i| (at, i))) {
            Some((at, (Item::Message { refusal: r, .. }, false))) if *r == refusal => at,
            _ => {
                self.close_open(sink);
                let at = self.add(
                    Item::Message {
                        text: String::new(),
                        refusal,
                        annotations: Vec::new(),
                        logprobs: Vec::new(),
                    },
                    sink,
                );
                let part = part_value(refusal, "", &[], &[]);
                let data = obj([
                    ("type", Value::from("response.content_part.added")),
                    ("item_id", Value::from(item_id(at, "msg"))),
                    ("output_index", Value::from(at as u64)),
                    ("content_index", Value::from(0u64)),
                    ("part", part),
                ]);
                self.emit("response.content_part.added", data, sink);
                self.open = Some(at);
                at
            }
        }
    }

    /// The `output_text` part of the source's part at `part`, when that
    /// is its latest: the open message item, or a new one (a citation may
    /// come before the text it supports). Its output index.
    fn open_text(&mut self, part: usize, sink: &mut Sink) -> Option<usize> {
        let latest = sink.shape.latest(0, part) == Some(PartKind::Text);
        latest.then(|| self.message(false, sink))
    }

    /// A citation of the open text part, as
    /// `response.output_text.annotation.added` (and in the part's
    /// `annotations` when it is done): from Responses as it came, from
    /// Chat a `url_citation` with its span moved into the part; from
    /// Anthropic (a web search result) and Gemini (grounding), held until
    /// the part is done or the answer finishes; else a loss.
    fn citation(&mut self, part: usize, citation: &Value, sink: &mut Sink) {
        let index = self.held.count(0, part);
        if holds(sink.source, citation) {
            // Gemini's offsets are into the whole text: its grounding may
            // name the open part even when a part that closes nothing (a
            // thought signature) came after it.
            let open = match sink.source {
                Some(Provider::Gemini) => self.open_answer(),
                _ => self.open_text(part, sink),
            };
            if open.is_some() {
                self.held.hold(0, part, index, citation);
                return;
            }
        }
        let annotation = match sink.source {
            Some(Provider::OpenAiResponses) => Some(citation.clone()),
            Some(Provider::OpenAiChat) => chat_to_responses(citation, sink.shape.text_start(0)),
            _ => None,
        };
        let at = annotation.as_ref().and_then(|_| self.open_text(part, sink));
        let (Some(annotation), Some(at)) = (annotation, at) else {
            sink.loss(LossKind::Citation, Some(0));
            return;
        };
        self.annotate(at, annotation, sink);
    }

    /// The open message item when it is an `output_text` part.
    fn open_answer(&self) -> Option<usize> {
        let at = self.open?;
        match self.items.get(at) {
            Some((Item::Message { refusal: false, .. }, false)) => Some(at),
            _ => None,
        }
    }

    /// The held citations, as annotations of the text part at `at`, whose
    /// text is complete: they were held on it, the open text part (what
    /// has no place in them a loss).
    fn release(&mut self, at: usize, sink: &mut Sink) {
        let held = self.held.take(|_| true);
        let text = match self.items.get(at) {
            Some((Item::Message { text, .. }, _)) => text.as_str(),
            _ => "",
        };
        let mut annotations = Vec::new();
        for held in &held {
            let (found, lost) = urls(held, &sink.shape, Origin::Part(text));
            annotations.extend(found.iter().map(|url| url.responses()));
            if lost {
                sink.loss(LossKind::Citation, Some(0));
            }
        }
        for annotation in annotations {
            self.annotate(at, annotation, sink);
        }
    }

    /// `annotation` added to the text part at `at`, announced.
    fn annotate(&mut self, at: usize, annotation: Value, sink: &mut Sink) {
        let Some((Item::Message { annotations, .. }, _)) = self.items.get_mut(at) else {
            return;
        };
        let index = annotations.len() as u64;
        annotations.push(annotation.clone());
        let kind = "response.output_text.annotation.added";
        let data = obj([
            ("type", Value::from(kind)),
            ("item_id", Value::from(item_id(at, "msg"))),
            ("output_index", Value::from(at as u64)),
            ("content_index", Value::from(0u64)),
            ("annotation_index", Value::from(index)),
            ("annotation", annotation),
        ]);
        self.emit(kind, data, sink);
    }

    /// Log probabilities of the open text part, as an
    /// `output_text.delta` with no text: from Responses, and from Chat
    /// (whose items have the same shape); else a loss.
    fn logprobs(&mut self, part: usize, items: &[Value], sink: &mut Sink) {
        let from_openai = matches!(
            sink.source,
            Some(Provider::OpenAiResponses | Provider::OpenAiChat)
        );
        let at = from_openai.then(|| self.open_text(part, sink)).flatten();
        let Some(at) = at else {
            sink.loss(LossKind::Logprobs, Some(0));
            return;
        };
        if let Some((Item::Message { logprobs, .. }, _)) = self.items.get_mut(at) {
            logprobs.extend_from_slice(items);
        }
        let kind = "response.output_text.delta";
        let data = obj([
            ("type", Value::from(kind)),
            ("item_id", Value::from(item_id(at, "msg"))),
            ("output_index", Value::from(at as u64)),
            ("content_index", Value::from(0u64)),
            ("delta", Value::from("")),
            ("logprobs", Value::Array(items.to_vec())),
        ]);
        self.emit(kind, data, sink);
    }

    fn reasoning(&mut self, text: &str, sink: &mut Sink) {
        let at = match self.open.and_then(|at| self.items.get(at).map(|i| (at, i))) {
            Some((at, (Item::Reasoning { .. }, false))) => at,
            _ => {
                self.close_open(sink);
                let at = self.add(
                    Item::Reasoning {
                        text: String::new(),
                        signature: None,
                    },
                    sink,
                );
                let data = obj([
                    ("type", Value::from("response.reasoning_summary_part.added")),
                    ("item_id", Value::from(item_id(at, "rs"))),
                    ("output_index", Value::from(at as u64)),
                    ("summary_index", Value::from(0u64)),
                    ("part", summary_value("")),
                ]);
                self.emit("response.reasoning_summary_part.added", data, sink);
                self.open = Some(at);
                at
            }
        };
        if let Some((Item::Reasoning { text: held, .. }, _)) = self.items.get_mut(at) {
            held.push_str(text);
        }
        let data = obj([
            ("type", Value::from("response.reasoning_summary_text.delta")),
            ("item_id", Value::from(item_id(at, "rs"))),
            ("output_index", Value::from(at as u64)),
            ("summary_index", Value::from(0u64)),
            ("delta", Value::from(text)),
        ]);
        self.emit("response.reasoning_summary_text.delta", data, sink);
    }

    fn arguments(&mut self, call: u64, fragment: &str, sink: &mut Sink) {
        let Some(&at) = self.calls.get(&call) else {
            return;
        };
        match self.items.get_mut(at) {
            Some((Item::Call { arguments, .. }, false)) => arguments.push_str(fragment),
            _ => {
                sink.loss(LossKind::LateArguments, Some(0));
                return;
            }
        }
        let data = obj([
            (
                "type",
                Value::from("response.function_call_arguments.delta"),
            ),
            ("item_id", Value::from(item_id(at, "fc"))),
            ("output_index", Value::from(at as u64)),
            ("delta", Value::from(fragment)),
        ]);
        self.emit("response.function_call_arguments.delta", data, sink);
    }

    fn close_open(&mut self, sink: &mut Sink) {
        if let Some(at) = self.open.take() {
            self.done(at, sink);
        }
    }

    /// The `.done` events of the item at `at`, once.
    fn done(&mut self, at: usize, sink: &mut Sink) {
        if let Some((Item::Message { refusal: false, .. }, false)) = self.items.get(at) {
            self.release(at, sink);
        }
        let Some((item, done)) = self.items.get_mut(at) else {
            return;
        };
        if *done {
            return;
        }
        *done = true;
        if self.open == Some(at) {
            self.open = None;
        }
        let index = Value::from(at as u64);
        let mut events: Vec<(&str, Value)> = Vec::new();
        match item {
            Item::Message {
                text,
                refusal,
                annotations,
                logprobs,
            } => {
                let id = item_id(at, "msg");
                let (kind, field) = match refusal {
                    true => ("response.refusal.done", "refusal"),
                    false => ("response.output_text.done", "text"),
                };
                events.push((
                    kind,
                    obj([
                        ("type", Value::from(kind)),
                        ("item_id", Value::from(id.as_str())),
                        ("output_index", index.clone()),
                        ("content_index", Value::from(0u64)),
                        (field, Value::from(text.as_str())),
                    ]),
                ));
                events.push((
                    "response.content_part.done",
                    obj([
                        ("type", Value::from("response.content_part.done")),
                        ("item_id", Value::from(id.as_str())),
                        ("output_index", index.clone()),
                        ("content_index", Value::from(0u64)),
                        ("part", part_value(*refusal, text, annotations, logprobs)),
                    ]),
                ));
            }
            Item::Reasoning { text, .. } => {
                let id = item_id(at, "rs");
                events.push((
                    "response.reasoning_summary_text.done",
                    obj([
                        ("type", Value::from("response.reasoning_summary_text.done")),
                        ("item_id", Value::from(id.as_str())),
                        ("output_index", index.clone()),
                        ("summary_index", Value::from(0u64)),
                        ("text", Value::from(text.as_str())),
                    ]),
                ));
                events.push((
                    "response.reasoning_summary_part.done",
                    obj([
                        ("type", Value::from("response.reasoning_summary_part.done")),
                        ("item_id", Value::from(id.as_str())),
                        ("output_index", index.clone()),
                        ("summary_index", Value::from(0u64)),
                        ("part", summary_value(text)),
                    ]),
                ));
            }
            Item::Hosted(_) => {}
            Item::Call { arguments, .. } => {
                events.push((
                    "response.function_call_arguments.done",
                    obj([
                        ("type", Value::from("response.function_call_arguments.done")),
                        ("item_id", Value::from(item_id(at, "fc"))),
                        ("output_index", index.clone()),
                        ("arguments", Value::from(arguments.as_str())),
                    ]),
                ));
            }
        }
        for (kind, data) in events {
            self.emit(kind, data, sink);
        }
        if let Some(item) = self.item_value(at, true) {
            let data = obj([
                ("type", Value::from("response.output_item.done")),
                ("output_index", index),
                ("item", item),
            ]);
            self.emit("response.output_item.done", data, sink);
        }
    }

    /// The item at `at` as the wire writes it, in progress or whole.
    fn item_value(&self, at: usize, whole: bool) -> Option<Value> {
        let (item, _) = self.items.get(at)?;
        let status = Value::from(match whole {
            true => "completed",
            false => "in_progress",
        });
        Some(match item {
            Item::Hosted(value) => value.clone(),
            Item::Message {
                text,
                refusal,
                annotations,
                logprobs,
            } => {
                let content = match whole {
                    true => vec![part_value(*refusal, text, annotations, logprobs)],
                    false => vec![],
                };
                obj([
                    ("id", Value::from(item_id(at, "msg"))),
                    ("type", Value::from("message")),
                    ("status", status),
                    ("role", Value::from("assistant")),
                    ("content", Value::Array(content)),
                ])
            }
            Item::Reasoning { text, signature } => {
                let summary = match whole {
                    true => vec![summary_value(text)],
                    false => vec![],
                };
                let mut map = Map::new();
                map.push("id", Value::from(item_id(at, "rs")));
                map.push("type", Value::from("reasoning"));
                map.push("summary", Value::Array(summary));
                if let (true, Some(signature)) = (whole, signature) {
                    map.push("encrypted_content", Value::from(signature.as_str()));
                }
                Value::Object(map)
            }
            Item::Call {
                call_id,
                name,
                arguments,
            } => obj([
                ("id", Value::from(item_id(at, "fc"))),
                ("type", Value::from("function_call")),
                ("status", status),
                (
                    "arguments",
                    Value::from(match whole {
                        true => arguments.as_str(),
                        false => "",
                    }),
                ),
                ("call_id", Value::from(call_id.as_str())),
                ("name", Value::from(name.as_str())),
            ]),
        })
    }
}

/// The response object around the items, with its status.
fn response(sink: &Sink, status: &str) -> Value {
    obj([
        (
            "id",
            Value::from(sink.id.as_deref().unwrap_or("resp_llmstream")),
        ),
        ("object", Value::from("response")),
        ("created_at", Value::from(0u64)),
        ("status", Value::from(status)),
        ("model", Value::from(sink.model.as_deref().unwrap_or(""))),
    ])
}

fn item_id(at: usize, prefix: &str) -> String {
    format!("{prefix}_{at}")
}

/// A content part: a refusal, or `output_text` with its annotations and
/// (when it has any) its log probabilities.
fn part_value(refusal: bool, text: &str, annotations: &[Value], logprobs: &[Value]) -> Value {
    if refusal {
        return obj([
            ("type", Value::from("refusal")),
            ("refusal", Value::from(text)),
        ]);
    }
    let mut map = Map::new();
    map.push("type", Value::from("output_text"));
    map.push("text", Value::from(text));
    map.push("annotations", Value::Array(annotations.to_vec()));
    if !logprobs.is_empty() {
        map.push("logprobs", Value::Array(logprobs.to_vec()));
    }
    Value::Object(map)
}

fn summary_value(text: &str) -> Value {
    obj([
        ("type", Value::from("summary_text")),
        ("text", Value::from(text)),
    ])
}

/// The usage of a response: every input and output token, with the cached
/// and reasoning counts in their details.
fn usage_value(usage: &Usage) -> Value {
    let mut map = Map::new();
    map.push("input_tokens", Value::from(usage.input_tokens.unwrap_or(0)));
    map.push(
        "input_tokens_details",
        obj([(
            "cached_tokens",
            Value::from(usage.cached_input_tokens.unwrap_or(0)),
        )]),
    );
    map.push(
        "output_tokens",
        Value::from(usage.output_tokens.unwrap_or(0)),
    );
    map.push(
        "output_tokens_details",
        obj([(
            "reasoning_tokens",
            Value::from(usage.reasoning_tokens.unwrap_or(0)),
        )]),
    );
    let total = usage.clone().with_total().total_tokens.unwrap_or(0);
    map.push("total_tokens", Value::from(total));
    Value::Object(map)
}
