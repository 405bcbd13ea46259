//! One test per rule of the standard's "interpreting an event stream", each
//! named by its rule. Every input is decoded whole, byte by byte and split
//! at every position, and all must agree.

use alloc::string::String;
use alloc::vec::Vec;
use alloc::{format, vec};

use super::*;

/// How the pieces are handed to the decoder.
#[derive(Clone, Copy, Debug)]
enum Mode {
    /// `feed`, then `next` until `None`.
    Feed,
    /// `decode`, then its `next` until `None`.
    Decode,
    /// `decode`, one item pulled from it at most, and the rest from `next`
    /// after it is dropped.
    DecodeOneThenNext,
}

/// Decodes `pieces` in order in one `mode`, collecting items and the
/// error, if any.
fn run_mode(limits: Limits, pieces: &[&[u8]], mode: Mode) -> (Vec<Item>, Option<Error>) {
    let mut decoder = Decoder::with_limits(limits);
    let mut items = Vec::new();
    let mut error = None;
    let mut take = |item: Result<ItemRef<'_>, Error>| match item {
        Ok(item) => items.push(item.to_item()),
        Err(e) => error = Some(e),
    };
    for piece in pieces {
        match mode {
            Mode::Feed => decoder.feed(piece),
            Mode::Decode => {
                let mut decode = decoder.feed_borrowed(piece);
                while let Some(item) = decode.next_event() {
                    take(item);
                }
            }
            Mode::DecodeOneThenNext => {
                let mut decode = decoder.feed_borrowed(piece);
                if let Some(item) = decode.next_event() {
                    take(item);
                }
            }
        }
        while let Some(item) = decoder.next_event() {
            take(item);
        }
    }
    let end = decoder.finish().err();
    assert_eq!(error, end, "finish reports the error next reported");
    (items, error)
}

/// Decodes `pieces` in order, collecting items and the error, if any: the
/// same in every [`Mode`].
fn run(limits: Limits, pieces: &[&[u8]]) -> (Vec<Item>, Option<Error>) {
    let fed = run_mode(limits, pieces, Mode::Feed);
    for mode in [Mode::Decode, Mode::DecodeOneThenNext] {
        assert_eq!(run_mode(limits, pieces, mode), fed, "{mode:?}");
    }
    fed
}

/// Decodes `input` whole, byte by byte and in two pieces split at every
/// position; asserts all agree and returns the result.
fn decode_all_ways_with(limits: Limits, input: &[u8]) -> (Vec<Item>, Option<Error>) {
    let whole = run(limits, &[input]);
    let bytes: Vec<&[u8]> = input.chunks(1).collect();
    assert_eq!(run(limits, &bytes), whole, "byte by byte");
    for at in 0..=input.len() {
        let (a, b) = input.split_at(at);
        assert_eq!(run(limits, &[a, b]), whole, "split at {at}");
    }
    whole
}

/// The items of `input`, which must decode without error.
fn items(input: &[u8]) -> Vec<Item> {
    let (items, error) = decode_all_ways_with(Limits::default(), input);
    assert_eq!(error, None);
    items
}

fn ev(event_type: &str, data: &str, id: &str) -> Item {
    Item::Event(Event {
        event_type: event_type.into(),
        data: data.into(),
        last_event_id: id.into(),
    })
}

fn msg(data: &str) -> Item {
    ev("message", data, "")
}

// --- The stream is UTF-8 -------------------------------------------------

#[test]
fn utf8_invalid_bytes_become_replacement_characters() {
    assert_eq!(items(b"data: a\xFFb\n\n"), [msg("a\u{FFFD}b")]);
    // Maximal subparts: a truncated 3-byte sequence is one U+FFFD, a lone
    // surrogate encoding is three.
    assert_eq!(items(b"data: \xE2\x82x\n\n"), [msg("\u{FFFD}x")]);
    assert_eq!(
        items(b"data: \xED\xA0\x80\n\n"),
        [msg("\u{FFFD}\u{FFFD}\u{FFFD}")]
    );
    assert_eq!(
        items(b"event: \xC0\n:\x80\ndata\n\n"),
        [Item::Comment("\u{FFFD}".into()), ev("\u{FFFD}", "", "")]
    );
}

