//! `json::repair`: the best-effort value of truncated JSON text.
//!
//! Covers every case of Symfony AI's `PartialJsonParserTest`
//! (symfony/ai, src/platform/tests/StructuredOutput/Streaming), by its
//! categories: already valid input, trailing commas, unclosed strings,
//! incomplete values, incomplete numbers, unclosed structures, strings
//! containing brackets, unrecoverable input. Where our policy differs from
//! Symfony's expectation the test says so (a dangling key or colon is
//! dropped, not given a `null` value). Then the cases that parser gets
//! wrong or gives up on, which we must get right. Last, the strict
//! partial reader (`Parser::finish_partial` in strict mode), which
//! `repair` reads the same as wherever it gives a value: input no
//! continuation could fix is an error there, never a silent truncation.

use llmstream::json::{repair, repair_bytes, Error, ErrorKind, Expected, Parser, Value};

/// The strict partial reader: the value of a text cut short, or the error
/// where no continuation could make it JSON.
pub(crate) fn strict_partial(input: &[u8]) -> Result<Option<Value>, Error> {
    let mut parser = Parser::new();
    parser.feed(input)?;
    parser.finish_partial()
}

/// Repairs `input` and returns the compact JSON of the value (numbers keep
/// their text, so `1.` repaired shows as `1`).
fn repaired(input: &str) -> String {
    match repair(input) {
        Ok(Some(value)) => value.to_json(),
        Ok(None) => panic!("repair({input:?}) gave no value"),
        Err(e) => panic!("repair({input:?}) failed: {e}"),
    }
}

fn check(cases: &[(&str, &str)]) {
    for (input, expected) in cases {
        assert_eq!(repaired(input), *expected, "repair({input:?})");
        // The expectation is itself valid JSON, and repairing it changes
        // nothing.
        assert_eq!(repaired(expected), *expected, "repair({expected:?})");
    }
}

// ----- Symfony AI's PartialJsonParserTest, category by category -----

