//! `llmstream actions` as the CLI contract in docs/CLI.md has it: model text
//! with JSON action objects in, one action-stream event per line out.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::{json, Value};

fn actions() -> Command {
    let mut cmd = Command::cargo_bin("llmstream").expect("the binary builds");
    cmd.arg("actions");
    cmd
}

/// Prose, an action in a ```json fence with `action` between its arguments,
/// nested arguments with escapes and a surrogate pair, a bare fence holding
/// an array of two actions, and an object that never ends.
const INPUT: &str = concat!(
    "Let me look that up — un momento.\n",
    "```json\n",
    "{\"query\": \"ru\\\"st\\u00e9 \\ud83d\\ude00\", \"action\": \"search\", \"opts\": {\"k\": [1, true]}}\n",
    "```\n",
    "Now two more:\n",
    "```\n",
    "[{\"action\": \"open\", \"id\": 7}, {\"action\": \"close\"}]\n",
    "```\n",
    "Last:\n",
    "{\"action\": \"edit\", \"text\": \"Hel",
);

fn expected() -> Vec<Value> {
    vec![
        json!({"type": "text", "text": "Let me look that up — un momento.\n"}),
        json!({"type": "tool_call_start", "call": 0, "name": "search"}),
        json!({"type": "argument_delta", "call": 0, "path": "query", "text": "ru\"sté 😀"}),
        json!({"type": "argument", "call": 0, "path": "query", "value": "ru\"sté 😀"}),
        json!({"type": "argument", "call": 0, "path": "opts.k[0]", "value": 1}),
        json!({"type": "argument", "call": 0, "path": "opts.k[1]", "value": true}),
        json!({"type": "argument", "call": 0, "path": "opts.k", "value": [1, true]}),
        json!({"type": "argument", "call": 0, "path": "opts", "value": {"k": [1, true]}}),
        json!({"type": "tool_call_end", "call": 0, "name": "search",
               "arguments": {"query": "ru\"sté 😀", "opts": {"k": [1, true]}}}),
        json!({"type": "text", "text": "\nNow two more:\n"}),
        json!({"type": "tool_call_start", "call": 1, "name": "open"}),
        json!({"type": "argument", "call": 1, "path": "id", "value": 7}),
        json!({"type": "tool_call_end", "call": 1, "name": "open", "arguments": {"id": 7}}),
        json!({"type": "tool_call_start", "call": 2, "name": "close"}),
        json!({"type": "tool_call_end", "call": 2, "name": "close", "arguments": {}}),
        json!({"type": "text", "text": "\nLast:\n"}),
        json!({"type": "tool_call_start", "call": 3, "name": "edit"}),
        json!({"type": "argument_delta", "call": 3, "path": "text", "text": "Hel"}),
    ]
}

/// Runs `actions` with these flags on `input`; its output lines as JSON.
/// An `error` event is bad input: every event is printed, then the command
/// exits 1 with the first error's message on stderr; without one, 0.
fn lines(flags: &[&str], input: &str) -> Vec<Value> {
    let output = actions()
        .args(flags)
        .write_stdin(input)
        .output()
        .expect("the command runs");
    let out = String::from_utf8(output.stdout).expect("output is UTF-8");
    assert!(out.ends_with('\n') || out.is_empty(), "{out:?}");
    let lines: Vec<Value> = out
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{line:?}: {e}")))
        .collect();
    let stderr = String::from_utf8_lossy(&output.stderr);
    match lines.iter().find(|l| l["type"] == "error") {
        Some(error) => {
            assert_eq!(output.status.code(), Some(1), "{stderr}");
            let message = error["message"].as_str().expect("a message");
            assert_eq!(stderr, format!("error: {message}\n"));
        }
        None => assert!(output.status.success() && stderr.is_empty(), "{stderr}"),
    }
    lines
}

