//! OpenAI Chat Completions: one `chat.completion.chunk` per delta, tool
//! calls by their index in the choice, reasoning as `reasoning_content`
//! (as DeepSeek and most compatible servers write it), the finish reason
//! on a chunk of its own, the usage on a last chunk with no choices, then
//! `data: [DONE]`.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::vec;
use alloc::vec::Vec;

use super::citation::{holds, responses_to_chat, urls, Held, Holder, Origin};
use super::wire::{count, obj, whole_arguments, Sink};
use super::LossKind;
use crate::json::Value;
use crate::providers::{PartKind, Provider, StreamEvent, Usage};

#[derive(Debug, Default)]
pub(super) struct Chat {
    /// The choices whose role was sent.
    roles: BTreeSet<u64>,
    /// (choice, call key) → the call's index in its choice, and whether
    /// argument text was sent for it.
    calls: BTreeMap<(u64, u64), (u64, bool)>,
    usage: Option<Usage>,
    complete: bool,
    /// Anthropic's and Gemini's citations, until their span is known.
    held: Holder,
}

impl Chat {
    pub(super) fn event(&mut self, event: &StreamEvent, sink: &mut Sink) {
        // An Anthropic citation's text block ends when another part
        // begins (Gemini's grounding waits for its choice's finish).
        if sink.source == Some(Provider::Anthropic) {
            let shape = &sink.shape;
            let ended = self
                .held
                .take(|h| shape.latest(h.choice, h.part) != Some(PartKind::Text));
            self.write_held(ended, sink);
        }
        match event {
            StreamEvent::Role { choice, .. } => self.role(*choice, sink),
            StreamEvent::TextDelta { choice, text } => self.delta(*choice, "content", text, sink),
            StreamEvent::ReasoningDelta { choice, text } => {
                self.delta(*choice, "reasoning_content", text, sink)
            }
            StreamEvent::RefusalDelta { choice, text } => {
                self.delta(*choice, "refusal", text, sink)
            }
            StreamEvent::ToolCallStart {
                choice,
                call,
                id,
                name,
                ..
            } => {
                let index = self.calls.range((*choice, 0)..=(*choice, u64::MAX)).count() as u64;
                self.calls.insert((*choice, *call), (index, false));
                let call = obj([
                    ("index", Value::from(index)),
                    ("id", Value::from(id.as_str())),
                    ("type", Value::from("function")),
                    (
                        "function",
                        obj([
                            ("name", Value::from(name.as_str())),
                            ("arguments", Value::from("")),
                        ]),
                    ),
                ]);
                self.tool_calls(*choice, call, sink);
            }
            StreamEvent::ToolCallIdentity {
                choice,
                call,
                id,
                name,
            } => {
                if let Some(&(index, _)) = self.calls.get(&(*choice, *call)) {
                    let mut function = crate::json::Map::new();
                    if let Some(name) = name {
                        function.push("name", Value::from(name.as_str()));
                    }
                    let mut member = crate::json::Map::new();
                    member.push("index", Value::from(index));
                    if let Some(id) = id {
                        member.push("id", Value::from(id.as_str()));
                    }
                    member.push("function", Value::Object(function));
                    self.tool_calls(*choice, Value::Object(member), sink);
                }
            }
            StreamEvent::ToolCallDelta {
                choice,
                call,
                fragment,
            } => self.arguments(*choice, *call, fragment, sink),
            StreamEvent::ToolCallEnd {
                choice,
                call,
                arguments,
                ..
            } => {
                if let Some(&(_, false)) = self.calls.get(&(*choice, *call)) {
                    // No fragments came (Gemini sends arguments whole).
                    let text = whole_arguments(arguments);
                    self.arguments(*choice, *call, &text, sink);
                }
            }
            StreamEvent::Finish {
                choice,
                reason,
                normalized,
            } => {
                let held = self.held.take(|h| h.choice == *choice);
                self.write_held(held, sink);
                let reason = sink.finish_reason(reason, *normalized);
                self.chunk(*choice, obj([]), Value::from(reason), sink);
            }
            StreamEvent::Usage(usage) => self.usage = Some(usage.clone()),
            StreamEvent::Error(error) => {
                let body = obj([
                    ("message", Value::from(error.message.as_str())),
                    (
                        "type",
                        error.kind.as_deref().map_or(Value::Null, Value::from),
                    ),
                ]);
                sink.event(None, &obj([("error", body)]));
            }
            StreamEvent::Citation {
                choice,
                part,
                citation,
            } => self.citation(*choice, *part, citation, sink),
            StreamEvent::CitationReplace {
                choice,
                part,
                index,
                citation,
            } => {
                if !self.held.replace(*choice, *part, *index, citation) {
                    sink.loss(LossKind::Citation, Some(*choice));
                }
            }
            StreamEvent::Logprobs {
                choice,
                part,
                logprobs,
            } => self.logprobs(*choice, *part, logprobs, sink),
            StreamEvent::Complete => self.complete = true,
            other => sink.lose(other),
        }
    }

