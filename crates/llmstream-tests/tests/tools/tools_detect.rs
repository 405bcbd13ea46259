//! Early tool-call detection (`tools::ToolCallDetector`) and the path
//! watches it is built on (`json::Parser::watch` / `next_watched`).

use crate::common;

use llmstream::json::{parse, Parser, PathBuf, Value};
use llmstream::tools::{ArgumentEvent, Detected, ToolCallDetector};
use proptest::prelude::*;

fn v(json: &str) -> Value {
    parse(json.as_bytes()).expect("test JSON is valid")
}

fn p(path: &str) -> PathBuf {
    PathBuf::parse(path).expect("test path is valid")
}

fn drain(detector: &mut ToolCallDetector) -> Vec<Detected> {
    std::iter::from_fn(|| detector.next_event()).collect()
}

fn delta(path: &str, text: &str) -> Detected {
    Detected::Argument(ArgumentEvent::Delta {
        path: p(path),
        text: text.into(),
    })
}

fn arg(path: &str, value: &str) -> Detected {
    Detected::Argument(ArgumentEvent::Value {
        path: p(path),
        value: v(value),
    })
}

/// Merges consecutive deltas of the same path.
fn merged(events: Vec<Detected>) -> Vec<Detected> {
    let mut out: Vec<Detected> = Vec::new();
    for event in events {
        match (out.last_mut(), event) {
            (
                Some(Detected::Argument(ArgumentEvent::Delta { path: p0, text: t0 })),
                Detected::Argument(ArgumentEvent::Delta { path, text }),
            ) if *p0 == path => t0.push_str(&text),
            (_, event) => out.push(event),
        }
    }
    out
}

/// Feeds the pieces and finishes; every event, and the finish result.
fn run(pieces: &[&[u8]]) -> (Vec<Detected>, bool) {
    let mut detector = ToolCallDetector::new();
    let mut events = Vec::new();
    for piece in pieces {
        detector.feed(piece).expect("valid input");
        events.extend(drain(&mut detector));
    }
    let ok = detector.finish().is_ok();
    events.extend(drain(&mut detector));
    (events, ok)
}

const ANTHROPIC: &str = r#"{"type":"tool_use","id":"toolu_01","name":"str_replace","input":{"path":"src/a.rs","blocks":[{"content":"fn main"},{"n":2}]}}"#;

