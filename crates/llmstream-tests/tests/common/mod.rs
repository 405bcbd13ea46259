//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod providers;
pub mod recordings;

// Each test binary uses a part of these.
#[allow(unused_imports)]
pub use llmstream_tests::{fixtures, random_pieces, Cutting, Rng};

use llmstream::json::{Error, Event, OwnedEvent, Parser, Value};

/// Feeds a piece through the lending variant, handing each event to
/// `on_event` (what a test that watches events as they come wants).
pub fn feed_with(
    parser: &mut Parser,
    piece: &[u8],
    mut on_event: impl FnMut(Event<'_>),
) -> Result<(), Error> {
    let mut feed = parser.feed_borrowed(piece);
    while let Some(event) = feed.next_event() {
        on_event(event?);
    }
    Ok(())
}

/// Ends the input through the lending variant, handing each last event to
/// `on_event`.
pub fn finish_with(parser: &mut Parser, mut on_event: impl FnMut(Event<'_>)) -> Result<(), Error> {
    let mut feed = parser.finish_borrowed();
    while let Some(event) = feed.next_event() {
        on_event(event?);
    }
    Ok(())
}

/// Parses a document fed in these pieces (strict options).
pub fn parse_pieces(pieces: &[&[u8]]) -> Result<Option<Value>, Error> {
    let mut parser = Parser::new();
    for piece in pieces {
        parser.feed(piece)?;
    }
    parser.finish()?;
    Ok(parser.into_value())
}

/// Every event of a document fed in these pieces.
pub fn events_of(parser: &mut Parser, pieces: &[&[u8]]) -> Result<Vec<OwnedEvent>, Error> {
    let mut out = Vec::new();
    for piece in pieces {
        feed_with(parser, piece, |e| out.push(e.to_owned()))?;
    }
    finish_with(parser, |e| out.push(e.to_owned()))?;
    Ok(out)
}

/// Our value as serde_json's, through its compact text.
pub fn to_serde(value: &Value) -> serde_json::Value {
    serde_json::from_str(&value.to_json()).expect("our output is valid JSON")
}

/// Proptest settings for `cases` cases that write no regression files.
pub fn config(cases: u32) -> proptest::test_runner::Config {
    proptest::test_runner::Config {
        cases,
        failure_persistence: None,
        ..proptest::test_runner::Config::default()
    }
}

/// A JSON string literal of these characters, each written as `\uXXXX`
/// escapes (a surrogate pair above U+FFFF) when its flag is set, else
/// escaped only where JSON requires it.
pub fn json_string_literal(chars: &[(char, bool)]) -> String {
    let mut json = String::from("\"");
    for &(c, escape) in chars {
        if escape {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                json.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            match c {
                '"' => json.push_str("\\\""),
                '\\' => json.push_str("\\\\"),
                c if (c as u32) < 0x20 => json.push_str(&format!("\\u{:04x}", c as u32)),
                c => json.push(c),
            }
        }
    }
    json.push('"');
    json
}

/// A string member whose events cost past the tools' argument allowance,
/// cut short: `(key, head, text)`. `head` opens the string under a 200 kB
/// key (each delta's path copies the key, so its deltas soon merge and some
/// of its text is held back); `text` is the string's text, to be fed a
/// character at a time and never closed.
pub fn string_past_the_allowance() -> (String, String, String) {
    let key = "k".repeat(200_000);
    let head = format!("\"{key}\":\"");
    let text = (0..20_000)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    (key, head, text)
}

/// Feeds one snapshot's JSON text to a chunker: the chunks it queued.
pub fn chunks_of(
    chunker: &mut llmstream::chunker::SnapshotChunker,
    text: &str,
) -> Result<Vec<String>, llmstream::chunker::ChunkError> {
    chunker.feed_text(text)?;
    Ok(std::iter::from_fn(|| chunker.next_event()).collect())
}

/// Finishes a chunker's document: the closing chunks it queued.
pub fn closing_chunks(chunker: &mut llmstream::chunker::SnapshotChunker) -> Vec<String> {
    chunker.finish().expect("finishing a chunker never fails");
    std::iter::from_fn(|| chunker.next_event()).collect()
}

/// Feeds one snapshot to a chunker: the chunks it queued.
pub fn chunks_of_value(
    chunker: &mut llmstream::chunker::SnapshotChunker,
    snapshot: &Value,
) -> Result<Vec<String>, llmstream::chunker::ChunkError> {
    chunker.feed(snapshot)?;
    Ok(std::iter::from_fn(|| chunker.next_event()).collect())
}