/// Merges consecutive `text` lines, and consecutive `argument_delta` lines
/// of the same call and path.
fn merged(lines: Vec<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for line in lines {
        if let Some(prev) = out.last_mut() {
            let same = prev["type"] == line["type"]
                && match line["type"].as_str() {
                    Some("text") => true,
                    Some("argument_delta") => {
                        prev["call"] == line["call"] && prev["path"] == line["path"]
                    }
                    _ => false,
                };
            if same {
                let text = format!(
                    "{}{}",
                    prev["text"].as_str().unwrap(),
                    line["text"].as_str().unwrap()
                );
                prev["text"] = Value::String(text);
                continue;
            }
        }
        out.push(line);
    }
    out
}

/// Every line is one of the contract's forms, with exactly its fields.
fn assert_contract_forms(lines: &[Value]) {
    for line in lines {
        let obj = line.as_object().expect("each line is an object");
        let mut keys: Vec<&str> = obj.keys().map(String::as_str).collect();
        keys.sort_unstable();
        let expected: &[&str] = match line["type"].as_str() {
            Some("text") => &["text", "type"],
            Some("tool_call_start") => &["call", "name", "type"],
            Some("argument_delta") => &["call", "path", "text", "type"],
            Some("argument") => &["call", "path", "type", "value"],
            Some("tool_call_end") => &["arguments", "call", "name", "type"],
            Some("error") => {
                assert!(line["message"].is_string(), "{line}");
                // `call` only when the error ends a call that had started.
                keys.retain(|k| *k != "partial" && *k != "call");
                &["message", "type"]
            }
            Some("json") => &["type", "value"],
            _ => panic!("not a contract form: {line}"),
        };
        assert_eq!(keys, expected, "{line}");
        assert!(!obj.contains_key("choice"), "{line}");
        if let Some(call) = obj.get("call") {
            assert!(call.is_u64(), "{line}");
        }
        for key in ["text", "name", "path"] {
            if let Some(v) = obj.get(key) {
                assert!(v.is_string(), "{line}");
            }
        }
    }
}

#[test]
fn prints_the_action_stream_events_in_the_contract_forms() {
    let out = lines(&[], INPUT);
    assert_contract_forms(&out);
    let errors: Vec<&Value> = out.iter().filter(|l| l["type"] == "error").collect();
    assert_eq!(errors.len(), 1, "{out:?}");
    assert!(errors[0]["message"]
        .as_str()
        .unwrap()
        .contains("never closed"));
    let mut want = expected();
    want.push(errors[0].clone());
    assert_eq!(merged(out), want);
}

#[test]
fn same_output_in_any_pieces() {
    let whole = merged(lines(&[], INPUT));
    for flags in [
        &["--chunk-size", "1"][..],
        &["--chunk-size", "3"],
        &["--random-chunks", "7"],
        &["--random-chunks", "12345"],
    ] {
        let out = lines(flags, INPUT);
        assert_contract_forms(&out);
        assert_eq!(merged(out), whole, "{flags:?}");
    }
}

#[test]
fn byte_pieces_stream_deltas_as_they_arrive() {
    // One byte at a time, the string argument arrives in several deltas
    // (one per UTF-8 character at most), before its completion.
    let out = lines(&["--chunk-size", "1"], INPUT);
    let deltas: Vec<&str> = out
        .iter()
        .filter(|l| l["type"] == "argument_delta" && l["call"] == 0)
        .map(|l| l["text"].as_str().unwrap())
        .collect();
    assert!(deltas.len() > 1, "{deltas:?}");
    assert_eq!(deltas.concat(), "ru\"sté 😀");
}

