//! JSON action streams (`tools::ActionStream`): action objects in model
//! text, fenced or bare, among prose — and property tests that the events do
//! not depend on how the text is cut into pieces.

use crate::common;
use llmstream_tests::pieces_at;

use llmstream::json::{parse, PathBuf, Value};
use llmstream::tools::{ActionError, ActionEvent, ActionStream, ArgumentEvent, JsonContext};
use proptest::prelude::*;

// ---------------------------------------------------------------- helpers

/// Feeds `pieces` with `feed(&str)`, finishes, returns every event.
fn run(pieces: &[&str]) -> Vec<ActionEvent> {
    let mut stream = ActionStream::new();
    for piece in pieces {
        stream.feed(piece);
    }
    finished(&mut stream)
}

/// Feeds `pieces` with `feed_bytes`, finishes, returns every event.
fn run_bytes(pieces: &[&[u8]]) -> Vec<ActionEvent> {
    let mut stream = ActionStream::new();
    for piece in pieces {
        stream.feed_bytes(piece);
    }
    finished(&mut stream)
}

/// Finishes `stream` and returns every event, checking that an error
/// `finish` returns is the last event too (and no event follows it).
fn finished(stream: &mut ActionStream) -> Vec<ActionEvent> {
    let result = stream.finish();
    let events: Vec<ActionEvent> = std::iter::from_fn(|| stream.next_event()).collect();
    if let Err(returned) = &result {
        match events.last() {
            Some(ActionEvent::Error { error, .. }) => assert_eq!(error, returned),
            last => panic!("finish returned {returned}, the last event is {last:?}"),
        }
    }
    events
}

/// The whole text in one piece.
fn whole(text: &str) -> Vec<ActionEvent> {
    run(&[text])
}

/// Merges consecutive `Text` events, and consecutive argument deltas of the
/// same call and path: what is left does not depend on the pieces.
fn merged(events: Vec<ActionEvent>) -> Vec<ActionEvent> {
    let mut out: Vec<ActionEvent> = Vec::new();
    for event in events {
        match (out.last_mut(), event) {
            (Some(ActionEvent::Text(prev)), ActionEvent::Text(more)) => prev.push_str(&more),
            (
                Some(ActionEvent::Argument {
                    call: c0,
                    event: ArgumentEvent::Delta { path: p0, text: t0 },
                }),
                ActionEvent::Argument {
                    call,
                    event: ArgumentEvent::Delta { path, text },
                },
            ) if *c0 == call && *p0 == path => t0.push_str(&text),
            (_, event) => out.push(event),
        }
    }
    out
}

fn v(json: &str) -> Value {
    parse(json.as_bytes()).expect("test JSON is valid")
}

fn p(path: &str) -> PathBuf {
    PathBuf::parse(path).expect("test path is valid")
}

fn prose(t: &str) -> ActionEvent {
    ActionEvent::Text(t.into())
}

fn start(call: u64, name: &str) -> ActionEvent {
    ActionEvent::ToolCallStart {
        call,
        name: name.into(),
    }
}

fn delta(call: u64, path: &str, t: &str) -> ActionEvent {
    ActionEvent::Argument {
        call,
        event: ArgumentEvent::Delta {
            path: p(path),
            text: t.into(),
        },
    }
}

fn arg(call: u64, path: &str, value: &str) -> ActionEvent {
    ActionEvent::Argument {
        call,
        event: ArgumentEvent::Value {
            path: p(path),
            value: v(value),
        },
    }
}

fn end(call: u64, name: &str, arguments: &str) -> ActionEvent {
    ActionEvent::ToolCallEnd {
        call,
        name: name.into(),
        arguments: v(arguments),
    }
}

