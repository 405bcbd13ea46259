//! The rules, one example each, whole and at every cut.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::Lenient;

/// The value `text` reads as, checked to be the same at every cut into
/// two pieces and byte by byte.
fn read(text: &str) -> String {
    let whole = once(&[text.as_bytes()]);
    let bytes = text.as_bytes();
    for at in 0..=bytes.len() {
        let (a, b) = bytes.split_at(at);
        assert_eq!(once(&[a, b]), whole, "cut at {at} of {text:?}");
    }
    let ones: Vec<&[u8]> = bytes.chunks(1).collect();
    assert_eq!(once(&ones), whole, "byte by byte: {text:?}");
    whole
}

fn once(pieces: &[&[u8]]) -> String {
    let mut lenient = Lenient::new(&crate::json::Limits::default());
    for piece in pieces {
        lenient.feed(piece).expect("within the limits");
    }
    lenient.finish().expect("within the limits");
    lenient
        .value()
        .map_or_else(|| "<none>".to_string(), |v| v.to_string())
}

#[test]
fn rules() {
    let cases = [
        ("{\"a\": 1}", r#"{"a":1}"#),
        ("Here you go: {\"a\": 1} hope it helps", r#"{"a":1}"#),
        ("```json\n{\"a\": [1, 2]}\n```", r#"{"a":[1,2]}"#),
        ("{'a': 'b', 'c': \"d\"}", r#"{"a":"b","c":"d"}"#),
        ("{\u{201C}a\u{201D}: \u{201C}b\u{201D}}", r#"{"a":"b"}"#),
        (
            "[True, False, None, undefined, NaN]",
            "[true,false,null,null,null]",
        ),
        (
            "{\"a\": 1, // one\n \"b\": 2 /* two */, # three\n}",
            r#"{"a":1,"b":2}"#,
        ),
        ("{a: 1, b: hello}", r#"{"a":1,"b":"hello"}"#),
        ("[1 2 3]", "[1,2,3]"),
        ("[,1,,2,]", "[1,2]"),
        ("{\"a\" 1}", r#"{"a":1}"#),
        ("{\"a\": 1, \"b\": }", r#"{"a":1,"b":null}"#),
        ("{\"a\": \"line\nbreak\"}", r#"{"a":"line\nbreak"}"#),
        (
            "{\"q\": \"He said \"hi\" to me\"}",
            r#"{"q":"He said \"hi\" to me"}"#,
        ),
        ("[1, 2, ...]", "[1,2]"),
        ("{\"a\": [1, 2}", r#"{"a":[1,2]}"#),
        ("[1, 2]]", "[1,2]"),
        ("[.5, +3, 1., 2e, 1_000, 007]", r#"[0.5,3,1,2,1000,"007"]"#),
        ("{\"a\" true}", r#"{"a":true}"#),
        (
            "{url: https://x.org/a, when: 2024-10-18T18:35:22Z}",
            r#"{"url":"https://x.org/a","when":"2024-10-18T18:35:22Z"}"#,
        ),
        (
            "{greeting: hello world\nnext: 1}",
            r#"{"greeting":"hello world","next":1}"#,
        ),
        ("callback_1(2);", "2"),
        ("1, 2, 3", "[1,2,3]"),
        ("hello world", r#""hello world""#),
        ("callback({\"a\": 1});", r#"{"a":1}"#),
        ("const x = {\"a\": 1};", r#"{"a":1}"#),
        ("{\"a\": 1}\n{\"b\": 2}", r#"[{"a":1},{"b":2}]"#),
        ("{\"k\":\"a,]", r#"{"k":"a,]"}"#),
        ("{\"a\": 1, \"b", r#"{"a":1}"#),
        ("", "<none>"),
        ("\"just a string\"", r#""just a string""#),
        ("42", "42"),
        ("Here's your JSON: {\"a\": 1}", r#"{"a":1}"#),
        ("{note: don't}", r#"{"note":"don't"}"#),
        (
            "{re: /ab+c/, path: /usr/bin}",
            r#"{"re":"/ab+c/","path":"/usr/bin"}"#,
        ),
        ("/[a-z]+/", r#""/[a-z]+/""#),
        (r#"{\"a\": \"say \\"hi\\"\"}"#, r#"{"a":"say \"hi\""}"#),
        ("{\"a\": 1}, \"b\": 2}", r#"{"a":1,"b":2}"#),
        ("{\"a\": 1}, \"b\"", r#"{"a":1}"#),
        ("{'a', 'b'}", r#"["a","b"]"#),
        ("{'a', 'b': 1}", r#"{"a":null,"b":1}"#),
        ("{'a', 'b'", r#"{"a":null}"#),
        ("{'a', 'b',", r#"{"a":null,"b":null}"#),
        ("{\"a\": 1, COMMENT \"b\": 2}", r#"{"a":1,"b":2}"#),
        ("{\"a\": 1, note}", r#"{"a":1}"#),
        ("{a \"v\"}", r#"{"a":"v"}"#),
        ("{a \"v", r#"{"a":"v"}"#),
        (
            "{\"x\": \"a “term” b\", \"y\": \"c”}",
            r#"{"x":"a “term” b","y":"c"}"#,
        ),
        (
            "[\"six feet (72\") tall\", {\"x\": \"hello {world\"}, \"(\", \"[\"]",
            r#"["six feet (72\") tall",{"x":"hello {world"},"(","["]"#,
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(read(text), expected, "{text:?}");
    }
}

/// A run of more dots than a byte counts (a fuzz finding: the counter
/// overflowed) is one placeholder.
#[test]
fn a_long_run_of_dots_is_one_placeholder() {
    let dots = ".".repeat(300);
    assert_eq!(read(&format!("[1, {dots}, 2]")), "[1,2]");
    assert_eq!(once(&[dots.as_bytes()]), format!("\"{dots}\""));
}

/// Several values at the top are an array of them, one level deeper than
/// each: a first value at the depth limit leaves no room for a second.
#[test]
fn several_values_count_the_array_they_make_against_the_depth_limit() {
    let limits = crate::json::Limits::default();
    let deep = "[".repeat(limits.max_depth);
    let mut lenient = Lenient::new(&limits);
    lenient.feed(deep.as_bytes()).expect("at the limit");
    let mut closed = deep.clone();
    closed.push_str(&"]".repeat(limits.max_depth));
    let mut lenient = Lenient::new(&limits);
    lenient.feed(closed.as_bytes()).expect("at the limit");
    let error = lenient.feed(b" []").unwrap_err();
    assert_eq!(
        error.kind(),
        &crate::json::ErrorKind::DepthLimit {
            limit: limits.max_depth
        }
    );
    assert_eq!(error.offset(), closed.len() as u64 + 1);
}
