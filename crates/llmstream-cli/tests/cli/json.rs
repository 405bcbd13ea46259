//! `llmstream json` and `llmstream repair`, per the CLI contract (docs/CLI.md).

use assert_cmd::Command;
use predicates::prelude::*;

fn llmstream() -> Command {
    Command::cargo_bin("llmstream").expect("the binary is built")
}

fn lines(out: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect()
}

const DOC: &str =
    r#"{"blocks":[{"content":"Hé\n😀"},{"n":-1.5e3,"ok":true,"nil":null}],"odd key":[]}"#;

#[test]
fn final_prints_the_value_as_one_compact_line_whatever_the_pieces() {
    let expected: serde_json::Value = serde_json::from_str(DOC).unwrap();
    for flags in [
        &[][..],
        &["--chunk-size", "1"],
        &["--chunk-size", "7"],
        &["--random-chunks", "3"],
    ] {
        let out = llmstream()
            .arg("json")
            .args(flags)
            .write_stdin(DOC)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let got = lines(&out);
        assert_eq!(got, vec![expected.clone()], "{flags:?}");
    }
}

#[test]
fn events_carry_type_path_pointer_and_text_or_value() {
    let out = llmstream()
        .args(["json", "--emit", "events", "--chunk-size", "4"])
        .write_stdin(DOC)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let events = lines(&out);
    assert_eq!(events[0]["type"], "start_object");
    assert_eq!(events[0]["path"], "");
    assert_eq!(events[0]["pointer"], "");
    let text: String = events
        .iter()
        .filter(|e| e["type"] == "string_delta" && e["path"] == "blocks[0].content")
        .map(|e| e["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(text, "Hé\n😀");
    let done = events
        .iter()
        .find(|e| e["type"] == "string")
        .expect("a string completion");
    assert_eq!(done["pointer"], "/blocks/0/content");
    assert_eq!(done["value"], "Hé\n😀");
    let number = events.iter().find(|e| e["type"] == "number").unwrap();
    assert_eq!(number["path"], "blocks[1].n");
    assert_eq!(number["value"].as_f64(), Some(-1500.0));
    assert!(events
        .iter()
        .any(|e| e["type"] == "start_array" && e["path"] == r#"["odd key"]"#));
    assert_eq!(events.last().unwrap()["type"], "end_object");
}

#[test]
fn snapshots_report_bytes_and_the_growing_value() {
    let out = llmstream()
        .args(["json", "--emit", "snapshots", "--chunk-size", "5"])
        .write_stdin(r#"  {"a":"xyz","b":12}"#)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let snaps = lines(&out);
    assert_eq!(snaps[0], serde_json::json!({"bytes": 5, "snapshot": {}}));
    assert_eq!(
        snaps[1],
        serde_json::json!({"bytes": 10, "snapshot": {"a": "xy"}})
    );
    // At byte 15 `"b":1` has arrived, but the number may still grow: it is
    // not shown until the `}`.
    assert_eq!(
        snaps[2],
        serde_json::json!({"bytes": 15, "snapshot": {"a": "xyz"}})
    );
    assert_eq!(snaps.len(), 4);
    assert_eq!(
        snaps.last().unwrap(),
        &serde_json::json!({"bytes": 20, "snapshot": {"a": "xyz", "b": 12}})
    );
    // Whitespace only: no snapshot member.
    let out = llmstream()
        .args(["json", "--emit", "snapshots", "--partial"])
        .write_stdin("   ")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(lines(&out), vec![serde_json::json!({"bytes": 3})]);
}

/// A document that ends in a number shows it only once the input has
/// ended: one more line carries the value at the end, and only then.
#[test]
fn snapshots_end_with_a_final_number_once_the_input_ends() {
    let snapshots = |flags: &[&str], input: &str| {
        let out = llmstream()
            .args(["json", "--emit", "snapshots"])
            .args(flags)
            .write_stdin(input.to_string())
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        lines(&out)
    };
    use serde_json::json;
    assert_eq!(
        snapshots(&[], "7"),
        [json!({"bytes": 1}), json!({"bytes": 1, "snapshot": 7})]
    );
    assert_eq!(
        snapshots(&["--chunk-size", "1"], "-12"),
        [
            json!({"bytes": 1}),
            json!({"bytes": 2}),
            json!({"bytes": 3}),
            json!({"bytes": 3, "snapshot": -12}),
        ]
    );
    // Cut short: the value at the end, as `json --partial` prints it.
    assert_eq!(
        snapshots(&["--partial"], r#"{"a":12"#),
        [
            json!({"bytes": 7, "snapshot": {}}),
            json!({"bytes": 7, "snapshot": {"a": 12}}),
        ]
    );
    assert_eq!(
        snapshots(&["--partial", "--chunk-size", "2"], "[1,2"),
        [
            json!({"bytes": 2, "snapshot": []}),
            json!({"bytes": 4, "snapshot": [1]}),
            json!({"bytes": 4, "snapshot": [1, 2]}),
        ]
    );
    // The last piece showed the value already: one line per piece.
    assert_eq!(
        snapshots(&["--chunk-size", "3"], "[1,2]"),
        [
            json!({"bytes": 3, "snapshot": [1]}),
            json!({"bytes": 5, "snapshot": [1, 2]}),
        ]
    );
    assert_eq!(
        snapshots(&["--partial"], r#"{"a":"x"#),
        [json!({"bytes": 7, "snapshot": {"a": "x"}})]
    );
    // A number followed by white space is complete at the space.
    assert_eq!(snapshots(&[], "7 "), [json!({"bytes": 2, "snapshot": 7})]);
}

#[test]
fn invalid_input_exits_1_with_offset_and_path() {
    llmstream()
        .arg("json")
        .write_stdin(r#"{"a":[1 2]}"#)
        .assert()
        .code(1)
        .stderr(predicate::str::starts_with(
            "error: expected ',' or ']' after array element, found '2' at byte 8 (path a[0])",
        ));
    // The same message, line and column included, however the input is
    // cut: also where the error is found a piece after its byte (a UTF-8
    // sequence cut short) and for a byte order mark.
    for (input, message) in [
        (
            &b"[1,\n 2 3]"[..],
            "error: expected ',' or ']' after array element, found '3' at byte 7 (path [1]); \
             line 2, column 4\n",
        ),
        (
            b"{\"k\":\n\"\xe2\x82x\"}",
            "error: invalid UTF-8 in string at byte 7 (path k); line 2, column 2\n",
        ),
        (
            b"\xef\xbb\xbf{}",
            "error: expected a JSON value, found byte 0xef, which may start a UTF-8 byte \
             order mark (strip any) at byte 0; line 1, column 1\n",
        ),
    ] {
        for flags in [&[][..], &["--chunk-size", "1"], &["--random-chunks", "3"]] {
            llmstream()
                .arg("json")
                .args(flags)
                .write_stdin(input)
                .assert()
                .code(1)
                .stderr(message);
        }
    }
}

#[test]
fn a_cut_document_is_an_error_unless_partial() {
    llmstream()
        .arg("json")
        .write_stdin(r#"{"a":"he"#)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("input ended early"));
    llmstream()
        .args(["json", "--partial"])
        .write_stdin(r#"{"a":"he"#)
        .assert()
        .success()
        .stdout("{\"a\":\"he\"}\n");
    // --partial does not excuse invalid input.
    llmstream()
        .args(["json", "--partial"])
        .write_stdin("[1 2")
        .assert()
        .code(1);
}

/// The contract defines `repair` as `json --partial --lenient`: the two
/// print the same value, a number cut at the end included (the snapshot
/// leaves it out only while it may still grow).
#[test]
fn partial_lenient_json_prints_what_repair_prints() {
    for cut in [
        "[1, 12",
        r#"{"a": 1."#,
        r#"{"a": 1e"#,
        r#"{"a":{"b":[1,2"#,
        "[1.5e+",
        "1.",
        "[-",
        r#"{"a":[{"b":"c\"#,
        r#"{"a":1,"bb"#,
        "[1,2,",
    ] {
        let repaired = llmstream()
            .arg("repair")
            .write_stdin(cut)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        for chunking in [&[][..], &["--chunk-size", "1"]] {
            llmstream()
                .args(["json", "--partial", "--lenient"])
                .args(chunking)
                .write_stdin(cut)
                .assert()
                .success()
                .stdout(String::from_utf8(repaired.clone()).unwrap());
        }
    }
    llmstream()
        .args(["json", "--partial"])
        .write_stdin("[1, 12")
        .assert()
        .success()
        .stdout("[1,12]\n");
}

#[test]
fn lenient_accepts_trailing_commas_only_when_asked() {
    llmstream().arg("json").write_stdin("[1,]").assert().code(1);
    llmstream()
        .args(["json", "--lenient"])
        .write_stdin("[1,]")
        .assert()
        .success()
        .stdout("[1]\n");
}

#[test]
fn repair_gives_the_best_effort_value() {
    for (input, expected) in [
        (
            r#"{"items": ["a", "b"], "note": "unfin"#,
            r#"{"items":["a","b"],"note":"unfin"}"#,
        ),
        (r#"{"a": 1."#, r#"{"a":1}"#),
        (r#"{"a":1,"bb"#, r#"{"a":1}"#),
        (r#"[tr"#, r#"[true]"#),
        (r#"{"k":"a,]"#, r#"{"k":"a,]"}"#),
        (r#"[1, 2,]"#, r#"[1,2]"#),
    ] {
        for flags in [&[][..], &["--chunk-size", "1"], &["--random-chunks", "9"]] {
            llmstream()
                .arg("repair")
                .args(flags)
                .write_stdin(input)
                .assert()
                .success()
                .stdout(format!("{expected}\n"));
        }
    }
    // Lenient mode reads what no continuation makes JSON, as a person
    // would: a missing colon, prose and a fence around the value.
    for (input, expected) in [
        (r#"{"a" 1"#, r#"{"a":1}"#),
        (
            "Sure:
```json
{'a': True, b: None} // done
```",
            r#"{"a":true,"b":null}"#,
        ),
    ] {
        llmstream()
            .arg("repair")
            .write_stdin(input)
            .assert()
            .success()
            .stdout(format!("{expected}\n"));
    }
}

/// No reading yields a value from nothing: exit 1, as `json` does, and
/// `json --partial` alike.
#[test]
fn repair_of_no_value_exits_1() {
    for (args, input, at) in [
        (&["repair"][..], "", "at byte 0"),
        (&["repair"], "  \n", "at byte 3"),
        (&["json", "--partial"], "", "at byte 0"),
        (&["json", "--partial"], "  \n", "at byte 3"),
    ] {
        llmstream()
            .args(args)
            .write_stdin(input)
            .assert()
            .code(1)
            .stdout("")
            .stderr(predicate::str::starts_with("error: no JSON value"))
            .stderr(predicate::str::contains(at));
    }
}

#[test]
fn file_argument_and_bad_usage() {
    let dir = std::env::temp_dir().join(format!("llmstream-cli-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("doc.json");
    std::fs::write(&file, DOC).unwrap();
    llmstream()
        .arg("json")
        .arg(&file)
        .assert()
        .success()
        .stdout(predicate::str::contains("blocks"));
    llmstream()
        .args(["json", "--emit", "nonsense"])
        .assert()
        .code(2);
    llmstream()
        .arg("json")
        .arg(dir.join("missing.json"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read"));
    let _ = std::fs::remove_dir_all(&dir);
}