#[test]
fn utf8_invalid_byte_does_not_stall_what_follows() {
    assert_eq!(
        items(b"data: \xF0\x9F\n\ndata: next\n\n"),
        [msg("\u{FFFD}"), msg("next")]
    );
}

#[test]
fn utf8_sequence_split_across_pieces_decodes() {
    // decode_all_ways splits inside the 4-byte sequence too.
    assert_eq!(items("data: 😀é\n\n".as_bytes()), [msg("😀é")]);
}

// --- BOM ------------------------------------------------------------------

#[test]
fn bom_leading_is_stripped() {
    assert_eq!(items(b"\xEF\xBB\xBFdata: x\n\n"), [msg("x")]);
}

#[test]
fn bom_split_across_pieces_is_stripped() {
    let (got, _) = run(Limits::default(), &[b"\xEF", b"\xBB", b"\xBFdata: x\n\n"]);
    assert_eq!(got, [msg("x")]);
}

#[test]
fn bom_second_is_part_of_the_first_field_name() {
    // The field name is "\u{FEFF}data": unknown, ignored.
    assert_eq!(items(b"\xEF\xBB\xBF\xEF\xBB\xBFdata: x\n\n"), []);
}

#[test]
fn bom_later_in_the_stream_is_text() {
    assert_eq!(items(b"data: x\n\n\xEF\xBB\xBFdata: y\n\n"), [msg("x")]);
}

#[test]
fn bom_prefix_that_is_not_a_bom_is_text() {
    assert_eq!(items(b"\xEF\xBBdata: x\n\n"), []);
    assert_eq!(items(b"\xEF\xBB\n:c\n"), [Item::Comment("c".into())]);
}

// --- Line endings -------------------------------------------------------

#[test]
fn line_ends_at_lf() {
    assert_eq!(items(b"data: a\ndata: b\n\n"), [msg("a\nb")]);
}

#[test]
fn line_ends_at_crlf() {
    assert_eq!(items(b"data: a\r\ndata: b\r\n\r\n"), [msg("a\nb")]);
}

#[test]
fn line_ends_at_cr() {
    assert_eq!(items(b"data: a\rdata: b\r\r"), [msg("a\nb")]);
}

#[test]
fn line_ends_mixed_in_one_stream() {
    assert_eq!(
        items(b"data: a\r\ndata: b\rdata: c\n\r\ndata: d\r\r\n\n"),
        [msg("a\nb\nc"), msg("d")]
    );
}

#[test]
fn line_ends_cr_cr_is_two_line_ends() {
    assert_eq!(items(b"data: a\r\rdata: b\r\n\r\n"), [msg("a"), msg("b")]);
}

#[test]
fn cr_at_end_of_piece_dispatches_at_once() {
    let mut decoder = Decoder::new();
    decoder.feed(b"data: x\n\r");
    let item = decoder.next_event().map(|r| r.map(|i| i.to_item()));
    assert_eq!(
        item,
        Some(Ok(msg("x"))),
        "dispatched without waiting for the next piece"
    );
    assert!(decoder.next_event().is_none());
}

#[test]
fn lf_starting_a_piece_after_a_cr_is_one_line_end() {
    // Were the LF a line end of its own, it would dispatch "a" alone.
    let (got, _) = run(Limits::default(), &[b"data: a\r", b"\ndata: b\n\n"]);
    assert_eq!(got, [msg("a\nb")]);
    // Also when the LF comes after an empty piece.
    let (got, _) = run(Limits::default(), &[b"data: a\r", b"", b"\ndata: b\n\n"]);
    assert_eq!(got, [msg("a\nb")]);
}

// --- Comments -----------------------------------------------------------

