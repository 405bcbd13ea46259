//! SnapshotChunker over arbitrary JSON-lines snapshots, in either
//! placeholder mode: never panics; a rejected snapshot changes nothing (the
//! caller may skip it and go on), so the concatenation of every chunk,
//! flush included, always parses to the last accepted snapshot (member
//! order aside).
#![no_main]

use fuzz_common::{to_serde, Input};
use libfuzzer_sys::fuzz_target;
use llmstream::chunker::SnapshotChunker;
use llmstream::json::{self, Value};

/// The value with member order erased (and, as serde_json does, the last
/// of duplicate keys kept).
fn unordered(value: &Value) -> Option<serde_json::Value> {
    to_serde(value)
}

fuzz_target!(|data: &[u8]| {
    let Some(input) = Input::new(data) else {
        return;
    };
    // Flag bit 0: hold unchanged empty values (producers that declare
    // fields up front).
    let mut chunker = SnapshotChunker::new().hold_placeholders(input.flags & 1 == 1);
    let mut text = String::new();
    let mut last: Option<Value> = None;
    let mut accepted = 0;
    for line in input.doc.split(|&b| b == b'\n') {
        let Ok(line) = std::str::from_utf8(line) else {
            continue;
        };
        let before = chunker.clone();
        match chunker.feed_text(line) {
            Ok(()) => {
                let chunks: Vec<String> = std::iter::from_fn(|| chunker.next_event()).collect();
                accepted += 1;
                assert_eq!(chunker.snapshots(), accepted);
                for chunk in &chunks {
                    assert!(!chunk.is_empty(), "an empty chunk");
                }
                text.extend(chunks);
                last = Some(json::parse(line.as_bytes()).expect("accepted snapshots are JSON"));
            }
            Err(error) => {
                assert_eq!(error.snapshot(), accepted + 1);
                assert_eq!(
                    format!("{chunker:?}"),
                    format!("{before:?}"),
                    "a rejected snapshot changed the chunker"
                );
            }
        }
    }
    chunker.finish().expect("finishing never fails");
    text.extend(std::iter::from_fn(|| chunker.next_event()));
    assert_eq!(chunker.snapshots(), 0);
    let Some(last) = last else {
        assert!(text.is_empty());
        return;
    };
    let parsed = json::parse(text.as_bytes())
        .unwrap_or_else(|e| panic!("the chunks are not JSON ({e}): {text}"));
    if let (Some(got), Some(want)) = (unordered(&parsed), unordered(&last)) {
        assert_eq!(got, want, "the chunks {text} differ from the last snapshot");
    }
});
