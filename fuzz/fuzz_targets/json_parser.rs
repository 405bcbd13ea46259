//! json::Parser with fuzzer-chosen cuts.
//!
//! - The outcome (events with string deltas merged, final value, completed
//!   values, error with its kind, offset and path) is the same whether the
//!   document comes whole, in the chosen pieces, or one byte at a time.
//! - With the default (strict) options, valid/invalid agrees with
//!   serde_json, and a valid document's value equals serde_json's; the one
//!   accepted difference: numbers beyond `f64`, which serde_json rejects and
//!   llmstream keeps as text.
//! - `json::parse` agrees with the parser; snapshot(false) gives the same
//!   events as snapshot(true).
//! - `push`, which reads no events (and so takes the fast paths for whole
//!   numbers, short strings and plain pieces), gives the same outcome and
//!   value as pulling the events, whole, cut and byte by byte; so does
//!   `json::parse_with` (the value built for the end only), and a parser
//!   reused with `reset` after another document.
//! - `json::Tape` (strict) gives `json::parse`'s value or error.
//! - A valid document means what serde_json's rewriting of it means
//!   (`Value::same_meaning`), where its numbers are integers.
#![no_main]

use fuzz_common::{merge_json_events, serde_number_out_of_range, to_serde, Input, BYTEWISE_MAX};
use libfuzzer_sys::fuzz_target;
use llmstream::json::{self, Error, Limits, Options, OwnedEvent, Parser, Value};

#[derive(Debug, PartialEq)]
struct Outcome {
    events: Vec<OwnedEvent>,
    result: Result<(), Error>,
    value: Option<Value>,
    completed: Vec<Value>,
}

fn run<'a>(options: Options, pieces: impl IntoIterator<Item = &'a [u8]>) -> Outcome {
    let mut parser = Parser::with_options(options);
    let mut events = Vec::new();
    let mut completed = Vec::new();
    let mut result = Ok(());
    'pieces: for piece in pieces {
        let mut feed = parser.feed_borrowed(piece);
        while let Some(event) = feed.next_event() {
            match event {
                Ok(event) => events.push(event.to_owned()),
                Err(e) => {
                    result = Err(e);
                    break 'pieces;
                }
            }
        }
        drop(feed);
        completed.extend(std::iter::from_fn(|| parser.take_completed()));
    }
    if result.is_ok() {
        let mut feed = parser.finish_borrowed();
        while let Some(event) = feed.next_event() {
            match event {
                Ok(event) => events.push(event.to_owned()),
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        drop(feed);
        completed.extend(std::iter::from_fn(|| parser.take_completed()));
    }
    completed.extend(std::iter::from_fn(|| parser.take_completed()));
    if result.is_err() {
        // Events and the partial value before an error depend on where
        // the pieces ended (an open string's text is reported per piece);
        // the error itself must not.
        return Outcome {
            events: Vec::new(),
            result,
            value: None,
            completed,
        };
    }
    assert!(parser.error().is_none());
    Outcome {
        events: merge_json_events(events),
        result,
        value: parser.into_value(),
        completed,
    }
}

/// The outcome through `push`: the result, and (on success) the value and
/// the completed values.
fn run_quiet<'a>(
    parser: &mut Parser,
    pieces: impl IntoIterator<Item = &'a [u8]>,
) -> (Result<(), Error>, Option<Value>, Vec<Value>) {
    let mut result = Ok(());
    let mut completed = Vec::new();
    for piece in pieces {
        result = parser.feed(piece);
        completed.extend(std::iter::from_fn(|| parser.take_completed()));
        if result.is_err() {
            break;
        }
    }
    if result.is_ok() {
        result = parser.finish();
    }
    completed.extend(std::iter::from_fn(|| parser.take_completed()));
    match result {
        Ok(()) => (result, parser.take_value(), completed),
        Err(e) => (Err(e), None, completed),
    }
}

fn options(flags: u8) -> Options {
    let mut options = Options::new()
        .trailing_commas(flags & 1 != 0)
        .growing_numbers(flags & 2 != 0)
        .multiple_values(flags & 4 != 0)
        .snapshot(flags & 8 == 0);
    if flags & 16 != 0 {
        options = options.limits(Limits {
            max_depth: 4,
            max_string_bytes: 8,
            max_number_bytes: 8,
            max_input_bytes: 64,
        });
    }
    options
}

