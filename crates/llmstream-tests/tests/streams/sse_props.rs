//! Property tests of the SSE decoder and encoder:
//! - decoding generated streams (mixed line endings, BOMs, invalid UTF-8,
//!   every field) agrees with a direct transcription of the standard, and
//!   does not depend on how the input is cut into pieces;
//! - decode(encode(items)) == items.

use llmstream::sse::{decode, encode, Decoder, Event, Item, Limits};
use proptest::prelude::*;

/// The standard read literally, on the whole stream at once: decode, strip
/// one BOM, split lines, interpret. Slow and obviously right.
fn reference(stream: &[u8]) -> Vec<Item> {
    let text = String::from_utf8_lossy(stream);
    let mut text: &str = &text;
    if let Some(rest) = text.strip_prefix('\u{FEFF}') {
        text = rest;
    }
    let mut lines = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(['\r', '\n']) {
        lines.push(&rest[..at]);
        rest = if rest[at..].starts_with("\r\n") {
            &rest[at + 2..]
        } else {
            &rest[at + 1..]
        };
    }
    // `rest` is an unfinished line: discarded.
    let (mut data, mut event_type, mut id) = (String::new(), String::new(), String::new());
    let mut items = Vec::new();
    for line in lines {
        if line.is_empty() {
            if data.is_empty() {
                event_type.clear();
                continue;
            }
            data.pop();
            items.push(Item::Event(Event {
                event_type: if event_type.is_empty() {
                    "message".into()
                } else {
                    event_type.clone()
                },
                data: std::mem::take(&mut data),
                last_event_id: id.clone(),
            }));
            event_type.clear();
        } else if let Some(comment) = line.strip_prefix(':') {
            items.push(Item::Comment(comment.into()));
        } else {
            let (name, value) = match line.split_once(':') {
                Some((name, value)) => (name, value.strip_prefix(' ').unwrap_or(value)),
                None => (line, ""),
            };
            match name {
                "event" => event_type = value.into(),
                "data" => {
                    data.push_str(value);
                    data.push('\n');
                }
                "id" if !value.contains('\0') => id = value.into(),
                "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                    items.push(Item::Retry(value.parse().unwrap_or(u64::MAX)))
                }
                _ => {}
            }
        }
    }
    items
}

/// The items of `pieces` through `feed` and `next`; the same must come
/// out of `decode`, read in place (checked here).
fn decode_pieces(pieces: &[&[u8]]) -> Vec<Item> {
    let mut decoder = Decoder::with_limits(Limits::default());
    let mut items = Vec::new();
    for piece in pieces {
        decoder.feed(piece);
        while let Some(item) = decoder.next_event() {
            items.push(item.expect("no limit is reached").to_item());
        }
    }
    decoder.finish().expect("no limit is reached");
    let mut in_place = Decoder::with_limits(Limits::default());
    let mut again = Vec::new();
    for piece in pieces {
        let mut decode = in_place.feed_borrowed(piece);
        while let Some(item) = decode.next_event() {
            again.push(item.expect("no limit is reached").to_item());
        }
    }
    in_place.finish().expect("no limit is reached");
    assert_eq!(again, items, "decode differs from feed");
    items
}

/// Cuts `input` at the given (unsorted, possibly repeated) positions.
fn cut<'a>(input: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (input.len() + 1)).collect();
    cuts.sort_unstable();
    let mut pieces = Vec::new();
    let mut start = 0;
    for c in cuts {
        pieces.push(&input[start..c]);
        start = c;
    }
    pieces.push(&input[start..]);
    pieces
}

