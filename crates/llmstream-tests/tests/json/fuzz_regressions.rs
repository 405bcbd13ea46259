//! Inputs the fuzz targets in fuzz/ found (see FUZZING.md), each kept as a
//! regression test. A test marked `#[ignore = "BUG: …"]` shows a bug not yet
//! fixed: it fails today and passes once the bug is gone.

use llmstream::json::{ErrorKind, Limits, Options, Parser};

/// Feeds `pieces` and returns the first error (or the end's).
fn first_error(options: Options, pieces: &[&[u8]]) -> Option<llmstream::json::Error> {
    let mut parser = Parser::with_options(options);
    pieces
        .iter()
        .find_map(|piece| parser.feed(piece).err())
        .or_else(|| parser.finish().err())
}

/// json_parser, crash-401cd3fa: a piece that would take the stream past
/// `max_input_bytes` is refused whole, before any of it is parsed, so the
/// error reported depends on where the pieces were cut: whole, the input
/// limit at byte 4; cut after the first byte, the real error at byte 0.
#[test]
fn input_limit_error_does_not_depend_on_the_cuts() {
    let options = Options::new().limits(Limits {
        max_input_bytes: 4,
        ..Limits::new()
    });
    let whole = first_error(options, &[b"]     "]).unwrap();
    let cut = first_error(options, &[b"]", b"     "]).unwrap();
    assert_eq!(
        cut.kind(),
        &ErrorKind::Unexpected {
            expected: llmstream::json::Expected::Value,
            found: b']'
        }
    );
    assert_eq!(whole, cut);
    // A valid document within the limit followed by whitespace past it:
    // the value is accepted or not depending on the cuts.
    let mut whole = Parser::with_options(options);
    let _ = whole.feed(b"[1]  ");
    let mut cut = Parser::with_options(options);
    let _ = cut.feed(b"[1]");
    let _ = cut.feed(b"  ");
    assert_eq!(whole.snapshot(), cut.snapshot());
}

/// json_parser, crash-5ddc329f: in one piece, a string that crosses
/// `max_string_bytes` and later holds invalid UTF-8 is reported as
/// InvalidUtf8 at the later byte instead of StringLimit where the limit was
/// crossed, which is what the same bytes give fed in pieces.
#[test]
fn string_limit_comes_before_a_later_invalid_byte() {
    let options = Options::new().limits(Limits {
        max_string_bytes: 8,
        ..Limits::new()
    });
    let input = b"\"IIIIIIIIIIIIIIII\xE5\\\"";
    let bytewise: Vec<&[u8]> = input.chunks(1).collect();
    let expected = first_error(options, &bytewise).unwrap();
    assert_eq!(
        (expected.kind(), expected.offset()),
        (&ErrorKind::StringLimit { limit: 8 }, 9)
    );
    assert_eq!(first_error(options, &[input]), Some(expected));
}

/// providers, crash-4699b392: the Pipeline's "SSE event ending at byte N"
/// (in `StreamEvent::Error` and `Message::error`) takes N from the
/// decoder's offset when the event is pulled, which counts the LF of a
/// CRLF only if it arrived in the same piece as the CR: the message depends
/// on the cuts.
#[test]
fn pipeline_error_offsets_do_not_depend_on_the_cuts() {
    use llmstream::providers::{Pipeline, StreamEvent};
    let body = b"data: {\"choices\":[]}\r\n\r\ndata: nope\r\n\r\n";
    let errors = |pieces: &[&[u8]]| {
        let mut pipeline = Pipeline::new();
        for piece in pieces {
            pipeline.feed(piece).unwrap();
        }
        pipeline.finish().unwrap();
        std::iter::from_fn(|| pipeline.next_event())
            .filter_map(|event| match event {
                StreamEvent::Error(e) => Some(e.message),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    let whole = errors(&[body]);
    assert_eq!(whole.len(), 1, "{whole:?}");
    let (head, tail) = body.split_at(body.len() - 1);
    assert_eq!(errors(&[head, tail]), whole);
}

/// actions, timeout-566520d1: a `\` followed by a non-ASCII character
/// inside JSON in model text (an invalid escape) makes
/// `ActionStream::push` loop forever, using no memory: a hang any model
/// output can trigger. Bare, in a fence, or in an action alike. The test
/// runs the push on a thread and fails if it has not returned in a minute
/// (a hang detector, far above the microseconds it should take).
#[test]
fn actions_invalid_escape_before_a_non_ascii_character_does_not_hang() {
    use llmstream::tools::{ActionEvent, ActionStream};
    for text in [
        "{\"a\":\"\\\u{e9}\"}",
        "```json\n{\"a\":\"\\\u{e9}\"}\n```",
        "{\"action\":\"\\\u{FFFD}\"}",
    ] {
        let (done, wait) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut actions = ActionStream::new();
            actions.feed(text);
            let _ = actions.finish();
            let events: Vec<ActionEvent> = std::iter::from_fn(|| actions.next_event()).collect();
            let _ = done.send(events);
        });
        let events = wait
            .recv_timeout(std::time::Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("ActionStream::push hangs on {text:?}"));
        assert!(!events.is_empty(), "{text:?}");
    }
}

/// actions, crash-bf84ca91: an opening fence whose info string runs past its
/// limit gave its text back up to the end of the piece, so a second fence
/// marker later on the same line was read as a fence or as prose depending
/// on the cuts ("code fence never closed" in one case only).
#[test]
fn an_overlong_fence_info_string_is_judged_the_same_whatever_the_cuts() {
    use llmstream::tools::{ActionEvent, ActionStream};
    let text = format!("a```{}```b {}\n", "x".repeat(80), "y".repeat(10));
    let run = |pieces: &[&str]| {
        let mut stream = ActionStream::new();
        for piece in pieces {
            stream.feed(piece);
        }
        let _ = stream.finish();
        let mut out: Vec<ActionEvent> = Vec::new();
        while let Some(event) = stream.next_event() {
            match (out.last_mut(), event) {
                (Some(ActionEvent::Text(t)), ActionEvent::Text(more)) => t.push_str(&more),
                (_, event) => out.push(event),
            }
        }
        out
    };
    let whole = run(&[&text]);
    for cut in 1..text.len() {
        let (a, b) = text.split_at(cut);
        assert_eq!(run(&[a, b]), whole, "cut at {cut}");
    }
}
