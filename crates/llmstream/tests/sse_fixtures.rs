//! Every raw SSE recording in ../shared/fixtures/providers decodes, and
//! decodes the same fed whole, byte by byte, and in random pieces.
//!
//! Needs the fixtures folder next to the repository (`../shared/fixtures`,
//! found from this crate's directory); without it the tests print why they
//! are skipped and pass, as on a user's clone.

use std::path::{Path, PathBuf};

use llmstream::sse::{decode, Decoder, Item};
use proptest::prelude::*;

fn fixtures_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/providers");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "skipped: no provider fixtures at {} (they live outside the repository)",
            dir.display()
        );
        None
    }
}

/// Raw SSE bodies: `*.bin`, `*.sse`, and `*.txt` with SSE framing. The
/// `*.chunks.txt` files are JSON Lines (one payload per line), not SSE.
fn is_sse_recording(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    if name.ends_with(".bin") || name.ends_with(".sse") {
        return true;
    }
    name.ends_with(".txt")
        && !name.ends_with(".chunks.txt")
        && std::fs::read(path)
            .map(|bytes| bytes.starts_with(b"event:") || bytes.starts_with(b"data:"))
            .unwrap_or(false)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, out);
        } else if is_sse_recording(&path) {
            out.push(path);
        }
    }
}

fn recordings() -> Vec<(String, Vec<u8>)> {
    let Some(dir) = fixtures_dir() else {
        return Vec::new();
    };
    let mut paths = Vec::new();
    walk(&dir, &mut paths);
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let name = p.strip_prefix(&dir).unwrap_or(&p).display().to_string();
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, bytes)
        })
        .collect()
}

fn decode_pieces(pieces: &[&[u8]]) -> Vec<Item> {
    let mut decoder = Decoder::new();
    let mut items = Vec::new();
    for piece in pieces {
        decoder.feed(piece);
        while let Some(item) = decoder.next() {
            items.push(item.expect("recordings are within the limits").to_item());
        }
    }
    decoder.finish().expect("recordings are within the limits");
    items
}

#[test]
fn every_recording_decodes_to_json_payloads() {
    let recordings = recordings();
    if recordings.is_empty() {
        return;
    }
    assert!(
        recordings.len() >= 30,
        "found only {} recordings",
        recordings.len()
    );
    for (name, bytes) in &recordings {
        let items = decode(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let events: Vec<_> = items
            .iter()
            .filter_map(|i| match i {
                Item::Event(e) => Some(e),
                _ => None,
            })
            .collect();
        assert!(!events.is_empty(), "{name}: no events");
        for event in events {
            // Every provider payload is JSON, apart from OpenAI's sentinel.
            if event.data != "[DONE]" {
                serde_json::from_str::<serde_json::Value>(&event.data)
                    .unwrap_or_else(|e| panic!("{name}: data is not JSON ({e}): {:?}", event.data));
            }
        }
    }
}

#[test]
fn every_recording_decodes_the_same_whole_and_byte_by_byte() {
    for (name, bytes) in recordings() {
        let whole = decode_pieces(&[&bytes]);
        let bytewise: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(decode_pieces(&bytewise), whole, "{name}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_recording_decodes_the_same_in_random_pieces(
        sizes in prop::collection::vec(1usize..200, 1..64),
    ) {
        for (name, bytes) in recordings() {
            let whole = decode_pieces(&[&bytes]);
            let mut pieces = Vec::new();
            let mut rest = &bytes[..];
            let mut i = 0;
            while !rest.is_empty() {
                let n = sizes[i % sizes.len()].min(rest.len());
                let (head, tail) = rest.split_at(n);
                pieces.push(head);
                rest = tail;
                i += 1;
            }
            prop_assert_eq!(decode_pieces(&pieces), whole, "{}", name);
        }
    }
}
