//! One test per edge case of the incremental JSON parser, named after it:
//! the contracts and the snapshot policy of docs/ARCHITECTURE.md ("json: the
//! incremental parser") and its edge cases.

use crate::common::{events_of, random_pieces};
use llmstream::json::{
    self, Error, ErrorKind, EventKind, Expected, Limits, Options, OwnedEvent, OwnedEventKind,
    Parser, PathBuf, Value,
};

// ----- helpers -----

/// Feeds `pieces` (no end of input) and returns the parser.
fn fed(options: Options, pieces: &[&[u8]]) -> Parser {
    let mut parser = Parser::with_options(options);
    for piece in pieces {
        parser
            .feed(piece)
            .unwrap_or_else(|e| panic!("piece {:?} rejected: {e}", String::from_utf8_lossy(piece)));
    }
    parser
}

/// The snapshot, as compact JSON, after feeding `text` in one piece without
/// ending the input.
fn snapshot_after(text: &str) -> Option<String> {
    fed(Options::new(), &[text.as_bytes()])
        .snapshot()
        .map(Value::to_json)
}

/// The snapshot after each piece, as compact JSON.
fn snapshots(options: Options, pieces: &[&[u8]]) -> Vec<Option<String>> {
    let mut parser = Parser::with_options(options);
    pieces
        .iter()
        .map(|piece| {
            parser.feed(piece).expect("piece accepted");
            parser.snapshot().map(Value::to_json)
        })
        .collect()
}

/// The whole value of `pieces` (strict by default), ended.
fn value_of(options: Options, pieces: &[&[u8]]) -> Value {
    let mut parser = fed(options, pieces);
    parser.finish().expect("document complete");
    parser.into_value().expect("a value")
}

/// The error of the first `push` that fails (not of `end`): errors must
/// come at once, not only at the end of input.
fn push_error(options: Options, pieces: &[&[u8]]) -> Error {
    let mut parser = Parser::with_options(options);
    for piece in pieces {
        if let Err(e) = parser.feed(piece) {
            return e;
        }
    }
    panic!(
        "no error while pushing {:?}; end() says {:?}",
        pieces
            .iter()
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect::<Vec<_>>(),
        parser.finish()
    );
}

/// Strict parse error of a whole text, fed whole, then one byte at a time:
/// both must fail with the same error, raised by `push`.
fn strict_error(text: &[u8]) -> Error {
    let whole = push_error(Options::new(), &[text]);
    let bytewise: Vec<&[u8]> = text.chunks(1).collect();
    let split = push_error(Options::new(), &bytewise);
    assert_eq!(whole, split, "error depends on chunking for {text:?}");
    whole
}

/// Events as `path kind payload` lines, for readable comparisons.
fn describe(events: &[OwnedEvent]) -> Vec<String> {
    events
        .iter()
        .map(|e| {
            let ev = e.as_event();
            let payload = match ev.kind {
                EventKind::StringDelta(t) | EventKind::String(t) => format!(" {t:?}"),
                EventKind::Number(t) => format!(" {t}"),
                EventKind::Bool(b) => format!(" {b}"),
                _ => String::new(),
            };
            format!("{} {}{payload}", ev.path, ev.kind.name())
                .trim_start()
                .to_string()
        })
        .collect()
}

/// All events of `pieces` (strict, ended).
fn all_events(pieces: &[&[u8]]) -> Vec<OwnedEvent> {
    events_of(&mut Parser::new(), pieces).expect("valid document")
}

/// Merges consecutive string deltas of the same path, so that event
/// sequences can be compared whatever the chunking.
fn merge_deltas(events: Vec<OwnedEvent>) -> Vec<OwnedEvent> {
    let mut out: Vec<OwnedEvent> = Vec::new();
    for e in events {
        if let (Some(last), OwnedEventKind::StringDelta(more)) = (out.last_mut(), &e.kind) {
            if last.path == e.path {
                if let OwnedEventKind::StringDelta(text) = &mut last.kind {
                    text.push_str(more);
                    continue;
                }
            }
        }
        out.push(e);
    }
    out
}

/// The text of every string delta.
fn deltas(events: &[OwnedEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            OwnedEventKind::StringDelta(t) => Some(t.clone()),
            _ => None,
        })
        .collect()
}

fn path(display: &str, events: &[OwnedEvent]) -> bool {
    events.iter().any(|e| e.path.to_string() == display)
}

// ----- splits anywhere -----

#[test]
fn split_inside_utf8_sequence() {
    let doc = "[\"aé€😀b\"]".as_bytes();
    for cut in 1..doc.len() {
        let (a, b) = doc.split_at(cut);
        let events = all_events(&[a, b]);
        assert_eq!(deltas(&events).concat(), "aé€😀b", "cut at {cut}");
        assert_eq!(value_of(Options::new(), &[a, b]).to_json(), "[\"aé€😀b\"]");
    }
    // Every byte its own piece: each character arrives whole.
    let bytewise: Vec<&[u8]> = doc.chunks(1).collect();
    let events = all_events(&bytewise);
    assert_eq!(deltas(&events), ["a", "é", "€", "😀", "b"]);
    // While the sequence is cut, the snapshot shows the text before it.
    let snaps = snapshots(Options::new(), &[b"[\"a\xF0\x9F", b"\x98\x80"]);
    assert_eq!(snaps, [Some("[\"a\"]".into()), Some("[\"a😀\"]".into())]);
}