/// Streams built from the pieces that matter to the standard.
fn stream() -> impl Strategy<Value = Vec<u8>> {
    let token = prop_oneof![
        Just(&b"data"[..]),
        Just(&b"data:"[..]),
        Just(&b"data: "[..]),
        Just(&b"event:"[..]),
        Just(&b"event: "[..]),
        Just(&b"id:"[..]),
        Just(&b"id: "[..]),
        Just(&b"retry:"[..]),
        Just(&b"retry: "[..]),
        Just(&b"Data:"[..]),
        Just(&b":"[..]),
        Just(&b" "[..]),
        Just(&b"\t"[..]),
        Just(&b"\n"[..]),
        Just(&b"\r"[..]),
        Just(&b"\r\n"[..]),
        Just(&b"\n\n"[..]),
        Just(&b"\r\n\r\n"[..]),
        Just(&b"\0"[..]),
        Just(&b"+"[..]),
        Just(&b"0"[..]),
        Just(&b"123"[..]),
        Just(&b"x"[..]),
        Just(&b"{\"a\":[1,2]}"[..]),
        Just("é😀".as_bytes()),
        Just(&b"\xEF\xBB\xBF"[..]),
        Just(&b"\xFF"[..]),
        Just(&b"\xF0\x9F"[..]),
        Just(&b"\xE2\x82"[..]),
        Just(&b"\xC0"[..]),
    ];
    prop::collection::vec(token, 0..60).prop_map(|tokens| tokens.concat())
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("a"),
            Just(" "),
            Just(":"),
            Just("\n"),
            Just("\r"),
            Just("\r\n"),
            Just("é"),
            Just("😀"),
            Just("data: x"),
            Just("\u{FEFF}"),
            Just("\u{FFFD}"),
        ],
        0..12,
    )
    .prop_map(|parts| parts.concat())
}

fn one_line() -> impl Strategy<Value = String> {
    text().prop_map(|t| t.replace(['\r', '\n'], ""))
}

fn item() -> impl Strategy<Value = Item> {
    prop_oneof![
        (
            one_line(),
            text(),
            prop_oneof![Just(String::new()), Just("7".to_string()), one_line()]
        )
            .prop_map(|(event_type, data, last_event_id)| {
                Item::Event(Event {
                    event_type: if event_type.is_empty() {
                        "message".into()
                    } else {
                        event_type
                    },
                    data,
                    last_event_id,
                })
            }),
        any::<u64>().prop_map(Item::Retry),
        one_line().prop_map(Item::Comment),
    ]
}

/// What decoding gives back for an item: line breaks in data become LF.
fn normalized(item: &Item) -> Item {
    match item {
        Item::Event(e) => Item::Event(Event {
            data: e.data.replace("\r\n", "\n").replace('\r', "\n"),
            ..e.clone()
        }),
        other => other.clone(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn decoding_follows_the_standard_however_the_stream_is_cut(
        input in stream(),
        cuts in prop::collection::vec(any::<usize>(), 0..12),
    ) {
        let expected = reference(&input);
        prop_assert_eq!(&decode(&input).expect("no limit is reached"), &expected);
        prop_assert_eq!(&decode_pieces(&cut(&input, &cuts)), &expected);
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        prop_assert_eq!(&decode_pieces(&bytes), &expected);
    }

    #[test]
    fn decode_of_encode_gives_the_items_back(
        items in prop::collection::vec(item(), 0..12),
        cuts in prop::collection::vec(any::<usize>(), 0..8),
    ) {
        let bytes = encode(&items).expect("generated items are encodable");
        let expected: Vec<Item> = items.iter().map(normalized).collect();
        prop_assert_eq!(&decode(&bytes).expect("no limit is reached"), &expected);
        prop_assert_eq!(&decode_pieces(&cut(&bytes, &cuts)), &expected);
    }
}

#[test]
fn encoder_refuses_what_no_stream_decodes_to() {
    use llmstream::sse::{EncodeError, Encoder};
    let mut out = Vec::new();
    let mut encoder = Encoder::new();
    let mut event = Event::message("x");
    event.event_type = "a\nb".into();
    assert_eq!(
        encoder.encode_event(&event, &mut out),
        Err(EncodeError::LineBreakInEventType)
    );
    event.event_type = "message".into();
    event.last_event_id = "a\rb".into();
    assert_eq!(
        encoder.encode_event(&event, &mut out),
        Err(EncodeError::LineBreakInId)
    );
    event.last_event_id = "a\0b".into();
    assert_eq!(
        encoder.encode_event(&event, &mut out),
        Err(EncodeError::NulInId)
    );
    assert!(out.is_empty(), "nothing written on error");
}

#[test]
fn encoder_writes_the_usual_forms() {
    let items = [
        Item::Comment(" keep-alive".into()),
        Item::Retry(3000),
        Item::Event(Event::message("line 1\r\nline 2")),
        Item::Event(Event {
            event_type: "done".into(),
            data: "".into(),
            last_event_id: "1".into(),
        }),
        Item::Event(Event::message("x")),
    ];
    let bytes = encode(&items).unwrap();
    assert_eq!(
        String::from_utf8(bytes).unwrap(),
        ": keep-alive\nretry: 3000\ndata: line 1\ndata: line 2\n\nevent: done\nid: 1\ndata:\n\nid:\ndata: x\n\n"
    );
}
