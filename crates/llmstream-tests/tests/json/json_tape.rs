//! `json::Tape` against `json::parse`: the same verdict, value and error on
//! every JSONTestSuite file, on random documents and on random damage to
//! them; one tape reused across documents; the `Node` reading API.

use crate::common;

use crate::common::fixtures;
use llmstream::json::{self, Limits, Tape, Value};
use proptest::prelude::*;

/// What `json::parse` says, and what the tape says, for the same bytes.
fn both(tape: &mut Tape, bytes: &[u8]) -> (Result<Value, json::Error>, Result<Value, json::Error>) {
    let expected = json::parse(bytes);
    let got = tape.parse(bytes).map(|node| node.to_value());
    (expected, got)
}

/// `json::parse` walks a whole document first and falls back to the
/// incremental parser for what the walk refuses: on every suite file it
/// gives what the incremental parser alone gives, value or error.
#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn json_parse_agrees_with_the_incremental_parser_on_every_suite_file() {
    let suite = "json/JSONTestSuite/test_parsing";
    let files = fixtures::files(suite);
    assert!(files.len() > 300, "{} suite files", files.len());
    for name in files {
        let bytes = fixtures::read(&format!("{suite}/{name}"));
        let incremental = crate::common::parse_pieces(&[&bytes]);
        match (json::parse(&bytes), incremental) {
            (Ok(value), Ok(Some(expected))) => assert_eq!(value, expected, "{name}"),
            (Err(error), Err(expected)) => assert_eq!(error, expected, "{name}"),
            (Err(_), Ok(None)) => {}
            (got, expected) => panic!("{name}: json::parse gave {got:?}, the parser {expected:?}"),
        }
    }
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn every_json_test_suite_file_gets_json_parse_s_verdict_value_and_error() {
    let dir = fixtures::path("json/JSONTestSuite/test_parsing");
    let mut tape = Tape::new();
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).expect("the suite") {
        let path = entry.expect("an entry").path();
        let bytes = std::fs::read(&path).expect("a file");
        let (expected, got) = both(&mut tape, &bytes);
        assert_eq!(got, expected, "{}", path.display());
        count += 1;
    }
    assert!(count >= 300, "only {count} files");
}

