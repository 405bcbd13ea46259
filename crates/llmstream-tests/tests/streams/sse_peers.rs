//! The inputs on which the widely used Rust SSE crates go wrong, decoded
//! right. eventsource-stream 0.2.3 (under async-openai and
//! reqwest-eventsource): panics on a leading BOM, holds a final CR until the
//! next chunk, loses retry-only blocks, accepts `retry: +1000`, stalls on
//! one bad UTF-8 byte, re-scans a long line on every chunk. sse-stream 0.3:
//! does not carry the last event ID across events, fails on invalid UTF-8.

use llmstream::sse::{decode, Decoder, Event, Item, ItemRef};

fn msg(data: &str) -> Item {
    Item::Event(Event::message(data))
}

#[test]
fn eventsource_stream_panics_on_a_leading_bom() {
    assert_eq!(decode(b"\xEF\xBB\xBFdata: x\n\n").unwrap(), [msg("x")]);
    let mut decoder = Decoder::new();
    for byte in b"\xEF\xBB\xBFdata: x\n\n" {
        decoder.feed(&[*byte]);
        while let Some(item) = decoder.next_event() {
            assert!(matches!(item, Ok(ItemRef::Event(e)) if e.data == "x"));
        }
    }
}

#[test]
fn eventsource_stream_holds_a_final_cr_until_the_next_chunk() {
    let mut decoder = Decoder::new();
    decoder.feed(b"data: x\r\r");
    match decoder.next_event() {
        Some(Ok(ItemRef::Event(e))) => assert_eq!(e.data, "x"),
        other => panic!("expected the event at once, got {other:?}"),
    }
}

#[test]
fn eventsource_stream_loses_retry_only_blocks() {
    assert_eq!(decode(b"retry: 1000\n\n").unwrap(), [Item::Retry(1000)]);
}

#[test]
fn eventsource_stream_accepts_retry_plus_1000() {
    assert_eq!(decode(b"retry: +1000\n\ndata: x\n\n").unwrap(), [msg("x")]);
}

#[test]
fn eventsource_stream_stalls_on_one_bad_utf8_byte() {
    let input = b"data: \xFF\n\ndata: after\n\n";
    assert_eq!(decode(input).unwrap(), [msg("\u{FFFD}"), msg("after")]);
    let mut decoder = Decoder::new();
    let mut got = Vec::new();
    for piece in input.chunks(3) {
        decoder.feed(piece);
        while let Some(item) = decoder.next_event() {
            got.push(item.unwrap().to_item());
        }
    }
    assert_eq!(got, [msg("\u{FFFD}"), msg("after")]);
}

#[test]
fn eventsource_stream_rescans_a_long_line_on_every_chunk() {
    // 8 MB in 1,024 chunks: correct here; that each byte is searched once
    // is checked by a counter in the unit tests, not by a clock.
    let mut input = b"data: ".to_vec();
    input.resize(8_000_000, b'y');
    input.extend_from_slice(b"\n\n");
    let mut decoder = Decoder::new();
    let mut lengths = Vec::new();
    for piece in input.chunks(input.len().div_ceil(1024)) {
        decoder.feed(piece);
        while let Some(item) = decoder.next_event() {
            if let ItemRef::Event(e) = item.unwrap() {
                lengths.push(e.data.len());
            }
        }
    }
    assert_eq!(lengths, [8_000_000 - 6]);
}

#[test]
fn sse_stream_forgets_the_last_event_id() {
    let items = decode(b"id: 5\ndata: a\n\ndata: b\n\n").unwrap();
    let ids: Vec<&str> = items
        .iter()
        .map(|i| match i {
            Item::Event(e) => e.last_event_id.as_str(),
            _ => "not an event",
        })
        .collect();
    assert_eq!(ids, ["5", "5"]);
}

#[test]
fn sse_stream_fails_on_invalid_utf8() {
    assert_eq!(
        decode(b"event: \xC3\ndata: \xC3(\n\n").unwrap(),
        [Item::Event(Event {
            event_type: "\u{FFFD}".into(),
            data: "\u{FFFD}(".into(),
            last_event_id: String::new(),
        })]
    );
}
