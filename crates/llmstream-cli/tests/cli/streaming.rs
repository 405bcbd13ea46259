//! The subcommands read their input as it arrives: each prints what a
//! piece made certain before the next piece is written (`curl -N … |
//! llmstream sse`), an endless input runs until the reader of the output
//! stops, and output that cannot be written is an error, not a silent
//! success.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_llmstream");

/// How long a line may take to come out before the test fails (instead of
/// hanging); nothing is asserted about how fast it comes.
const PATIENCE: Duration = Duration::from_secs(60);

/// `llmstream args…` started with its three streams piped.
fn start(args: &[&str]) -> std::process::Child {
    Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start llmstream")
}

/// Starts `llmstream args…` with piped stdin and stdout, writes `first`,
/// and waits for the first line of output while stdin stays open; then
/// writes `rest`, closes stdin and returns the first line and the rest of
/// the output. The first line can only come from `first`.
fn first_line_before_the_rest(args: &[&str], first: &str, rest: &str) -> (String, String) {
    let mut child = start(args);
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(first.as_bytes())
        .expect("write the first part");
    stdin.flush().expect("flush");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        let mut line = String::new();
        let _ = reader.read_line(&mut line);
        let _ = tx.send(line);
        let mut rest = String::new();
        let _ = std::io::Read::read_to_string(&mut reader, &mut rest);
        let _ = tx.send(rest);
    });
    let line = match rx.recv_timeout(PATIENCE) {
        Ok(line) => line,
        Err(_) => {
            let _ = child.kill();
            panic!(
                "`llmstream {}` printed nothing while its input stayed open",
                args.join(" ")
            );
        }
    };
    stdin.write_all(rest.as_bytes()).expect("write the rest");
    drop(stdin);
    let rest = rx.recv_timeout(PATIENCE).expect("the rest of the output");
    let status = child.wait().expect("wait");
    assert!(status.success(), "`llmstream {}`: {status}", args.join(" "));
    (line, rest)
}

#[test]
fn sse_prints_each_event_as_it_arrives() {
    let (first, rest) = first_line_before_the_rest(&["sse"], "data: one\n\n", "data: two\n\n");
    assert_eq!(
        first,
        "{\"event\":\"message\",\"data\":\"one\",\"id\":\"\"}\n"
    );
    assert_eq!(
        rest,
        "{\"event\":\"message\",\"data\":\"two\",\"id\":\"\"}\n"
    );
}

/// With a chunking flag the pieces are the same however the input arrives,
/// so a piece waits for all its bytes (at most 16, or N): the event comes
/// out once the bytes after it complete the piece that holds its end. A
/// comment line of more than 16 bytes after the event does it.
#[test]
fn the_chunking_flags_stream_too() {
    let first = format!("data: one\n\n: {}\n", "x".repeat(20));
    for flags in [["--chunk-size", "5"], ["--random-chunks", "9"]] {
        let mut args = vec!["sse"];
        args.extend(flags);
        let (line, rest) = first_line_before_the_rest(&args, &first, "data: two\n\n");
        assert_eq!(
            line,
            "{\"event\":\"message\",\"data\":\"one\",\"id\":\"\"}\n"
        );
        assert_eq!(
            rest,
            "{\"event\":\"message\",\"data\":\"two\",\"id\":\"\"}\n"
        );
    }
}

#[test]
fn accumulate_events_json_events_actions_and_chunk_stream() {
    let openai = |text: &str| {
        format!(
            "data: {{\"id\":\"c\",\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{text}\"}}}}]}}\n\n"
        )
    };
    let (first, rest) = first_line_before_the_rest(
        &["accumulate", "--events"],
        &openai("Hel"),
        &format!("{}data: [DONE]\n\n", openai("lo")),
    );
    assert!(first.contains("message_start"), "{first}");
    assert!(rest.contains("\"text\":\"lo\""), "{rest}");

    let (first, rest) =
        first_line_before_the_rest(&["json", "--emit", "events"], "{\"a\": \"x", "y\"}");
    assert_eq!(
        first,
        "{\"type\":\"start_object\",\"path\":\"\",\"pointer\":\"\"}\n"
    );
    assert!(rest.contains("\"value\":\"xy\""), "{rest}");

    let (first, rest) = first_line_before_the_rest(
        &["actions"],
        "Looking.\n```json\n{\"action\": \"search\", ",
        "\"q\": \"rust\"}\n```\n",
    );
    assert_eq!(first, "{\"type\":\"text\",\"text\":\"Looking.\\n\"}\n");
    assert!(rest.contains("tool_call_end"), "{rest}");

    let (first, rest) =
        first_line_before_the_rest(&["chunk"], "{\"t\": \"Tok\"}\n", "{\"t\": \"Tokyo\"}\n");
    assert_eq!(first, "\"{\\\"t\\\":\\\"Tok\"\n");
    assert_eq!(rest, "\"yo\"\n\"\\\"}\"\n");
}