#[test]
fn a_reused_tape_reads_each_document_on_its_own() {
    let mut tape = Tape::new();
    let first = br#"{"a":"long text that leaves capacity behind","b":[1,2,3]}"#;
    assert_eq!(tape.parse(first).unwrap().get("b").unwrap().len(), Some(3));
    let second = br#"[{"x":"y"}]"#;
    let node = tape.parse(second).unwrap();
    assert_eq!(node.to_value(), json::parse(second).unwrap());
    assert!(node.get("a").is_none());
    // A failed parse leaves no trace of the document before it.
    assert!(tape.parse(br#"{"a":"#).is_err());
    let node = tape.parse(b"7").unwrap();
    assert_eq!(node.as_u64(), Some(7));
}

#[test]
fn nodes_read_like_values() {
    let mut tape = Tape::new();
    let text = br#"{"k":1,"s":"a\nb\u00e9\ud83d\ude00","k":[true,null,-2.5e3,{"z":{}}],"e":[]}"#;
    let doc = tape.parse(text).unwrap();
    let value = json::parse(text).unwrap();
    // The last of duplicate keys, as `Map::get`.
    let k = doc.get("k").unwrap();
    assert!(k.is_array());
    assert_eq!(k.len(), Some(4));
    assert_eq!(k.to_value(), *value.get("k").unwrap());
    assert_eq!(doc.get("s").unwrap().as_str(), Some("a\nbé😀"));
    assert_eq!(k.get_index(0).unwrap().as_bool(), Some(true));
    assert!(k.get_index(1).unwrap().is_null());
    assert_eq!(k.get_index(2).unwrap().as_number(), Some("-2.5e3"));
    assert_eq!(k.get_index(2).unwrap().as_f64(), Some(-2500.0));
    assert_eq!(k.get_index(2).unwrap().as_i64(), None);
    assert!(k.get_index(4).is_none());
    let z = k.get_index(3).unwrap().get("z").unwrap();
    assert!(z.is_object());
    assert_eq!(z.len(), Some(0));
    assert_eq!(z.members().count(), 0);
    let keys: Vec<&str> = doc.members().map(|(key, _)| key).collect();
    assert_eq!(keys, ["k", "s", "k", "e"]);
    assert_eq!(doc.len(), Some(4));
    assert_eq!(doc.get("e").unwrap().elements().count(), 0);
    // Reading the wrong kind gives nothing, never a panic.
    assert_eq!(doc.as_str(), None);
    assert_eq!(doc.elements().count(), 0);
    assert!(doc.get("s").unwrap().get("x").is_none());
    assert_eq!(doc.get("s").unwrap().len(), None);
    assert_eq!(doc.to_value(), value);
}

#[test]
fn limits_are_json_parse_s() {
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let mut tape = Tape::new();
    for n in [1, 127, 128, 129, 100_000] {
        let text = deep(n);
        let (expected, got) = both(&mut tape, text.as_bytes());
        assert_eq!(got, expected, "depth {n}");
    }
    // A deep document under a raised limit: no recursion to overflow.
    let limits = Limits::unlimited(200_000);
    let mut tape = Tape::with_limits(limits);
    let text = deep(100_000);
    let value = tape.parse(text.as_bytes()).unwrap().to_value();
    let mut depth = 0;
    let mut at = &value;
    while let Some(inner) = at.as_array().and_then(|items| items.first()) {
        at = inner;
        depth += 1;
    }
    assert_eq!(depth, 99_999);
    // Dropping a 100,000-deep value is the value's business, not the tape's.
    std::mem::forget(value);
    let mut limits = Limits::new();
    limits.max_string_bytes = 3;
    limits.max_number_bytes = 2;
    limits.max_input_bytes = 9;
    let mut tape = Tape::with_limits(limits);
    for text in [
        &br#"["abc"]"#[..],
        br#"["abcd"]"#,
        b"[12]",
        b"[123]",
        br#"{"abcd":1}"#,
    ] {
        let expected = json::parse_with(text, json::Options::new().limits(limits));
        let got = tape.parse(text).map(|node| node.to_value());
        assert_eq!(got, expected, "{}", String::from_utf8_lossy(text));
    }
}

/// A random JSON document: nested arrays and objects of every scalar,
/// keys and strings with escapes and non-ASCII text.
fn document() -> impl Strategy<Value = String> {
    let scalar = prop_oneof![
        Just("null".to_string()),
        Just("true".to_string()),
        Just("false".to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| format!("{f:e}")),
        "[a-z\u{e9}\u{65e5}\u{1F600}\"\\\\\n\t/]{0,12}"
            .prop_map(|s| serde_json::to_string(&s).unwrap()),
        Just(r#""\ud83d\ude00 \u00e9 \u0000""#.to_string()),
    ];
    scalar.prop_recursive(6, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6)
                .prop_map(|items| format!("[{}]", items.join(" , "))),
            prop::collection::vec(("[a-z\u{e9}]{0,30}", inner), 0..6).prop_map(|members| {
                let members: Vec<String> = members
                    .into_iter()
                    .map(|(k, v)| format!("{}:\n {v}", serde_json::to_string(&k).unwrap()))
                    .collect();
                format!("{{{}}}", members.join(","))
            }),
        ]
    })
}

proptest! {
    #![proptest_config(common::config(256))]

    #[test]
    fn random_documents_read_as_json_parse_reads_them(text in document()) {
        let mut tape = Tape::new();
        let (expected, got) = both(&mut tape, text.as_bytes());
        prop_assert!(expected.is_ok(), "{text}");
        prop_assert_eq!(got, expected);
    }

    /// Damage anywhere — a byte changed, dropped or cut — gets the same
    /// verdict, value and error as `json::parse`.
    #[test]
    fn damaged_documents_get_json_parse_s_verdict(
        text in document(),
        at in any::<prop::sample::Index>(),
        byte in any::<u8>(),
        how in 0..3u8,
    ) {
        let mut bytes = text.into_bytes();
        let i = at.index(bytes.len());
        match how {
            0 => bytes[i] = byte,
            1 => { bytes.remove(i); }
            _ => bytes.truncate(i),
        }
        let mut tape = Tape::new();
        let (expected, got) = both(&mut tape, &bytes);
        prop_assert_eq!(got, expected, "{}", String::from_utf8_lossy(&bytes));
    }
}