#[test]
fn comment_line_is_reported_and_changes_nothing() {
    assert_eq!(
        items(b": ping\ndata: a\n:\n\n"),
        [
            Item::Comment(" ping".into()),
            Item::Comment("".into()),
            msg("a")
        ]
    );
}

// --- Fields -------------------------------------------------------------

#[test]
fn field_value_loses_one_leading_space_only() {
    assert_eq!(items(b"data:  two\n\n"), [msg(" two")]);
    assert_eq!(items(b"data:\ttab\n\n"), [msg("\ttab")]);
    assert_eq!(items(b"data:none\n\n"), [msg("none")]);
    assert_eq!(items(b"data: trailing \n\n"), [msg("trailing ")]);
}

#[test]
fn field_splits_at_the_first_colon() {
    assert_eq!(items(b"data: a: b:c\n\n"), [msg("a: b:c")]);
}

#[test]
fn field_without_colon_has_empty_value() {
    assert_eq!(items(b"data\n\n"), [msg("")]);
    assert_eq!(items(b"data\ndata\n\n"), [msg("\n")]);
    assert_eq!(items(b"id: 1\nid\ndata: x\n\n"), [msg("x")]);
}

#[test]
fn field_names_are_case_sensitive() {
    assert_eq!(items(b"Data: x\nDATA: y\n\n"), []);
    assert_eq!(items(b"Event: e\ndata: x\n\n"), [msg("x")]);
}

#[test]
fn field_unknown_is_ignored() {
    assert_eq!(items(b"foo: bar\ndata: x\nbaz\n\n"), [msg("x")]);
    assert_eq!(items(b"data : x\n\n"), [], "the name is \"data \"");
}

#[test]
fn event_field_sets_the_type() {
    assert_eq!(items(b"event: delta\ndata: x\n\n"), [ev("delta", "x", "")]);
    assert_eq!(
        items(b"event: a\nevent: b\ndata: x\n\n"),
        [ev("b", "x", "")]
    );
}

#[test]
fn data_field_lines_are_joined_with_lf() {
    assert_eq!(items(b"data: a\ndata:\ndata: c\n\n"), [msg("a\n\nc")]);
}

#[test]
fn id_field_sets_the_last_event_id() {
    assert_eq!(items(b"id: 42\ndata: x\n\n"), [ev("message", "x", "42")]);
}

#[test]
fn id_field_with_nul_is_ignored() {
    assert_eq!(
        items(b"id: 1\ndata: x\n\nid: a\0b\ndata: y\n\n"),
        [ev("message", "x", "1"), ev("message", "y", "1")]
    );
}

#[test]
fn id_persists_across_events() {
    assert_eq!(
        items(b"id: 7\ndata: a\n\ndata: b\n\n"),
        [ev("message", "a", "7"), ev("message", "b", "7")]
    );
}

#[test]
fn id_empty_clears_it() {
    assert_eq!(
        items(b"id: 7\ndata: a\n\nid\ndata: b\n\nid: 8\n\nid:\ndata: c\n\n"),
        [
            ev("message", "a", "7"),
            ev("message", "b", ""),
            ev("message", "c", "")
        ]
    );
}

#[test]
fn id_set_in_a_block_without_data_still_persists() {
    // The last event ID buffer is set when the field is read, dispatch or not.
    assert_eq!(items(b"id: 3\n\ndata: x\n\n"), [ev("message", "x", "3")]);
}

#[test]
fn retry_takes_ascii_digits_only() {
    assert_eq!(items(b"retry: 03000\n"), [Item::Retry(3000)]);
    assert_eq!(items(b"retry: 0\n"), [Item::Retry(0)]);
    for bad in [
        &b"retry: +1000\n"[..],
        b"retry:  100\n",
        b"retry: 0x10\n",
        b"retry: 10 \n",
        b"retry: -1\n",
        b"retry: 1.5\n",
        b"retry:\n",
        b"retry\n",
        b"retry: \xD9\xA1\n", // Arabic-Indic digit one: a digit, not ASCII
    ] {
        assert_eq!(items(bad), [], "{:?}", String::from_utf8_lossy(bad));
    }
}

