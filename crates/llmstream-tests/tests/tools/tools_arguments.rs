//! Per-call argument streams (`tools::ArgumentStream`, `ArgumentStreams`):
//! interleaved ids, fragment and accumulated-text modes, empty and invalid
//! arguments, and chunking-independence properties.

use crate::common;

use std::collections::HashMap;

use llmstream::json::{parse, PathBuf, Value};
use llmstream::tools::{ArgumentEvent, ArgumentStream, ArgumentStreams, ToolError, ToolEvent};
use proptest::prelude::*;

fn v(json: &str) -> Value {
    parse(json.as_bytes()).expect("test JSON is valid")
}

fn p(path: &str) -> PathBuf {
    PathBuf::parse(path).expect("test path is valid")
}

fn drain(calls: &mut ArgumentStreams) -> Vec<ToolEvent> {
    std::iter::from_fn(|| calls.next_event()).collect()
}

fn delta(id: &str, path: &str, text: &str) -> ToolEvent {
    ToolEvent::Argument {
        id: id.into(),
        event: ArgumentEvent::Delta {
            path: p(path),
            text: text.into(),
        },
    }
}

fn arg(id: &str, path: &str, value: &str) -> ToolEvent {
    ToolEvent::Argument {
        id: id.into(),
        event: ArgumentEvent::Value {
            path: p(path),
            value: v(value),
        },
    }
}

fn end(id: &str, arguments: &str) -> ToolEvent {
    ToolEvent::End {
        id: id.into(),
        arguments: v(arguments),
    }
}

fn error_messages(events: &[ToolEvent], of: &str) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            ToolEvent::Error { id, error } if id == of => Some(error.to_string()),
            _ => None,
        })
        .collect()
}

/// Merges consecutive deltas of the same call and path.
fn merged(events: Vec<ToolEvent>) -> Vec<ToolEvent> {
    let mut out: Vec<ToolEvent> = Vec::new();
    for event in events {
        match (out.last_mut(), event) {
            (
                Some(ToolEvent::Argument {
                    id: i0,
                    event: ArgumentEvent::Delta { path: p0, text: t0 },
                }),
                ToolEvent::Argument {
                    id,
                    event: ArgumentEvent::Delta { path, text },
                },
            ) if *i0 == id && *p0 == path => t0.push_str(&text),
            (_, event) => out.push(event),
        }
    }
    out
}

// ------------------------------------------------------------ interleaving

