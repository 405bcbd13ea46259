//! The tools module with fuzzer-chosen cuts:
//!
//! - ActionStream: the events, with consecutive text and consecutive
//!   argument deltas of one path joined, are the same whatever the cuts,
//!   fed as bytes (`push_bytes`) or as text (`push`, cuts moved to
//!   character boundaries).
//! - ToolCallDetector: the same findings (deltas joined) and result.
//! - ArgumentStreams: the same events fed as fragments or as accumulated
//!   text, whatever the cuts.
#![no_main]

use fuzz_common::{merge_by, Input, BYTEWISE_MAX};
use libfuzzer_sys::fuzz_target;
use llmstream::json::Error;
use llmstream::tools::{
    ActionEvent, ActionStream, ArgumentEvent, ArgumentStreams, Detected, ToolCallDetector,
    ToolEvent,
};

/// Joins `next` to `last` when both are deltas of one path.
fn merge_delta(last: &mut ArgumentEvent, next: &ArgumentEvent) -> bool {
    match (last, next) {
        (
            ArgumentEvent::Delta { path, text },
            ArgumentEvent::Delta {
                path: path2,
                text: more,
            },
        ) if path == path2 => {
            text.push_str(more);
            true
        }
        _ => false,
    }
}

fn merge_actions(events: Vec<ActionEvent>) -> Vec<ActionEvent> {
    merge_by(events, |last, next| match (last, next) {
        (ActionEvent::Text(a), ActionEvent::Text(b)) => {
            a.push_str(b);
            true
        }
        (
            ActionEvent::Argument { call, event },
            ActionEvent::Argument {
                call: call2,
                event: more,
            },
        ) if call == call2 => merge_delta(event, more),
        _ => false,
    })
}

fn actions_bytes<'a>(pieces: impl IntoIterator<Item = &'a [u8]>) -> Vec<ActionEvent> {
    let mut stream = ActionStream::new();
    let mut events = Vec::new();
    for piece in pieces {
        stream.feed_bytes(piece);
        events.extend(std::iter::from_fn(|| stream.next_event()));
    }
    let _ = stream.finish();
    events.extend(std::iter::from_fn(|| stream.next_event()));
    merge_actions(events)
}

fn actions_text<'a>(pieces: impl IntoIterator<Item = &'a str>) -> Vec<ActionEvent> {
    let mut stream = ActionStream::new();
    let mut events = Vec::new();
    for piece in pieces {
        stream.feed(piece);
        events.extend(std::iter::from_fn(|| stream.next_event()));
    }
    let _ = stream.finish();
    events.extend(std::iter::from_fn(|| stream.next_event()));
    merge_actions(events)
}

fn detect<'a>(pieces: impl IntoIterator<Item = &'a [u8]>) -> (Vec<Detected>, Result<(), Error>) {
    let mut detector = ToolCallDetector::new();
    let mut events = Vec::new();
    for piece in pieces {
        let result = detector.feed(piece);
        events.extend(std::iter::from_fn(|| detector.next_event()));
        if result.is_err() {
            // What came before the error depends on where pieces ended.
            return (Vec::new(), result);
        }
    }
    let result = detector.finish();
    events.extend(std::iter::from_fn(|| detector.next_event()));
    if result.is_err() {
        return (Vec::new(), result);
    }
    let events = merge_by(events, |last, next| match (last, next) {
        (Detected::Argument(event), Detected::Argument(more)) => merge_delta(event, more),
        _ => false,
    });
    (events, result)
}

fn merge_tool_events(events: Vec<ToolEvent>) -> Vec<ToolEvent> {
    merge_by(events, |last, next| match (last, next) {
        (
            ToolEvent::Argument { id, event },
            ToolEvent::Argument {
                id: id2,
                event: more,
            },
        ) if id == id2 => merge_delta(event, more),
        _ => false,
    })
}

/// Events of one call's arguments, up to the first error event (what was
/// reported before an error depends on the cuts).
fn arguments(pieces: &[&str], accumulated: bool) -> Vec<ToolEvent> {
    let mut streams = ArgumentStreams::new();
    let mut events = Vec::new();
    let mut text = String::new();
    for piece in pieces {
        if accumulated {
            text.push_str(piece);
            streams.feed_accumulated("call", &text);
        } else {
            streams.feed("call", piece);
        }
        events.extend(std::iter::from_fn(|| streams.next_event()));
    }
    let _ = streams.finish("call");
    events.extend(std::iter::from_fn(|| streams.next_event()));
    if let Some(at) = events
        .iter()
        .position(|e| matches!(e, ToolEvent::Error { .. }))
    {
        events.drain(..at);
    }
    merge_tool_events(events)
}

fuzz_target!(|data: &[u8]| {
    let Some(input) = Input::new(data) else {
        return;
    };
    let doc = input.doc;
    let pieces = input.pieces();

    let whole = actions_bytes([doc]);
    assert_eq!(
        whole,
        actions_bytes(pieces.iter().copied()),
        "actions depend on the cuts {:?}",
        input.cuts
    );
    if doc.len() <= BYTEWISE_MAX {
        assert_eq!(
            whole,
            actions_bytes(doc.chunks(1)),
            "actions differ fed one byte at a time"
        );
    }

    let detected = detect([doc]);
    assert_eq!(
        detected,
        detect(pieces.iter().copied()),
        "detection depends on the cuts {:?}",
        input.cuts
    );

    let Ok(text) = std::str::from_utf8(doc) else {
        return;
    };
    let char_pieces = input.char_pieces(text);
    assert_eq!(
        whole,
        actions_text(char_pieces.iter().copied()),
        "push and push_bytes differ"
    );

    let args = arguments(&[text], false);
    assert_eq!(
        args,
        arguments(&char_pieces, false),
        "arguments depend on the cuts {:?}",
        input.cuts
    );
    assert_eq!(
        args,
        arguments(&char_pieces, true),
        "accumulated arguments differ"
    );
});