/// `llmstream args…` on an endless stream of `event`, its output read for
/// one line and then closed (as `| head -1` does): it stops, with success
/// and nothing on stderr, instead of reading (and holding) the stream for
/// ever. Returns the line read.
fn stops_when_the_output_is_closed(args: &[&str], event: &[u8]) -> String {
    let mut child = start(args);
    let mut stdin = child.stdin.take().expect("stdin");
    // Writes until the child stops reading (its stdin closes with it).
    let events = event.repeat(100);
    let writer = std::thread::spawn(move || while stdin.write_all(&events).is_ok() {});
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    stdout.read_line(&mut line).expect("one line");
    drop(stdout);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let output = rx
        .recv_timeout(PATIENCE)
        .unwrap_or_else(|_| {
            panic!(
                "`llmstream {}` went on reading after its output was closed",
                args.join(" ")
            )
        })
        .expect("wait");
    assert!(output.status.success(), "{:?}", output);
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
    writer.join().expect("the writer");
    line
}

#[test]
fn an_endless_input_stops_when_the_output_is_closed() {
    let line = stops_when_the_output_is_closed(&["sse"], b"data: tick\n\n");
    assert_eq!(
        line,
        "{\"event\":\"message\",\"data\":\"tick\",\"id\":\"\"}\n"
    );
}

/// The live view too: it drew into a closed pipe for ever.
#[test]
fn the_live_view_stops_when_the_output_is_closed() {
    let chunk = concat!(
        r#"data: {"id":"c1","object":"chat.completion.chunk","model":"m","#,
        r#""choices":[{"index":0,"delta":{"content":"tick\n"}}]}"#,
        "\n\n"
    );
    let line = stops_when_the_output_is_closed(&["accumulate", "--live"], chunk.as_bytes());
    assert_eq!(line, "message c1 from m\n");
}

/// `llmstream args…` with `input` on stdin and its output to /dev/full:
/// exit 1, and stderr says the output could not be written.
#[cfg(target_os = "linux")]
fn fails_on_a_full_disk(args: &[&str], input: &[u8]) {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    let output = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(full)
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            // The command may stop before it has read it all.
            let _ = child.stdin.take().expect("stdin").write_all(input);
            child.wait_with_output()
        })
        .expect("run llmstream");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}: {stderr}",
        args.join(" ")
    );
    assert!(
        stderr.starts_with("error: cannot write the output: "),
        "{}: {stderr}",
        args.join(" ")
    );
}

/// Output that cannot be written (a full disk) is an error, exit 1.
#[cfg(target_os = "linux")]
#[test]
fn output_that_cannot_be_written_is_an_error() {
    fails_on_a_full_disk(&["json"], b"{\"a\": 1}");
    fails_on_a_full_disk(&["demo"], b"");
    let body = concat!(
        r#"data: {"id":"c1","object":"chat.completion.chunk","model":"m","#,
        r#""choices":[{"index":0,"delta":{"content":"hi"}}]}"#,
        "\n\ndata: [DONE]\n\n"
    );
    fails_on_a_full_disk(&["accumulate", "--live"], body.as_bytes());
}

/// An error that cannot be reported (stderr on a full disk) still exits
/// with its code, not with a panic's 101.
#[cfg(target_os = "linux")]
#[test]
fn an_unwritable_stderr_keeps_the_exit_code() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    let output = Command::new(BIN)
        .arg("json")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(full)
        .spawn()
        .and_then(|mut child| {
            child.stdin.take().expect("stdin").write_all(b"[1 2")?;
            child.wait_with_output()
        })
        .expect("run llmstream");
    assert_eq!(output.status.code(), Some(1));
}
