//! Citations carried from one wire's form to another's, where the meaning
//! carries: OpenAI Chat's and Responses' `url_citation` are one citation
//! (a URL, its title, the span of the answer it supports) in two shapes.
//! Chat's span is in characters of the choice's whole text, Responses' in
//! characters of one `output_text` part: moving between them shifts it by
//! the text before the part.
//!
//! Anthropic's `web_search_result_location` (a web page supporting the
//! text block it is in) and Gemini's grounding (web sources tied to byte
//! ranges of the answer by `groundingSupports`) are `url_citation`s too,
//! once the span they support is known: an Anthropic citation comes
//! before the end of its block, and Gemini sends its grounding again,
//! grown. They are [`Held`] until then. Every other form (Anthropic's
//! document locations and their `encrypted_index`, Gemini's recitation
//! sources and URL context, Responses' file citations) has no faithful
//! counterpart: a loss.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use crate::json::Value;
use crate::providers::Provider;

use super::wire::{obj, Shape};

/// The URL, title and span of a `url_citation`.
pub(super) struct Url<'a> {
    url: &'a str,
    title: &'a Value,
    start: u64,
    end: u64,
}

impl<'a> Url<'a> {
    /// From the members in `fields` (`url`, `title`, `start_index`,
    /// `end_index`).
    fn read(fields: &'a Value) -> Option<Self> {
        Some(Url {
            url: fields.get("url")?.as_str()?,
            title: fields.get("title").unwrap_or(&Value::Null),
            start: fields.get("start_index")?.as_u64()?,
            end: fields.get("end_index")?.as_u64()?,
        })
    }

    /// The same citation with its span moved to begin `by` characters
    /// earlier; `None` for a span that begins before that.
    fn back(self, by: u64) -> Option<Self> {
        Some(Url {
            start: self.start.checked_sub(by)?,
            end: self.end.checked_sub(by)?,
            ..self
        })
    }

    /// The same citation with its span moved `by` characters later.
    fn on(self, by: u64) -> Option<Self> {
        Some(Url {
            start: self.start.checked_add(by)?,
            end: self.end.checked_add(by)?,
            ..self
        })
    }

    /// As a Chat annotation: `{"type":"url_citation","url_citation":{…}}`.
    pub(super) fn chat(&self) -> Value {
        let fields = obj([
            ("end_index", Value::from(self.end)),
            ("start_index", Value::from(self.start)),
            ("title", self.title.clone()),
            ("url", Value::from(self.url)),
        ]);
        obj([
            ("type", Value::from("url_citation")),
            ("url_citation", fields),
        ])
    }

    /// As a Responses annotation: `{"type":"url_citation","url":…}`.
    pub(super) fn responses(&self) -> Value {
        obj([
            ("type", Value::from("url_citation")),
            ("start_index", Value::from(self.start)),
            ("end_index", Value::from(self.end)),
            ("url", Value::from(self.url)),
            ("title", self.title.clone()),
        ])
    }
}

/// A Chat annotation (`{"type":"url_citation","url_citation":{…}}`) as a
/// Responses annotation of the part that begins `part_start` characters
/// into the choice's text. `None` for another type, or a span that begins
/// before the part.
pub(super) fn chat_to_responses(citation: &Value, part_start: u64) -> Option<Value> {
    if citation.get("type")?.as_str()? != "url_citation" {
        return None;
    }
    let url = Url::read(citation.get("url_citation")?)?.back(part_start)?;
    Some(url.responses())
}

/// A Responses annotation (`{"type":"url_citation","url":…}`) of the part
/// that begins `part_start` characters into the choice's text, as a Chat
/// annotation. `None` for another type (file citations have no Chat form).
pub(super) fn responses_to_chat(citation: &Value, part_start: u64) -> Option<Value> {
    if citation.get("type")?.as_str()? != "url_citation" {
        return None;
    }
    let url = Url::read(citation)?.on(part_start)?;
    Some(url.chat())
}