#[test]
fn retry_beyond_u64_saturates() {
    assert_eq!(
        items(b"retry: 99999999999999999999999\n"),
        [Item::Retry(u64::MAX)]
    );
}

#[test]
fn retry_is_reported_without_an_event() {
    assert_eq!(items(b"retry: 10\n\n"), [Item::Retry(10)]);
    assert_eq!(
        items(b"data: a\nretry: 5\n\n"),
        [Item::Retry(5), msg("a")],
        "in stream order: the field comes before the blank line"
    );
}

// --- Dispatch -----------------------------------------------------------

#[test]
fn blank_line_with_empty_data_dispatches_nothing_and_clears_the_type() {
    assert_eq!(items(b"event: a\n\ndata: x\n\n"), [msg("x")]);
    assert_eq!(items(b"\n\n\n"), []);
}

#[test]
fn blank_line_removes_one_trailing_lf() {
    assert_eq!(items(b"data: a\ndata\n\n"), [msg("a\n")]);
}

#[test]
fn event_type_defaults_to_message() {
    assert_eq!(items(b"data: x\n\n"), [msg("x")]);
    assert_eq!(
        items(b"event\ndata: x\n\n"),
        [msg("x")],
        "an empty type too"
    );
}

#[test]
fn event_type_and_data_reset_after_dispatch() {
    assert_eq!(
        items(b"event: a\ndata: 1\n\ndata: 2\n\n"),
        [ev("a", "1", ""), msg("2")]
    );
}

#[test]
fn unterminated_event_at_end_of_stream_is_discarded() {
    assert_eq!(items(b"data: a\n\ndata: b\n"), [msg("a")]);
    assert_eq!(items(b"data: a\n\ndata: b"), [msg("a")]);
    assert_eq!(items(b"retry: 5"), [], "an unfinished line is not a line");
}

#[test]
fn finish_starts_a_new_stream_keeping_the_last_event_id() {
    let mut decoder = Decoder::new();
    decoder.feed(b"id: 9\ndata: a\n\ndata: cut");
    while decoder.next_event().is_some() {}
    assert_eq!(decoder.finish(), Ok(()));
    assert_eq!(decoder.last_event_id(), "9");
    decoder.feed(b"\xEF\xBB\xBFdata: b\n\n");
    let item = decoder.next_event().map(|r| r.map(|i| i.to_item()));
    assert_eq!(item, Some(Ok(ev("message", "b", "9"))));
}

#[test]
fn an_id_in_an_event_the_stream_cut_short_is_not_the_last_event_id() {
    let mut decoder = Decoder::new();
    decoder.feed(b"id: 1\ndata: a\n\nid: 2\ndata: b\n");
    while decoder.next_event().is_some() {}
    assert_eq!(decoder.last_event_id(), "1", "event 2 was never dispatched");
    assert_eq!(decoder.finish(), Ok(()));
    assert_eq!(decoder.last_event_id(), "1");
    decoder.feed(b"data: c\n\n");
    let item = decoder.next_event().map(|r| r.map(|i| i.to_item()));
    assert_eq!(item, Some(Ok(ev("message", "c", "1"))));
}

#[test]
fn a_blank_line_sets_the_last_event_id_even_with_no_data() {
    let mut decoder = Decoder::new();
    decoder.feed(b"id: 7\n\nid: 8\n");
    assert!(decoder.next_event().is_none(), "no data, no event");
    assert_eq!(decoder.last_event_id(), "7");
    decoder.feed(b"\n");
    assert!(decoder.next_event().is_none());
    assert_eq!(decoder.last_event_id(), "8");
    decoder.set_last_event_id("x");
    decoder.feed(b"data: d\n\n");
    let item = decoder.next_event().map(|r| r.map(|i| i.to_item()));
    assert_eq!(item, Some(Ok(ev("message", "d", "x"))));
    assert_eq!(decoder.last_event_id(), "x");
}

// --- Limits -------------------------------------------------------------