#[test]
fn a_fence_split_across_pieces_and_plain_json() {
    let input = "```json\n{\"action\":\"a\",\"q\":\"x\"}\n```\n```json\n{\"no\":\"action\"}\n```";
    let want = vec![
        json!({"type": "tool_call_start", "call": 0, "name": "a"}),
        json!({"type": "argument_delta", "call": 0, "path": "q", "text": "x"}),
        json!({"type": "argument", "call": 0, "path": "q", "value": "x"}),
        json!({"type": "tool_call_end", "call": 0, "name": "a", "arguments": {"q": "x"}}),
        json!({"type": "text", "text": "\n"}),
        json!({"type": "json", "value": {"no": "action"}}),
    ];
    for flags in [&[][..], &["--chunk-size", "2"], &["--random-chunks", "7"]] {
        let out = lines(flags, input);
        assert_contract_forms(&out);
        assert_eq!(merged(out), want, "{flags:?}");
    }
}

/// The same merged lines whole, one byte at a time and in random pieces.
fn lines_in_any_pieces(input: &str) -> Vec<Value> {
    let whole = merged(lines(&[], input));
    assert_contract_forms(&whole);
    for flags in [
        &["--chunk-size", "1"][..],
        &["--chunk-size", "2"],
        &["--random-chunks", "7"],
    ] {
        let out = lines(flags, input);
        assert_contract_forms(&out);
        assert_eq!(merged(out), whole, "{flags:?}");
    }
    whole
}

#[test]
fn a_bare_action_that_turns_invalid_ends_its_call_with_an_error() {
    let out = lines_in_any_pieces("{\"action\":\"x\",\"q\":\"partial\" and then prose}\nmore\n");
    assert_eq!(
        out,
        [
            json!({"type": "tool_call_start", "call": 0, "name": "x"}),
            json!({"type": "argument_delta", "call": 0, "path": "q", "text": "partial"}),
            json!({"type": "argument", "call": 0, "path": "q", "value": "partial"}),
            json!({"type": "error", "call": 0,
                   "message": "invalid JSON in action 0 (x): expected ',' or '}' after object member, found 'a' at byte 28 (path q)",
                   "partial": {"action": "x", "q": "partial"}}),
            json!({"type": "text", "text": "and then prose}\nmore\n"}),
        ]
    );
}

#[test]
fn an_array_of_actions_that_turns_invalid_is_not_printed_again() {
    let out = lines_in_any_pieces("[{\"action\":\"x\",\"q\":1}, then prose]\nmore\n");
    assert_eq!(
        out,
        [
            json!({"type": "tool_call_start", "call": 0, "name": "x"}),
            json!({"type": "argument", "call": 0, "path": "q", "value": 1}),
            json!({"type": "tool_call_end", "call": 0, "name": "x", "arguments": {"q": 1}}),
            // No call is open: the error has no `call`.
            json!({"type": "error",
                   "message": "invalid JSON: expected 'true', found 'h' at byte 24 (path [1])",
                   "partial": [{"action": "x", "q": 1}]}),
            json!({"type": "text", "text": "then prose]\nmore\n"}),
        ]
    );
}

#[test]
fn invalid_json_in_a_fenced_action_names_the_call_and_the_stream_offset() {
    let input = "Intro\n```json\n{\"action\": \"bad\", \"x\": 1,, oops}\n```\nFinal words.\n";
    let out = lines_in_any_pieces(input);
    assert_eq!(
        out,
        [
            json!({"type": "text", "text": "Intro\n"}),
            json!({"type": "tool_call_start", "call": 0, "name": "bad"}),
            json!({"type": "argument", "call": 0, "path": "x", "value": 1}),
            json!({"type": "error", "call": 0,
                   "message": "invalid JSON in action 0 (bad): expected a string key after ',' in object, found ',' at byte 39",
                   "partial": {"action": "bad", "x": 1}}),
            json!({"type": "text", "text": ", oops}\n\nFinal words.\n"}),
        ]
    );
    assert_eq!(&input[39..40], ",");

    // Before any call started, the fence is shown as code, and the error
    // still counts from the start of the input.
    let out = lines_in_any_pieces("Intro\n```json\n{oops}\n```\n");
    assert_eq!(
        out,
        [
            json!({"type": "text", "text": "Intro\n"}),
            json!({"type": "error",
                   "message": "invalid JSON in fence: expected a string key or '}' after '{', found 'o' at byte 15"}),
            json!({"type": "text", "text": "```json\n{oops}\n```\n"}),
        ]
    );
}

