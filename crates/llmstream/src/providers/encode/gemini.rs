//! Gemini `streamGenerateContent?alt=sse`: one `GenerateContentResponse`
//! per delta, its text in a candidate's parts (reasoning as parts with
//! `thought: true`), a function call as one whole part when its arguments
//! are complete (Gemini does not stream them), the finish reasons and
//! `usageMetadata` on a last chunk. No terminator.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::citation::gemini_member;
use super::wire::{obj, Sink};
use super::LossKind;
use crate::json::{Map, Value};
use crate::providers::{PartKind, Provider, StreamEvent, Usage};

#[derive(Debug, Default)]
pub(super) struct Gemini {
    /// Tool calls by (choice, key): id, name, signature.
    calls: BTreeMap<(u64, u64), (String, String, Option<String>)>,
    /// Finish reasons waiting for the last chunk, by choice.
    finishes: BTreeMap<u64, String>,
    usage: Option<Usage>,
}

impl Gemini {
    pub(super) fn event(&mut self, event: &StreamEvent, sink: &mut Sink) {
        match event {
            StreamEvent::TextDelta { choice, text } => {
                self.part(*choice, obj([("text", Value::from(text.as_str()))]), sink)
            }
            StreamEvent::RefusalDelta { choice, text } => {
                sink.loss(LossKind::RefusalAsText, Some(*choice));
                self.part(*choice, obj([("text", Value::from(text.as_str()))]), sink)
            }
            StreamEvent::ReasoningDelta { choice, text } => self.part(
                *choice,
                obj([
                    ("text", Value::from(text.as_str())),
                    ("thought", Value::from(true)),
                ]),
                sink,
            ),
            StreamEvent::ReasoningSignature {
                choice, signature, ..
            } => self.part(
                *choice,
                obj([
                    ("text", Value::from("")),
                    ("thought", Value::from(true)),
                    ("thoughtSignature", Value::from(signature.as_str())),
                ]),
                sink,
            ),
            StreamEvent::ToolCallStart {
                choice,
                call,
                id,
                name,
                ..
            } => {
                self.calls
                    .insert((*choice, *call), (id.clone(), name.clone(), None));
            }
            StreamEvent::ToolCallIdentity {
                choice,
                call,
                id,
                name,
            } => {
                if let Some(known) = self.calls.get_mut(&(*choice, *call)) {
                    if let (true, Some(id)) = (known.0.is_empty(), id) {
                        known.0.clone_from(id);
                    }
                    if let (true, Some(name)) = (known.1.is_empty(), name) {
                        known.1.clone_from(name);
                    }
                }
            }
            StreamEvent::ToolCallSignature {
                choice,
                call,
                signature,
            } => {
                if let Some(known) = self.calls.get_mut(&(*choice, *call)) {
                    known.2 = Some(signature.clone());
                }
            }
            StreamEvent::ToolCallEnd {
                choice,
                call,
                arguments,
                ..
            } => {
                let Some((id, name, signature)) = self.calls.get(&(*choice, *call)).cloned() else {
                    return;
                };
                let args = match arguments {
                    Value::Object(_) => arguments.clone(),
                    other => {
                        sink.loss(LossKind::NonObjectArguments, Some(*choice));
                        obj([("value", other.clone())])
                    }
                };
                let mut function = Map::new();
                if !id.is_empty() {
                    function.push("id", Value::from(id));
                }
                function.push("name", Value::from(name));
                function.push("args", args);
                let mut part = Map::new();
                part.push("functionCall", Value::Object(function));
                if let Some(signature) = signature {
                    part.push("thoughtSignature", Value::from(signature));
                }
                self.part(*choice, Value::Object(part), sink);
            }
            StreamEvent::Finish {
                choice,
                reason,
                normalized,
            } => {
                let reason = sink.finish_reason(reason, *normalized);
                self.finishes.insert(*choice, reason);
            }
            StreamEvent::Usage(usage) => self.usage = Some(usage.clone()),
            StreamEvent::Error(error) => {
                let body = obj([
                    ("code", Value::from(500u64)),
                    ("message", Value::from(error.message.as_str())),
                    (
                        "status",
                        Value::from(error.kind.as_deref().unwrap_or("INTERNAL")),
                    ),
                ]);
                sink.event(None, &obj([("error", body)]));
            }
            StreamEvent::Citation {
                choice, citation, ..
            }
            | StreamEvent::CitationReplace {
                choice, citation, ..
            } => self.citation(*choice, citation, sink),
            StreamEvent::Logprobs {
                choice,
                part,
                logprobs,
            } => self.logprobs(*choice, *part, logprobs, sink),
            other => sink.lose(other),
        }
    }

    pub(super) fn finish(&mut self, sink: &mut Sink) {
        if self.finishes.is_empty() && self.usage.is_none() {
            return;
        }
        let candidates: Vec<Value> = core::mem::take(&mut self.finishes)
            .into_iter()
            .map(|(choice, reason)| {
                obj([
                    (
                        "content",
                        obj([
                            ("parts", Value::Array(vec![])),
                            ("role", Value::from("model")),
                        ]),
                    ),
                    ("finishReason", Value::from(reason)),
                    ("index", Value::from(choice)),
                ])
            })
            .collect();
        let mut chunk = Map::new();
        if !candidates.is_empty() {
            chunk.push("candidates", Value::Array(candidates));
        }
        if let Some(usage) = self.usage.take() {
            chunk.push("usageMetadata", usage_value(&usage));
        }
        envelope(sink, &mut chunk);
        sink.event(None, &Value::Object(chunk));
    }

