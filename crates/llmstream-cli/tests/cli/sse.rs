//! `llmstream sse` as the CLI contract in docs/CLI.md has it.

use assert_cmd::Command;
use predicates::prelude::*;

fn sse() -> Command {
    let mut cmd = Command::cargo_bin("llmstream").expect("the binary builds");
    cmd.arg("sse");
    cmd
}

const STREAM: &[u8] = b"\xEF\xBB\xBF: hi\r\nretry: 3000\r\nevent: delta\r\nid: 1\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\ndata: [DONE]\r\n\r\ndata: cut";

const EXPECTED: &str = "{\"retry\":3000}\n\
{\"event\":\"delta\",\"data\":\"{\\\"a\\\":\\n1}\",\"id\":\"1\"}\n\
{\"event\":\"message\",\"data\":\"[DONE]\",\"id\":\"1\"}\n";

#[test]
fn prints_one_line_per_event_and_retry_in_stream_order() {
    sse()
        .write_stdin(STREAM)
        .assert()
        .success()
        .stdout(EXPECTED);
}

#[test]
fn same_output_in_any_pieces() {
    for flags in [
        &["--chunk-size", "1"][..],
        &["--chunk-size", "5"],
        &["--random-chunks", "1"],
        &["--random-chunks", "42"],
    ] {
        sse()
            .args(flags)
            .write_stdin(STREAM)
            .assert()
            .success()
            .stdout(EXPECTED);
    }
}

#[test]
fn reads_a_file() {
    let dir = std::env::temp_dir().join(format!("llmstream-cli-sse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("stream.sse");
    std::fs::write(&path, STREAM).unwrap();
    sse().arg(&path).assert().success().stdout(EXPECTED);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn no_id_prints_an_empty_id() {
    sse()
        .write_stdin("data: x\n\n")
        .assert()
        .success()
        .stdout("{\"event\":\"message\",\"data\":\"x\",\"id\":\"\"}\n");
}

#[test]
fn comments_only_when_asked() {
    sse().write_stdin(": ping\n").assert().success().stdout("");
    sse()
        .arg("--comments")
        .write_stdin(": ping\n")
        .assert()
        .success()
        .stdout("{\"comment\":\" ping\"}\n");
}

#[test]
fn invalid_utf8_becomes_replacement_characters() {
    sse()
        .write_stdin(&b"data: \xFF\n\n"[..])
        .assert()
        .success()
        .stdout("{\"event\":\"message\",\"data\":\"\u{FFFD}\",\"id\":\"\"}\n");
}

#[test]
fn a_line_over_the_limit_exits_1_naming_the_byte() {
    let mut input = b"data: ok\n\ndata: ".to_vec();
    input.resize(10 + (16 << 20) + 10, b'x');
    sse()
        .write_stdin(input)
        .assert()
        .code(1)
        .stdout("{\"event\":\"message\",\"data\":\"ok\",\"id\":\"\"}\n")
        .stderr(predicate::str::starts_with(format!(
            "error: line longer than the limit of {} bytes at byte {} (reading field \"data\")",
            16 << 20,
            10 + (16 << 20)
        )));
}

#[test]
fn bad_usage_exits_2() {
    sse().arg("--chunk-size").arg("0").assert().code(2);
}