/// All the text events, concatenated.
fn all_text(events: &[ActionEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            ActionEvent::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

fn is_tool_event(e: &ActionEvent) -> bool {
    matches!(
        e,
        ActionEvent::ToolCallStart { .. }
            | ActionEvent::Argument { .. }
            | ActionEvent::ToolCallEnd { .. }
    )
}

/// An event as the tests below compare it: an error by the message it
/// shows, as a parser error cannot be built outside the crate.
#[derive(Debug, PartialEq)]
enum Seen {
    Event(ActionEvent),
    Error {
        call: Option<u64>,
        message: String,
        partial: Option<Value>,
    },
}

impl From<ActionEvent> for Seen {
    fn from(event: ActionEvent) -> Self {
        match event {
            ActionEvent::Error {
                call,
                error,
                partial,
            } => Seen::Error {
                call,
                message: error.to_string(),
                partial,
            },
            event => Seen::Event(event),
        }
    }
}

/// The events as compared by message.
fn seen(events: Vec<ActionEvent>) -> Vec<Seen> {
    events.into_iter().map(Seen::from).collect()
}

/// Expected events, an error given by its message.
macro_rules! seen {
    ($($event:expr),* $(,)?) => {
        vec![$(Seen::from($event)),*]
    };
}

fn error(call: Option<u64>, message: &str, partial: Option<&str>) -> Seen {
    Seen::Error {
        call,
        message: message.into(),
        partial: partial.map(v),
    }
}

/// Every started call is followed, before anything else about calls, by its
/// end or an error naming it; calls count from 0 without gaps; only its
/// own argument events come in between.
fn assert_every_call_ends(events: &[ActionEvent]) {
    let mut open: Option<u64> = None;
    let mut next = 0;
    for e in events {
        match e {
            ActionEvent::ToolCallStart { call, .. } => {
                assert_eq!(open, None, "{events:?}");
                assert_eq!(*call, next, "{events:?}");
                next += 1;
                open = Some(*call);
            }
            ActionEvent::Argument { call, .. } => {
                assert_eq!(open, Some(*call), "{events:?}");
            }
            ActionEvent::ToolCallEnd { call, .. } => {
                assert_eq!(open.take(), Some(*call), "{events:?}");
            }
            ActionEvent::Error { call, error, .. } => {
                assert_eq!(*call, open.take(), "{events:?}");
                assert!(error.to_string().contains(" at byte "), "{error}");
            }
            _ => assert_eq!(open, None, "{e:?} inside a call: {events:?}"),
        }
    }
    assert_eq!(open, None, "a call never ended: {events:?}");
}

fn errors(events: &[ActionEvent]) -> Vec<(String, Option<&Value>)> {
    events
        .iter()
        .filter_map(|e| match e {
            ActionEvent::Error { error, partial, .. } => {
                Some((error.to_string(), partial.as_ref()))
            }
            _ => None,
        })
        .collect()
}

/// Every way of cutting `text` into two pieces at a char boundary, and
/// byte-by-byte (with `push_bytes`), must give the same merged events as the
/// whole text.
fn assert_chunking_independent(text: &str) {
    let expected = merged(whole(text));
    for (at, _) in text.char_indices().skip(1) {
        let (a, b) = text.split_at(at);
        assert_eq!(
            merged(run(&[a, b])),
            expected,
            "cut at byte {at}: {a:?} | {b:?}"
        );
    }
    let bytes: Vec<&[u8]> = text.as_bytes().chunks(1).collect();
    assert_eq!(merged(run_bytes(&bytes)), expected, "byte by byte");
    for at in 1..text.len() {
        let (a, b) = text.as_bytes().split_at(at);
        assert_eq!(merged(run_bytes(&[a, b])), expected, "bytes cut at {at}");
    }
}

// ------------------------------------------------------- member order

#[test]
fn action_first_then_arguments() {
    let events = merged(whole(
        "```json\n{\"action\":\"search\",\"query\":\"rust\",\"limit\":3}\n```",
    ));
    assert_eq!(
        events,
        [
            start(0, "search"),
            delta(0, "query", "rust"),
            arg(0, "query", r#""rust""#),
            arg(0, "limit", "3"),
            end(0, "search", r#"{"query":"rust","limit":3}"#),
        ]
    );
}

/// A completed argument container is reported with its own value, even
/// when a member with the same key follows it in the same piece.
#[test]
fn a_completed_argument_is_its_own_value_among_duplicate_keys() {
    let text = "```json\n{\"action\":\"f\",\"a\":[1],\"a\":[2]}\n```";
    let events = merged(whole(text));
    assert_eq!(
        events,
        [
            start(0, "f"),
            arg(0, "a[0]", "1"),
            arg(0, "a", "[1]"),
            arg(0, "a[0]", "2"),
            arg(0, "a", "[2]"),
            end(0, "f", r#"{"a":[1],"a":[2]}"#),
        ]
    );
    assert_chunking_independent(text);
}

/// The byte an invalid escape names goes back to the text with the rest.
#[test]
fn the_byte_after_a_bad_backslash_is_given_back() {
    let text = r#"{"action":"go","s":"ab\qrs"} tail"#;
    let events = merged(whole(text));
    assert_eq!(all_text(&events), r#"qrs"} tail"#, "{events:?}");
    assert_every_call_ends(&events);
    assert_chunking_independent(text);
}

#[test]
fn action_between_arguments_replays_held_members_in_order() {
    let events = merged(whole(
        "```json\n{\"path\":\"a.rs\",\"line\":7,\"action\":\"edit\",\"text\":\"fn\"}\n```",
    ));
    assert_eq!(
        events,
        [
            start(0, "edit"),
            delta(0, "path", "a.rs"),
            arg(0, "path", r#""a.rs""#),
            arg(0, "line", "7"),
            delta(0, "text", "fn"),
            arg(0, "text", r#""fn""#),
            end(0, "edit", r#"{"path":"a.rs","line":7,"text":"fn"}"#),
        ]
    );
}

#[test]
fn action_last_holds_everything_until_the_start() {
    let text = "```json\n{\"q\":\"ru\\nst\",\"n\":[1,true,null],\"action\":\"search\"}\n```";
    assert_eq!(
        merged(whole(text)),
        [
            start(0, "search"),
            delta(0, "q", "ru\nst"),
            arg(0, "q", r#""ru\nst""#),
            arg(0, "n[0]", "1"),
            arg(0, "n[1]", "true"),
            arg(0, "n[2]", "null"),
            arg(0, "n", "[1,true,null]"),
            end(0, "search", r#"{"q":"ru\nst","n":[1,true,null]}"#),
        ]
    );

    // Nothing about the call is reported before `action` arrives.
    let mut stream = ActionStream::new();
    stream.feed("```json\n{\"q\":\"ru\\nst\",\"n\":[1,true,null],\"act");
    let early: Vec<ActionEvent> = std::iter::from_fn(|| stream.next_event()).collect();
    assert!(
        early.iter().all(|e| !is_tool_event(e)),
        "held, not reported: {early:?}"
    );
    stream.feed("ion\":\"search\"");
    let at_start: Vec<ActionEvent> = std::iter::from_fn(|| stream.next_event()).collect();
    assert_eq!(at_start.first(), Some(&start(0, "search")));
    assert_eq!(
        at_start.len(),
        7,
        "start + the six held events: {at_start:?}"
    );
    assert_chunking_independent(text);
}

#[test]
fn nested_objects_and_arrays_in_arguments() {
    let text = "```json\n{\"action\":\"write\",\"blocks\":[{\"content\":\"Hel\",\"tags\":[\"a\",\"b\"]},{\"content\":\"lo\"}],\"opts\":{\"deep\":{\"x\":null,\"e\":{}}}}\n```";
    let events = merged(whole(text));
    assert_eq!(
        events,
        [
            start(0, "write"),
            delta(0, "blocks[0].content", "Hel"),
            arg(0, "blocks[0].content", r#""Hel""#),
            delta(0, "blocks[0].tags[0]", "a"),
            arg(0, "blocks[0].tags[0]", r#""a""#),
            delta(0, "blocks[0].tags[1]", "b"),
            arg(0, "blocks[0].tags[1]", r#""b""#),
            arg(0, "blocks[0].tags", r#"["a","b"]"#),
            arg(0, "blocks[0]", r#"{"content":"Hel","tags":["a","b"]}"#),
            delta(0, "blocks[1].content", "lo"),
            arg(0, "blocks[1].content", r#""lo""#),
            arg(0, "blocks[1]", r#"{"content":"lo"}"#),
            arg(
                0,
                "blocks",
                r#"[{"content":"Hel","tags":["a","b"]},{"content":"lo"}]"#
            ),
            arg(0, "opts.deep.x", "null"),
            arg(0, "opts.deep.e", "{}"),
            arg(0, "opts.deep", r#"{"x":null,"e":{}}"#),
            arg(0, "opts", r#"{"deep":{"x":null,"e":{}}}"#),
            end(
                0,
                "write",
                r#"{"blocks":[{"content":"Hel","tags":["a","b"]},{"content":"lo"}],"opts":{"deep":{"x":null,"e":{}}}}"#
            ),
        ]
    );
    assert_chunking_independent(text);
}

#[test]
fn a_nested_action_key_is_an_argument_not_the_name() {
    let events = merged(whole(
        "```json\n{\"opts\":{\"action\":\"inner\"},\"action\":\"outer\"}\n```",
    ));
    assert_eq!(events.first(), Some(&start(0, "outer")));
    assert_eq!(
        events.last(),
        Some(&end(0, "outer", r#"{"opts":{"action":"inner"}}"#))
    );
}

// ---------------------------------------------------------- several actions

#[test]
fn two_fenced_actions_in_a_row() {
    let text = "First.\n```json\n{\"action\":\"a\",\"x\":1}\n```\n```json\n{\"y\":2,\"action\":\"b\"}\n```\nDone.";
    assert_eq!(
        merged(whole(text)),
        [
            prose("First.\n"),
            start(0, "a"),
            arg(0, "x", "1"),
            end(0, "a", r#"{"x":1}"#),
            prose("\n"),
            start(1, "b"),
            arg(1, "y", "2"),
            end(1, "b", r#"{"y":2}"#),
            prose("\nDone."),
        ]
    );
    assert_chunking_independent(text);
}

#[test]
fn two_actions_in_one_fence() {
    let text = "```json\n{\"action\":\"a\"}\n{\"action\":\"b\",\"q\":\"z\"}\n```\n";
    assert_eq!(
        merged(whole(text)),
        [
            start(0, "a"),
            end(0, "a", "{}"),
            start(1, "b"),
            delta(1, "q", "z"),
            arg(1, "q", r#""z""#),
            end(1, "b", r#"{"q":"z"}"#),
            prose("\n"),
        ]
    );
    assert_chunking_independent(text);
}

#[test]
fn unfenced_actions_separated_by_prose() {
    let text = "{\"action\":\"a\",\"x\":1}Then:\n{\"action\":\"b\"}";
    assert_eq!(
        merged(whole(text)),
        [
            start(0, "a"),
            arg(0, "x", "1"),
            end(0, "a", r#"{"x":1}"#),
            prose("Then:\n"),
            start(1, "b"),
            end(1, "b", "{}"),
        ]
    );
    assert_chunking_independent(text);
}

#[test]

fn two_unfenced_actions_on_consecutive_lines() {
    let text = "{\"action\":\"a\"}\n{\"action\":\"b\"}\n";
    assert_eq!(
        merged(whole(text)),
        [
            start(0, "a"),
            end(0, "a", "{}"),
            prose("\n"),
            start(1, "b"),
            end(1, "b", "{}"),
            prose("\n"),
        ]
    );
    assert_chunking_independent(text);
}

#[test]

fn prose_after_an_unfenced_action_keeps_its_whitespace() {
    let events = merged(whole("{\"action\":\"a\"}  then\n\nmore"));
    assert_eq!(all_text(&events), "  then\n\nmore");
}

#[test]
fn a_top_level_array_of_actions() {
    for text in [
        "```json\n[{\"action\":\"a\",\"q\":1},\n {\"r\":\"s\",\"action\":\"b\"}]\n```",
        "[{\"action\":\"a\",\"q\":1},\n {\"r\":\"s\",\"action\":\"b\"}]",
    ] {
        assert_eq!(
            merged(whole(text)),
            [
                start(0, "a"),
                arg(0, "q", "1"),
                end(0, "a", r#"{"q":1}"#),
                start(1, "b"),
                delta(1, "r", "s"),
                arg(1, "r", r#""s""#),
                end(1, "b", r#"{"r":"s"}"#),
            ],
            "{text:?}"
        );
        assert_chunking_independent(text);
    }
}

#[test]
fn an_array_element_without_action_is_plain_json() {
    let events = merged(whole("```json\n[{\"action\":\"a\"},{\"x\":1}]\n```"));
    assert_eq!(
        events,
        [
            start(0, "a"),
            end(0, "a", "{}"),
            ActionEvent::Json(v(r#"{"x":1}"#)),
        ]
    );
}

// ------------------------------------------------------------ prose, fences

#[test]
fn prose_before_and_after_is_exactly_the_text_outside_the_json() {
    let text = "I'll search for that — ok?\n```json\n{\"action\":\"search\",\"q\":\"é\"}\n```\nHere are the results.\n";
    let events = merged(whole(text));
    assert_eq!(events.first(), Some(&prose("I'll search for that — ok?\n")));
    assert_eq!(events.last(), Some(&prose("\nHere are the results.\n")));
    assert_eq!(
        all_text(&events),
        "I'll search for that — ok?\n\nHere are the results.\n"
    );
    assert!(!all_text(&events).contains('`'), "fences are not shown");
    assert_chunking_independent(text);
}

#[test]
fn prose_before_an_unfenced_action_and_after_it() {
    let text = "Let me check.\n{\"action\":\"ls\",\"dir\":\"/\"}Done.";
    assert_eq!(
        merged(whole(text)),
        [
            prose("Let me check.\n"),
            start(0, "ls"),
            delta(0, "dir", "/"),
            arg(0, "dir", r#""/""#),
            end(0, "ls", r#"{"dir":"/"}"#),
            prose("Done."),
        ]
    );
}

#[test]
fn json_and_bare_fences() {
    for fence in ["```json\n", "```\n", "```JSON\n", "```json \n"] {
        let text = format!("a\n{fence}{{\"action\":\"go\"}}\n```\nb");
        assert_eq!(
            merged(whole(&text)),
            [
                prose("a\n"),
                start(0, "go"),
                end(0, "go", "{}"),
                prose("\nb")
            ],
            "{fence:?}"
        );
        assert_chunking_independent(&text);
    }
}

#[test]
fn a_fence_split_across_pieces() {
    let pieces = [
        "Look.\n``",
        "`json\n{\"act",
        "ion\":\"search\",\"q\":\"x\"}\n`",
        "``\nok",
    ];
    let expected = [
        prose("Look.\n"),
        start(0, "search"),
        delta(0, "q", "x"),
        arg(0, "q", r#""x""#),
        end(0, "search", r#"{"q":"x"}"#),
        prose("\nok"),
    ];
    assert_eq!(merged(run(&pieces)), expected);
    assert_eq!(merged(whole(&pieces.concat())), expected);
    // Each backtick alone.
    assert_eq!(
        merged(run(&[
            "Look.\n",
            "`",
            "`",
            "`",
            "json",
            "\n",
            "{\"action\":\"search\",\"q\":\"x\"}\n",
            "`",
            "`",
            "`",
            "\nok"
        ])),
        expected
    );
}

#[test]

fn a_four_backtick_fence_split_after_three() {
    let text = "````json\n{\"action\":\"a\"}\n````\n";
    assert_eq!(merged(run(&["```", &text[3..]])), merged(whole(text)));
}

#[test]
fn a_non_json_code_fence_passes_through_as_text() {
    let text =
        "Run this:\n```python\nd = {\"action\": \"rm\"}\nprint(d)\n```\nThen {\"action\":\"x\"}.";
    let events = merged(whole(text));
    assert_eq!(events, [prose(text)]);
    assert_chunking_independent(text);
}

#[test]
fn a_json_fence_holding_something_else_is_shown_as_code() {
    let text = "```json\nnot json at all\n```\nafter";
    let events = merged(whole(text));
    assert!(events.iter().all(|e| !is_tool_event(e)), "{events:?}");
    assert_eq!(all_text(&events), text);
}

#[test]
fn an_unclosed_fence_is_reported_at_the_end_with_the_action_kept() {
    let text = "Here:\n```json\n{\"action\":\"a\",\"x\":1}\n";
    let events = merged(whole(text));
    assert_eq!(
        &events[..4],
        [
            prose("Here:\n"),
            start(0, "a"),
            arg(0, "x", "1"),
            end(0, "a", r#"{"x":1}"#)
        ]
    );
    let errs = errors(&events);
    assert_eq!(errs.len(), 1, "{events:?}");
    assert!(errs[0].0.contains("never closed"), "{}", errs[0].0);
    assert_chunking_independent(text);
}

#[test]
fn an_unclosed_code_fence_keeps_its_text() {
    let text = "```python\nprint(1)\n";
    let events = merged(whole(text));
    assert_eq!(all_text(&events), text);
    assert_eq!(errors(&events).len(), 1, "{events:?}");
}

#[test]

fn an_unclosed_fence_without_a_line_break_keeps_its_text() {
    let events = merged(whole("Code:\n```python"));
    assert_eq!(errors(&events).len(), 1, "{events:?}");
    assert_eq!(all_text(&events), "Code:\n```python");
}

#[test]
fn an_object_that_never_ends_is_an_error_with_the_partial_value() {
    for text in [
        "```json\n{\"action\":\"edit\",\"blocks\":[{\"content\":\"Hel",
        "{\"action\":\"edit\",\"blocks\":[{\"content\":\"Hel",
    ] {
        let events = merged(whole(text));
        assert_eq!(events.first(), Some(&start(0, "edit")), "{text:?}");
        assert!(
            !events
                .iter()
                .any(|e| matches!(e, ActionEvent::ToolCallEnd { .. })),
            "{events:?}"
        );
        assert!(events.contains(&delta(0, "blocks[0].content", "Hel")));
        let errs = errors(&events);
        assert_eq!(errs.len(), 1, "{events:?}");
        assert_eq!(
            errs[0].1,
            Some(&v(r#"{"action":"edit","blocks":[{"content":"Hel"}]}"#))
        );
        assert_chunking_independent(text);
    }
}

#[test]
fn an_object_without_action_is_plain_json() {
    for text in [
        "```json\n{\"name\":\"x\",\"n\":[1,2]}\n```",
        "{\"name\":\"x\",\"n\":[1,2]}",
        "```json\n{\"action\":3,\"n\":[1,2]}\n```",
    ] {
        let events = merged(whole(text));
        assert!(events.iter().all(|e| !is_tool_event(e)), "{events:?}");
        let json: Vec<&Value> = events
            .iter()
            .filter_map(|e| match e {
                ActionEvent::Json(v) => Some(v),
                _ => None,
            })
            .collect();
        let obj = text
            .trim_start_matches("```json\n")
            .trim_end_matches("\n```");
        assert_eq!(json, [&v(obj)], "{text:?}");
        assert_eq!(all_text(&events), "");
        assert_chunking_independent(text);
    }
}

#[test]
fn invalid_json_in_a_fence_is_an_error_and_its_text_is_kept() {
    // Nothing was reported about the value before it failed (no `action`
    // yet): the fence is shown whole, as code. (Once a call has started,
    // see `invalid_json_in_a_fenced_action_ends_the_call_at_its_stream_offset`.)
    let text = "```json\n{\"q\":\"a\", oops}\n```\nafter";
    let events = merged(whole(text));
    let errs = errors(&events);
    assert_eq!(errs.len(), 1, "{events:?}");
    assert!(errs[0].0.contains("invalid JSON"), "{}", errs[0].0);
    let shown = all_text(&events);
    assert!(shown.contains("{\"q\":\"a\", oops}"), "{shown:?}");
    assert!(shown.ends_with("after"), "{shown:?}");
    assert_chunking_independent(text);
}

#[test]

fn invalid_json_in_a_fence_shows_balanced_fences() {
    let events = merged(whole("```json\n{oops}\n```\nafter"));
    let shown = all_text(&events);
    assert_eq!(shown.matches("```").count() % 2, 0, "{shown:?}");
}

#[test]
fn a_brace_in_the_middle_of_a_prose_line_is_prose() {
    for text in [
        "Say {\"action\":\"a\"} to run.\n",
        "x = [{\"action\":\"a\"}]",
        "Braces {like} these, and {\"action\":\"b\"}",
    ] {
        assert_eq!(merged(whole(text)), [prose(text)], "{text:?}");
        assert_chunking_independent(text);
    }
}

#[test]
fn a_brace_at_a_line_start_that_is_not_json_is_prose() {
    let text = "Note:\n{this is not json}\nbye";
    assert_eq!(merged(whole(text)), [prose(text)]);
    assert_chunking_independent(text);
}

#[test]
fn push_bytes_with_cut_utf8_equals_push_str() {
    let text =
        "Über 😀\n```json\n{\"action\":\"say\",\"t\":\"héllo 😀 \\ud83d\\ude00\"}\n```\n終わり";
    let expected = merged(whole(text));
    assert!(expected.contains(&arg(0, "t", "\"héllo 😀 😀\"")));
    let bytes: Vec<&[u8]> = text.as_bytes().chunks(1).collect();
    assert_eq!(merged(run_bytes(&bytes)), expected);
    let bytes: Vec<&[u8]> = text.as_bytes().chunks(3).collect();
    assert_eq!(merged(run_bytes(&bytes)), expected);
}

#[test]
fn invalid_utf8_bytes_become_replacement_characters() {
    let events = merged(run_bytes(&[b"ab\xFFc\n", b"\xE2\x82"]));
    assert_eq!(all_text(&events), "ab\u{FFFD}c\n\u{FFFD}");
}

#[test]
fn call_numbers_count_actions_across_fences_and_arrays() {
    let text = "```json\n{\"action\":\"a\"}\n```\n[{\"action\":\"b\"},{\"action\":\"c\"}]\n```\n{\"action\":\"d\"}\n```";
    let starts: Vec<ActionEvent> = merged(whole(text))
        .into_iter()
        .filter(|e| matches!(e, ActionEvent::ToolCallStart { .. }))
        .collect();
    assert_eq!(
        starts,
        [start(0, "a"), start(1, "b"), start(2, "c"), start(3, "d")]
    );
}

// ------------------------------------- invalid JSON after a call started
//
// Once a call has started (or an array element was reported), the value's
// text is never given back: an error naming the open call ends it, with the
// byte offset in the whole input, and the text from the failing byte on is
// read as prose.

#[test]
fn a_bare_action_that_turns_invalid_ends_its_call_with_an_error() {
    let text = "{\"action\":\"x\",\"q\":\"partial\" and then prose}\nmore\n";
    let expected = seen![
        start(0, "x"),
        delta(0, "q", "partial"),
        arg(0, "q", r#""partial""#),
        error(
            Some(0),
            "invalid JSON in action 0 (x): expected ',' or '}' after object member, found 'a' at byte 28 (path q)",
            Some(r#"{"action":"x","q":"partial"}"#),
        ),
        prose("and then prose}\nmore\n"),
    ];
    assert_eq!(seen(merged(whole(text))), expected);
    assert_every_call_ends(&merged(whole(text)));
    assert_chunking_independent(text);

    // The offset counts from the start of the input, not of the object.
    let text = "Look:\n{\"action\":\"x\",\"q\":\"partial\" and then prose}\nmore\n";
    let events = merged(whole(text));
    assert_eq!(events[0], prose("Look:\n"));
    assert!(
        errors(&events)[0].0.ends_with("at byte 34 (path q)"),
        "{events:?}"
    );
    assert_chunking_independent(text);
}

#[test]
fn a_json_error_keeps_the_input_offset_and_the_path_in_the_value() {
    // The parser's error, typed: its offset counts from the start of the
    // input (not of the object), its path is inside the value.
    let text = "Look:\n[{\"action\":\"x\",\"q\":{\"r\":1 and then prose}}]\n";
    let events = merged(whole(text));
    let errors: Vec<&ActionError> = events
        .iter()
        .filter_map(|e| match e {
            ActionEvent::Error { error, .. } => Some(error),
            _ => None,
        })
        .collect();
    let [ActionError::Json { error, context }] = errors.as_slice() else {
        panic!("one JSON error expected: {events:?}");
    };
    assert_eq!(error.offset(), text.find(" and").unwrap() as u64 + 1);
    assert_eq!(errors[0].offset(), error.offset());
    assert_eq!(*error.path(), p("[0].q.r"));
    assert_eq!(
        *context,
        JsonContext::Action {
            call: 0,
            name: "x".into()
        }
    );
    assert_chunking_independent(text);
}

#[test]
fn a_bare_action_that_looked_like_json_before_its_start_is_prose() {
    // No call started yet: what looked like JSON is given back as text.
    let text = "{\"q\":\"partial\" and then prose}\nmore\n";
    assert_eq!(merged(whole(text)), [prose(text)]);
    assert_chunking_independent(text);
}

#[test]
fn an_array_of_actions_that_turns_invalid_is_not_given_back_as_text() {
    // The call ended before the array failed: the error names no call, and
    // the completed action is not printed again as prose. `then` was read
    // as the start of `true`: the `t` is given back with the rest.
    let text = "[{\"action\":\"x\",\"q\":1}, then prose]\nmore\n";
    let expected = seen![
        start(0, "x"),
        arg(0, "q", "1"),
        end(0, "x", r#"{"q":1}"#),
        error(
            None,
            "invalid JSON: expected 'true', found 'h' at byte 24 (path [1])",
            Some(r#"[{"action":"x","q":1}]"#),
        ),
        prose("then prose]\nmore\n"),
    ];
    assert_eq!(seen(merged(whole(text))), expected);
    assert_every_call_ends(&merged(whole(text)));
    assert_chunking_independent(text);

    // A call open in the array when it fails is named.
    let text = "[{\"action\":\"a\"},{\"action\":\"b\",\"q\":1 oops}]";
    let expected = seen![
        start(0, "a"),
        end(0, "a", "{}"),
        start(1, "b"),
        arg(1, "q", "1"),
        error(
            Some(1),
            "invalid JSON in action 1 (b): expected ',' or '}' after object member, found 'o' at byte 36 (path [1].q)",
            Some(r#"[{"action":"a"},{"action":"b","q":1}]"#),
        ),
        prose("oops}]"),
    ];
    assert_eq!(seen(merged(whole(text))), expected);
    assert_chunking_independent(text);

    // An element reported as plain JSON counts as reported too.
    let text = "[{\"x\":1}, oops]";
    let events = merged(whole(text));
    assert_eq!(events[0], ActionEvent::Json(v(r#"{"x":1}"#)));
    assert_eq!(events.last(), Some(&prose("oops]")));
    assert_chunking_independent(text);
}

#[test]
fn invalid_json_in_a_fenced_action_ends_the_call_at_its_stream_offset() {
    let text = "Intro\n```json\n{\"action\": \"bad\", \"x\": 1,, oops}\n```\nafter";
    let expected = seen![
        prose("Intro\n"),
        start(0, "bad"),
        arg(0, "x", "1"),
        error(
            Some(0),
            "invalid JSON in action 0 (bad): expected a string key after ',' in object, found ',' at byte 39",
            Some(r#"{"action":"bad","x":1}"#),
        ),
        // The rest of the fence is text; its closing fence is not shown, as
        // its opening was not.
        prose(", oops}\n\nafter"),
    ];
    assert_eq!(seen(merged(whole(text))), expected);
    assert_every_call_ends(&merged(whole(text)));
    assert_chunking_independent(text);
}

#[test]
fn a_fenced_action_cut_by_its_closing_fence_ends_with_an_error() {
    let text = "```json\n{\"action\":\"x\",\"q\":1\n```\nafter";
    let expected = seen![
        start(0, "x"),
        arg(0, "q", "1"),
        error(
            Some(0),
            "invalid JSON in action 0 (x): expected ',' or '}' after object member, found '`' at byte 28 (path q)",
            Some(r#"{"action":"x","q":1}"#),
        ),
        prose("\nafter"),
    ];
    assert_eq!(seen(merged(whole(text))), expected);
    assert_chunking_independent(text);
}

#[test]
fn a_literal_or_number_cut_by_the_failure_is_given_back_as_text() {
    let text = "{\"action\":\"x\",\"q\": nothing}\n";
    let expected = seen![
        start(0, "x"),
        error(
            Some(0),
            "invalid JSON in action 0 (x): expected 'null', found 'o' at byte 20 (path q)",
            Some(r#"{"action":"x"}"#),
        ),
        prose("nothing}\n"),
    ];
    assert_eq!(seen(merged(whole(text))), expected);
    assert_chunking_independent(text);

    // `1.` was read as a number; neither it nor the call's other arguments
    // are lost or shown twice.
    let text = "[{\"action\":\"x\",\"n\":[0, 1. First]}]";
    let expected = seen![
        start(0, "x"),
        arg(0, "n[0]", "0"),
        error(
            Some(0),
            "invalid JSON in action 0 (x): expected a digit, found ' ' at byte 25 (path [0].n[1])",
            Some(r#"[{"action":"x","n":[0]}]"#),
        ),
        prose("1. First]}]"),
    ];
    assert_eq!(seen(merged(whole(text))), expected);
    assert_chunking_independent(text);
}

#[test]
fn invalid_json_in_a_fence_before_any_call_gives_the_stream_offset() {
    let text = "Intro\n```json\n{oops}\n```";
    assert_eq!(
        seen(merged(whole(text))),
        seen![
            prose("Intro\n"),
            error(
                None,
                "invalid JSON in fence: expected a string key or '}' after '{', found 'o' at byte 15",
                None,
            ),
            prose("```json\n{oops}\n```"),
        ]
    );
    assert_chunking_independent(text);
}

#[test]
fn text_after_the_json_in_a_fence_is_prose_without_the_fences() {
    for (text, shown) in [
        (
            "```json\n{\"action\":\"x\"}\ntrailing words\n```\nafter",
            "\ntrailing words\n\nafter",
        ),
        (
            "```json\n{\"action\":\"x\"}\n`a` b {\"c\":1}\n```\n",
            "\n`a` b {\"c\":1}\n\n",
        ),
        ("```json\n{\"action\":\"x\"} words```", " words"),
    ] {
        let events = merged(whole(text));
        assert_eq!(
            events,
            [start(0, "x"), end(0, "x", "{}"), prose(shown)],
            "{text:?}"
        );
        assert_chunking_independent(text);
    }
    // Never closed: the text is kept, and an error says so.
    let events = merged(whole("```json\n{\"action\":\"x\"}\nwords"));
    assert_eq!(all_text(&events), "\nwords");
    assert_eq!(
        events.last(),
        Some(&ActionEvent::Error {
            call: None,
            error: ActionError::UnclosedFence { end: 28 },
            partial: None,
        })
    );
}

#[test]
fn error_offsets_count_input_bytes_around_invalid_utf8() {
    // Each invalid byte becomes a three-byte U+FFFD in the text; offsets
    // still count the input's bytes.
    let input: &[u8] = b"\xFF\xFE\n{\"action\":\"x\",,}";
    let expected = seen![
        prose("\u{FFFD}\u{FFFD}\n"),
        start(0, "x"),
        error(
            Some(0),
            "invalid JSON in action 0 (x): expected a string key after ',' in object, found ',' at byte 17",
            Some(r#"{"action":"x"}"#),
        ),
        prose(",}"),
    ];
    assert_eq!(seen(merged(run_bytes(&[input]))), expected);
    let ones: Vec<&[u8]> = input.chunks(1).collect();
    assert_eq!(seen(merged(run_bytes(&ones))), expected);
    // A sequence cut by the end counts as its own bytes too.
    let events = merged(run_bytes(&[b"{\"action\":\"x\"", b"\xE2\x82"]));
    assert_eq!(
        errors(&events),
        [(
            String::from("invalid JSON in action 0 (x): expected ',' or '}' after object member, found byte 0xef at byte 13 (path action)"),
            Some(&v(r#"{"action":"x"}"#))
        )]
    );
}

#[test]
fn errors_at_the_end_name_the_open_call_and_the_end_offset() {
    let events = merged(whole("x\n{\"action\":\"x\",\"q\":\"abc"));
    assert_eq!(
        events.last(),
        Some(&ActionEvent::Error {
            call: Some(0),
            error: ActionError::UnclosedValue {
                end: 24,
                action: Some((0, "x".into())),
            },
            partial: Some(v(r#"{"action":"x","q":"abc"}"#)),
        })
    );
    assert_every_call_ends(&events);
    // The call ended; the fence did not: no call is named.
    let events = merged(whole("```json\n{\"action\":\"a\"}\n"));
    assert_eq!(
        events.last(),
        Some(&ActionEvent::Error {
            call: None,
            error: ActionError::UnclosedFence { end: 23 },
            partial: None,
        })
    );
    assert_every_call_ends(&events);
}

// ------------------------------------------------------- property tests

/// A generated JSON value with its encoded text (escapes chosen at random)
/// and the serde_json oracle.
#[derive(Clone, Debug)]
struct Gen {
    json: String,
    oracle: serde_json::Value,
}

/// One char of a string and whether to write it as a `\u` escape.
fn string_char() -> impl Strategy<Value = (char, bool)> {
    let ch = prop_oneof![
        4 => proptest::char::range('a', 'z'),
        1 => Just(' '),
        1 => Just('"'),
        1 => Just('\\'),
        1 => Just('\n'),
        1 => Just('\t'),
        1 => Just('\u{1}'),
        1 => Just('/'),
        1 => Just('`'),
        1 => Just('{'),
        1 => Just('é'),
        1 => Just('中'),
        1 => Just('😀'),
        1 => Just('\u{10FFFF}'),
        1 => any::<char>(),
    ];
    (ch, any::<bool>())
}

/// Writes a JSON string literal, escaping where needed and where asked.
fn encode_string(chars: &[(char, bool)]) -> String {
    let mut out = String::from("\"");
    for &(c, escape) in chars {
        if escape {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
            continue;
        }
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn gen_string() -> impl Strategy<Value = Gen> {
    prop::collection::vec(string_char(), 0..12).prop_map(|chars| {
        let s: String = chars.iter().map(|&(c, _)| c).collect();
        Gen {
            json: encode_string(&chars),
            oracle: serde_json::Value::String(s),
        }
    })
}

fn gen_scalar() -> impl Strategy<Value = Gen> {
    prop_oneof![
        3 => gen_string(),
        1 => any::<i32>().prop_map(|n| Gen { json: n.to_string(), oracle: n.into() }),
        1 => (-1000i32..1000, 1u32..100).prop_map(|(a, b)| {
            let json = format!("{a}.{b}e1");
            Gen { oracle: serde_json::from_str(&json).unwrap(), json }
        }),
        1 => any::<bool>().prop_map(|b| Gen { json: b.to_string(), oracle: b.into() }),
        1 => Just(Gen { json: "null".into(), oracle: serde_json::Value::Null }),
    ]
}

/// A key: an identifier, a key needing quotes in a path, or one with
/// escapes; never `action`.
fn gen_key() -> impl Strategy<Value = (String, String)> {
    prop_oneof![
        "[a-z][a-z0-9_]{0,6}".prop_map(|k| (k.clone(), format!("\"{k}\""))),
        prop::collection::vec(string_char(), 1..5).prop_map(|chars| {
            let k: String = chars.iter().map(|&(c, _)| c).collect();
            (k, encode_string(&chars))
        }),
    ]
    .prop_filter("not the action key", |(k, _)| k != "action")
}

fn gen_value() -> impl Strategy<Value = Gen> {
    gen_scalar().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|items| {
                let json = format!(
                    "[{}]",
                    items
                        .iter()
                        .map(|g| g.json.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                Gen {
                    json,
                    oracle: serde_json::Value::Array(items.into_iter().map(|g| g.oracle).collect()),
                }
            }),
            gen_members(inner).prop_map(|members| object(&members)),
        ]
    })
}

/// Members with unique keys.
fn gen_members(
    value: impl Strategy<Value = Gen>,
) -> impl Strategy<Value = Vec<(String, String, Gen)>> {
    prop::collection::vec((gen_key(), value), 0..4).prop_map(|members| {
        let mut seen = std::collections::HashSet::new();
        members
            .into_iter()
            .filter(|((k, _), _)| seen.insert(k.clone()))
            .map(|((k, kj), g)| (k, kj, g))
            .collect()
    })
}

fn object(members: &[(String, String, Gen)]) -> Gen {
    let json = format!(
        "{{{}}}",
        members
            .iter()
            .map(|(_, kj, g)| format!("{kj}:{}", g.json))
            .collect::<Vec<_>>()
            .join(",")
    );
    let oracle = serde_json::Value::Object(
        members
            .iter()
            .map(|(k, _, g)| (k.clone(), g.oracle.clone()))
            .collect(),
    );
    Gen { json, oracle }
}

/// A generated action: its JSON text, its name, and the arguments it must
/// end with (the object minus `action`).
#[derive(Clone, Debug)]
struct Action {
    json: String,
    name: String,
    arguments: serde_json::Value,
}

fn gen_action() -> impl Strategy<Value = Action> {
    (
        gen_members(gen_value()),
        any::<prop::sample::Index>(),
        prop::collection::vec(string_char(), 1..6),
        prop::collection::vec(any::<bool>(), 6),
        " ?",
    )
        .prop_map(|(members, at, name_chars, key_escapes, ws)| {
            let name: String = name_chars.iter().map(|&(c, _)| c).collect();
            // The `action` key itself, sometimes with escaped letters.
            let key_chars: Vec<(char, bool)> = "action".chars().zip(key_escapes).collect();
            let action_member = format!(
                "{}:{ws}{}",
                encode_string(&key_chars),
                encode_string(&name_chars)
            );
            let mut parts: Vec<String> = members
                .iter()
                .map(|(_, kj, g)| format!("{kj}:{ws}{}", g.json))
                .collect();
            parts.insert(at.index(parts.len() + 1), action_member);
            Action {
                json: format!("{{{}}}", parts.join(&format!(",{ws}"))),
                name,
                arguments: object(&members).oracle,
            }
        })
}

/// A line of prose: never starts with `{` or `[`, no backticks, ends with a
/// line break. May hold braces further in.
fn gen_prose() -> impl Strategy<Value = String> {
    (
        "[A-Za-z0-9]",
        prop::collection::vec(
            prop_oneof![
                4 => "[a-z ]",
                1 => Just("{".to_string()),
                1 => Just("}".to_string()),
                1 => Just("[".to_string()),
                1 => Just("\"action\"".to_string()),
                1 => Just("é".to_string()),
                1 => Just("😀".to_string()),
                1 => Just("\t".to_string()),
            ],
            0..16,
        ),
    )
        .prop_map(|(first, rest)| format!("{first}{}\n", rest.concat()))
}

#[derive(Clone, Debug)]
enum Segment {
    Prose(String),
    /// Actions in a fence with this info string (several: one after the
    /// other, or as an array).
    Fenced {
        info: &'static str,
        actions: Vec<Action>,
        array: bool,
    },
    /// One unfenced action at a line start, followed directly by prose on
    /// the same line (see the whitespace bug above: a line break right
    /// after an unfenced object is swallowed).
    Bare(Action, String),
}

fn gen_segment(line_break_after_bare: bool) -> impl Strategy<Value = Segment> {
    prop_oneof![
        2 => gen_prose().prop_map(Segment::Prose),
        3 => (
            prop_oneof![Just("json"), Just(""), Just("JSON")],
            prop::collection::vec(gen_action(), 1..3),
            any::<bool>(),
        )
            .prop_map(|(info, actions, array)| Segment::Fenced { info, actions, array }),
        1 => (gen_action(), gen_prose()).prop_map(move |(a, p)| {
            Segment::Bare(a, if line_break_after_bare { format!("\n{p}") } else { p })
        }),
    ]
}

/// A whole stream: its text, the prose it must show, its actions in order.
#[derive(Clone, Debug)]
struct Stream {
    text: String,
    prose: String,
    actions: Vec<Action>,
}

fn gen_stream(line_break_after_bare: bool) -> impl Strategy<Value = Stream> {
    prop::collection::vec(gen_segment(line_break_after_bare), 1..6).prop_map(|segments| {
        let mut stream = Stream {
            text: String::new(),
            prose: String::new(),
            actions: Vec::new(),
        };
        for segment in segments {
            match segment {
                Segment::Prose(p) => {
                    stream.text.push_str(&p);
                    stream.prose.push_str(&p);
                }
                Segment::Fenced {
                    info,
                    actions,
                    array,
                } => {
                    let body: Vec<&str> = actions.iter().map(|a| a.json.as_str()).collect();
                    let body = if array {
                        format!("[{}]", body.join(",\n"))
                    } else {
                        body.join("\n")
                    };
                    stream.text.push_str(&format!("```{info}\n{body}\n```\n"));
                    // The line break after the closing fence is prose.
                    stream.prose.push('\n');
                    stream.actions.extend(actions);
                }
                Segment::Bare(action, after) => {
                    stream.text.push_str(&action.json);
                    stream.text.push_str(&after);
                    stream.prose.push_str(&after);
                    stream.actions.push(action);
                }
            }
        }
        stream
    })
}

/// Cuts `len` bytes at these points (sorted, deduplicated, in range).
fn cut_points(len: usize, cuts: &[prop::sample::Index], ok: impl Fn(usize) -> bool) -> Vec<usize> {
    let mut points: Vec<usize> = cuts
        .iter()
        .map(|i| i.index(len + 1))
        .filter(|&at| ok(at))
        .collect();
    points.sort_unstable();
    points.dedup();
    points
}

/// Checks what the events of the whole text must say.
fn check_against_model(stream: &Stream, events: &[ActionEvent]) -> Result<(), TestCaseError> {
    prop_assert!(errors(events).is_empty(), "errors: {:?}", events);
    prop_assert!(
        !events.iter().any(|e| matches!(e, ActionEvent::Json(_))),
        "{:?}",
        events
    );
    prop_assert_eq!(all_text(events), stream.prose.clone());
    let ends: Vec<(u64, String, serde_json::Value)> = events
        .iter()
        .filter_map(|e| match e {
            ActionEvent::ToolCallEnd {
                call,
                name,
                arguments,
            } => Some((
                *call,
                name.clone(),
                serde_json::from_str(&arguments.to_json()).expect("to_json is JSON"),
            )),
            _ => None,
        })
        .collect();
    let expected: Vec<(u64, String, serde_json::Value)> = stream
        .actions
        .iter()
        .enumerate()
        .map(|(i, a)| (i as u64, a.name.clone(), a.arguments.clone()))
        .collect();
    prop_assert_eq!(ends, expected);
    // Every call's events lie between its start and its end, and the deltas
    // of a path concatenate to its final string value.
    let mut open: Option<u64> = None;
    let mut deltas: std::collections::HashMap<(u64, String), String> = Default::default();
    for e in events {
        match e {
            ActionEvent::ToolCallStart { call, .. } => {
                prop_assert_eq!(open, None);
                open = Some(*call);
            }
            ActionEvent::Argument {
                call,
                event: ArgumentEvent::Delta { path, text },
            } => {
                prop_assert_eq!(open, Some(*call));
                deltas
                    .entry((*call, path.to_string()))
                    .or_default()
                    .push_str(text);
            }
            ActionEvent::Argument {
                call,
                event: ArgumentEvent::Value { path, value },
            } => {
                prop_assert_eq!(open, Some(*call));
                if let Value::String(s) = value {
                    prop_assert_eq!(
                        deltas
                            .get(&(*call, path.to_string()))
                            .map_or("", String::as_str),
                        s.as_str(),
                        "deltas of {}",
                        path
                    );
                }
            }
            ActionEvent::ToolCallEnd { call, .. } => {
                prop_assert_eq!(open, Some(*call));
                open = None;
            }
            _ => prop_assert_eq!(open, None, "text inside a call: {:?}", e),
        }
    }
    Ok(())
}

/// The whole text vs. pieces at char boundaries (`push`), pieces cut
/// anywhere (`push_bytes`) and single bytes.
fn check_pieces(stream: &Stream, cuts: &[prop::sample::Index]) -> Result<(), TestCaseError> {
    let expected = merged(whole(&stream.text));
    check_against_model(stream, &expected)?;

    let text = stream.text.as_str();
    let points = cut_points(text.len(), cuts, |at| text.is_char_boundary(at));
    let pieces: Vec<&str> = pieces_at(text.as_bytes(), &points)
        .into_iter()
        .map(|b| std::str::from_utf8(b).expect("cut at char boundaries"))
        .collect();
    prop_assert_eq!(
        merged(run(&pieces)),
        expected.clone(),
        "pieces {:?}",
        pieces
    );

    let points = cut_points(text.len(), cuts, |_| true);
    let bytes = pieces_at(text.as_bytes(), &points);
    prop_assert_eq!(
        merged(run_bytes(&bytes)),
        expected.clone(),
        "byte pieces {:?}",
        bytes
    );

    let ones: Vec<&[u8]> = text.as_bytes().chunks(1).collect();
    prop_assert_eq!(merged(run_bytes(&ones)), expected);
    Ok(())
}

/// What may be written into a stream to break it.
fn gen_damage() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just(" oops"),
        Just(",,"),
        Just("}"),
        Just("]"),
        Just("then"),
        Just("\n```\n"),
        Just("`"),
        Just("\u{0}"),
        Just("\\é"),
        Just("1.x"),
    ]
}

/// `text` with `damage` written in at a char boundary near `at`.
fn damaged(text: &str, at: prop::sample::Index, damage: &str) -> String {
    let mut at = at.index(text.len() + 1);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    format!("{}{damage}{}", &text[..at], &text[at..])
}

proptest! {
    #![proptest_config(common::config(256))]

    /// Broken JSON anywhere: the events still do not depend on the pieces,
    /// every started call ends (or an error names it), and errors carry an
    /// offset.
    #[test]
    fn prop_broken_streams_end_every_call_whatever_the_pieces(
        stream in gen_stream(false),
        at in any::<prop::sample::Index>(),
        damage in gen_damage(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..24),
    ) {
        let text = damaged(&stream.text, at, damage);
        let expected = merged(whole(&text));
        assert_every_call_ends(&expected);
        let points = cut_points(text.len(), &cuts, |_| true);
        let bytes = pieces_at(text.as_bytes(), &points);
        prop_assert_eq!(merged(run_bytes(&bytes)), expected.clone(), "byte pieces {:?}", bytes);
        let ones: Vec<&[u8]> = text.as_bytes().chunks(1).collect();
        prop_assert_eq!(merged(run_bytes(&ones)), expected);
    }

    #[test]
    fn prop_action_events_do_not_depend_on_the_pieces(
        stream in gen_stream(false),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..24),
    ) {
        check_pieces(&stream, &cuts)?;
    }

    #[test]
    fn prop_unfenced_actions_followed_by_a_line_break(
        stream in gen_stream(true),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..24),
    ) {
        check_pieces(&stream, &cuts)?;
    }
}

#[test]

fn a_duplicate_action_member_is_not_left_in_the_arguments() {
    let events = merged(whole(
        "```json\n{\"action\":\"a\",\"x\":1,\"action\":\"b\"}\n```",
    ));
    assert_eq!(events.first(), Some(&start(0, "a")));
    let arguments = events.iter().find_map(|e| match e {
        ActionEvent::ToolCallEnd { arguments, .. } => Some(arguments),
        _ => None,
    });
    let arguments = arguments.expect("the call ends");
    assert_eq!(arguments.get("action"), None, "{}", arguments.to_json());
}

// ------------------------------------------------------- bounded events

#[test]
fn many_repeated_action_members_are_all_dropped_in_order() {
    let mut text = String::from("{\"action\":\"go\"");
    for _ in 0..3_000 {
        text.push_str(",\"action\":0");
    }
    for i in 0..3_000 {
        text.push_str(&format!(",\"b{i}\":{i}"));
    }
    text.push('}');
    let events = whole(&text);
    let ends: Vec<&ActionEvent> = events
        .iter()
        .filter(|e| matches!(e, ActionEvent::ToolCallEnd { .. }))
        .collect();
    let ActionEvent::ToolCallEnd {
        name, arguments, ..
    } = ends[0]
    else {
        unreachable!()
    };
    assert_eq!(ends.len(), 1);
    assert_eq!(name, "go");
    let map = arguments.as_object().expect("an object");
    assert_eq!(map.len(), 3_000);
    assert!(map.keys().enumerate().all(|(i, k)| k == format!("b{i}")));
}

#[test]
fn many_long_fence_openings_in_one_piece_are_text() {
    // Each opening's info string passes its limit: given back as text. The
    // line break was looked for in the whole rest of the piece each time.
    let text = format!("{}\n", format!("```{}", "a".repeat(70)).repeat(3_000));
    let events = whole(&text);
    assert_eq!(all_text(&events), text);
    assert!(events.iter().all(|e| matches!(e, ActionEvent::Text(_))));
    // The same cut in small pieces.
    let pieces: Vec<&str> = text
        .as_bytes()
        .chunks(7)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect();
    assert_eq!(all_text(&run(&pieces)), text);
}

#[test]
fn a_deep_value_before_the_action_member_is_held_within_bounds() {
    let deep = format!(
        "{}{}{}",
        "[".repeat(120),
        vec!["1"; 20_000].join(","),
        "]".repeat(120)
    );
    let text = format!("```json\n{{\"x\":{deep},\"action\":\"f\"}}\n```\n");
    for events in [
        whole(&text),
        run(&text
            .as_bytes()
            .chunks(16)
            .map(|c| std::str::from_utf8(c).unwrap())
            .collect::<Vec<_>>()),
    ] {
        let full = v(&format!("{{\"x\":{deep}}}"));
        assert!(events.contains(&start(0, "f")));
        assert!(events.contains(&ActionEvent::ToolCallEnd {
            call: 0,
            name: "f".into(),
            arguments: full.clone(),
        }));
        let args: Vec<&ActionEvent> = events
            .iter()
            .filter(|e| {
                matches!(
                    e,
                    ActionEvent::Argument {
                        event: ArgumentEvent::Value { .. },
                        ..
                    }
                )
            })
            .collect();
        for event in &args {
            let ActionEvent::Argument {
                call,
                event: ArgumentEvent::Value { path, value },
            } = event
            else {
                unreachable!()
            };
            assert_eq!(*call, 0);
            assert_eq!(full.at(path.as_path()), Some(value), "value at {path}");
        }
        // Not every one of the 20,000 deep ones owns a 121-segment path.
        assert!(args.len() < 20_000, "{} argument events", args.len());
    }
}

/// An argument string cut short whose deltas the allowance merged: its held
/// text goes out at `finish`, before the error, so the deltas add up to
/// the string.
#[test]
fn an_argument_string_cut_short_past_the_allowance_keeps_all_its_text() {
    let (_, head, text) = common::string_past_the_allowance();
    let mut stream = ActionStream::new();
    stream.feed(&format!("```json\n{{\"action\":\"f\",{head}"));
    for c in text.chars() {
        stream.feed(&c.to_string());
    }
    let deltas = |events: &[ActionEvent]| -> String {
        events
            .iter()
            .filter_map(|e| match e {
                ActionEvent::Argument {
                    event: ArgumentEvent::Delta { text, .. },
                    ..
                } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    };
    let mut events: Vec<ActionEvent> = std::iter::from_fn(|| stream.next_event()).collect();
    assert!(deltas(&events).len() < text.len());
    let _ = stream.finish();
    let ended: Vec<ActionEvent> = std::iter::from_fn(|| stream.next_event()).collect();
    let error = ended
        .iter()
        .position(|e| matches!(e, ActionEvent::Error { .. }));
    let delta = ended.iter().position(|e| {
        matches!(
            e,
            ActionEvent::Argument {
                event: ArgumentEvent::Delta { .. },
                ..
            }
        )
    });
    assert!(delta.is_some() && delta < error, "{delta:?} {error:?}");
    events.extend(ended);
    assert_eq!(deltas(&events), text);
}

/// `finish` says whether the text ended cleanly: an error for a value or
/// fence left open (also the last event), nothing otherwise.
#[test]
fn finish_returns_the_error_of_an_open_value_or_fence() {
    let finish = |text: &str| {
        let mut stream = ActionStream::new();
        stream.feed(text);
        stream.finish()
    };
    assert_eq!(finish("prose, then {\"action\":\"x\"} and more"), Ok(()));
    assert_eq!(finish("```json\n{\"action\":\"x\"}\n```\n"), Ok(()));
    assert_eq!(
        finish("```json\n{\"action\":\"a\"}\n"),
        Err(ActionError::UnclosedFence { end: 23 })
    );
    assert_eq!(
        finish("x\n{\"action\":\"x\",\"q\":\"abc"),
        Err(ActionError::UnclosedValue {
            end: 24,
            action: Some((0, "x".into())),
        })
    );
}