    /// A citation from Gemini, as the candidate member it came in (a
    /// fuller copy too: the reader replaces its grounding and merges its
    /// URL context as the source's did); the reader places it by the
    /// same rules on the same text. Other wires' citations have none of
    /// Gemini's forms: a loss.
    fn citation(&self, choice: u64, citation: &Value, sink: &mut Sink) {
        let member = match sink.source {
            Some(Provider::Gemini) => gemini_member(citation),
            _ => None,
        };
        match member {
            Some((name, value)) => self.candidate(choice, name, value, sink),
            None => sink.loss(LossKind::Citation, Some(choice)),
        }
    }

    /// Log probabilities from Gemini of the latest text part, as a
    /// `logprobsResult` (each step's chosen token, and its top candidates
    /// when every step has them). Other wires' items lack the token ids:
    /// a loss.
    fn logprobs(&self, choice: u64, part: usize, items: &[Value], sink: &mut Sink) {
        let text = sink.shape.latest(choice, part) == Some(PartKind::Text);
        let result = match (sink.source, text) {
            (Some(Provider::Gemini), true) => logprobs_result(items),
            _ => None,
        };
        match result {
            Some(result) => self.candidate(choice, "logprobsResult", result, sink),
            None => sink.loss(LossKind::Logprobs, Some(choice)),
        }
    }

    /// A chunk whose candidate has no parts, and the member `name`.
    fn candidate(&self, choice: u64, name: &str, value: Value, sink: &mut Sink) {
        let mut candidate = Map::new();
        candidate.push("index", Value::from(choice));
        candidate.push(name, value);
        let mut chunk = Map::new();
        chunk.push("candidates", Value::Array(vec![Value::Object(candidate)]));
        envelope(sink, &mut chunk);
        sink.event(None, &Value::Object(chunk));
    }

    /// A chunk with one part for one candidate.
    fn part(&self, choice: u64, part: Value, sink: &mut Sink) {
        let candidate = obj([
            (
                "content",
                obj([
                    ("parts", Value::Array(vec![part])),
                    ("role", Value::from("model")),
                ]),
            ),
            ("index", Value::from(choice)),
        ]);
        let mut chunk = Map::new();
        chunk.push("candidates", Value::Array(vec![candidate]));
        envelope(sink, &mut chunk);
        sink.event(None, &Value::Object(chunk));
    }
}

/// Gemini's `logprobsResult` for its reader's items (each step's chosen
/// token with its `topCandidates` list as a member): the steps as
/// `chosenCandidates`, their lists as `topCandidates[].candidates`, which
/// the reader pairs with the steps by position. `None` when only some
/// steps have a list that is not a leading run (no pairing says which).
fn logprobs_result(items: &[Value]) -> Option<Value> {
    let mut chosen = Vec::with_capacity(items.len());
    let mut top = Vec::new();
    for item in items {
        let mut step = item.clone();
        let list = step.as_object_mut().and_then(|m| m.remove("topCandidates"));
        match list {
            Some(list) if top.len() == chosen.len() => {
                top.push(obj([("candidates", list)]));
            }
            Some(_) => return None,
            None => {}
        }
        chosen.push(step);
    }
    let mut result = Map::new();
    if !top.is_empty() {
        result.push("topCandidates", Value::Array(top));
    }
    result.push("chosenCandidates", Value::Array(chosen));
    Some(Value::Object(result))
}

/// The members every chunk carries: the model and the response id.
fn envelope(sink: &Sink, chunk: &mut Map) {
    if let Some(model) = &sink.model {
        chunk.push("modelVersion", Value::from(model.as_str()));
    }
    if let Some(id) = &sink.id {
        chunk.push("responseId", Value::from(id.as_str()));
    }
}

/// Gemini's counts: `candidatesTokenCount` leaves out the thinking
/// tokens, which are `thoughtsTokenCount`.
fn usage_value(usage: &Usage) -> Value {
    let mut map = Map::new();
    if let Some(n) = usage.input_tokens {
        map.push("promptTokenCount", Value::from(n));
    }
    if let Some(n) = usage.output_tokens {
        let thoughts = usage.reasoning_tokens.unwrap_or(0);
        map.push(
            "candidatesTokenCount",
            Value::from(n.saturating_sub(thoughts)),
        );
    }
    if let Some(n) = usage.clone().with_total().total_tokens {
        map.push("totalTokenCount", Value::from(n));
    }
    if let Some(n) = usage.cached_input_tokens {
        map.push("cachedContentTokenCount", Value::from(n));
    }
    if let Some(n) = usage.reasoning_tokens {
        map.push("thoughtsTokenCount", Value::from(n));
    }
    Value::Object(map)
}