#[test]
fn text_after_the_json_in_a_fence_is_printed_without_either_fence() {
    let out = lines_in_any_pieces("```json\n{\"action\":\"x\"}\ntrailing words\n```\nafter");
    assert_eq!(
        out,
        [
            json!({"type": "tool_call_start", "call": 0, "name": "x"}),
            json!({"type": "tool_call_end", "call": 0, "name": "x", "arguments": {}}),
            json!({"type": "text", "text": "\ntrailing words\n\nafter"}),
        ]
    );
}

#[test]
fn an_unfinished_action_names_its_call_at_the_end() {
    let out = lines_in_any_pieces("x\n{\"action\":\"x\",\"q\":\"abc");
    assert_eq!(
        out.last(),
        Some(&json!({"type": "error", "call": 0,
                     "message": "action 0 (x) never closed: JSON value never closed at byte 24",
                     "partial": {"action": "x", "q": "abc"}}))
    );
}

#[test]
fn prose_only_is_one_text_line() {
    let input = "No tools needed {really}.\n```python\nprint({'action': 1})\n```\n";
    assert_eq!(lines(&[], input), [json!({"type": "text", "text": input})]);
}

#[test]
fn empty_input_prints_nothing() {
    actions().write_stdin("").assert().success().stdout("");
}

#[test]
fn reads_a_file() {
    let dir = std::env::temp_dir().join(format!("llmstream-cli-actions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("model.txt");
    std::fs::write(&path, INPUT).unwrap();
    // INPUT ends inside an action: an error, exit 1.
    let out = actions()
        .arg(&path)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    std::fs::remove_dir_all(&dir).ok();
    let out: Vec<Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(merged(out), merged(lines(&[], INPUT)));
}

#[test]
fn bad_usage_exits_2() {
    actions()
        .args(["--chunk-size", "0"])
        .write_stdin("x")
        .assert()
        .code(2);
    actions()
        .args(["--chunk-size", "1", "--random-chunks", "7"])
        .write_stdin("x")
        .assert()
        .code(2)
        .stderr(predicate::str::is_empty().not());
}

#[test]
fn an_error_event_is_bad_input_exit_1_after_every_event() {
    actions()
        .write_stdin("Here:\n{\"action\": \"edit\", \"a\": [1,\nno more")
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            r#"{"type":"tool_call_start","call":0,"name":"edit"}"#,
        ))
        .stdout(predicate::str::contains(r#""type":"error""#))
        .stderr(predicate::str::starts_with("error: "))
        .stderr(predicate::str::contains("at byte "));
}

/// The text of one piece is one `text` event, however many invalid UTF-8
/// bytes (each a U+FFFD) it holds.
#[test]
fn text_with_invalid_bytes_is_one_event_per_piece() {
    // 4 KiB of random bytes but for those that could open JSON or a fence.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let input: Vec<u8> = std::iter::from_fn(|| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        Some((state >> 24) as u8)
    })
    .filter(|b| !b"{[`".contains(b))
    .take(4096)
    .collect();
    let lossy = String::from_utf8_lossy(&input).into_owned();
    assert!(lossy.matches('\u{FFFD}').count() > 1000);
    for (size, pieces) in [("4096", 1), ("1024", 4)] {
        let out = actions()
            .args(["--chunk-size", size])
            .write_stdin(input.clone())
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let lines: Vec<Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert!(lines.iter().all(|l| l["type"] == "text"), "{size}");
        // A sequence cut by the end of a piece waits for the next one, so a
        // piece can end with nothing of its own to print.
        assert!(lines.len() <= pieces, "{size}: {} lines", lines.len());
        let text: String = lines.iter().map(|l| l["text"].as_str().unwrap()).collect();
        assert_eq!(text, lossy, "{size}");
    }
}