/// A Gemini citation as kept by its reader (`{"groundingMetadata":…}`,
/// `{"citationSource":…}`, `{"urlContextMetadata":…}`) as the candidate
/// member that brings it back: its name and value.
pub(super) fn gemini_member(citation: &Value) -> Option<(&'static str, Value)> {
    if let Some(metadata) = citation.get("groundingMetadata") {
        return Some(("groundingMetadata", metadata.clone()));
    }
    if let Some(metadata) = citation.get("urlContextMetadata") {
        return Some(("urlContextMetadata", metadata.clone()));
    }
    let source = citation.get("citationSource")?;
    let list = Value::Array(alloc::vec![source.clone()]);
    Some(("citationMetadata", obj([("citationSources", list)])))
}

/// Whether a citation from `source` becomes OpenAI `url_citation`s once
/// the span it supports is known: Anthropic's web search results and
/// Gemini's grounding.
pub(super) fn holds(source: Option<Provider>, citation: &Value) -> bool {
    match source {
        Some(Provider::Anthropic) => {
            citation.get("type").and_then(Value::as_str) == Some("web_search_result_location")
        }
        Some(Provider::Gemini) => citation.get("groundingMetadata").is_some(),
        _ => false,
    }
}

/// A citation waiting for the span it supports to be known.
#[derive(Debug)]
pub(super) struct Held {
    pub(super) choice: u64,
    /// The position of the text part it came on.
    pub(super) part: usize,
    /// Its index among that part's citations (what a replacement names).
    index: usize,
    /// The latest copy.
    citation: Value,
}

/// The citations held, and how many citations each text part had.
#[derive(Debug, Default)]
pub(super) struct Holder {
    held: Vec<Held>,
    counts: BTreeMap<(u64, usize), usize>,
}

impl Holder {
    /// Counts a citation of `part` (every one, held or not, as the
    /// reader's list counts them): its index among the part's.
    pub(super) fn count(&mut self, choice: u64, part: usize) -> usize {
        let n = self.counts.entry((choice, part)).or_default();
        *n += 1;
        *n - 1
    }

    pub(super) fn hold(&mut self, choice: u64, part: usize, index: usize, citation: &Value) {
        self.held.push(Held {
            choice,
            part,
            index,
            citation: citation.clone(),
        });
    }

    /// Replaces the copy of a held citation by a fuller one; `false` when
    /// that citation is not held (never was, or already written).
    pub(super) fn replace(
        &mut self,
        choice: u64,
        part: usize,
        index: usize,
        citation: &Value,
    ) -> bool {
        let held = self
            .held
            .iter_mut()
            .find(|h| h.choice == choice && h.part == part && h.index == index);
        match held {
            Some(held) => {
                held.citation = citation.clone();
                true
            }
            None => false,
        }
    }

    /// The held citations for which `ready` says their span is known, in
    /// arrival order, no longer held.
    pub(super) fn take(&mut self, ready: impl Fn(&Held) -> bool) -> Vec<Held> {
        if self.held.is_empty() {
            return Vec::new();
        }
        let (taken, kept) = core::mem::take(&mut self.held).into_iter().partition(ready);
        self.held = kept;
        taken
    }
}

/// Where a target counts a `url_citation`'s span from.
#[derive(Clone, Copy)]
pub(super) enum Origin<'t> {
    /// The choice's whole text (Chat).
    Choice,
    /// The target's text part the citation was held on, whose text is
    /// this, the end of the choice's text so far (Responses).
    Part(&'t str),
}