#[test]
fn id_and_name_are_reported_before_the_input_finishes() {
    let mut detector = ToolCallDetector::new();
    detector
        .feed(br#"{"type":"tool_use","id":"toolu_"#)
        .unwrap();
    assert_eq!(drain(&mut detector), [], "the id is not complete yet");
    detector.feed(br#"01","name":"str_rep"#).unwrap();
    assert_eq!(drain(&mut detector), [Detected::Id("toolu_01".into())]);
    detector.feed(br#"lace","input":{"path":"src/a"#).unwrap();
    assert_eq!(
        drain(&mut detector),
        [Detected::Name("str_replace".into()), delta("path", "src/a")]
    );
    // The input is still open: no end, and finishing now would fail.
    assert_eq!(
        detector.snapshot(),
        Some(&v(
            r#"{"type":"tool_use","id":"toolu_01","name":"str_replace","input":{"path":"src/a"}}"#
        ))
    );
    let mut cut = detector.clone();
    assert!(cut.finish().is_err(), "an incomplete object is an error");
}

#[test]
fn input_deltas_and_values_have_paths_relative_to_the_input() {
    let (events, ok) = run(&[ANTHROPIC.as_bytes()]);
    assert!(ok);
    assert_eq!(
        merged(events),
        [
            Detected::Id("toolu_01".into()),
            Detected::Name("str_replace".into()),
            delta("path", "src/a.rs"),
            arg("path", r#""src/a.rs""#),
            delta("blocks[0].content", "fn main"),
            arg("blocks[0].content", r#""fn main""#),
            arg("blocks[0]", r#"{"content":"fn main"}"#),
            arg("blocks[1].n", "2"),
            arg("blocks[1]", r#"{"n":2}"#),
            arg("blocks", r#"[{"content":"fn main"},{"n":2}]"#),
            Detected::Argument(ArgumentEvent::Value {
                path: PathBuf::new(),
                value: v(r#"{"path":"src/a.rs","blocks":[{"content":"fn main"},{"n":2}]}"#)
            }),
            Detected::End(v(ANTHROPIC)),
        ]
    );
}

#[test]
fn the_name_arguments_shape() {
    let text = r#"{"name":"search","arguments":{"q":"rust","k":[1,2]}}"#;
    let mut detector = ToolCallDetector::new();
    detector.feed(&text.as_bytes()[..22]).unwrap(); // up to `"arguments":{"q`
    let early = drain(&mut detector);
    assert_eq!(early, [Detected::Name("search".into())]);
    detector.feed(&text.as_bytes()[22..]).unwrap();
    detector.finish().unwrap();
    let rest = merged(drain(&mut detector));
    assert_eq!(
        rest,
        [
            delta("q", "rust"),
            arg("q", r#""rust""#),
            arg("k[0]", "1"),
            arg("k[1]", "2"),
            arg("k", "[1,2]"),
            Detected::Argument(ArgumentEvent::Value {
                path: PathBuf::new(),
                value: v(r#"{"q":"rust","k":[1,2]}"#)
            }),
            Detected::End(v(text)),
        ]
    );
}

#[test]
fn nested_id_and_name_fields_are_not_the_call_s() {
    let text = r#"{"name":"lookup","input":{"id":"user_7","name":"Ada"}}"#;
    let (events, ok) = run(&[text.as_bytes()]);
    assert!(ok);
    let ids: Vec<&Detected> = events
        .iter()
        .filter(|e| matches!(e, Detected::Id(_) | Detected::Name(_)))
        .collect();
    assert_eq!(ids, [&Detected::Name("lookup".into())]);
    assert!(events.contains(&arg("id", r#""user_7""#)));
    assert!(events.contains(&arg("name", r#""Ada""#)));
}

#[test]
fn members_outside_the_input_are_not_arguments() {
    let text = r#"{"type":"tool_use","cache":{"x":"y"},"name":"n","input":{}}"#;
    let (events, ok) = run(&[text.as_bytes()]);
    assert!(ok);
    assert_eq!(
        events,
        [
            Detected::Name("n".into()),
            Detected::Argument(ArgumentEvent::Value {
                path: PathBuf::new(),
                value: v("{}")
            }),
            Detected::End(v(text)),
        ]
    );
}

#[test]
fn invalid_input_is_an_error() {
    let mut detector = ToolCallDetector::new();
    detector.feed(br#"{"name":"a","#).unwrap();
    assert_eq!(drain(&mut detector), [Detected::Name("a".into())]);
    assert!(detector.feed(b"]").is_err());
}

#[test]

fn name_after_the_input_keeps_stream_order_whatever_the_pieces() {
    let text = r#"{"input":{"q":"x"},"name":"search"}"#;
    let (whole, _) = run(&[text.as_bytes()]);
    let bytes: Vec<&[u8]> = text.as_bytes().chunks(1).collect();
    let (ones, _) = run(&bytes);
    assert_eq!(merged(ones), merged(whole));
}

// ------------------------------------------------------------ watches

#[test]
fn parser_watch_reports_a_value_when_it_completes() {
    let mut parser = Parser::new();
    let tag = parser.watch(p("meta.tag"));
    let items = parser.watch(p("items"));
    let second = parser.watch(p("items[1]"));
    let never = parser.watch(p("missing"));
    parser.feed(br#"{"meta":{"tag":"v"#).unwrap();
    assert_eq!(parser.next_watched(), None, "the string is still open");
    parser.feed(br#"1","x":0},"items":[1,{"a":tr"#).unwrap();
    assert_eq!(parser.next_watched(), Some((tag, v(r#""v1""#))));
    assert_eq!(parser.next_watched(), None);
    parser.feed(br#"ue}],"z":null}"#).unwrap();
    assert_eq!(parser.next_watched(), Some((second, v(r#"{"a":true}"#))));
    assert_eq!(parser.next_watched(), Some((items, v(r#"[1,{"a":true}]"#))));
    parser.finish().unwrap();
    assert_eq!(parser.next_watched(), None);
    assert_ne!(never, tag);
}

#[test]
fn parser_watch_on_the_root_and_on_scalars() {
    let mut parser = Parser::new();
    let root = parser.watch(PathBuf::new());
    let n = parser.watch(p("[0]"));
    let b = parser.watch(p("[1]"));
    parser.feed(b"[12").unwrap();
    assert_eq!(parser.next_watched(), None, "a number may still grow");
    parser.feed(b"5, false]").unwrap();
    assert_eq!(parser.next_watched(), Some((n, v("125"))));
    assert_eq!(parser.next_watched(), Some((b, v("false"))));
    assert_eq!(parser.next_watched(), Some((root, v("[125,false]"))));
}

// ------------------------------------------------------------ property

/// A string literal with random escapes (surrogate pairs included) and the
/// text it decodes to.
fn gen_string() -> impl Strategy<Value = (String, String)> {
    let ch = prop_oneof![
        4 => proptest::char::range('a', 'z'),
        1 => Just('"'),
        1 => Just('\\'),
        1 => Just('é'),
        1 => Just('😀'),
        1 => any::<char>(),
    ];
    prop::collection::vec((ch, any::<bool>()), 0..10).prop_map(|chars| {
        let json = common::json_string_literal(&chars);
        (json, chars.iter().map(|&(c, _)| c).collect())
    })
}

proptest! {
    #![proptest_config(common::config(256))]

    /// Id and name before the input (the usual order): the same events
    /// whatever the pieces, the id and name exactly as decoded, and the end
    /// value equal to serde_json's.
    #[test]
    fn prop_detection_does_not_depend_on_the_pieces(
        (id_json, id) in gen_string(),
        (name_json, name) in gen_string(),
        input in prop::collection::vec(("[a-z]{1,3}", gen_string()), 0..4),
        anthropic in any::<bool>(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..20),
    ) {
        let input_json = format!(
            "{{{}}}",
            input
                .iter()
                .map(|(k, (j, _))| format!("\"{k}\":{j}"))
                .collect::<Vec<_>>()
                .join(",")
        );
        let text = if anthropic {
            format!(r#"{{"type":"tool_use","id":{id_json},"name":{name_json},"input":{input_json}}}"#)
        } else {
            format!(r#"{{"id":{id_json}, "name":{name_json}, "arguments":{input_json}}}"#)
        };
        let (whole, ok) = run(&[text.as_bytes()]);
        prop_assert!(ok);
        let whole = merged(whole);
        prop_assert_eq!(&whole[0], &Detected::Id(id));
        prop_assert_eq!(&whole[1], &Detected::Name(name));
        match whole.last() {
            Some(Detected::End(value)) => {
                let ours: serde_json::Value = serde_json::from_str(&value.to_json()).unwrap();
                let theirs: serde_json::Value = serde_json::from_str(&text).unwrap();
                prop_assert_eq!(ours, theirs);
            }
            other => prop_assert!(false, "no end: {:?}", other),
        }

        let bytes = text.as_bytes();
        let mut points: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
        points.sort_unstable();
        points.dedup();
        let mut pieces = Vec::new();
        let mut last = 0;
        for at in points.into_iter().chain([bytes.len()]) {
            pieces.push(&bytes[last..at]);
            last = at;
        }
        let (split, ok) = run(&pieces);
        prop_assert!(ok);
        prop_assert_eq!(merged(split), whole.clone());
        let ones: Vec<&[u8]> = bytes.chunks(1).collect();
        prop_assert_eq!(merged(run(&ones).0), whole);
    }
}

/// A container under `arguments` is reported with its own value, not the
/// one at the same path under `input`, nor a later duplicate's, however
/// the object is cut.
#[test]
fn containers_are_reported_with_their_own_value() {
    let text = br#"{"input":{"k":[2]},"arguments":{"k":[1]},"input":{"k":[3],"k":[4]}}"#;
    for cut in 0..=text.len() {
        let (events, ok) = run(&[&text[..cut], &text[cut..]]);
        assert!(ok);
        let containers: Vec<String> = events
            .iter()
            .filter_map(|e| match e {
                Detected::Argument(ArgumentEvent::Value { path, value })
                    if !path.to_string().contains('[') =>
                {
                    Some(format!("{path}={}", value.to_json()))
                }
                _ => None,
            })
            .collect();
        assert_eq!(
            containers,
            [
                "k=[2]",
                r#"={"k":[2]}"#,
                "k=[1]",
                r#"={"k":[1]}"#,
                "k=[3]",
                "k=[4]",
                r#"={"k":[3],"k":[4]}"#
            ],
            "cut at {cut}"
        );
    }
}

#[test]
fn a_deep_input_is_reported_whole_without_a_copy_per_level() {
    let deep = format!(
        "{}{}{}",
        "[".repeat(120),
        vec!["1"; 20_000].join(","),
        "]".repeat(120)
    );
    let text = format!(r#"{{"id":"t","name":"f","input":{{"x":{deep}}}}}"#);
    let mut detector = ToolCallDetector::new();
    detector.feed(text.as_bytes()).unwrap();
    detector.finish().unwrap();
    let events = drain(&mut detector);
    let input = v(&format!("{{\"x\":{deep}}}"));
    assert_eq!(events[0], Detected::Id("t".into()));
    assert_eq!(events[1], Detected::Name("f".into()));
    assert!(events.contains(&Detected::Argument(ArgumentEvent::Value {
        path: PathBuf::new(),
        value: input.clone()
    })));
    assert_eq!(events.last(), Some(&Detected::End(v(&text))));
    let mut copies = 0;
    for event in &events {
        if let Detected::Argument(ArgumentEvent::Value { path, value }) = event {
            assert_eq!(input.at(path.as_path()), Some(value), "value at {path}");
            copies += usize::from(value.is_array());
        }
    }
    assert!(copies < 120, "{copies} copies");
}

/// A top-level array is not a tool call: it never ends as one.
#[test]
fn a_top_level_array_is_not_a_call() {
    let mut detector = ToolCallDetector::new();
    detector.feed(b"[1, 2, 3]").expect("valid JSON");
    let _ = detector.finish();
    let events = drain(&mut detector);
    assert!(
        !events.iter().any(|e| matches!(e, Detected::End(_))),
        "{events:?}"
    );
}

/// An input string cut short whose deltas the allowance merged: its held
/// text goes out at `finish`, before the error, so the deltas add up to
/// the string.
#[test]
fn an_input_string_cut_short_past_the_allowance_keeps_all_its_text() {
    let (_, head, text) = common::string_past_the_allowance();
    let mut detector = ToolCallDetector::new();
    detector
        .feed(format!(r#"{{"name":"f","input":{{{head}"#).as_bytes())
        .unwrap();
    let mut events = Vec::new();
    for c in text.chars() {
        detector.feed(c.to_string().as_bytes()).unwrap();
        events.extend(drain(&mut detector));
    }
    let deltas = |events: &[Detected]| -> String {
        events
            .iter()
            .filter_map(|e| match e {
                Detected::Argument(ArgumentEvent::Delta { text, .. }) => Some(text.as_str()),
                _ => None,
            })
            .collect()
    };
    assert!(deltas(&events).len() < text.len());
    let error = detector.finish().expect_err("the object is cut short");
    assert!(error.is_incomplete());
    events.extend(drain(&mut detector));
    assert_eq!(deltas(&events), text);
}
