//! `llmstream actions` as the CLI contract in DESIGN.md has it: model text
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
fn lines(flags: &[&str], input: &str) -> Vec<Value> {
    let out = actions()
        .args(flags)
        .write_stdin(input)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).expect("output is UTF-8");
    assert!(out.ends_with('\n') || out.is_empty(), "{out:?}");
    out.lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{line:?}: {e}")))
        .collect()
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
                keys.retain(|k| *k != "partial");
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
    let out = actions()
        .arg(&path)
        .assert()
        .success()
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