/// The `url_citation`s of a held citation, its text now known, and
/// whether something of it has no place in them (said as a loss).
/// Anthropic's `web_search_result_location` supports its whole text
/// block: one `url_citation` of the block's span (its `cited_text`, the
/// source's words, and `encrypted_index` are left out). Gemini's grounding
/// gives one per support and web source it names (see [`grounding`]).
pub(super) fn urls<'a>(held: &'a Held, shape: &Shape, origin: Origin) -> (Vec<Url<'a>>, bool) {
    if let Some(metadata) = held.citation.get("groundingMetadata") {
        let text = shape.text_of(held.choice);
        let end = text.len() as u64;
        let within = match origin {
            Origin::Choice => (0, end),
            Origin::Part(part) if text.ends_with(part) => (end - part.len() as u64, end),
            Origin::Part(_) => return (Vec::new(), true),
        };
        return grounding(metadata, text, within);
    }
    let span = match origin {
        Origin::Choice => shape.span(held.choice, held.part),
        Origin::Part(part) => Some((0, part.chars().count() as u64)),
    };
    let url = held.citation.get("url").and_then(Value::as_str);
    match (url, span) {
        (Some(url), Some((start, end))) => {
            let title = held.citation.get("title").unwrap_or(&Value::Null);
            let url = Url {
                url,
                title,
                start,
                end,
            };
            (alloc::vec![url], false)
        }
        _ => (Vec::new(), true),
    }
}

/// Gemini's `groundingMetadata` as `url_citation`s: per support, in
/// order, one per `groundingChunkIndices` entry naming a `web` source
/// (`uri`, `title`), its span the support's `segment` (byte offsets into
/// the candidate's whole text, `startIndex` absent for 0) counted in
/// characters from `within.0`. A support whose segment is not within the
/// bytes `within` of `text`, not on character boundaries or not the
/// `text` it quotes, a source that is not `web`, and the members other
/// than the chunks and supports (the search queries, the search entry
/// point) are lost.
fn grounding<'a>(metadata: &'a Value, text: &str, within: (u64, u64)) -> (Vec<Url<'a>>, bool) {
    let mut lost = false;
    if let Some(members) = metadata.as_object() {
        lost |= members
            .keys()
            .any(|key| key != "groundingChunks" && key != "groundingSupports");
    }
    let chunks = metadata.get("groundingChunks").and_then(Value::as_array);
    let chunks = chunks.unwrap_or_default();
    let supports = metadata.get("groundingSupports").and_then(Value::as_array);
    let mut out = Vec::new();
    for support in supports.unwrap_or_default() {
        let indices = support
            .get("groundingChunkIndices")
            .and_then(Value::as_array);
        let indices = indices.unwrap_or_default();
        if indices.is_empty() {
            continue;
        }
        let Some((start, end)) = segment(support.get("segment"), text, within) else {
            lost = true;
            continue;
        };
        for index in indices {
            let web = index
                .as_u64()
                .and_then(|i| chunks.get(usize::try_from(i).ok()?))
                .and_then(|chunk| chunk.get("web"));
            let Some(url) = web.and_then(|w| w.get("uri")?.as_str()) else {
                lost = true;
                continue;
            };
            let title = web.and_then(|w| w.get("title")).unwrap_or(&Value::Null);
            out.push(Url {
                url,
                title,
                start,
                end,
            });
        }
    }
    (out, lost)
}

/// A grounding support's segment as characters from `within.0`, when it
/// lies within the bytes `within` of `text` on character boundaries and
/// is the text it quotes (when it quotes one).
fn segment(segment: Option<&Value>, text: &str, within: (u64, u64)) -> Option<(u64, u64)> {
    let segment = segment?;
    // Absent is 0 (proto3 leaves a zero out of the JSON).
    let start = segment.get("startIndex").map_or(Some(0), Value::as_u64)?;
    let end = segment.get("endIndex")?.as_u64()?;
    if start < within.0 || end < start || end > within.1 {
        return None;
    }
    let at = |n: u64| usize::try_from(n).ok();
    let before = text.get(at(within.0)?..at(start)?)?;
    let quoted = text.get(at(start)?..at(end)?)?;
    if let Some(said) = segment.get("text") {
        if said.as_str()? != quoted {
            return None;
        }
    }
    let start = before.chars().count() as u64;
    Some((start, start + quoted.chars().count() as u64))
}