#[test]
fn split_inside_escape_backslash() {
    let events = all_events(&[br#"["a\"#, br#"nb"]"#]);
    assert_eq!(deltas(&events), ["a", "\nb"]);
    let snaps = snapshots(Options::new(), &[br#"["a\"#, br#"""#]);
    assert_eq!(snaps, [Some(r#"["a"]"#.into()), Some(r#"["a\""]"#.into())]);
}

#[test]
fn split_inside_unicode_escape() {
    for (a, b) in [
        (&br#"["x\u00"#[..], &br#"e9y"]"#[..]),
        (br#"["x\u"#, br#"00e9y"]"#),
        (br#"["x\u00e"#, br#"9y"]"#),
    ] {
        let events = all_events(&[a, b]);
        assert_eq!(deltas(&events), ["x", "éy"]);
        assert_eq!(value_of(Options::new(), &[a, b]).to_json(), "[\"xéy\"]");
    }
    // Nothing decoded yet: the open string shows as empty.
    assert_eq!(snapshot_after(r#"["\u00"#).as_deref(), Some(r#"[""]"#));
}

#[test]
fn split_inside_surrogate_pair() {
    let doc = br#"["\ud83d\ude00!"]"#;
    for cut in 1..doc.len() {
        let (a, b) = doc.split_at(cut);
        let events = all_events(&[a, b]);
        let ds = deltas(&events);
        assert_eq!(ds.concat(), "😀!", "cut at {cut}");
        // No delta holds half the pair: a delta is either the whole
        // character with what follows, or text after it.
        assert!(
            ds.iter().all(|d| !d.is_empty() && !d.contains('\u{FFFD}')),
            "cut at {cut}: {ds:?}"
        );
        assert_eq!(value_of(Options::new(), &[a, b]).to_json(), "[\"😀!\"]");
    }
    // The exact cut of the issue: `\ud83d` | `\ude00`.
    let events = all_events(&[br#""\ud83d"#, br#"\ude00""#]);
    assert_eq!(deltas(&events), ["😀"]);
    let snaps = snapshots(Options::new(), &[br#""\ud83d"#, br#"\ude00""#]);
    assert_eq!(snaps, [Some("\"\"".into()), Some("\"😀\"".into())]);
}

#[test]
fn split_inside_number() {
    let pieces: [&[u8]; 2] = [b"[12", b"3]"];
    assert_eq!(value_of(Options::new(), &pieces).to_json(), "[123]");
    let events = all_events(&pieces);
    assert_eq!(
        describe(&events),
        ["start_array", "[0] number 123", "end_array"]
    );
    // A top-level number split in pieces completes at end of input.
    let events = all_events(&[b"-1", b"2.", b"5e", b"+", b"3"]);
    assert_eq!(describe(&events), ["number -12.5e+3"]);
}

#[test]
fn split_inside_literal() {
    for (a, b) in [
        (&b"[tr"[..], &b"ue]"[..]),
        (b"[t", b"rue]"),
        (b"[fals", b"e]"),
        (b"[n", b"ull]"),
    ] {
        let whole = [a, b].concat();
        let events = all_events(&[a, b]);
        assert_eq!(events, all_events(&[&whole]));
        assert_eq!(events.len(), 3, "{events:?}");
    }
    assert_eq!(
        describe(&all_events(&[b"[tr", b"ue]"])),
        ["start_array", "[0] bool true", "end_array"]
    );
}

#[test]
fn split_between_key_and_colon() {
    for pieces in [
        &[&br#"{"a""#[..], br#":1}"#][..],
        &[br#"{"a" "#, br#" : 1}"#],
        &[br#"{"a"#, br#"":1}"#],
        &[br#"{"#, br#""a"#, br#"""#, br#":"#, br#"1"#, br#"}"#],
    ] {
        assert_eq!(value_of(Options::new(), pieces).to_json(), r#"{"a":1}"#);
        assert_eq!(
            describe(&all_events(pieces)),
            ["start_object", "a number 1", "end_object"]
        );
    }
}

#[test]
fn every_two_piece_split_gives_the_same_value_and_events() {
    let doc = r#" {"blocks":[{"type":"text","content":"Hé\u00e9\ud83d\ude00 \"q\"\n"},
        {"n":-12.5E+3,"t":true,"f":false,"z":null,"e":"","a":[[],{}]}], "k\u002e":0 } "#
        .as_bytes();
    let whole_events = merge_deltas(all_events(&[doc]));
    let whole_value = value_of(Options::new(), &[doc]);
    for cut in 0..=doc.len() {
        let (a, b) = doc.split_at(cut);
        assert_eq!(value_of(Options::new(), &[a, b]), whole_value, "cut {cut}");
        assert_eq!(merge_deltas(all_events(&[a, b])), whole_events, "cut {cut}");
    }
    let bytewise: Vec<&[u8]> = doc.chunks(1).collect();
    assert_eq!(merge_deltas(all_events(&bytewise)), whole_events);
}

// ----- the snapshot policy -----

#[test]
fn snapshot_omits_member_whose_value_has_not_started() {
    assert_eq!(
        snapshot_after(r#"{"a":1,"b":"#).as_deref(),
        Some(r#"{"a":1}"#)
    );
    assert_eq!(
        snapshot_after(r#"{"a":1,"b" :  "#).as_deref(),
        Some(r#"{"a":1}"#)
    );
    assert_eq!(
        snapshot_after(r#"{"a":1,"b""#).as_deref(),
        Some(r#"{"a":1}"#)
    );
    assert_eq!(
        snapshot_after(r#"{"a":1,"b"#).as_deref(),
        Some(r#"{"a":1}"#)
    );
    assert_eq!(snapshot_after(r#"{"a":1,"#).as_deref(), Some(r#"{"a":1}"#));
    assert_eq!(snapshot_after(r#"{""#).as_deref(), Some("{}"));
}

#[test]
fn snapshot_omits_number_that_may_still_grow() {
    assert_eq!(snapshot_after("[1, 12").as_deref(), Some("[1]"));
    assert_eq!(snapshot_after("[1, -").as_deref(), Some("[1]"));
    assert_eq!(snapshot_after("[1, 1.5e").as_deref(), Some("[1]"));
    assert_eq!(snapshot_after(r#"{"a":12"#).as_deref(), Some("{}"));
    assert_eq!(snapshot_after("12"), None);
    // A delimiter ends the number: then it shows.
    assert_eq!(snapshot_after("[1, 12 ").as_deref(), Some("[1,12]"));
    assert_eq!(snapshot_after("[1, 12,").as_deref(), Some("[1,12]"));
}

#[test]
fn growing_numbers_option_shows_number_that_may_still_grow() {
    let options = Options::new().growing_numbers(true);
    let snaps = snapshots(
        options,
        &[b"[1, 12", b"3", b".", b"5", b"e", b"-", b"2", b"]"],
    );
    let expected = [
        "[1,12]",
        "[1,123]",
        "[1,123]",
        "[1,123.5]",
        "[1,123.5]",
        "[1,123.5]",
        "[1,123.5e-2]",
        "[1,123.5e-2]",
    ];
    assert_eq!(snaps, expected.map(|s| Some(s.to_string())));
    // A lone minus is no number yet.
    let snaps = snapshots(options, &[b"[-", b"4]"]);
    assert_eq!(snaps, [Some("[]".into()), Some("[-4]".into())]);
    // The final value and events are those of the default options.
    let pieces: [&[u8]; 3] = [br#"{"a":[1"#, br#"0,2"#, br#"]}"#];
    assert_eq!(
        value_of(options, &pieces),
        value_of(Options::new(), &pieces)
    );
    assert_eq!(
        events_of(&mut Parser::with_options(options), &pieces).unwrap(),
        all_events(&pieces)
    );
}

/// With growing numbers, a number that goes wrong leaves the same value
/// and the same error whatever the cuts: the text it took before the bad
/// byte is shown, as the end of a piece there would have shown it.
#[test]
fn growing_numbers_after_an_error_in_a_number_do_not_depend_on_the_cuts() {
    let limits = Limits {
        max_number_bytes: 4,
        ..Limits::new()
    };
    let options = Options::new().growing_numbers(true).limits(limits);
    for (doc, shown) in [
        ("[7, 1.x", "[7,1]"),
        ("[7, 01", "[7,0]"),
        ("[7, -x", "[7]"),
        ("[7, 12e+x", "[7,12]"),
        (r#"{"a": 123456"#, r#"{"a":1234}"#),
        (r#"{"a": 12.3456"#, r#"{"a":12.3}"#),
        ("[12345", "[1234]"),
    ] {
        let bytes = doc.as_bytes();
        let after = |pieces: &[&[u8]]| {
            let mut parser = Parser::with_options(options);
            let error = pieces.iter().find_map(|piece| parser.feed(piece).err());
            let value = parser.snapshot().map(Value::to_json);
            (value, error.map(|e| e.to_string()))
        };
        let whole = after(&[bytes]);
        assert!(whole.1.is_some(), "{doc}: no error");
        assert_eq!(whole.0.as_deref(), Some(shown), "{doc}: {:?}", whole.1);
        for cut in 0..=bytes.len() {
            let (a, b) = bytes.split_at(cut);
            assert_eq!(after(&[a, b]), whole, "{doc} cut at {cut}");
        }
        let bytewise: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(after(&bytewise), whole, "{doc} byte by byte");
    }
}

#[test]
fn literal_shown_from_its_first_byte() {
    assert_eq!(snapshot_after("[tr").as_deref(), Some("[true]"));
    assert_eq!(snapshot_after("[t").as_deref(), Some("[true]"));
    assert_eq!(snapshot_after("[f").as_deref(), Some("[false]"));
    assert_eq!(
        snapshot_after(r#"{"a":nu"#).as_deref(),
        Some(r#"{"a":null}"#)
    );
    assert_eq!(snapshot_after("tru").as_deref(), Some("true"));
}

#[test]
fn whitespace_only_gives_no_snapshot_and_no_error_until_end() {
    let mut parser = Parser::new();
    parser.feed(b" \n\t\r ").expect("whitespace is no error");
    parser.feed(b"").expect("an empty piece is no error");
    assert_eq!(parser.snapshot(), None);
    let err = parser.finish().expect_err("no value at all");
    assert!(err.is_incomplete(), "{err}");
    assert_eq!(
        err.kind(),
        &ErrorKind::UnexpectedEnd {
            expected: Expected::Value
        }
    );
    // Empty input too.
    let err = Parser::new().finish().expect_err("empty input");
    assert!(err.is_incomplete());
}

#[test]
fn open_string_shows_text_so_far() {
    assert_eq!(
        snapshot_after(r#"{"a":"hel"#).as_deref(),
        Some(r#"{"a":"hel"}"#)
    );
    assert_eq!(snapshot_after(r#"["x"#).as_deref(), Some(r#"["x"]"#));
    assert_eq!(snapshot_after(r#"""#).as_deref(), Some(r#""""#));
    assert_eq!(snapshot_after(r#""he\"l"#).as_deref(), Some(r#""he\"l""#));
    let snaps = snapshots(Options::new(), &[br#"{"a":"he"#, b"l", b"lo", b"\"}"]);
    let expected = [
        r#"{"a":"he"}"#,
        r#"{"a":"hel"}"#,
        r#"{"a":"hello"}"#,
        r#"{"a":"hello"}"#,
    ];
    assert_eq!(snaps, expected.map(|s| Some(s.to_string())));
}

#[test]
fn open_containers_shown_empty() {
    assert_eq!(snapshot_after(r#"{"a":{"#).as_deref(), Some(r#"{"a":{}}"#));
    assert_eq!(snapshot_after("[[").as_deref(), Some("[[]]"));
    assert_eq!(
        snapshot_after(r#"[{"a":["#).as_deref(),
        Some(r#"[{"a":[]}]"#)
    );
    assert_eq!(snapshot_after("{").as_deref(), Some("{}"));
}

#[test]
fn snapshot_disabled_still_reports_events() {
    let options = Options::new().snapshot(false);
    let mut parser = Parser::with_options(options);
    let events = events_of(&mut parser, &[br#"{"a":["x",1]}"#]).unwrap();
    assert_eq!(parser.snapshot(), None);
    assert_eq!(events, all_events(&[br#"{"a":["x",1]}"#]));
}

#[test]
fn feed_dropped_early_still_consumes_the_piece() {
    let mut parser = Parser::new();
    {
        let mut feed = parser.feed_borrowed(br#"{"a":[1,2],"b":"x"#);
        let first = feed.next_event().unwrap().unwrap();
        assert_eq!(first.kind, EventKind::StartObject);
    }
    assert_eq!(
        parser.snapshot().map(Value::to_json).as_deref(),
        Some(r#"{"a":[1,2],"b":"x"}"#)
    );
    parser.feed(b"\"}").unwrap();
    parser.finish().unwrap();
    assert_eq!(parser.bytes_fed(), 19);
    assert!(parser.is_complete());
}

// ----- strictness -----

#[test]
fn trailing_comma_rejected_by_default() {
    let err = strict_error(b"[1,]");
    assert_eq!(
        err.kind(),
        &ErrorKind::Unexpected {
            expected: Expected::ValueAfterComma,
            found: b']'
        }
    );
    assert_eq!(err.offset(), 3);
    let err = strict_error(br#"{"a":1,}"#);
    assert_eq!(
        err.kind(),
        &ErrorKind::Unexpected {
            expected: Expected::KeyAfterComma,
            found: b'}'
        }
    );
    assert_eq!(err.offset(), 7);
}

#[test]
fn trailing_comma_accepted_with_option() {
    let options = Options::new().trailing_commas(true);
    assert_eq!(value_of(options, &[b"[1,]"]).to_json(), "[1]");
    assert_eq!(value_of(options, &[b"[1 , ] "]).to_json(), "[1]");
    assert_eq!(
        value_of(options, &[br#"{"a":[1,],}"#]).to_json(),
        r#"{"a":[1]}"#
    );
    // Only one comma, and only after a member.
    for bad in [&b"[,]"[..], b"[1,,]", b"{,}", br#"{"a":1,,}"#, b"[,"] {
        let mut parser = Parser::with_options(options);
        assert!(
            parser.feed(bad).is_err(),
            "{:?}",
            String::from_utf8_lossy(bad)
        );
    }
}

#[test]
fn missing_comma_in_array_errors_at_once() {
    for pieces in [
        &[&b"[1 2"[..]][..],
        &[b"[1 ", b"2"],
        &[b"[", b"1", b" ", b"2"],
    ] {
        let err = push_error(Options::new(), pieces);
        assert_eq!(
            err.kind(),
            &ErrorKind::Unexpected {
                expected: Expected::CommaOrArrayEnd,
                found: b'2'
            }
        );
        assert_eq!(err.offset(), 3);
        assert_eq!(err.path().to_string(), "[0]");
        assert!(!err.is_incomplete());
    }
}

#[test]
fn missing_colon_in_object_errors_at_once() {
    for pieces in [&[&br#"{"a" 1"#[..]][..], &[br#"{"a" "#, b"1"]] {
        let err = push_error(Options::new(), pieces);
        assert_eq!(
            err.kind(),
            &ErrorKind::Unexpected {
                expected: Expected::Colon,
                found: b'1'
            }
        );
        assert_eq!(err.offset(), 5);
        assert_eq!(err.path().to_string(), "a");
        assert!(!err.is_incomplete());
    }
}

#[test]
fn error_offset_counts_the_whole_stream_and_names_the_path() {
    let err = push_error(
        Options::new(),
        &[br#"{"a":{"b":["#, br#"1,2,3"#, br#","#, br#"4 x"#],
    );
    assert_eq!(err.offset(), 19);
    assert_eq!(err.path().to_string(), "a.b[3]");
    assert_eq!(err.path().pointer(), "/a/b/3");
}

#[test]
fn leading_zero_rejected() {
    for text in [&b"01"[..], b"[01]", b"-01", b"[00]", br#"{"a":007}"#] {
        let err = strict_error(text);
        assert_eq!(err.kind(), &ErrorKind::LeadingZero, "{text:?}");
    }
    assert_eq!(strict_error(b"[01]").offset(), 2);
    for ok in [&b"0"[..], b"[0]", b"-0", b"0.01", b"0e5", b"[0,10]"] {
        value_of(Options::new(), &[ok]);
    }
}

#[test]
fn other_malformed_numbers_rejected() {
    for text in [
        &b"[.5]"[..],
        b"[+1]",
        b"[1.]",
        b"[1.e5]",
        b"[1e]",
        b"[-]",
        b"[--1]",
        b"[0x10]",
        b"[1ee2]",
        b"[NaN]",
        b"[Infinity]",
    ] {
        let mut parser = Parser::new();
        let pushed = parser.feed(text);
        assert!(
            pushed.is_err(),
            "{:?} accepted by push",
            String::from_utf8_lossy(text)
        );
    }
}

#[test]
fn bom_rejected() {
    let err = strict_error(b"\xEF\xBB\xBF{}");
    assert_eq!(err.offset(), 0);
    assert_eq!(
        err.kind(),
        &ErrorKind::Unexpected {
            expected: Expected::Value,
            found: 0xEF
        }
    );
}

#[test]
fn lone_surrogates_rejected() {
    let high = |unit| ErrorKind::LoneHighSurrogate { unit };
    for (text, kind, offset) in [
        (&br#""\ud800""#[..], high(0xD800), 7),
        (br#""\udc00""#, ErrorKind::LoneLowSurrogate, 4),
        (br#""\uDFFF""#, ErrorKind::LoneLowSurrogate, 4),
        (br#""\ud800\u0041""#, high(0xD800), 9),
        (br#""\ud800\udb00""#, high(0xD800), 10),
        (br#""\ud800x""#, high(0xD800), 7),
        (br#""\ud800\n""#, high(0xD800), 8),
        (br#""\ud83d\ud83d""#, high(0xD83D), 10),
    ] {
        let err = strict_error(text);
        assert_eq!(
            (err.kind(), err.offset()),
            (&kind, offset),
            "{:?}",
            String::from_utf8_lossy(text)
        );
        // Cut right after the byte that seals it: already an error.
        let mut parser = Parser::new();
        let _ = parser.feed(&text[..=offset as usize]);
        let err = parser.finish().unwrap_err();
        assert_eq!((err.kind(), err.offset()), (&kind, offset));
    }
    // A high surrogate at the very end is incomplete, not invalid.
    let mut parser = Parser::new();
    parser.feed(br#""\ud800"#).unwrap();
    let err = parser.finish().unwrap_err();
    assert!(err.is_incomplete(), "{err}");
}

#[test]
fn control_characters_rejected() {
    for byte in [0x00u8, 0x01, b'\t', b'\n', b'\r', 0x1F] {
        let text = [b'"', b'a', byte, b'"'];
        let err = strict_error(&text);
        assert_eq!(err.kind(), &ErrorKind::ControlCharacter { found: byte });
        assert_eq!(err.offset(), 2);
    }
    // DEL is not a control character for JSON.
    assert_eq!(
        value_of(Options::new(), &[b"\"\x7F\""]).as_str(),
        Some("\u{7F}")
    );
}

#[test]
fn invalid_escapes_rejected() {
    for (text, found) in [
        (&br#""\x""#[..], b'x'),
        (br#""\U0041""#, b'U'),
        (br#""\'""#, b'\''),
    ] {
        let err = strict_error(text);
        assert_eq!(err.kind(), &ErrorKind::InvalidEscape { found });
        assert_eq!(err.offset(), 2);
    }
    let err = strict_error(br#""\u12G4""#);
    assert_eq!(
        err.kind(),
        &ErrorKind::Unexpected {
            expected: Expected::HexDigit,
            found: b'G'
        }
    );
    assert_eq!(err.offset(), 5);
}

/// Invalid UTF-8 inside strings, with the range of bytes (from the start of
/// the bad sequence to the byte that proves it bad) where the error may
/// point.
const BAD_UTF8: [(&[u8], u64, u64); 7] = [
    (b"\"\xFF\"", 1, 1),
    (b"\"a\xC3\x28\"", 2, 3),
    (b"\"\xC0\xAF\"", 1, 1),
    (b"\"\xED\xA0\x80\"", 1, 2),
    (b"\"\xF4\x90\x80\x80\"", 1, 2),
    (b"\"\x80\"", 1, 1),
    (b"[\"ok\",\"\xE2\x82\"]", 7, 9),
];

#[test]
fn invalid_utf8_rejected() {
    for (text, first, last) in BAD_UTF8 {
        let bytewise: Vec<&[u8]> = text.chunks(1).collect();
        for pieces in [vec![text], bytewise] {
            let err = push_error(Options::new(), &pieces);
            assert_eq!(err.kind(), &ErrorKind::InvalidUtf8, "{text:?}");
            assert!(
                (first..=last).contains(&err.offset()),
                "{text:?} in {} pieces: offset {}",
                pieces.len(),
                err.offset()
            );
        }
    }
    // Invalid UTF-8 outside strings is an unexpected byte.
    let err = strict_error(b"[\xFF]");
    assert!(matches!(
        err.kind(),
        ErrorKind::Unexpected { found: 0xFF, .. }
    ));
}

#[test]
fn invalid_utf8_error_offset_does_not_depend_on_chunking() {
    for (text, first, _) in BAD_UTF8 {
        let whole = push_error(Options::new(), &[text]);
        // It points where the bad sequence starts.
        assert_eq!(whole.offset(), first, "{text:?}");
        let bytewise: Vec<&[u8]> = text.chunks(1).collect();
        assert_eq!(push_error(Options::new(), &bytewise), whole, "{text:?}");
        for cut in 1..text.len() {
            let (a, b) = text.split_at(cut);
            let split = push_error(Options::new(), &[a, b]);
            assert_eq!(split, whole, "{text:?} cut at {cut}");
        }
    }
}

#[test]
fn garbage_after_the_value_rejected() {
    for (text, offset) in [
        (&b"[1] x"[..], 4),
        (b"{}{}", 2),
        (b"1 2", 2),
        (br#""a""b""#, 3),
        (b"true false", 5),
        (b"[]]", 2),
    ] {
        let err = strict_error(text);
        assert!(
            matches!(
                err.kind(),
                ErrorKind::Unexpected {
                    expected: Expected::EndOfInput,
                    ..
                }
            ),
            "{text:?}: {err}"
        );
        assert_eq!(err.offset(), offset, "{text:?}");
    }
}

#[test]
fn misspelled_literals_rejected_at_the_wrong_byte() {
    for (text, offset) in [
        (&b"[tru e]"[..], 4),
        (b"[nul]", 4),
        (b"[fals3]", 5),
        (b"[True]", 1),
    ] {
        let err = strict_error(text);
        assert_eq!(err.offset(), offset, "{text:?}: {err}");
        assert!(!err.is_incomplete());
    }
}

// ----- incomplete is not invalid -----

#[test]
fn incomplete_is_not_invalid() {
    let mut parser = Parser::new();
    parser.feed(br#"{"a": "he"#).expect("a prefix is no error");
    let err = parser.finish().expect_err("input ended inside a string");
    assert!(err.is_incomplete());
    assert_eq!(
        err.kind(),
        &ErrorKind::UnexpectedEnd {
            expected: Expected::StringEnd
        }
    );
    assert_eq!(err.offset(), 9);
    assert_eq!(err.path().to_string(), "a");
    // `[1 2` is invalid at once.
    assert!(!push_error(Options::new(), &[b"[1 2"]).is_incomplete());
}

#[test]
fn every_prefix_of_a_valid_document_is_incomplete() {
    let doc = br#"{"a":[1,-2.5e+3,true,null,"x\"\u00e9\ud83d\ude00"],"b":{"c":false}}"#;
    for cut in 0..doc.len() {
        let mut parser = Parser::new();
        parser
            .feed(&doc[..cut])
            .unwrap_or_else(|e| panic!("prefix {cut}: {e}"));
        let err = parser
            .finish()
            .expect_err("a strict prefix is not a document");
        assert!(err.is_incomplete(), "prefix {cut}: {err}");
        assert_eq!(err.offset(), cut as u64, "prefix {cut}");
    }
}

#[test]
fn errors_are_sticky() {
    let mut parser = Parser::new();
    let err = parser.feed(b"[1 2").unwrap_err();
    assert_eq!(parser.error(), Some(&err));
    assert_eq!(parser.feed(b"]").unwrap_err(), err);
    assert_eq!(parser.feed(b"").unwrap_err(), err);
    assert_eq!(parser.finish().unwrap_err(), err);
    // A feed reports it once, then nothing.
    let mut feed = parser.feed_borrowed(b",3]");
    assert_eq!(feed.next_event().unwrap().unwrap_err(), err);
    assert!(feed.next_event().is_none());
    drop(feed);
    // An incomplete end is sticky too.
    let mut parser = Parser::new();
    parser.feed(b"[1").unwrap();
    let err = parser.finish().unwrap_err();
    assert!(err.is_incomplete());
    assert_eq!(parser.feed(b"]").unwrap_err(), err);
    assert_eq!(parser.finish().unwrap_err(), err);
}

#[test]
fn error_display_names_expected_found_offset_and_path() {
    let err = strict_error(br#"{"a":{"b":1]"#);
    assert_eq!(
        err.to_string(),
        "expected ',' or '}' after object member, found ']' at byte 11 (path a.b)"
    );
    let err = strict_error(b"x");
    assert_eq!(
        err.to_string(),
        "expected a JSON value, found 'x' at byte 0"
    );
    let err = strict_error(br#"{"a":[1,2,3 4]}"#);
    assert_eq!(
        err.to_string(),
        "expected ',' or ']' after array element, found '4' at byte 12 (path a[2])"
    );
    let mut parser = Parser::new();
    parser.feed(br#"{"x.y":["#).unwrap();
    assert_eq!(
        parser.finish().unwrap_err().to_string(),
        r#"input ended early: expected a value or ']' after '[' at byte 8 (path ["x.y"])"#
    );
    let err = strict_error(b"[\"a\nb\"]");
    assert_eq!(
        err.to_string(),
        "unescaped control character '\\n' in string at byte 3 (path [0])"
    );
}

/// A UTF-8 byte order mark where a document begins is an error (RFC 8259
/// lets a parser reject it; serde_json does): the unexpected 0xEF at its
/// first byte, at once, as for any byte that cannot begin a value, whose
/// message names the mark, whatever the cuts.
#[test]
fn a_byte_order_mark_is_an_error_that_names_it() {
    let kind = ErrorKind::Unexpected {
        expected: Expected::Value,
        found: 0xef,
    };
    let bom = "expected a JSON value, found byte 0xef, which may start a UTF-8 byte \
               order mark (strip any) at byte 0";
    let text = b"\xef\xbb\xbf{}";
    let err = strict_error(text);
    assert_eq!((err.kind(), err.offset()), (&kind, 0));
    assert_eq!(err.to_string(), bom);
    for cut in 1..text.len() {
        let (a, b) = text.split_at(cut);
        assert_eq!(push_error(Options::new(), &[a, b]), err, "cut at {cut}");
    }
    assert_eq!(json::parse(text).unwrap_err(), err);
    let mut tape = json::Tape::new();
    assert_eq!(tape.parse(text).unwrap_err(), err);
    // At once: no continuation could make it valid.
    let mut parser = Parser::new();
    assert_eq!(parser.feed(b"\xef").unwrap_err(), err);
    // One after whitespace, or between values (files joined), is named
    // too; inside a value it is only a byte that cannot be there.
    assert_eq!(
        strict_error(b" \xef\xbb\xbf{}").to_string(),
        bom.replace("at byte 0", "at byte 1")
    );
    let options = Options::new().multiple_values(true);
    assert_eq!(
        push_error(options, &[b"{}\n\xef\xbb\xbf{}"]).to_string(),
        bom.replace("at byte 0", "at byte 3")
    );
    assert_eq!(
        strict_error(b"[\xef\xbb\xbf]").to_string(),
        "expected a value or ']' after '[', found byte 0xef at byte 1"
    );
}

/// An error inside an object key says so ("in object key", where a
/// value's says "in string"), with the object's path.
#[test]
fn an_error_in_a_key_says_so_with_the_objects_path() {
    for (text, message) in [
        (&b"{\"k\xff\":1}"[..], "invalid UTF-8 in object key at byte 3"),
        (b"{\"a\":{\"k\xff\":1}}", "invalid UTF-8 in object key at byte 8 (path a)"),
        (b"{\"a\":1,\"k\xff\":1}", "invalid UTF-8 in object key at byte 9"),
        (b"[{\"k\xff\":1}]", "invalid UTF-8 in object key at byte 4 (path [0])"),
        (b"{\"a\":\"v\xff\"}", "invalid UTF-8 in string at byte 7 (path a)"),
        (
            b"{\"a\":{\"k\x01\":1}}",
            "unescaped control character byte 0x01 in object key at byte 8 (path a)",
        ),
        (
            br#"{"a":{"\udc00":1}}"#,
            "UTF-16 low surrogate with no high surrogate before it in object key at byte 10 (path a)",
        ),
        (
            br#"{"a":{"\ud800x":1}}"#,
            "UTF-16 high surrogate \\ud800 not followed by a low surrogate in object key at byte 13 (path a)",
        ),
    ] {
        let err = strict_error(text);
        assert_eq!(err.to_string(), message, "{text:?}");
        assert_eq!(err.in_key(), message.contains("object key"), "{text:?}");
    }
    // The kind is the same as in a value's string.
    assert_eq!(
        strict_error(b"{\"k\xff\":1}").kind(),
        &ErrorKind::InvalidUtf8
    );
}

// ----- limits -----

#[test]
fn depth_limit_a_million_brackets_no_stack_overflow() {
    let deep = vec![b'['; 1_000_000];
    let err = push_error(Options::new(), &[&deep]);
    assert_eq!(err.kind(), &ErrorKind::DepthLimit { limit: 128 });
    assert_eq!(err.offset(), 128);
    // Objects count too.
    let deep_objects = br#"{"a":"#.repeat(200);
    let err = push_error(Options::new(), &[&deep_objects]);
    assert_eq!(err.kind(), &ErrorKind::DepthLimit { limit: 128 });
    // With the limit lifted (and no snapshot, whose drop would recurse),
    // a million levels parse without recursion.
    let options = Options::new()
        .snapshot(false)
        .limits(Limits::unlimited(usize::MAX));
    let mut parser = Parser::with_options(options);
    let mut count = 0usize;
    crate::common::feed_with(&mut parser, &deep, |_| count += 1).unwrap();
    crate::common::feed_with(&mut parser, &vec![b']'; 1_000_000], |_| count += 1).unwrap();
    parser.finish().unwrap();
    assert_eq!(count, 2_000_000);
}

#[test]
fn depth_limit_allows_exactly_the_limit() {
    let options = Options::new().limits(Limits {
        max_depth: 3,
        ..Limits::new()
    });
    assert_eq!(value_of(options, &[b"[[[]]]"]).to_json(), "[[[]]]");
    let err = push_error(options, &[b"[[[["]);
    assert_eq!(err.kind(), &ErrorKind::DepthLimit { limit: 3 });
    assert_eq!(err.offset(), 3);
    // Default: 128 levels are fine.
    let ok = [vec![b'['; 128], vec![b']'; 128]].concat();
    value_of(Options::new(), &[&ok]);
}

#[test]
fn string_limit() {
    let options = Options::new().limits(Limits {
        max_string_bytes: 8,
        ..Limits::new()
    });
    assert_eq!(
        value_of(options, &[br#"["12345678"]"#]).to_json(),
        r#"["12345678"]"#
    );
    for text in [
        &br#"["123456789"]"#[..],
        br#"{"123456789":1}"#,
        br#"["1234567\u00e9"]"#,
        br#"["\ud83d\ude00\ud83d\ude00\ud83d\ude00"]"#,
    ] {
        let err = push_error(options, &[text]);
        assert_eq!(err.kind(), &ErrorKind::StringLimit { limit: 8 }, "{text:?}");
    }
    // Across pieces.
    let err = push_error(options, &[br#"["12345"#, b"6789"]);
    assert_eq!(err.kind(), &ErrorKind::StringLimit { limit: 8 });
}

#[test]
fn number_limit() {
    let options = Options::new().limits(Limits {
        max_number_bytes: 4,
        ..Limits::new()
    });
    assert_eq!(value_of(options, &[b"[-1.5]"]).to_json(), "[-1.5]");
    for pieces in [
        &[&b"[12345]"[..]][..],
        &[b"[12", b"345"],
        &[b"[1", b"2", b"3", b"4", b"5"],
    ] {
        let err = push_error(options, pieces);
        assert_eq!(err.kind(), &ErrorKind::NumberLimit { limit: 4 });
    }
    // A top-level number at end of input.
    let mut parser = Parser::with_options(options);
    let result = parser.feed(b"12345").and_then(|()| parser.finish());
    assert_eq!(
        result.unwrap_err().kind(),
        &ErrorKind::NumberLimit { limit: 4 }
    );
}

#[test]
fn input_limit() {
    let options = Options::new().limits(Limits {
        max_input_bytes: 10,
        ..Limits::new()
    });
    assert_eq!(
        value_of(options, &[b"[1,2,", b"3,4]"]).to_json(),
        "[1,2,3,4]"
    );
    for pieces in [&[&b"[1,2,3,4,5]"[..]][..], &[b"[1,2,3,", b"4,5]"]] {
        let err = push_error(options, pieces);
        assert_eq!(err.kind(), &ErrorKind::InputLimit { limit: 10 });
    }
}

#[test]
fn each_limit_is_its_own_error_kind() {
    let tiny = Limits {
        max_depth: 1,
        max_string_bytes: 1,
        max_number_bytes: 1,
        max_input_bytes: 6,
    };
    let kinds: Vec<ErrorKind> = [&b"[[]]"[..], b"[\"ab\"", b"[12]", b"[1,1,1,1]"]
        .iter()
        .map(|t| push_error(Options::new().limits(tiny), &[t]).kind().clone())
        .collect();
    assert_eq!(
        kinds,
        [
            ErrorKind::DepthLimit { limit: 1 },
            ErrorKind::StringLimit { limit: 1 },
            ErrorKind::NumberLimit { limit: 1 },
            ErrorKind::InputLimit { limit: 6 },
        ]
    );
    assert!(kinds
        .iter()
        .all(|k| !matches!(k, ErrorKind::UnexpectedEnd { .. })));
}

// ----- a sequence of values -----

#[test]
fn multiple_values_json_lines() {
    let text = b"{\"a\":1}\n{\"b\":[2,\"x\"]}\n3\n\"s\"\ntrue\n";
    let options = Options::new().multiple_values(true);
    for pieces in [
        vec![&text[..]],
        text.chunks(1).collect(),
        random_pieces(text, 7),
    ] {
        let mut parser = Parser::with_options(options);
        let mut values = Vec::new();
        for piece in &pieces {
            parser.feed(piece).unwrap();
            while let Some(v) = parser.take_completed() {
                values.push(v.to_json());
            }
        }
        parser.finish().unwrap();
        while let Some(v) = parser.take_completed() {
            values.push(v.to_json());
        }
        assert_eq!(
            values,
            [r#"{"a":1}"#, r#"{"b":[2,"x"]}"#, "3", r#""s""#, "true"]
        );
    }
}

#[test]
fn multiple_values_concatenated() {
    let options = Options::new().multiple_values(true);
    for (pieces, expected) in [
        (&[&b"{}{}"[..]][..], &["{}", "{}"][..]),
        (&[b"1 2"], &["1", "2"]),
        (&[b"1", b"2 3"], &["12", "3"]),
        (&[b"[1][2]"], &["[1]", "[2]"]),
        (&[br#""a""b""#], &[r#""a""#, r#""b""#]),
        (&[b"{\"a\":", b"1}", b" [", b"]"], &[r#"{"a":1}"#, "[]"]),
        (&[b"   "], &[]),
    ] {
        let mut parser = Parser::with_options(options);
        for piece in pieces {
            parser.feed(piece).unwrap();
        }
        parser.finish().unwrap();
        let mut values = Vec::new();
        while let Some(v) = parser.take_completed() {
            values.push(v.to_json());
        }
        assert_eq!(values, expected, "{pieces:?}");
    }
}

#[test]
fn multiple_values_report_each_value_once_completed() {
    let options = Options::new().multiple_values(true);
    let mut parser = Parser::with_options(options);
    parser.feed(br#"{"a":1} {"b""#).unwrap();
    assert_eq!(
        parser.take_completed().map(|v| v.to_json()).as_deref(),
        Some(r#"{"a":1}"#)
    );
    assert_eq!(parser.take_completed(), None);
    // The value in progress is the snapshot.
    assert_eq!(parser.snapshot().map(Value::to_json).as_deref(), Some("{}"));
    parser.feed(b":2}").unwrap();
    assert_eq!(
        parser.take_completed().map(|v| v.to_json()).as_deref(),
        Some(r#"{"b":2}"#)
    );
    // An unfinished value at the end is incomplete.
    parser.feed(b"[1").unwrap();
    assert!(parser.finish().unwrap_err().is_incomplete());
}

#[test]
fn multiple_values_still_strict_inside_values() {
    let options = Options::new().multiple_values(true);
    assert!(push_error(options, &[b"{} [1 2]"]).offset() == 6);
    assert!(matches!(
        push_error(options, &[b"{} ]"]).kind(),
        ErrorKind::Unexpected { .. }
    ));
}

// ----- events -----

#[test]
fn empty_string_value_gives_no_delta_but_a_completion() {
    for pieces in [
        &[&br#"{"a":""}"#[..]][..],
        &[br#"{"a":""#, br#""}"#],
        &[br#"{"a":"#, br#"""#, br#"""#, b"}"],
    ] {
        let events = all_events(pieces);
        assert_eq!(
            describe(&events),
            ["start_object", r#"a string """#, "end_object"],
            "{pieces:?}"
        );
    }
    assert_eq!(describe(&all_events(&[br#""""#])), [r#"string """#]);
}

#[test]
fn events_for_every_kind_with_correct_paths() {
    let doc = br#"{"blocks":[{"type":"text","content":"Hi"},[]],"n":-1.5e3,"t":true,"f":false,"z":null,"a.b":{"":[{}]}}"#;
    let expected = [
        "start_object",
        "blocks start_array",
        "blocks[0] start_object",
        r#"blocks[0].type string_delta "text""#,
        r#"blocks[0].type string "text""#,
        r#"blocks[0].content string_delta "Hi""#,
        r#"blocks[0].content string "Hi""#,
        "blocks[0] end_object",
        "blocks[1] start_array",
        "blocks[1] end_array",
        "blocks end_array",
        "n number -1.5e3",
        "t bool true",
        "f bool false",
        "z null",
        r#"["a.b"] start_object"#,
        r#"["a.b"][""] start_array"#,
        r#"["a.b"][""][0] start_object"#,
        r#"["a.b"][""][0] end_object"#,
        r#"["a.b"][""] end_array"#,
        r#"["a.b"] end_object"#,
        "end_object",
    ];
    assert_eq!(describe(&all_events(&[doc])), expected);
    // Byte by byte: the same, but for string deltas in more parts.
    let bytewise: Vec<&[u8]> = doc.chunks(1).collect();
    let events = all_events(&bytewise);
    assert_eq!(describe(&merge_deltas(events.clone())), expected);
    assert!(path("blocks[0].content", &events));
    let content: Vec<String> = events
        .iter()
        .filter(|e| e.path.to_string() == "blocks[0].content")
        .filter_map(|e| match &e.kind {
            OwnedEventKind::StringDelta(t) => Some(t.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(content, ["H", "i"]);
}

#[test]
fn deltas_come_at_the_end_of_every_piece() {
    let mut parser = Parser::new();
    let mut seen = Vec::new();
    for piece in [&br#"{"content":"Hel"#[..], b"lo, ", b"wor", br#"ld"}"#] {
        let mut feed = parser.feed_borrowed(piece);
        let mut texts = Vec::new();
        while let Some(event) = feed.next_event() {
            let event = event.unwrap();
            if let EventKind::StringDelta(t) = event.kind {
                assert!(event.path.matches("content"));
                texts.push(t.to_string());
            }
        }
        seen.push(texts);
    }
    parser.finish().unwrap();
    assert_eq!(seen, [vec!["Hel"], vec!["lo, "], vec!["wor"], vec!["ld"]]);
}

#[test]
fn keys_needing_quotes_in_paths() {
    let doc = br#"{"a.b":1,"":2,"a\"b":3,"1a":4,"_x$9":5,"\u00e9":6,"x y":{"k":[7]}}"#;
    let paths: Vec<String> = all_events(&[doc])
        .iter()
        .filter(|e| matches!(e.kind, OwnedEventKind::Number(_)))
        .map(|e| e.path.to_string())
        .collect();
    assert_eq!(
        paths,
        [
            r#"["a.b"]"#,
            r#"[""]"#,
            r#"["a\"b"]"#,
            r#"["1a"]"#,
            "_x$9",
            r#"["é"]"#,
            r#"["x y"].k[0]"#,
        ]
    );
}

#[test]
fn path_display_and_pointer_forms() {
    let mut p = PathBuf::new();
    assert_eq!(p.to_string(), "");
    assert_eq!(p.pointer(), "");
    p.push_key("blocks");
    p.push_index(0);
    p.push_key("content");
    assert_eq!(p.to_string(), "blocks[0].content");
    assert_eq!(p.pointer(), "/blocks/0/content");
    assert!(p.as_path().matches("blocks[0].content"));
    assert!(!p.as_path().matches("blocks[0].conten"));
    assert!(!p.as_path().matches("blocks[0].contents"));
    assert_eq!(p.as_path().parent().unwrap().to_string(), "blocks[0]");
    p.pop();
    p.push_key("a/b~c");
    assert_eq!(p.to_string(), r#"blocks[0]["a/b~c"]"#);
    assert_eq!(p.pointer(), "/blocks/0/a~1b~0c");
    let mut q = PathBuf::new();
    q.push_index(3);
    q.push_key("x.y");
    q.push_index(2);
    assert_eq!(q.to_string(), r#"[3]["x.y"][2]"#);
    assert_eq!(q.pointer(), "/3/x.y/2");
    // Value::pointer reads the same form.
    let value = json::parse(br#"{"a/b":{"~":[10,20]}}"#).unwrap();
    assert_eq!(
        value.pointer("/a~1b/~0/1").and_then(Value::as_i64),
        Some(20)
    );
    assert_eq!(value.pointer("").map(Value::to_json), Some(value.to_json()));
    assert_eq!(value.pointer("/a~1b/~0/2"), None);
}

#[test]
fn duplicate_keys_kept_get_returns_last() {
    let value = json::parse(br#"{"a":1,"b":0,"a":2}"#).unwrap();
    assert_eq!(value.to_json(), r#"{"a":1,"b":0,"a":2}"#);
    assert_eq!(value.as_object().unwrap().len(), 3);
    assert_eq!(value.get("a").and_then(Value::as_i64), Some(2));
    assert_eq!(value.pointer("/a").and_then(Value::as_i64), Some(2));
    let paths: Vec<String> = all_events(&[br#"{"a":1,"b":0,"a":2}"#])
        .iter()
        .filter(|e| matches!(e.kind, OwnedEventKind::Number(_)))
        .map(|e| e.path.to_string())
        .collect();
    assert_eq!(paths, ["a", "b", "a"]);
}

#[test]
fn number_keeps_raw_text_and_converts() {
    let text = "[1.0,1e2,-0,1E+2,0.10,2.5e-3,12345678901234567890123,-9223372036854775808,18446744073709551615]";
    let value = json::parse(text.as_bytes()).unwrap();
    assert_eq!(value.to_json(), text);
    let n = |i: usize| value.get_index(i).unwrap().as_number().unwrap();
    assert_eq!(n(0).as_str(), "1.0");
    assert_eq!(n(0).as_f64(), Some(1.0));
    assert_eq!(n(0).as_i64(), None);
    assert_eq!(n(1).as_f64(), Some(100.0));
    assert_eq!(n(1).as_u64(), None);
    assert_eq!(n(2).as_i64(), Some(0));
    assert_eq!(n(3).as_str(), "1E+2");
    assert_eq!(n(4).as_f64(), Some(0.1));
    assert_eq!(n(5).as_f64(), Some(0.0025));
    assert_eq!(n(6).as_str(), "12345678901234567890123");
    assert_eq!(n(6).as_i64(), None);
    assert_eq!(n(6).as_u64(), None);
    assert_eq!(n(6).as_f64(), Some(1.2345678901234568e22));
    assert_eq!(n(7).as_i64(), Some(i64::MIN));
    assert_eq!(n(7).as_u64(), None);
    assert_eq!(n(8).as_u64(), Some(u64::MAX));
    assert_eq!(n(8).as_i64(), None);
    assert_eq!(value.get_index(1).unwrap().as_f64(), Some(100.0));
    assert!(n(2).is_integer());
    assert!(!n(1).is_integer());
    // Events carry the exact text too.
    assert_eq!(describe(&all_events(&[b"-0.0E-0"])), ["number -0.0E-0"]);
}

#[test]
fn compact_and_pretty_output_equal_serde_json() {
    // Keys sorted (serde_json's map is sorted) and integers only, so that
    // serde_json's tree prints the same document.
    let docs = [
        r#"{"a":[1,2,{"b":null,"c":[]}],"d":{},"e":"x\"y\\z\n\t\r\b\f/\u0001\u001f\u007f é 😀","f":[[],[{}]],"g":-7,"h":true,"i":false}"#,
        "[]",
        "{}",
        r#""just a string""#,
        "[[[[1]]],[[]],{\"k\":{\"k\":{}}}]",
        r#"{"":"","\u0000":"\u2028\u2029"}"#,
    ];
    for doc in docs {
        let ours = json::parse(doc.as_bytes()).unwrap();
        let theirs: serde_json::Value = serde_json::from_str(doc).unwrap();
        assert_eq!(
            ours.to_json(),
            serde_json::to_string(&theirs).unwrap(),
            "{doc}"
        );
        assert_eq!(
            ours.to_json_pretty(),
            serde_json::to_string_pretty(&theirs).unwrap(),
            "{doc}"
        );
        assert_eq!(format!("{ours}"), ours.to_json());
        assert_eq!(format!("{ours:#}"), ours.to_json_pretty());
        // And our output reads back as the same value.
        assert_eq!(json::parse(ours.to_json_pretty().as_bytes()).unwrap(), ours);
    }
}

#[test]
fn parse_rejects_what_the_parser_rejects() {
    assert!(json::parse(b"").unwrap_err().is_incomplete());
    assert!(json::parse(b"[1,").unwrap_err().is_incomplete());
    assert!(!json::parse(b"[1,]").unwrap_err().is_incomplete());
    assert_eq!(json::parse(b" 12 ").unwrap().to_json(), "12");
}

// ----- regressions: bugs these tests found, since fixed in src/ -----

#[test]
fn string_limit_holds_when_characters_are_split_across_pieces() {
    let options = Options::new().limits(Limits {
        max_string_bytes: 8,
        ..Limits::new()
    });
    for text in ["[\"😀😀😀\"]", "[\"ééééé\"]", "{\"ééééé\":1}"] {
        let bytewise: Vec<&[u8]> = text.as_bytes().chunks(1).collect();
        let err = push_error(options, &bytewise);
        assert_eq!(err.kind(), &ErrorKind::StringLimit { limit: 8 }, "{text}");
    }
}

#[test]
fn string_limit_error_offset_does_not_depend_on_chunking() {
    let options = Options::new().limits(Limits {
        max_string_bytes: 8,
        ..Limits::new()
    });
    let text = br#"["123456789"]"#;
    let whole = push_error(options, &[text]);
    for cut in 1..text.len() {
        let (a, b) = text.split_at(cut);
        assert_eq!(push_error(options, &[a, b]), whole, "cut at {cut}");
    }
    // The ninth byte of the string is the first one over the limit.
    assert_eq!(whole.offset(), 10);
}

#[test]
fn number_limit_error_points_at_the_byte_over_the_limit() {
    let options = Options::new().limits(Limits {
        max_number_bytes: 4,
        ..Limits::new()
    });
    // `[12345]`: the fifth digit, at byte 5, is over the limit (as the
    // `[` over the depth limit is where a DepthLimit error points).
    assert_eq!(push_error(options, &[b"[12345]"]).offset(), 5);
    let mut parser = Parser::with_options(options);
    let err = parser
        .feed(b"12345")
        .and_then(|()| parser.finish())
        .unwrap_err();
    assert_eq!(err.offset(), 4);
}

/// Concatenated values need a separator where the grammar would otherwise
/// run two values together: serde_json's StreamDeserializer rejects these
/// ("trailing characters"), and `Expected::ValueSeparator` exists for this
/// error. (`1-2` once read silently as `1` and `-2`.)
#[test]
fn multiple_values_need_a_separator_after_numbers_and_literals() {
    let options = Options::new().multiple_values(true);
    for (text, offset) in [
        (&b"1true"[..], 1),
        (b"1-2", 1),
        (b"truefalse", 4),
        (b"null1", 4),
    ] {
        let mut parser = Parser::with_options(options);
        let err = parser
            .feed(text)
            .and_then(|()| parser.finish())
            .expect_err(&String::from_utf8_lossy(text));
        assert!(
            matches!(
                err.kind(),
                ErrorKind::Unexpected {
                    expected: Expected::ValueSeparator,
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(err.offset(), offset);
    }
}

/// A string that turns out invalid streams the same text before its error
/// whatever the cuts: a piece that ends inside it reports its text so far,
/// so a piece that holds both the text and the bad byte reports that text
/// first, then the error.
#[test]
fn the_text_before_an_error_in_a_string_streams_whatever_the_cuts() {
    let limited = Options::new().limits(Limits {
        max_string_bytes: 5,
        ..Limits::default()
    });
    let cases: [(&[u8], Options, &str); 6] = [
        (br#"{"a":"xy\q"}"#, Options::new(), "xy"),
        (br#"["ab\u00zz"]"#, Options::new(), "ab"),
        (b"[\"ab\xffcd\"]", Options::new(), "ab"),
        (b"[\"ab\x01\"]", Options::new(), "ab"),
        (br#"["ab\udc00"]"#, Options::new(), "ab"),
        ("[\"abcd\u{e9}f\"]".as_bytes(), limited, "abcd"),
    ];
    for (text, options, before) in cases {
        let run = |pieces: &[&[u8]]| {
            let mut parser = Parser::with_options(options);
            let mut events = Vec::new();
            let mut error = None;
            for piece in pieces {
                if let Err(e) =
                    crate::common::feed_with(&mut parser, piece, |e| events.push(e.to_owned()))
                {
                    error = Some(e);
                    break;
                }
            }
            (merge_deltas(events), error.expect("invalid"))
        };
        let (events, error) = run(&[text]);
        assert_eq!(
            deltas(&events),
            [before],
            "{:?}",
            String::from_utf8_lossy(text)
        );
        for cut in 0..=text.len() {
            let (a, b) = text.split_at(cut);
            assert_eq!(
                run(&[a, b]),
                (events.clone(), error.clone()),
                "cut at {cut}"
            );
        }
        let bytewise: Vec<&[u8]> = text.chunks(1).collect();
        assert_eq!(run(&bytewise), (events.clone(), error.clone()), "bytewise");
    }
}

/// A number limit of 0 refuses a one-digit number at the top level too,
/// where the end of the input ends it (inside an array, the `]` did).
#[test]
fn a_number_limit_holds_for_a_number_the_input_ends() {
    let options = Options::new().limits(Limits {
        max_number_bytes: 0,
        ..Limits::default()
    });
    for (text, offset) in [(&b"7"[..], 1), (b"[7]", 2)] {
        let mut parser = Parser::with_options(options);
        let error = parser
            .feed(text)
            .and_then(|()| parser.finish())
            .unwrap_err();
        assert_eq!(error.kind(), &ErrorKind::NumberLimit { limit: 0 });
        assert_eq!(error.offset(), offset);
        assert!(json::parse_with(text, options).is_err());
    }
}

/// `-0` is zero to every integer accessor, as to `from_value`.
#[test]
fn minus_zero_is_zero_to_the_integer_accessors() {
    let value = json::parse(b"-0").unwrap();
    assert_eq!((value.as_i64(), value.as_u64()), (Some(0), Some(0)));
    assert_eq!(value.as_f64().map(f64::is_sign_negative), Some(true));
    assert_eq!(value.to_json(), "-0");
}

/// A feed stops at the byte that failed: `consumed` counts the bytes before
/// it, the bad byte of an escape included in none.
#[test]
fn a_feed_stops_at_the_byte_that_failed() {
    for (text, at) in [
        (&br#"{"s":"ab\qrs"}"#[..], 9),
        (br#"{"s":"ab\u00zz"}"#, 12),
        (br#"[1 2]"#, 3),
        (b"[\"a\x01\"]", 3),
    ] {
        let mut parser = Parser::new();
        let mut feed = parser.feed_borrowed(text);
        let mut error = None;
        while let Some(event) = feed.next_event() {
            if let Err(e) = event {
                error = Some(e);
            }
        }
        let error = error.expect("invalid");
        assert_eq!(error.offset(), at, "{:?}", String::from_utf8_lossy(text));
        assert_eq!(
            feed.consumed() as u64,
            at,
            "{:?}",
            String::from_utf8_lossy(text)
        );
    }
}

/// A string deep inside arrays and objects, fed with events a byte at a
/// time: each piece's delta is that byte (the open string is read in one
/// step through its container's kept address, not by walking down from
/// the root for every piece), and the value ends whole.
#[test]
fn deep_string_deltas_piece_by_piece() {
    let depth = 300;
    let mut head = String::new();
    for level in 0..depth {
        head.push_str(if level % 2 == 0 { "[" } else { "{\"k\":" });
    }
    head.push('"');
    let options = Options::new().limits(Limits::unlimited(depth + 1));
    let mut parser = Parser::with_options(options);
    let mut feed = parser.feed_borrowed(head.as_bytes());
    while let Some(event) = feed.next_event() {
        event.expect("valid");
    }
    drop(feed);
    for c in "deep text, ünïcode".chars() {
        let mut bytes = [0; 4];
        let mut deltas = String::new();
        for (i, byte) in c.encode_utf8(&mut bytes).bytes().enumerate() {
            let piece = [byte];
            let mut feed = parser.feed_borrowed(&piece);
            while let Some(event) = feed.next_event() {
                match event.expect("valid").kind {
                    EventKind::StringDelta(text) => deltas.push_str(text),
                    other => panic!("{other:?} at byte {i} of {c:?}"),
                }
            }
        }
        assert_eq!(deltas, c.to_string());
    }
    let mut value = parser.snapshot().expect("a snapshot");
    for level in 0..depth {
        value = if level % 2 == 0 {
            &value[0]
        } else {
            &value["k"]
        };
    }
    assert_eq!(value, &Value::from("deep text, ünïcode"));
}