#[test]
fn limit_line_too_long_is_an_error_naming_limit_offset_and_field() {
    let limits = Limits::default().with_max_line_bytes(8);
    let (got, error) = decode_all_ways_with(limits, b"data: ok\n\ndata: too long\n\n");
    assert_eq!(got, [msg("ok")]);
    let error = error.unwrap();
    assert_eq!(error.kind(), ErrorKind::LineTooLong { limit: 8 });
    assert_eq!(error.offset(), 10 + 8);
    assert_eq!(
        format!("{error}"),
        "line longer than the limit of 8 bytes at byte 18 (reading field \"data\")"
    );
}

#[test]
fn limit_errors_have_a_json_form_with_every_field() {
    let limits = Limits::default().with_max_line_bytes(8);
    let (_, error) = decode_all_ways_with(limits, b"data: ok\n\ndata: too long\n\n");
    let form = error.unwrap().to_value();
    let text = format!("{form}");
    assert_eq!(
        text,
        r#"{"message":"line longer than the limit of 8 bytes at byte 18 (reading field \"data\")","kind":"line_too_long","limit":8,"offset":18,"reading":"field","field":"data"}"#
    );
    let (_, error) = decode_all_ways_with(limits, b":abcdefghij");
    let form = error.unwrap().to_value();
    assert_eq!(form["reading"].as_str(), Some("comment"));
    assert!(form.get("field").is_none());
    let limits = Limits::default().with_max_event_data_bytes(4);
    let (_, error) = decode_all_ways_with(limits, b"data: abc\ndata: def\n\n");
    let form = error.unwrap().to_value();
    assert_eq!(form["kind"].as_str(), Some("event_data_too_long"));
    assert_eq!(form["limit"].as_u64(), Some(4));
}

#[test]
fn limit_line_too_long_without_a_line_end() {
    let limits = Limits::default().with_max_line_bytes(4);
    let (_, error) = decode_all_ways_with(limits, b"abcdefgh");
    assert_eq!(
        format!("{}", error.unwrap()),
        "line longer than the limit of 4 bytes at byte 4 (reading a field name)"
    );
    let (_, error) = decode_all_ways_with(limits, b"\xEF\xBB\xBF:abcdefgh");
    assert_eq!(
        format!("{}", error.unwrap()),
        "line longer than the limit of 4 bytes at byte 7 (reading a comment)"
    );
}

#[test]
fn limit_line_of_exactly_the_limit_is_fine() {
    let limits = Limits::default().with_max_line_bytes(7);
    let (got, error) = decode_all_ways_with(limits, b"data: x\r\n\r\n");
    assert_eq!((got, error), (vec![msg("x")], None));
}

#[test]
fn limit_event_data_too_long_is_an_error() {
    let limits = Limits::default().with_max_event_data_bytes(5);
    let (got, error) = decode_all_ways_with(limits, b"data: 12345\n\ndata: 12\ndata: 345\n\n");
    assert_eq!(got, [msg("12345")]);
    let error = error.unwrap();
    assert_eq!(error.kind(), ErrorKind::EventDataTooLong { limit: 5 });
    assert_eq!(
        format!("{error}"),
        "event data longer than the limit of 5 bytes at byte 22 (reading field \"data\")"
    );
    // The limit counts input bytes, before decoding.
    let (got, error) = decode_all_ways_with(limits, b"data: \xFF\xFF\xFF\xFF\xFF\n\n");
    assert_eq!(
        (got, error),
        (vec![msg("\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}")], None)
    );
}

#[test]
fn limit_error_stops_the_decoder() {
    let mut decoder = Decoder::with_limits(Limits::default().with_max_line_bytes(2));
    decoder.feed(b"data: x\n\n");
    assert!(matches!(decoder.next_event(), Some(Err(_))));
    assert!(decoder.next_event().is_none(), "reported once");
    decoder.feed(b"\n\ndata\n\n");
    assert!(decoder.next_event().is_none(), "further input is ignored");
    assert!(decoder.finish().is_err());
}