fuzz_target!(|data: &[u8]| {
    let Some(input) = Input::new(data) else {
        return;
    };
    let doc = input.doc;
    let options = options(input.flags);
    let snapshot = input.flags & 8 == 0;
    let whole = run(options, [doc]);
    let cut = run(options, input.pieces());
    assert_eq!(whole, cut, "outcome depends on the cuts {:?}", input.cuts);
    if doc.len() <= BYTEWISE_MAX {
        let bytewise = run(options, doc.chunks(1));
        assert_eq!(whole, bytewise, "outcome differs fed one byte at a time");
    }
    // Without events: the same outcome, whatever the cuts, and a parser
    // reset after another document behaves as a new one.
    let expected = (
        whole.result.clone(),
        whole.value.clone(),
        whole.completed.clone(),
    );
    let mut parser = Parser::with_options(options);
    assert_eq!(
        run_quiet(&mut parser, [doc]),
        expected,
        "push differs from feed"
    );
    parser.reset();
    assert_eq!(
        run_quiet(&mut parser, input.pieces()),
        expected,
        "push in pieces differs"
    );
    if doc.len() <= BYTEWISE_MAX {
        parser.reset();
        assert_eq!(
            run_quiet(&mut parser, doc.chunks(1)),
            expected,
            "push bytewise differs"
        );
    }
    if input.flags & 4 == 0 {
        let parsed = json::parse_with(doc, options);
        assert_eq!(parsed.as_ref().err(), whole.result.as_ref().err());
        if let (Ok(value), true) = (&parsed, snapshot) {
            assert_eq!(whole.value.as_ref(), Some(value), "parse_with differs");
        }
    }
    if snapshot {
        // Keeping the snapshot changes nothing but the snapshot.
        let bare = run(options.snapshot(false), [doc]);
        assert_eq!(whole.events, bare.events);
        assert_eq!(whole.result, bare.result);
    }

    let strict = input.flags & (1 | 4 | 16) == 0;
    if !strict {
        return;
    }
    let parsed = json::parse(doc);
    assert_eq!(parsed.as_ref().err(), whole.result.as_ref().err());
    // A tape reads what `json::parse` reads, and fails as it does.
    let mut tape = json::Tape::new();
    let taped = tape.parse(doc).map(|node| node.to_value());
    assert_eq!(taped, parsed, "json::Tape differs from json::parse");
    let serde: Result<serde_json::Value, _> = serde_json::from_slice(doc);
    match (&whole.result, &serde) {
        (Ok(()), Ok(expected)) => {
            let value = parsed.expect("parse agrees with the parser");
            if snapshot {
                assert_eq!(whole.value.as_ref(), Some(&value));
            }
            assert_eq!(
                to_serde(&value).as_ref(),
                Some(expected),
                "value differs from serde_json"
            );
            // serde_json writes it back with its members sorted, a name
            // given twice once (its last value) and each integer its own
            // way (`-0` as `-0.0`): the same meaning. (Other numbers go
            // through `f64`, which may round them.)
            if integers_only(&value) {
                let rewritten = serde_json::to_vec(expected).expect("serde_json writes");
                let rewritten = json::parse(&rewritten).expect("serde_json's JSON");
                assert!(
                    value.same_meaning(&rewritten),
                    "means other than serde_json's"
                );
            }
            assert!(value.same_meaning(&value));
        }
        (Err(_), Err(_)) => {}
        (Ok(()), Err(e)) if serde_number_out_of_range(e) => {}
        (Ok(()), Err(e)) => panic!("llmstream accepts what serde_json rejects: {e}"),
        (Err(e), Ok(_)) => panic!("llmstream rejects what serde_json accepts: {e}"),
    }
});

/// Whether every number in `value` is an integer that serde_json keeps
/// exactly (an `i64` or a `u64`, written without a fraction or an exponent).
fn integers_only(value: &Value) -> bool {
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Number(n) => {
                let text = n.as_str();
                let plain = !text.contains(['.', 'e', 'E']);
                if !plain || (n.as_i64().is_none() && n.as_u64().is_none()) {
                    return false;
                }
            }
            Value::Array(items) => pending.extend(items),
            Value::Object(map) => pending.extend(map.values()),
            _ => {}
        }
    }
    true
}