#[test]
fn symfony_already_valid() {
    check(&[
        (r#"{"a":1}"#, r#"{"a":1}"#),
        ("{}", "{}"),
        ("[]", "[]"),
        (r#"{"a":{"b":[1,2,3]}}"#, r#"{"a":{"b":[1,2,3]}}"#),
        (r#""hello""#, r#""hello""#),
        ("42", "42"),
        ("true", "true"),
        ("null", "null"),
    ]);
}

#[test]
fn symfony_trailing_commas() {
    check(&[
        (r#"{"a":1,}"#, r#"{"a":1}"#),
        ("[1, 2, 3,]", "[1,2,3]"),
        (r#"{"a":[1, 2,], "b":3,}"#, r#"{"a":[1,2],"b":3}"#),
    ]);
}

#[test]
fn symfony_unclosed_strings() {
    check(&[
        (r#"{"a":"hel"#, r#"{"a":"hel"}"#),
        (r#"{"a":"he\"l"#, r#"{"a":"he\"l"}"#),
        (r#"["foo", "bar"#, r#"["foo","bar"]"#),
        // Symfony's older version gave up on these two.
        (r#"{"a":"hello\"#, r#"{"a":"hello"}"#),
        (r#"{"a":"\u00"#, r#"{"a":""}"#),
    ]);
}

#[test]
fn symfony_incomplete_values() {
    check(&[
        ("{\"a\":tru", r#"{"a":true}"#),
        ("{\"a\":tr", r#"{"a":true}"#),
        ("{\"a\":fals", r#"{"a":false}"#),
        ("{\"a\":fal", r#"{"a":false}"#),
        ("{\"a\":fa", r#"{"a":false}"#),
        ("{\"a\":nul", r#"{"a":null}"#),
        ("{\"a\":nu", r#"{"a":null}"#),
        ("[1, tru", "[1,true]"),
        // Symfony's older version gave up on a cut key.
        (r#"{"a":1,"bb"#, r#"{"a":1}"#),
    ]);
}

/// Symfony gives a dangling colon the value `null`; our policy (docs/ARCHITECTURE.md:
/// a member whose value has not started is omitted) drops the member, so
/// that a repaired value never invents a value the text does not hold.
#[test]
fn symfony_dangling_colon_dropped_not_null() {
    check(&[
        (r#"{"a":"#, "{}"),
        (r#"{"a": "#, "{}"),
        (r#"{"x":1,"a":"#, r#"{"x":1}"#),
    ]);
}

#[test]
fn symfony_incomplete_numbers() {
    check(&[
        (r#"{"a": 1."#, r#"{"a":1}"#),
        // Symfony's newest version gives `null`; we drop the member, as for
        // a dangling colon.
        (r#"{"a": -"#, "{}"),
        (r#"{"a": 1e"#, r#"{"a":1}"#),
        (r#"{"a": 1e-"#, r#"{"a":1}"#),
        (r#"{"a": -0.5e"#, r#"{"a":-0.5}"#),
    ]);
}

#[test]
fn symfony_unclosed_structures() {
    check(&[
        (r#"{"a":{"b":1"#, r#"{"a":{"b":1}}"#),
        ("[1, [2, 3", "[1,[2,3]]"),
        (r#"{"items":[{"n":1"#, r#"{"items":[{"n":1}]}"#),
        ("{", "{}"),
        ("[", "[]"),
    ]);
}

#[test]
fn symfony_strings_containing_brackets() {
    check(&[
        (r#"{"x":"}{""#, r#"{"x":"}{"}"#),
        (r#"{"x":"][", "y":1"#, r#"{"x":"][","y":1}"#),
        (r#"{"x":"hello {world"#, r#"{"x":"hello {world"}"#),
        // Symfony's trailing-comma cleanup is not string-aware and strips
        // these commas; the comma belongs to the string.
        (r#"{"k":"a,]"#, r#"{"k":"a,]"}"#),
        (r#"{"path":"a,}"#, r#"{"path":"a,}"}"#),
    ]);
}

#[test]
fn symfony_unrecoverable_input_is_an_error() {
    // Lenient mode reads a text with no value in it as that text.
    assert_eq!(repaired("not json at all !!!"), r#""not json at all !!!""#);
    let err = strict_partial(b"not json at all !!!").unwrap_err();
    assert!(!err.is_incomplete());
    assert_eq!(
        err.kind(),
        &ErrorKind::Unexpected {
            expected: Expected::Literal("null"),
            found: b'o'
        }
    );
    assert_eq!(err.offset(), 1);
    assert!(!err.to_string().is_empty());
}

#[test]
fn symfony_recovery_after_cut_member() {
    check(&[(r#"{"a":1"#, r#"{"a":1}"#)]);
}

// ----- the cases Symfony gets wrong, which we must get right -----

#[test]
fn comma_before_bracket_stays_inside_the_string() {
    check(&[
        (r#"{"k":"a,]"#, r#"{"k":"a,]"}"#),
        (r#"["a,]", "b,}"#, r#"["a,]","b,}"]"#),
        (r#"{"k":"a,]"}"#, r#"{"k":"a,]"}"#),
    ]);
}

#[test]
fn cut_fraction_keeps_the_integer() {
    check(&[(r#"{"a": 1."#, r#"{"a":1}"#), ("[1.", "[1]"), ("1.", "1")]);
}

#[test]
fn lone_minus_is_dropped() {
    check(&[(r#"{"a": -"#, "{}"), ("[1, -", "[1]")]);
    assert_eq!(repair("-").unwrap(), None);
}

#[test]
fn cut_exponent_keeps_the_mantissa() {
    check(&[
        (r#"{"a": 1e"#, r#"{"a":1}"#),
        (r#"{"a": 1E+"#, r#"{"a":1}"#),
        ("[2.5e-", "[2.5]"),
        ("1e", "1"),
        ("[1e5", "[1e5]"),
    ]);
}

#[test]
fn trailing_backslash_is_dropped() {
    check(&[
        (r#"{"a":"x\"#, r#"{"a":"x"}"#),
        (r#"["x\"#, r#"["x"]"#),
        (r#""\"#, r#""""#),
    ]);
}

#[test]
fn cut_unicode_escape_is_dropped() {
    check(&[
        (r#""\u00"#, r#""""#),
        (r#""ab\u"#, r#""ab""#),
        (r#""ab\u00e"#, r#""ab""#),
        // Half a surrogate pair is dropped too, whatever its stage.
        (r#""x\ud83d"#, r#""x""#),
        (r#""x\ud83d\"#, r#""x""#),
        (r#""x\ud83d\u"#, r#""x""#),
        (r#""x\ud83d\ude0"#, r#""x""#),
        (r#""x\ud83d\ude00"#, r#""x😀""#),
    ]);
}

#[test]
fn cut_key_is_dropped() {
    check(&[
        (r#"{"a":1,"bb"#, r#"{"a":1}"#),
        (r#"{"a":1,"bb""#, r#"{"a":1}"#),
        (r#"{"a":1,"bb" "#, r#"{"a":1}"#),
        (r#"{"a":1,""#, r#"{"a":1}"#),
        (r#"{"a":1,"#, r#"{"a":1}"#),
        (r#"{"#, "{}"),
        (r#"{"a":{"b"#, r#"{"a":{}}"#),
    ]);
}

// ----- the strict partial reader: only what a continuation could fix -----

#[test]
fn missing_comma_is_an_error_not_a_truncation() {
    assert_eq!(repaired("[1 2"), "[1,2]");
    let err = strict_partial(b"[1 2").unwrap_err();
    assert!(!err.is_incomplete());
    assert_eq!(err.offset(), 3);
    assert_eq!(
        err.kind(),
        &ErrorKind::Unexpected {
            expected: Expected::CommaOrArrayEnd,
            found: b'2'
        }
    );
}

#[test]
fn missing_colon_is_an_error_not_a_truncation() {
    assert_eq!(repaired(r#"{"a" 1"#), r#"{"a":1}"#);
    let err = strict_partial(br#"{"a" 1"#).unwrap_err();
    assert!(!err.is_incomplete());
    assert_eq!(err.offset(), 5);
    assert_eq!(
        err.kind(),
        &ErrorKind::Unexpected {
            expected: Expected::Colon,
            found: b'1'
        }
    );
    assert_eq!(err.path().to_string(), "a");
}

#[test]
fn other_invalid_input_is_an_error() {
    for input in [
        "[1,,2",
        "[01",
        r#"{"a":1}}"#,
        r#"{"a":1} x"#,
        r#""\x"#,
        r#""\udc00"#,
        "\"a\nb",
        "[tx",
        "{1:2}",
        "'a'",
        "[,",
        "\u{feff}{}",
    ] {
        assert!(repair(input).is_ok(), "lenient mode takes {input:?}");
        let result = strict_partial(input.as_bytes());
        assert!(result.is_err(), "strict_partial({input:?}) = {result:?}");
        assert!(!result.unwrap_err().is_incomplete(), "{input:?}");
    }
}

#[test]
fn empty_input_is_no_value() {
    assert_eq!(repair("").unwrap(), None);
    assert_eq!(repair(" \n\t ").unwrap(), None);
}

#[test]
fn top_level_scalars() {
    check(&[
        ("12", "12"),
        ("-12.50", "-12.50"),
        ("  7  ", "7"),
        (r#""abc"#, r#""abc""#),
        ("t", "true"),
        ("fa", "false"),
        ("n", "null"),
    ]);
    assert_eq!(repair("-").unwrap(), None);
    assert_eq!(repair("  -").unwrap(), None);
}

#[test]
fn unclosed_nesting_closes_every_level() {
    check(&[
        (r#"[{"a":[{"b":["c"#, r#"[{"a":[{"b":["c"]}]}]"#),
        ("[[[[", "[[[[]]]]"),
        (r#"{"a":[1,{"b":{"c":tr"#, r#"{"a":[1,{"b":{"c":true}}]}"#),
        (
            r#"{"a":[1,2],"b":{"c":"d"},"e":[3,"#,
            r#"{"a":[1,2],"b":{"c":"d"},"e":[3]}"#,
        ),
    ]);
}

#[test]
fn cut_utf8_at_the_end_is_dropped_but_invalid_utf8_is_an_error() {
    let value = repair_bytes(b"[\"a\xF0\x9F\x98").unwrap().unwrap();
    assert_eq!(value.to_json(), r#"["a"]"#);
    let value = repair_bytes(b"[\"a\xC3").unwrap().unwrap();
    assert_eq!(value.to_json(), r#"["a"]"#);
    // Lenient mode reads invalid UTF-8 as U+FFFD; the strict reader
    // stops there.
    let value = repair_bytes(b"[\"a\xFF").unwrap().unwrap();
    assert_eq!(value.to_json(), "[\"a\u{FFFD}\"]");
    let err = strict_partial(b"[\"a\xFF").unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::InvalidUtf8);
    let err = strict_partial(b"[\"a\xC3\x28").unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::InvalidUtf8);
}

#[test]
fn every_prefix_of_a_document_repairs() {
    let doc = r#"{"items":["a","b\"c",{"n":-1.5e+3,"t":true,"z":null}],"note":"x\u00e9\ud83d\ude00,]}","k":[]}"#;
    let full = repaired(doc);
    assert_eq!(
        full,
        llmstream::json::parse(doc.as_bytes()).unwrap().to_json()
    );
    for cut in 0..=doc.len() {
        let prefix = &doc.as_bytes()[..cut];
        let result = repair_bytes(prefix);
        assert!(
            result.is_ok(),
            "prefix {:?}: {result:?}",
            String::from_utf8_lossy(prefix)
        );
        if cut > 0 {
            // Every prefix past the first byte holds the object.
            let value = result.unwrap().unwrap();
            assert!(value.as_object().is_some(), "prefix {cut}: {value:?}");
        }
    }
}

/// After an error inside a number, the best-effort value is the snapshot,
/// wherever the input was cut: the parser reads a number in place and
/// keeps only the part earlier pieces brought, so adding "the cut number"
/// gave `[-1]`, `[-10]` or `[-100]` by the cuts.
#[test]
fn partial_value_after_an_error_in_a_number_does_not_depend_on_the_cuts() {
    for text in ["[-100. ", "[12e ]", "[1.5e+ ]", "[0x", r#"{"a":-x"#] {
        let bytes = text.as_bytes();
        let mut values = std::collections::BTreeSet::new();
        for cut in 0..=bytes.len() {
            let mut parser = llmstream::json::Parser::new();
            let first = parser.feed(&bytes[..cut]);
            let second = parser.feed(&bytes[cut..]);
            assert!(first.is_err() || second.is_err(), "{text:?} is invalid");
            values.insert(parser.partial_value().map(|v| v.to_json()));
        }
        assert_eq!(values.len(), 1, "{text:?}: {values:?}");
    }
}
