//! `llmstream chunk` per the CLI contract: JSON Lines of snapshots in, each
//! chunk as a JSON string per line out; `--concat` the joined text; exit 1
//! with `error: …` naming the snapshot and path on bad input.

use assert_cmd::Command;

const SNAPSHOTS: &str = concat!(
    r#"{"title": "Vol"}"#,
    "\n",
    r#"{"title": "Volcano trip"}"#,
    "\n\n",
    r#"{"days": [], "title": "Volcano trip"}"#,
    "\n",
    r#"{"title": "Volcano trip", "days": [{"name": "Hike"}]}"#,
    "\n",
);

fn chunk() -> Command {
    let mut cmd = Command::cargo_bin("llmstream").unwrap();
    cmd.arg("chunk");
    cmd
}

#[test]
fn prints_each_chunk_as_a_json_string() {
    let output = chunk()
        .write_stdin(SNAPSHOTS)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let lines: Vec<String> = String::from_utf8(output)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<String>(line).unwrap())
        .collect();
    assert_eq!(
        lines,
        [
            r#"{"title":"Vol"#,
            "cano trip",
            r#"""#,
            r#","days":["#,
            r#"{"name":"Hike"#,
            r#""}]}"#
        ]
    );
}

#[test]
fn concat_prints_the_final_json() {
    chunk()
        .arg("--concat")
        .write_stdin(SNAPSHOTS)
        .assert()
        .success()
        .stdout(r#"{"title":"Volcano trip","days":[{"name":"Hike"}]}"#.to_owned() + "\n");
}

#[test]
fn chunking_flags_do_not_change_the_output() {
    let whole = chunk().write_stdin(SNAPSHOTS).output().unwrap().stdout;
    for flags in [["--chunk-size", "1"], ["--random-chunks", "7"]] {
        chunk()
            .args(flags)
            .write_stdin(SNAPSHOTS)
            .assert()
            .success()
            .stdout(whole.clone());
    }
}

#[test]
fn bad_input_exits_1_naming_the_byte_snapshot_and_path() {
    // `at byte N` counts the whole input: the offending line starts at 19.
    chunk()
        .write_stdin("{\"a\": {\"b\": \"xy\"}}\n{\"a\": {\"b\": \"xz\"}}\n")
        .assert()
        .code(1)
        .stderr(
            "error: the string no longer extends its previous text at byte 19 (path a.b); \
             line 2, snapshot 2\n",
        );
    // A JSON error at its byte in the line, plus where the line starts (10).
    chunk()
        .write_stdin("{\"a\": 1}\n\n{\"a\": ]\n")
        .assert()
        .code(1)
        .stderr(
            "error: not valid JSON: expected a value after ':', found ']' at byte 16 (path a); \
             line 3, snapshot 2\n",
        );
    chunk()
        .write_stdin(b"{\"a\": 1}\n{\"a\": \"\xff\"}\n".as_slice())
        .assert()
        .code(1)
        .stderr("error: snapshot is not UTF-8 at byte 16; line 2\n");
}

/// A producer that declares its fields empty up front: by default the
/// filling of a field left behind is an error with a hint, and
/// `--hold-placeholders` takes the stream.
#[test]
fn hold_placeholders_takes_fields_declared_up_front() {
    let up_front = "{\"t\": \"\", \"tags\": []}\n{\"t\": \"Trip\", \"tags\": []}\n\
                    {\"t\": \"Trip\", \"tags\": [\"sun\"]}\n";
    chunk().write_stdin(up_front).assert().code(1).stderr(
        "error: a member emitted complete while still empty is being filled: the producer \
         declares fields up front (try --hold-placeholders) at byte 48 (path tags[0]); \
         line 3, snapshot 3\n",
    );
    chunk()
        .args(["--hold-placeholders", "--concat"])
        .write_stdin(up_front)
        .assert()
        .success()
        .stdout("{\"t\":\"Trip\",\"tags\":[\"sun\"]}\n");
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn every_fixture_round_trips_through_concat() {
    let dir = llmstream_tests::fixtures::path("chunker");
    let entries = std::fs::read_dir(&dir).expect("the chunker fixtures");
    for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
        if path.extension().is_none_or(|x| x != "jsonl") {
            continue;
        }
        let output = chunk()
            .arg(&path)
            .arg("--concat")
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let got: serde_json::Value = serde_json::from_slice(&output).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let last = text.lines().rfind(|l| !l.trim().is_empty()).unwrap();
        let want: serde_json::Value = serde_json::from_str(last).unwrap();
        assert_eq!(got, want, "{}", path.display());
    }
}