/// Every way a `Node` reads, against the `Value` `json::parse` gives:
/// kinds, scalars, lengths, elements by iteration and by index, members in
/// order, and `get` for every key and for keys that are absent (or that
/// only an escape spells).
fn reads_as(node: json::Node<'_>, value: &Value) -> Result<(), TestCaseError> {
    prop_assert_eq!(&node.to_value(), value);
    prop_assert_eq!(node.is_null(), value.is_null());
    prop_assert_eq!(node.as_bool(), value.as_bool());
    prop_assert_eq!(node.as_str(), value.as_str());
    prop_assert_eq!(node.as_number(), value.as_number().map(|n| n.as_str()));
    prop_assert_eq!(node.as_u64(), value.as_u64());
    prop_assert_eq!(node.as_i64(), value.as_i64());
    prop_assert_eq!(node.is_array(), value.is_array());
    prop_assert_eq!(node.is_object(), value.is_object());
    match value {
        Value::Array(items) => {
            prop_assert_eq!(node.len(), Some(items.len()));
            prop_assert_eq!(node.elements().count(), items.len());
            for (i, item) in items.iter().enumerate() {
                reads_as(node.get_index(i).expect("an element"), item)?;
            }
            prop_assert!(node.get_index(items.len()).is_none());
            prop_assert_eq!(node.members().count(), 0);
        }
        Value::Object(map) => {
            prop_assert_eq!(node.len(), Some(map.len()));
            let members: Vec<_> = node.members().collect();
            prop_assert_eq!(members.len(), map.len());
            for ((key, member), (want_key, want)) in members.iter().zip(map.iter()) {
                prop_assert_eq!(*key, &**want_key);
                reads_as(*member, want)?;
            }
            for key in map.iter().map(|(k, _)| &**k).chain(["", "a", "é", "zz\n"]) {
                let got = node.get(key).map(|n| n.to_value());
                prop_assert_eq!(got.as_ref(), map.get(key), "key {:?}", key);
            }
            prop_assert_eq!(node.elements().count(), 0);
        }
        _ => {
            prop_assert_eq!(node.len(), None);
            prop_assert!(node.get("a").is_none());
            prop_assert!(node.get_index(0).is_none());
        }
    }
    Ok(())
}

/// Keys spelled with escapes and without, duplicated, and empty: `get`
/// reads each from where its text is (the input, or the tape's decoded
/// text).
fn keyed_document() -> impl Strategy<Value = String> {
    let key = prop_oneof![
        Just(r#""""#),
        Just(r#""a""#),
        Just(r#""\u0061""#),
        Just(r#""\u00e9""#),
        Just(r#""é""#),
        Just(r#""zz\n""#),
        Just(r#""zz\u000a""#),
    ];
    prop::collection::vec((key, document()), 0..8).prop_map(|members| {
        let members: Vec<String> = members.iter().map(|(k, v)| format!("{k}:{v}")).collect();
        format!("{{{}}}", members.join(","))
    })
}

proptest! {
    // Fewer cases: each is up to six documents of up to 400 copies.
    #![proptest_config(common::config(64))]

    /// One tape reused over documents of every size, small and past the
    /// point where its entries grow: each reads exactly as its value.
    #[test]
    fn nodes_read_as_values_through_a_reused_tape(
        docs in prop::collection::vec((keyed_document(), 1usize..400), 1..6),
    ) {
        let mut tape = Tape::new();
        for (doc, copies) in docs {
            let text = format!("[{}]", vec![doc.as_str(); copies].join(","));
            let value = json::parse(text.as_bytes()).expect("valid");
            reads_as(tape.parse(text.as_bytes()).expect("valid"), &value)?;
        }
    }
}
