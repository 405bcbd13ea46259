//! Citations carried from one wire's form to another's, where the meaning
//! carries: OpenAI Chat's and Responses' `url_citation` are one citation
//! (a URL, its title, the span of the answer it supports) in two shapes.
//! Chat's span is in characters of the choice's whole text, Responses' in
//! characters of one `output_text` part: moving between them shifts it by
//! the text before the part. Every other form (Anthropic's locations and
//! their `encrypted_index`, Gemini's grounding and recitation metadata,
//! Responses' file citations) has no faithful counterpart: a loss.

use crate::json::Value;

use super::wire::obj;

/// The URL, title and span of a `url_citation` whose members are in
/// `fields`.
struct Url<'a> {
    url: &'a str,
    title: &'a Value,
    start: u64,
    end: u64,
}

impl<'a> Url<'a> {
    fn read(fields: &'a Value) -> Option<Self> {
        Some(Url {
            url: fields.get("url")?.as_str()?,
            title: fields.get("title").unwrap_or(&Value::Null),
            start: fields.get("start_index")?.as_u64()?,
            end: fields.get("end_index")?.as_u64()?,
        })
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
    let url = Url::read(citation.get("url_citation")?)?;
    Some(obj([
        ("type", Value::from("url_citation")),
        (
            "start_index",
            Value::from(url.start.checked_sub(part_start)?),
        ),
        ("end_index", Value::from(url.end.checked_sub(part_start)?)),
        ("url", Value::from(url.url)),
        ("title", url.title.clone()),
    ]))
}

/// A Responses annotation (`{"type":"url_citation","url":…}`) of the part
/// that begins `part_start` characters into the choice's text, as a Chat
/// annotation. `None` for another type (file citations have no Chat form).
pub(super) fn responses_to_chat(citation: &Value, part_start: u64) -> Option<Value> {
    if citation.get("type")?.as_str()? != "url_citation" {
        return None;
    }
    let url = Url::read(citation)?;
    let fields = obj([
        ("end_index", Value::from(url.end.checked_add(part_start)?)),
        (
            "start_index",
            Value::from(url.start.checked_add(part_start)?),
        ),
        ("title", url.title.clone()),
        ("url", Value::from(url.url)),
    ]);
    Some(obj([
        ("type", Value::from("url_citation")),
        ("url_citation", fields),
    ]))
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