#[test]
fn limit_bounds_memory_while_a_line_grows() {
    // Fed, and read in place: a line that never ends fails at the piece
    // that takes it past the limit, at the limit's byte.
    for (in_place, first) in [(false, &b""[..]), (true, b""), (true, b"data: x\n\n")] {
        let mut decoder = Decoder::with_limits(Limits::default().with_max_line_bytes(1000));
        let mut failed = None;
        decoder.feed(first);
        while decoder.next_event().is_some() {}
        for piece in 1..10_000 {
            let result = if in_place {
                decoder
                    .feed_borrowed(&[b'a'; 100])
                    .next_event()
                    .map(|r| r.err())
            } else {
                decoder.feed(&[b'a'; 100]);
                decoder.next_event().map(|r| r.err())
            };
            if let Some(error) = result {
                failed = error.map(|e| (piece, e.offset() - first.len() as u64));
                break;
            }
        }
        assert_eq!(failed, Some((11, 1000)), "in place: {in_place}");
    }
}

#[test]
fn long_line_in_many_pieces_is_searched_once() {
    // eventsource-stream re-scans from the line start on every piece: an
    // 8 MiB line in 1,024 pieces took it 7 s. Here each byte is examined
    // once, counted rather than timed, whether the pieces are fed or read
    // in place.
    let mut input = Vec::from(&b"data: "[..]);
    input.resize(8 << 20, b'x');
    input.extend_from_slice(b"\n\n");
    for in_place in [false, true] {
        let mut decoder = Decoder::new();
        let mut events = 0;
        let mut count = |item: Result<ItemRef<'_>, Error>| {
            if let ItemRef::Event(e) = item.unwrap() {
                assert_eq!(e.data.len(), (8 << 20) - 6);
                events += 1;
            }
        };
        for piece in input.chunks(input.len() / 1024 + 1) {
            if in_place {
                let mut decode = decoder.feed_borrowed(piece);
                while let Some(item) = decode.next_event() {
                    count(item);
                }
            } else {
                decoder.feed(piece);
                while let Some(item) = decoder.next_event() {
                    count(item);
                }
            }
        }
        assert_eq!(events, 1);
        // Read in place, a line end the buffer finishes is searched once
        // more there: at most one byte per line.
        assert!(
            decoder.searched <= input.len() as u64 + 2,
            "{} searched (in place: {in_place})",
            decoder.searched
        );
    }
}

#[test]
fn long_data_lines_decode_alike_however_cut() {
    crate::simd::each_width(long_data_lines_here);
}

fn long_data_lines_here() {
    // Long enough for the one-pass copy of a long line (128-byte steps
    // past a piece's start, where the CPU has AVX2): a line of ASCII with
    // one other byte at a time, at a step's edges and in its middle,
    // read in pieces of several sizes, every mode agreeing with the text
    // `from_utf8_lossy` gives.
    for odd in ["é".as_bytes(), &b"\xff"[..], "日".as_bytes(), b"\r", b"A"] {
        for at in [0, 1, 127, 128, 255, 300, 1459, 1460, 2000, 2999] {
            let mut value = vec![b'q'; 3000];
            value.splice(at..at, odd.iter().copied());
            let mut input = Vec::from(&b"event: image\ndata: "[..]);
            input.extend_from_slice(&value);
            input.extend_from_slice(b"\n\n");
            let expected: Vec<Item> = match odd {
                // A CR ends the data line: the rest is a line of its own
                // (a field named by it, ignored).
                b"\r" => vec![ev("image", &String::from_utf8_lossy(&value[..at]), "")],
                _ => vec![ev("image", &String::from_utf8_lossy(&value), "")],
            };
            for size in [257, 300, 1460, 4096] {
                let pieces: Vec<&[u8]> = input.chunks(size).collect();
                let (got, error) = run(Limits::default(), &pieces);
                assert_eq!(error, None);
                assert_eq!(got, expected, "{odd:?} at {at}, pieces of {size}");
            }
        }
    }
}