    pub(super) fn finish(&mut self, sink: &mut Sink) {
        let held = self.held.take(|_| true);
        self.write_held(held, sink);
        if let Some(usage) = self.usage.take() {
            let mut chunk = envelope(sink, Value::Array(vec![]));
            if let Value::Object(map) = &mut chunk {
                map.push("usage", usage_value(&usage));
            }
            sink.event(None, &chunk);
        }
        if self.complete {
            sink.done();
        }
    }

    /// The role delta that opens a choice (once).
    fn role(&mut self, choice: u64, sink: &mut Sink) {
        if self.roles.insert(choice) {
            let delta = obj([("role", Value::from("assistant"))]);
            self.chunk(choice, delta, Value::Null, sink);
        }
    }

    fn delta(&mut self, choice: u64, field: &str, text: &str, sink: &mut Sink) {
        self.role(choice, sink);
        self.chunk(choice, obj([(field, Value::from(text))]), Value::Null, sink);
    }

    fn tool_calls(&mut self, choice: u64, call: Value, sink: &mut Sink) {
        self.role(choice, sink);
        let delta = obj([("tool_calls", Value::Array(vec![call]))]);
        self.chunk(choice, delta, Value::Null, sink);
    }

    fn arguments(&mut self, choice: u64, call: u64, text: &str, sink: &mut Sink) {
        let Some((index, sent)) = self.calls.get_mut(&(choice, call)) else {
            return;
        };
        *sent = true;
        let index = *index;
        let call = obj([
            ("index", Value::from(index)),
            ("function", obj([("arguments", Value::from(text))])),
        ]);
        self.tool_calls(choice, call, sink);
    }

    /// A citation as `delta.annotations`: the reader puts it on the
    /// choice's latest text part, as it put the source's. From Chat, as
    /// it came (Perplexity's top-level list too); from Responses, a
    /// `url_citation` with its span moved into the choice's text; from
    /// Anthropic (a web search result of the latest part) and Gemini
    /// (grounding), held until the span is known (the part ends; the
    /// choice finishes); else a loss.
    fn citation(&mut self, choice: u64, part: usize, citation: &Value, sink: &mut Sink) {
        let index = self.held.count(choice, part);
        if holds(sink.source, citation) {
            // Gemini's offsets are into the whole text, whatever part.
            let gemini = sink.source == Some(Provider::Gemini);
            if gemini || sink.shape.latest(choice, part) == Some(PartKind::Text) {
                self.held.hold(choice, part, index, citation);
                return;
            }
        }
        let annotation = match sink.source {
            Some(Provider::OpenAiChat) => Some(citation.clone()),
            Some(Provider::OpenAiResponses)
                if sink.shape.latest(choice, part) == Some(PartKind::Text) =>
            {
                responses_to_chat(citation, sink.shape.text_start(choice))
            }
            _ => None,
        };
        let Some(annotation) = annotation else {
            sink.loss(LossKind::Citation, Some(choice));
            return;
        };
        self.role(choice, sink);
        let delta = obj([("annotations", Value::Array(vec![annotation]))]);
        self.chunk(choice, delta, Value::Null, sink);
    }

