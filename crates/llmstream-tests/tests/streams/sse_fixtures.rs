//! Every raw SSE recording in ../shared/fixtures/providers decodes, and
//! decodes the same fed whole, byte by byte, and in random pieces.
//!
//! Needs the fixtures folder beside the repository (`../shared/fixtures`);
//! without it the tests show as ignored.

use llmstream::sse::{decode, Decoder, Item};
use proptest::prelude::*;

use crate::common::fixtures;

/// Raw SSE bodies: `*.bin`, `*.sse`, and `*.txt` with SSE framing. The
/// `*.chunks.txt` files are JSON Lines (one payload per line), not SSE.
fn is_sse_recording(name: &str, bytes: &[u8]) -> bool {
    if name.ends_with(".bin") || name.ends_with(".sse") {
        return true;
    }
    name.ends_with(".txt")
        && !name.ends_with(".chunks.txt")
        && (bytes.starts_with(b"event:") || bytes.starts_with(b"data:"))
}

fn recordings() -> Vec<(String, Vec<u8>)> {
    fixtures::files("providers")
        .into_iter()
        .map(|name| {
            let bytes = fixtures::read(&format!("providers/{name}"));
            (name, bytes)
        })
        .filter(|(name, bytes)| is_sse_recording(name, bytes))
        .collect()
}

fn decode_pieces(pieces: &[&[u8]]) -> Vec<Item> {
    let mut decoder = Decoder::new();
    let mut items = Vec::new();
    for piece in pieces {
        decoder.feed(piece);
        while let Some(item) = decoder.next_event() {
            items.push(item.expect("recordings are within the limits").to_item());
        }
    }
    decoder.finish().expect("recordings are within the limits");
    items
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn every_recording_decodes_to_json_payloads() {
    let recordings = recordings();
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
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
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
    #[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
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