#[test]
fn interleaved_ids_keep_their_own_state() {
    let mut calls = ArgumentStreams::new();
    calls.feed("call_2", "{\"blocks\":[{\"content\":\"He");
    calls.feed("call_1", "{\"q\":\"ru");
    calls.feed("call_2", "llo\"},{\"content\":\"x\"}]");
    calls.feed("call_1", "st\",\"n\":");
    calls.feed("call_2", "}");
    calls.feed("call_1", "5}");
    assert_eq!(calls.arguments("call_1"), Some(&v(r#"{"q":"rust","n":5}"#)));
    assert_eq!(
        calls.text("call_2"),
        Some(r#"{"blocks":[{"content":"Hello"},{"content":"x"}]}"#)
    );
    assert_eq!(
        calls.finish("call_2"),
        Ok(v(r#"{"blocks":[{"content":"Hello"},{"content":"x"}]}"#))
    );
    assert_eq!(calls.finish("call_1"), Ok(v(r#"{"q":"rust","n":5}"#)));
    assert_eq!(
        drain(&mut calls),
        [
            delta("call_2", "blocks[0].content", "He"),
            delta("call_1", "q", "ru"),
            delta("call_2", "blocks[0].content", "llo"),
            arg("call_2", "blocks[0].content", r#""Hello""#),
            arg("call_2", "blocks[0]", r#"{"content":"Hello"}"#),
            delta("call_2", "blocks[1].content", "x"),
            arg("call_2", "blocks[1].content", r#""x""#),
            arg("call_2", "blocks[1]", r#"{"content":"x"}"#),
            arg(
                "call_2",
                "blocks",
                r#"[{"content":"Hello"},{"content":"x"}]"#
            ),
            delta("call_1", "q", "st"),
            arg("call_1", "q", r#""rust""#),
            arg("call_1", "n", "5"),
            end(
                "call_2",
                r#"{"blocks":[{"content":"Hello"},{"content":"x"}]}"#
            ),
            end("call_1", r#"{"q":"rust","n":5}"#),
        ]
    );
    let mut ids: Vec<&str> = calls.ids().collect();
    ids.sort_unstable();
    assert_eq!(ids, ["call_1", "call_2"]);
}

#[test]
fn an_error_in_one_call_leaves_the_others_alone() {
    let mut calls = ArgumentStreams::new();
    calls.feed("bad", "{\"a\" 1}");
    calls.feed("good", "{\"a\":1}");
    calls.finish("good").expect("complete arguments");
    let events = drain(&mut calls);
    assert_eq!(error_messages(&events, "bad").len(), 1);
    assert!(error_messages(&events, "good").is_empty());
    assert!(events.contains(&end("good", r#"{"a":1}"#)));
}

#[test]
fn bytes_cut_inside_a_code_point_read_as_the_whole_fragment() {
    let raw = "{\"city\": \"Zürich 漢😀\"}".as_bytes();
    let mut whole = ArgumentStreams::new();
    whole.feed("c", std::str::from_utf8(raw).expect("UTF-8"));
    let expected = whole.finish("c").expect("valid arguments");
    for cut in 1..raw.len() {
        let mut calls = ArgumentStreams::new();
        calls.feed_bytes("c", &raw[..cut]);
        calls.feed_bytes("c", &raw[cut..]);
        assert_eq!(calls.finish("c"), Ok(expected.clone()), "cut at {cut}");
        let text: String = drain(&mut calls)
            .into_iter()
            .filter_map(|e| match e {
                ToolEvent::Argument {
                    event: ArgumentEvent::Delta { text, .. },
                    ..
                } => Some(text),
                _ => None,
            })
            .collect();
        assert_eq!(text, "Zürich 漢😀", "cut at {cut}");
    }
}

#[test]
fn invalid_bytes_and_a_sequence_cut_at_the_end_read_as_replacement_characters() {
    let mut calls = ArgumentStreams::new();
    calls.feed_bytes("c", b"{\"a\": \"x\xFFy");
    calls.feed_bytes("c", b"\"}");
    assert_eq!(calls.finish("c"), Ok(v(r#"{"a": "x\ufffdy"}"#)));
    let mut cut = ArgumentStreams::new();
    cut.feed_bytes("d", b"\"\xE6\xBC");
    let value = cut.finish("d");
    assert!(value.is_err(), "a string cut short is an error");
    assert!(drain(&mut cut)
        .iter()
        .any(|e| matches!(e, ToolEvent::End { arguments, .. } if *arguments == Value::String("\u{FFFD}".into()))));
}

#[test]
fn a_refused_call_holds_no_bytes() {
    let mut calls = ArgumentStreams::with_max_calls(1);
    calls.feed_bytes("kept", b"{}");
    calls.feed_bytes("refused", b"\"\xE6");
    let events = drain(&mut calls);
    assert!(events.iter().any(|e| matches!(
        e,
        ToolEvent::Error { id, error: ToolError::TooManyCalls { limit: 1 } } if id == "refused"
    )));
    assert_eq!(calls.finish("refused"), Err(ToolError::UnknownCall));
}

#[test]
fn array_paths_are_indexed() {
    let mut calls = ArgumentStreams::new();
    calls.feed("c", "{\"options\":[\"a\",\"b\",\"cd");
    calls.feed("c", "e\"]}");
    calls.finish("c").expect("complete arguments");
    let events = merged(drain(&mut calls));
    assert!(
        events.contains(&delta("c", "options[2]", "cde")),
        "{events:?}"
    );
    assert!(events.contains(&arg("c", "options", r#"["a","b","cde"]"#)));
}

// ---------------------------------------------------------- accumulated mode

#[test]
fn accumulated_text_emits_only_what_is_new() {
    let mut fragments = ArgumentStreams::new();
    let mut accumulated = ArgumentStreams::new();
    let pieces = ["{\"q\":\"ru", "st\",\"tags\":[\"a", "\"]", "}"];
    let mut so_far = String::new();
    for piece in pieces {
        fragments.feed("c", piece);
        so_far.push_str(piece);
        accumulated.feed_accumulated("c", &so_far);
        // The same text again: nothing new, no error.
        accumulated.feed_accumulated("c", &so_far);
    }
    let _ = fragments.finish("c");
    let _ = accumulated.finish("c");
    let expected = drain(&mut fragments);
    assert!(expected.contains(&end("c", r#"{"q":"rust","tags":["a"]}"#)));
    assert_eq!(drain(&mut accumulated), expected);
    assert_eq!(accumulated.text("c"), Some(so_far.as_str()));
}

#[test]
fn accumulated_text_that_does_not_extend_is_an_error_and_ignored() {
    let mut calls = ArgumentStreams::new();
    calls.feed_accumulated("c", "{\"q\":\"ru");
    calls.feed_accumulated("c", "{\"x\":\"ru"); // rewrites what came before
    calls.feed_accumulated("c", "{\"q\""); // shorter
    calls.feed_accumulated("c", "{\"q\":\"rust\"}");
    let arguments = calls.finish("c");
    let events = drain(&mut calls);
    assert_eq!(error_messages(&events, "c").len(), 2, "{events:?}");
    // Ignored: the call went on as if they never came.
    assert_eq!(arguments, Ok(v(r#"{"q":"rust"}"#)));
    assert_eq!(calls.text("c"), Some("{\"q\":\"rust\"}"));
    assert_eq!(
        merged(
            events
                .into_iter()
                .filter(|e| !matches!(e, ToolEvent::Error { .. }))
                .collect()
        ),
        [
            delta("c", "q", "rust"),
            arg("c", "q", r#""rust""#),
            end("c", r#"{"q":"rust"}"#),
        ]
    );
}

#[test]
fn accumulated_and_fragment_modes_mix_per_call() {
    let mut calls = ArgumentStreams::new();
    calls.feed_accumulated("a", "{\"x\":");
    calls.feed("b", "[1,");
    calls.feed_accumulated("a", "{\"x\":true}");
    calls.feed("b", "2]");
    assert_eq!(calls.finish("a"), Ok(v(r#"{"x":true}"#)));
    assert_eq!(calls.finish("b"), Ok(v("[1,2]")));
    assert!(error_messages(&drain(&mut calls), "a").is_empty());
}

// ------------------------------------------------------------ empty, invalid

#[test]
fn empty_arguments_end_as_an_empty_object() {
    for fragments in [&[][..], &[""], &["  ", "\n"], &["{}"], &["{", "}"]] {
        let mut calls = ArgumentStreams::new();
        for f in fragments {
            calls.feed("c", f);
        }
        if fragments.is_empty() {
            // A call is created by its first (possibly empty) text.
            calls.feed_accumulated("c", "");
        }
        assert_eq!(calls.finish("c"), Ok(v("{}")), "{fragments:?}");
        assert_eq!(drain(&mut calls), [end("c", "{}")], "{fragments:?}");
    }
    let mut stream = ArgumentStream::json();
    assert_eq!(finish(&mut stream), v("{}"));
    assert!(stream.error().is_none());
}

#[test]
fn unknown_and_ended_calls() {
    let mut calls = ArgumentStreams::new();
    assert_eq!(calls.finish("nobody"), Err(ToolError::UnknownCall));
    calls.feed("c", "{}");
    assert_eq!(calls.finish("c"), Ok(v("{}")));
    assert_eq!(calls.finish("c"), Err(ToolError::UnknownCall), "ended once");
    calls.feed("c", " ");
    let events = drain(&mut calls);
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, ToolEvent::End { .. }))
            .count(),
        1
    );
    assert_eq!(
        error_messages(&events, "c").len(),
        1,
        "text after the end: {events:?}"
    );
}

#[test]
fn invalid_json_is_reported_once() {
    let mut calls = ArgumentStreams::new();
    calls.feed("c", "{\"a\":\"ok\",");
    calls.feed("c", "oops");
    calls.feed("c", "\"more\":1}");
    calls.feed("c", "}}}");
    let arguments = calls.finish("c");
    let events = drain(&mut calls);
    let errors = error_messages(&events, "c");
    assert_eq!(errors.len(), 1, "{events:?}");
    assert!(errors[0].contains("not valid JSON"), "{}", errors[0]);
    // Nothing after the error except the end, whose value is the raw text.
    let at = events
        .iter()
        .position(|e| matches!(e, ToolEvent::Error { .. }))
        .unwrap();
    assert_eq!(
        &events[at + 1..],
        [ToolEvent::End {
            id: "c".into(),
            arguments: Value::from("{\"a\":\"ok\",oops\"more\":1}}}}"),
        }]
    );
    assert!(
        matches!(arguments, Err(ToolError::InvalidArguments(_))),
        "{arguments:?}"
    );
}

#[test]
fn arguments_cut_short_end_with_the_partial_value_and_an_error() {
    let mut calls = ArgumentStreams::new();
    calls.feed("c", "{\"path\":\"a.rs\",\"text\":\"fn ma");
    let arguments = calls.finish("c");
    let Err(ToolError::EndedEarly(error)) = arguments else {
        panic!("{arguments:?}");
    };
    assert!(error.is_incomplete(), "{error}");
    assert_eq!(
        calls.arguments("c"),
        Some(&v(r#"{"path":"a.rs","text":"fn ma"}"#))
    );
    let events = drain(&mut calls);
    assert_eq!(error_messages(&events, "c").len(), 1, "{events:?}");
    assert_eq!(
        events.last(),
        Some(&end("c", r#"{"path":"a.rs","text":"fn ma"}"#))
    );
}

#[test]
fn free_text_arguments_are_kept_not_parsed() {
    let mut stream = ArgumentStream::text();
    let mut events = Vec::new();
    push(&mut stream, "*** Begin Patch\n{not json", |e| {
        events.push(e)
    });
    push(&mut stream, "}", |e| events.push(e));
    assert!(events.is_empty());
    assert_eq!(stream.raw(), "*** Begin Patch\n{not json}");
    assert_eq!(stream.snapshot(), None);
    assert_eq!(
        finish(&mut stream),
        Value::from("*** Begin Patch\n{not json}")
    );
    assert!(stream.error().is_none());
}

#[test]
fn a_single_stream_reports_deltas_values_and_a_live_snapshot() {
    let mut stream = ArgumentStream::default();
    let mut events = Vec::new();
    push(&mut stream, "{\"blocks\":[{\"content\":\"Hel", |e| {
        events.push(e)
    });
    assert_eq!(
        stream.snapshot(),
        Some(&v(r#"{"blocks":[{"content":"Hel"}]}"#))
    );
    push(&mut stream, "lo\"}],\"done\":false}", |e| events.push(e));
    assert_eq!(
        events,
        [
            ArgumentEvent::Delta {
                path: p("blocks[0].content"),
                text: "Hel".into()
            },
            ArgumentEvent::Delta {
                path: p("blocks[0].content"),
                text: "lo".into()
            },
            ArgumentEvent::Value {
                path: p("blocks[0].content"),
                value: v(r#""Hello""#)
            },
            ArgumentEvent::Value {
                path: p("blocks[0]"),
                value: v(r#"{"content":"Hello"}"#)
            },
            ArgumentEvent::Value {
                path: p("blocks"),
                value: v(r#"[{"content":"Hello"}]"#)
            },
            ArgumentEvent::Value {
                path: p("done"),
                value: v("false")
            },
        ]
    );
    assert_eq!(
        finish(&mut stream),
        v(r#"{"blocks":[{"content":"Hello"}],"done":false}"#)
    );
    assert!(stream.is_ended());
}

// ------------------------------------------------------------ properties

/// A generated JSON value: its text (escapes chosen at random) and the
/// serde_json oracle.
fn gen_json() -> impl Strategy<Value = (String, serde_json::Value)> {
    let ch = prop_oneof![
        4 => proptest::char::range('a', 'z'),
        1 => Just('"'),
        1 => Just('\\'),
        1 => Just('\n'),
        1 => Just('é'),
        1 => Just('😀'),
        1 => any::<char>(),
    ];
    let string = prop::collection::vec((ch, any::<bool>()), 0..10).prop_map(|chars| {
        let json = common::json_string_literal(&chars);
        let s: String = chars.iter().map(|&(c, _)| c).collect();
        (json, serde_json::Value::String(s))
    });
    let scalar = prop_oneof![
        3 => string,
        1 => any::<i64>().prop_map(|n| (n.to_string(), n.into())),
        1 => any::<bool>().prop_map(|b| (b.to_string(), b.into())),
        1 => Just(("null".to_string(), serde_json::Value::Null)),
    ];
    scalar.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|items| {
                let json = format!(
                    "[{}]",
                    items
                        .iter()
                        .map(|(j, _)| j.as_str())
                        .collect::<Vec<_>>()
                        .join(",")
                );
                (
                    json,
                    serde_json::Value::Array(items.into_iter().map(|(_, o)| o).collect()),
                )
            }),
            prop::collection::btree_map("[a-z]{1,3}", inner, 0..4).prop_map(|members| {
                let json = format!(
                    "{{{}}}",
                    members
                        .iter()
                        .map(|(k, (j, _))| format!("\"{k}\" : {j}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                (
                    json,
                    serde_json::Value::Object(
                        members.into_iter().map(|(k, (_, o))| (k, o)).collect(),
                    ),
                )
            }),
        ]
    })
}

/// Arguments: an object of generated values.
fn gen_arguments() -> impl Strategy<Value = (String, serde_json::Value)> {
    prop::collection::btree_map("[a-z]{1,3}", gen_json(), 0..5).prop_map(|members| {
        let json = format!(
            "{{{}}}",
            members
                .iter()
                .map(|(k, (j, _))| format!("\"{k}\":{j}"))
                .collect::<Vec<_>>()
                .join(",")
        );
        (
            json,
            serde_json::Value::Object(members.into_iter().map(|(k, (_, o))| (k, o)).collect()),
        )
    })
}

/// Cuts `text` at these char boundaries.
fn split_text<'a>(text: &'a str, cuts: &[prop::sample::Index]) -> Vec<&'a str> {
    let mut points: Vec<usize> = cuts
        .iter()
        .map(|i| i.index(text.len() + 1))
        .filter(|&at| text.is_char_boundary(at))
        .collect();
    points.sort_unstable();
    points.dedup();
    let mut out = Vec::new();
    let mut last = 0;
    for at in points.into_iter().chain([text.len()]) {
        out.push(&text[last..at]);
        last = at;
    }
    out
}

fn to_serde(value: &Value) -> serde_json::Value {
    serde_json::from_str(&value.to_json()).expect("to_json is JSON")
}

proptest! {
    #![proptest_config(common::config(256))]

    /// Two calls interleaved in random pieces give, per call, the same
    /// merged events as each call's text in one piece; accumulated mode
    /// gives exactly the fragment-mode events; deltas per path concatenate
    /// to the final string values; the end value equals serde_json's.
    #[test]
    fn prop_argument_events_do_not_depend_on_the_pieces(
        (a_json, a_oracle) in gen_arguments(),
        (b_json, b_oracle) in gen_arguments(),
        a_cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..16),
        b_cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..16),
        order in prop::collection::vec(any::<bool>(), 0..40),
    ) {
        let a_pieces = split_text(&a_json, &a_cuts);
        let b_pieces = split_text(&b_json, &b_cuts);

        let mut whole = ArgumentStreams::new();
        whole.feed("a", &a_json);
        let _ = whole.finish("a");
        whole.feed("b", &b_json);
        let _ = whole.finish("b");
        let whole = merged(drain(&mut whole));

        let mut fragments = ArgumentStreams::new();
        let mut accumulated = ArgumentStreams::new();
        let (mut ai, mut bi) = (0, 0);
        let (mut a_so_far, mut b_so_far) = (String::new(), String::new());
        let mut order = order.into_iter();
        while ai < a_pieces.len() || bi < b_pieces.len() {
            let take_a = bi >= b_pieces.len()
                || (ai < a_pieces.len() && order.next().unwrap_or(true));
            if take_a {
                fragments.feed("a", a_pieces[ai]);
                a_so_far.push_str(a_pieces[ai]);
                accumulated.feed_accumulated("a", &a_so_far);
                ai += 1;
            } else {
                fragments.feed("b", b_pieces[bi]);
                b_so_far.push_str(b_pieces[bi]);
                accumulated.feed_accumulated("b", &b_so_far);
                bi += 1;
            }
        }
        let _ = fragments.finish("a");
        let _ = fragments.finish("b");
        let _ = accumulated.finish("a");
        let _ = accumulated.finish("b");
        let fragment_events = drain(&mut fragments);
        prop_assert_eq!(drain(&mut accumulated), fragment_events.clone());

        let fragment_events = merged(fragment_events);
        for id in ["a", "b"] {
            let of = |events: &[ToolEvent]| -> Vec<ToolEvent> {
                events
                    .iter()
                    .filter(|e| match e {
                        ToolEvent::Argument { id: i, .. }
                        | ToolEvent::End { id: i, .. }
                        | ToolEvent::Error { id: i, .. } => i == id,
                    })
                    .cloned()
                    .collect()
            };
            let expected = of(&whole);
            prop_assert_eq!(merged(of(&fragment_events)), expected.clone(), "call {}", id);

            let mut deltas: HashMap<String, String> = HashMap::new();
            for e in &expected {
                match e {
                    ToolEvent::Argument { event: ArgumentEvent::Delta { path, text }, .. } => {
                        deltas.entry(path.to_string()).or_default().push_str(text);
                    }
                    ToolEvent::Argument { event: ArgumentEvent::Value { path, value: Value::String(s) }, .. } => {
                        prop_assert_eq!(
                            deltas.get(&path.to_string()).map_or("", String::as_str),
                            s.as_str()
                        );
                    }
                    ToolEvent::Error { error, .. } => {
                        prop_assert!(false, "unexpected error {}", error);
                    }
                    _ => {}
                }
            }
            let oracle = if id == "a" { &a_oracle } else { &b_oracle };
            match expected.last() {
                Some(ToolEvent::End { arguments, .. }) => {
                    prop_assert_eq!(&to_serde(arguments), oracle);
                }
                other => prop_assert!(false, "no end: {:?}", other),
            }
        }
    }
}

/// A message builder keeps a call's argument text once (as the call's
/// `arguments_text`), not also in its argument stream, and still ends the
/// call from it: valid, cut short, invalid, whitespace only, and free text.
#[test]
fn a_builder_holds_a_calls_argument_text_once() {
    use llmstream::providers::{MessageBuilder, Provider};
    let cases: [(&str, ArgumentStream, &str); 5] = [
        (
            r#"{"path":"a.rs","n":12}"#,
            ArgumentStream::json(),
            r#"{"path":"a.rs","n":12}"#,
        ),
        (
            r#"{"path":"a.r"#,
            ArgumentStream::json(),
            r#"{"path":"a.r"}"#,
        ),
        (r#"{"path" 1}"#, ArgumentStream::json(), r#""{\"path\" 1}""#),
        ("  \n ", ArgumentStream::json(), "{}"),
        ("free text", ArgumentStream::text(), r#""free text""#),
    ];
    for (text, stream, expected) in cases {
        let mut builder = MessageBuilder::new(Provider::OpenAiChat);
        builder.tool_call_start_with(0, 0, "call_1", "f", None, stream);
        let (head, tail) = text.split_at(text.len() / 2);
        builder.tool_call_arguments(0, 0, head);
        builder.tool_call_arguments(0, 0, tail);
        let held_text = builder
            .message()
            .tool_call(0, 0)
            .map(|c| c.arguments_text.as_str());
        assert_eq!(held_text, Some(text));
        let held = builder.argument_stream(0, 0).expect("the call's stream");
        assert_eq!(held.raw(), "", "{text}");
        builder.tool_call_end(0, 0);
        let call = builder.message().tool_call(0, 0).unwrap();
        assert_eq!(call.arguments_text, text);
        assert_eq!(call.arguments, Some(v(expected)), "{text}");
    }
}

/// A container completes with its own value, even when a member with the
/// same key follows it in the same fragment (RFC 8259 allows duplicates):
/// the same events whatever the cuts.
#[test]
fn a_completed_container_is_its_own_value_among_duplicate_keys() {
    let text = r#"{"a":[1],"a":2,"b":{"x":{"k":1},"x":{"k":2}}}"#;
    let expected: Vec<(String, String)> = [
        ("a[0]", "1"),
        ("a", "[1]"),
        ("a", "2"),
        ("b.x.k", "1"),
        ("b.x", r#"{"k":1}"#),
        ("b.x.k", "2"),
        ("b.x", r#"{"k":2}"#),
        ("b", r#"{"x":{"k":1},"x":{"k":2}}"#),
    ]
    .iter()
    .map(|(p, v)| (p.to_string(), v.to_string()))
    .collect();
    for cut in 0..=text.len() {
        let mut stream = ArgumentStream::json();
        let mut values = Vec::new();
        let mut on = |event| {
            if let ArgumentEvent::Value { path, value } = event {
                values.push((path.to_string(), value.to_json()));
            }
        };
        push(&mut stream, &text[..cut], &mut on);
        push(&mut stream, &text[cut..], &mut on);
        assert_eq!(values, expected, "cut at {cut}");
    }
}

/// Ending twice gives one value; a fragment after the end changes nothing;
/// only JSON's own whitespace counts as "no arguments".
#[test]
fn ending_is_final_and_only_json_whitespace_is_empty() {
    let mut stream = ArgumentStream::json();
    push(&mut stream, r#"{"a":"x"#, |_| {});
    let first = finish(&mut stream);
    assert_eq!(first, v(r#"{"a":"x"}"#));
    assert_eq!(finish(&mut stream), first, "a second end says the same");
    push(&mut stream, r#"","b":1}"#, |_| {
        panic!("no events after the end")
    });
    assert_eq!(finish(&mut stream), first);
    for blank in [" \t\r\n", ""] {
        let mut stream = ArgumentStream::json();
        push(&mut stream, blank, |_| {});
        assert_eq!(finish(&mut stream), v("{}"));
    }
    for not_json in ["\u{a0}", "\u{c}", "\u{b}"] {
        let mut stream = ArgumentStream::json();
        push(&mut stream, not_json, |_| {});
        assert_eq!(finish(&mut stream), Value::from(not_json), "{not_json:?}");
        assert!(stream.error().is_some());
    }
}

// ------------------------------------------------------- bounded events

/// `depth` nested arrays around `n` ones, under key `a`.
fn deep_ones(depth: usize, n: usize) -> String {
    let ones = vec!["1"; n].join(",");
    format!("{{\"a\":{}{ones}{}}}", "[".repeat(depth), "]".repeat(depth))
}

/// Every completed value reported is the one at its path in `full`.
fn check_values(events: &[ArgumentEvent], full: &Value) {
    for event in events {
        if let ArgumentEvent::Value { path, value } = event {
            assert_eq!(full.at(path.as_path()), Some(value), "value at {path}");
        }
    }
}

#[test]
fn a_deep_value_is_not_copied_at_every_level() {
    // A value nested 126 deep used to be copied whole at each of its 126
    // ancestors' closes; the events now stay within their allowance, and
    // what they report is right.
    let text = deep_ones(126, 20_000);
    let mut stream = ArgumentStream::json();
    let mut events = Vec::new();
    push(&mut stream, &text, |e| events.push(e));
    let full = finish(&mut stream);
    assert_eq!(full, v(&text));
    assert!(stream.error().is_none());
    check_values(&events, &full);
    let containers = events
        .iter()
        .filter(|e| matches!(e, ArgumentEvent::Value { value, .. } if value.is_array()))
        .count();
    assert!(containers < 126, "{containers} container copies");
    // A few levels, as arguments have, are all reported: each one and
    // each array. (126 levels of paths cost more than the allowance even
    // around three ones: some of those events are left out.)
    let text = deep_ones(4, 3);
    let mut stream = ArgumentStream::json();
    let mut events = Vec::new();
    push(&mut stream, &text, |e| events.push(e));
    let full = finish(&mut stream);
    check_values(&events, &full);
    assert_eq!(events.len(), 3 + 4);
}

#[test]
fn deep_values_give_the_same_result_in_small_pieces() {
    let text = deep_ones(126, 5_000);
    let mut stream = ArgumentStream::json();
    let mut events = Vec::new();
    for piece in text.as_bytes().chunks(64) {
        push(&mut stream, std::str::from_utf8(piece).unwrap(), |e| {
            events.push(e)
        });
    }
    let full = finish(&mut stream);
    assert_eq!(full, v(&text));
    check_values(&events, &full);
}

#[test]
fn a_string_under_a_long_key_streamed_a_char_at_a_time_keeps_all_its_text() {
    // Each delta owns its path, so a 200 kB key copied per character was
    // quadratic: past the allowance the deltas merge, and add up to the
    // string.
    let key = "k".repeat(200_000);
    let body: String = (0..20_000)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    let mut stream = ArgumentStream::json();
    let mut events = Vec::new();
    push(&mut stream, &format!("{{\"{key}\":\""), |e| events.push(e));
    for c in body.chars() {
        push(&mut stream, &c.to_string(), |e| events.push(e));
    }
    push(&mut stream, "\"}", |e| events.push(e));
    let deltas: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            ArgumentEvent::Delta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas.concat(), body);
    assert!(
        deltas.len() < body.len(),
        "{} deltas were merged",
        deltas.len()
    );
    let full = finish(&mut stream);
    assert_eq!(full.get(&key).and_then(Value::as_str), Some(body.as_str()));
}

#[test]
fn many_call_ids_in_descending_order_are_all_kept() {
    let mut calls = ArgumentStreams::with_max_calls(5_000);
    let ids: Vec<String> = (0..5_000).rev().map(|i| format!("call_{i:05}")).collect();
    for id in &ids {
        calls.feed(id, "{\"n\":1}");
    }
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(calls.ids().collect::<Vec<_>>(), sorted);
    for id in &ids {
        assert_eq!(calls.finish(id), Ok(v(r#"{"n":1}"#)));
    }
}

#[test]
fn calls_past_the_limit_are_refused_with_an_error() {
    assert_eq!(
        ArgumentStreams::new().max_calls(),
        ArgumentStreams::DEFAULT_MAX_CALLS
    );
    let mut calls = ArgumentStreams::with_max_calls(2);
    calls.feed("a", "{}");
    calls.feed("b", "{}");
    calls.feed("c", "{\"x\":1}");
    calls.feed("a", " ");
    let events = drain(&mut calls);
    let errors = error_messages(&events, "c");
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0].contains("too many tool calls: the limit is 2"),
        "{}",
        errors[0]
    );
    assert!(error_messages(&events, "a").is_empty());
    assert_eq!(calls.ids().collect::<Vec<_>>(), ["a", "b"]);
    assert_eq!(calls.arguments("c"), None);
    assert_eq!(calls.finish("c"), Err(ToolError::UnknownCall));
    assert_eq!(calls.finish("a"), Ok(v("{}")));
}

/// Ordinary arguments fed a byte at a time keep every event: the
/// allowance that bounds pathological ones (a value copied at each of
/// many levels, a long key copied into every delta) never bites on a few
/// levels of short keys. At 64 bytes a byte it dropped points and
/// containers of GeoJSON-like coordinates, and merged deltas.
#[test]
fn ordinary_arguments_in_one_byte_pieces_keep_every_event() {
    let points: Vec<String> = (0..600)
        .map(|i| format!("[{},{}]", i % 10, i % 7))
        .collect();
    let text = format!(
        r#"{{"features":[{{"geometry":{{"coordinates":[{}]}},"properties":{{"blocks":[{{"content":{{"text":"{}"}}}}]}}}}]}}"#,
        points.join(","),
        "word ".repeat(400)
    );
    let mut stream = ArgumentStream::json();
    let (mut values, mut deltas) = (0, 0);
    let mut bytes = [0; 4];
    for c in text.chars() {
        push(
            &mut stream,
            c.encode_utf8(&mut bytes),
            |event| match event {
                ArgumentEvent::Value { .. } => values += 1,
                ArgumentEvent::Delta { .. } => deltas += 1,
            },
        );
    }
    // 1,200 numbers, 600 points, `coordinates`, `geometry`, the feature,
    // `features`; the string, `text`'s object, `blocks[0]`, `blocks`,
    // `properties` (the root is the call's end, not an event).
    assert_eq!(values, 1200 + 600 + 4 + 5);
    assert_eq!(deltas, 2000, "one delta per byte of the string");
}

/// The text of a string cut short whose deltas the allowance merged (some
/// of it held back when the input stops) goes out when the arguments end,
/// so the deltas add up to the string in the final value: from a single
/// stream, from `ArgumentStreams`, and as a message builder's events.
#[test]
fn a_string_cut_short_past_the_allowance_keeps_all_its_text_in_deltas() {
    use llmstream::providers::{MessageBuilder, Provider, StreamEvent};
    let (key, head, text) = common::string_past_the_allowance();
    let pieces = || std::iter::once(format!("{{{head}")).chain(text.chars().map(String::from));
    let joined = |deltas: &[&str]| deltas.concat();

    let mut stream = ArgumentStream::json();
    let mut pushed = Vec::new();
    for piece in pieces() {
        push(&mut stream, &piece, |e| pushed.push(e));
    }
    let deltas = |events: &[ArgumentEvent]| -> String {
        let texts: Vec<&str> = events
            .iter()
            .filter_map(|e| match e {
                ArgumentEvent::Delta { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        joined(&texts)
    };
    // The case this is for: some text is held back when the input stops.
    assert!(deltas(&pushed).len() < text.len());
    let mut ended = Vec::new();
    let full = end_with(&mut stream, |e| ended.push(e));
    assert_eq!(full.get(&key).and_then(Value::as_str), Some(text.as_str()));
    assert!(stream.error().is_some_and(|e| e.is_incomplete()));
    assert_eq!(ended.len(), 1);
    assert!(
        matches!(&ended[0], ArgumentEvent::Delta { path, .. } if path.to_string().contains("kkk"))
    );
    pushed.extend(ended);
    assert_eq!(deltas(&pushed), text);

    let mut calls = ArgumentStreams::new();
    for piece in pieces() {
        calls.feed("c", &piece);
    }
    assert!(matches!(calls.finish("c"), Err(ToolError::EndedEarly(_))));
    assert_eq!(
        calls.arguments("c").and_then(|a| a.get(&key)),
        full.get(&key)
    );
    let texts: Vec<String> = drain(&mut calls)
        .into_iter()
        .filter_map(|e| match e {
            ToolEvent::Argument {
                event: ArgumentEvent::Delta { text, .. },
                ..
            } => Some(text),
            _ => None,
        })
        .collect();
    assert_eq!(texts.concat(), text);

    let mut builder = MessageBuilder::new(Provider::OpenAiChat);
    builder.tool_call_start_with(0, 0, "call_1", "f", None, ArgumentStream::json());
    for piece in pieces() {
        builder.tool_call_arguments(0, 0, &piece);
    }
    builder.end_stream();
    let events: Vec<StreamEvent> = std::iter::from_fn(|| builder.next_event()).collect();
    let texts: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Argument {
                event: ArgumentEvent::Delta { text, .. },
                ..
            } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(joined(&texts), text);
    // The held text goes out before the call's end.
    let last_delta = events.iter().rposition(|e| {
        matches!(
            e,
            StreamEvent::Argument {
                event: ArgumentEvent::Delta { .. },
                ..
            }
        )
    });
    let end = events
        .iter()
        .position(|e| matches!(e, StreamEvent::ToolCallEnd { .. }));
    assert!(last_delta < end, "{last_delta:?} {end:?}");
}

/// Feeds a fragment and hands each event it queued to `emit`.
fn push(stream: &mut ArgumentStream, fragment: &str, mut emit: impl FnMut(ArgumentEvent)) {
    stream.feed(fragment);
    while let Some(event) = stream.next_event() {
        emit(event);
    }
}

/// Finishes the arguments: their final value, whatever the error says.
fn finish(stream: &mut ArgumentStream) -> Value {
    end_with(stream, |_| {})
}

/// Finishes the arguments, handing the events the end queued to `emit`.
fn end_with(stream: &mut ArgumentStream, mut emit: impl FnMut(ArgumentEvent)) -> Value {
    let _ = stream.finish();
    while let Some(event) = stream.next_event() {
        emit(event);
    }
    stream.value().cloned().expect("finished")
}