    /// The held citations `held`, their span now known, as one
    /// `delta.annotations` each (what has no place in them a loss).
    fn write_held(&mut self, held: Vec<Held>, sink: &mut Sink) {
        for held in held {
            let (found, lost) = urls(&held, &sink.shape, Origin::Choice);
            let annotations: Vec<Value> = found.iter().map(|url| url.chat()).collect();
            if lost {
                sink.loss(LossKind::Citation, Some(held.choice));
            }
            if annotations.is_empty() {
                continue;
            }
            self.role(held.choice, sink);
            let delta = obj([("annotations", Value::Array(annotations))]);
            self.chunk(held.choice, delta, Value::Null, sink);
        }
    }

    /// Log probabilities of the latest part, in a chunk of their own
    /// (`logprobs.content`, or `logprobs.refusal` for a refusal from
    /// Chat). Responses' items have Chat's shape; Gemini's steps do not
    /// (no `bytes`, a `tokenId`): a loss, as a part that is not the
    /// latest.
    fn logprobs(&mut self, choice: u64, part: usize, items: &[Value], sink: &mut Sink) {
        let member = match (sink.source, sink.shape.latest(choice, part)) {
            (Some(Provider::OpenAiChat | Provider::OpenAiResponses), Some(PartKind::Text)) => {
                "content"
            }
            (Some(Provider::OpenAiChat), Some(PartKind::Refusal)) => "refusal",
            _ => {
                sink.loss(LossKind::Logprobs, Some(choice));
                return;
            }
        };
        self.role(choice, sink);
        let logprobs = obj([(member, Value::Array(items.to_vec()))]);
        let choice = obj([
            ("index", Value::from(choice)),
            ("delta", obj([])),
            ("logprobs", logprobs),
            ("finish_reason", Value::Null),
        ]);
        let chunk = envelope(sink, Value::Array(vec![choice]));
        sink.event(None, &chunk);
    }

    /// A chunk with one choice.
    fn chunk(&self, choice: u64, delta: Value, finish: Value, sink: &mut Sink) {
        let choice = obj([
            ("index", Value::from(choice)),
            ("delta", delta),
            ("finish_reason", finish),
        ]);
        let chunk = envelope(sink, Value::Array(vec![choice]));
        sink.event(None, &chunk);
    }
}

/// A chunk around `choices`.
fn envelope(sink: &Sink, choices: Value) -> Value {
    obj([
        (
            "id",
            Value::from(sink.id.as_deref().unwrap_or("chatcmpl-llmstream")),
        ),
        ("object", Value::from("chat.completion.chunk")),
        ("created", Value::from(0u64)),
        ("model", Value::from(sink.model.as_deref().unwrap_or(""))),
        ("choices", choices),
    ])
}

/// The usage of a Chat chunk: every prompt and generated token, with the
/// cached and reasoning counts in their details.
fn usage_value(usage: &Usage) -> Value {
    let mut map = crate::json::Map::new();
    map.push("prompt_tokens", count(usage.input_tokens));
    map.push("completion_tokens", count(usage.output_tokens));
    map.push(
        "total_tokens",
        count(usage.clone().with_total().total_tokens),
    );
    if let Some(n) = usage.cached_input_tokens {
        map.push(
            "prompt_tokens_details",
            obj([("cached_tokens", Value::from(n))]),
        );
    }
    if let Some(n) = usage.reasoning_tokens {
        map.push(
            "completion_tokens_details",
            obj([("reasoning_tokens", Value::from(n))]),
        );
    }
    Value::Object(map)
}
