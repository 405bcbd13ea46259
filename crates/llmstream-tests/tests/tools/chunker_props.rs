//! Property tests of the snapshot chunker with serde_json as the oracle.
//!
//! A random document is generated the way a model writes it (depth first,
//! strings a few characters at a time, members and items one by one), each
//! step taken as a complete snapshot with its object members shuffled. The
//! concatenation of every chunk must parse to the final document.

use llmstream::chunker::SnapshotChunker;
use std::collections::HashSet;

use llmstream::json::{self, EventKind, Key, Map, Number, Segment, Value};
use proptest::prelude::*;
use proptest::test_runner::TestRng;

/// A number in `lo..hi` (hi > lo).
fn below(rng: &mut TestRng, lo: usize, hi: usize) -> usize {
    lo + (rng.next_u64() % (hi - lo) as u64) as usize
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-1000i64..1000).prop_map(|n| Value::Number(Number::from_text(&n.to_string()).unwrap())),
        "[a-z \"\\\\\n\u{1}éü😀]{0,12}".prop_map(Value::String),
    ]
}

fn document() -> impl Strategy<Value = Value> {
    let value = leaf().prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map("[a-f]{1,2}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map>())),
        ]
    });
    prop_oneof![
        prop::collection::btree_map("[a-f]{1,2}", value.clone(), 0..6)
            .prop_map(|m| Value::Object(m.into_iter().collect::<Map>())),
        prop::collection::vec(value, 0..5).prop_map(Value::Array),
    ]
}

/// The document as written so far after `budget` steps: entering a member
/// or item costs one step, each character of a string one step.
fn truncate(value: &Value, budget: &mut usize) -> Value {
    truncate_at(value, budget, &mut Vec::new(), &mut Vec::new())
}

/// [`truncate`], which also leaves in `cursor` the path of the value
/// being written when the budget ran out (`at` is the path of `value`):
/// everything not on that path is finished.
fn truncate_at(
    value: &Value,
    budget: &mut usize,
    at: &mut Vec<Seg>,
    cursor: &mut Vec<Seg>,
) -> Value {
    match value {
        Value::String(s) => {
            let take = s.chars().count().min(*budget);
            *budget -= take;
            Value::String(s.chars().take(take).collect())
        }
        Value::Array(items) => {
            let mut out = Vec::new();
            for (i, item) in items.iter().enumerate() {
                if *budget == 0 {
                    break;
                }
                *budget -= 1;
                at.push(Seg::Index(i));
                cursor.clone_from(at);
                out.push(truncate_at(item, budget, at, cursor));
                at.pop();
            }
            Value::Array(out)
        }
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, item) in map.iter() {
                if *budget == 0 {
                    break;
                }
                *budget -= 1;
                at.push(Seg::Key(key.to_string()));
                cursor.clone_from(at);
                out.push(key.clone(), truncate_at(item, budget, at, cursor));
                at.pop();
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Seg {
    Key(String),
    Index(usize),
}

/// The paths of every value in `value` (the root excepted) that is not on
/// the path `cursor` leads along: the values the generator has finished.
fn finished_paths(value: &Value, at: &mut Vec<Seg>, cursor: &[Seg], out: &mut Vec<Vec<Seg>>) {
    let children: Vec<(Seg, &Value)> = match value {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| (Seg::Index(i), v))
            .collect(),
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| (Seg::Key(k.to_string()), v))
            .collect(),
        _ => return,
    };
    for (seg, child) in children {
        at.push(seg);
        if !cursor.starts_with(at) {
            out.push(at.clone());
        }
        finished_paths(child, at, cursor, out);
        at.pop();
    }
}

/// The paths of the values that `text`, a prefix of a JSON document, holds
/// complete: closed containers, strings with their closing quote, and
/// numbers and literals, which a following `,` completes.
fn completed_paths(text: &str) -> HashSet<Vec<Seg>> {
    let mut done = HashSet::new();
    let mut parser = json::Parser::new();
    // After a bracket that opens, the comma is an error: the events before
    // it are what counts.
    let _ = crate::common::feed_with(&mut parser, format!("{text},").as_bytes(), |event| {
        let complete = !matches!(
            event.kind,
            EventKind::StartObject | EventKind::StartArray | EventKind::StringDelta(_)
        );
        if complete {
            let path = event
                .path
                .segments()
                .iter()
                .map(|seg| match seg {
                    Segment::Key(key) => Seg::Key(key.to_string()),
                    Segment::Index(i) => Seg::Index(*i),
                })
                .collect();
            done.insert(path);
        }
    });
    done
}

/// The same value with every object's members in a random order.
fn shuffle(value: &Value, rng: &mut TestRng) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().map(|v| shuffle(v, rng)).collect()),
        Value::Object(map) => {
            let mut members: Vec<(Key, Value)> = map
                .iter()
                .map(|(k, v)| (k.clone(), shuffle(v, rng)))
                .collect();
            for i in (1..members.len()).rev() {
                let j = below(rng, 0, i + 1);
                members.swap(i, j);
            }
            Value::Object(members.into_iter().collect())
        }
        other => other.clone(),
    }
}

/// Progressive snapshots of `doc`, a few steps apart, shuffled.
fn snapshots(doc: &Value, rng: &mut TestRng) -> Vec<Value> {
    let mut out = Vec::new();
    let mut steps = 0;
    loop {
        steps += below(rng, 1, 5);
        let snapshot = truncate(doc, &mut steps.clone());
        let done = &snapshot == doc;
        out.push(shuffle(&snapshot, rng));
        if done {
            return out;
        }
    }
}

fn to_serde(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn progressive_snapshots_concatenate_to_the_final_document(doc in document(), seed in any::<u64>()) {
        let mut rng = TestRng::from_seed(proptest::test_runner::RngAlgorithm::ChaCha, &seed_bytes(seed));
        let series = snapshots(&doc, &mut rng);
        for hold in [false, true] {
            let mut chunker = SnapshotChunker::new().hold_placeholders(hold);
            let mut text = String::new();
            for snapshot in &series {
                for chunk in crate::common::chunks_of_value(&mut chunker, snapshot).unwrap() {
                    prop_assert!(!chunk.is_empty());
                    text.push_str(&chunk);
                }
            }
            text.extend(crate::common::closing_chunks(&mut chunker));
            prop_assert_eq!(to_serde(&text), to_serde(&doc.to_json()), "hold {}: {}", hold, text);
        }
    }

    /// docs/ARCHITECTURE.md: the chunker "holds back only what is ambiguous, at most one
    /// snapshot longer". Of a generator that writes one value at a time,
    /// every value finished in snapshot k is complete in the text emitted
    /// once snapshot k + 1 is processed.
    #[test]
    fn a_finished_value_is_out_at_most_one_snapshot_later(doc in document(), seed in any::<u64>()) {
        let mut rng = TestRng::from_seed(proptest::test_runner::RngAlgorithm::ChaCha, &seed_bytes(seed));
        let mut chunker = SnapshotChunker::new();
        let mut text = String::new();
        let mut finished_before: Vec<Vec<Seg>> = Vec::new();
        let mut steps = 0;
        loop {
            steps += below(&mut rng, 1, 5);
            let mut cursor = Vec::new();
            let snapshot = truncate_at(&doc, &mut steps.clone(), &mut Vec::new(), &mut cursor);
            text.extend(crate::common::chunks_of_value(&mut chunker, &shuffle(&snapshot, &mut rng)).unwrap());
            let done = completed_paths(&text);
            for path in &finished_before {
                prop_assert!(done.contains(path), "{:?} is not out one snapshot after it was finished: {}", path, text);
            }
            finished_before.clear();
            finished_paths(&snapshot, &mut Vec::new(), &cursor, &mut finished_before);
            if snapshot == doc {
                break;
            }
        }
    }

    /// Snapshots out of order or repeated: the ones that break growth are
    /// rejected without changing anything, and the output is the last
    /// snapshot accepted.
    #[test]
    fn rejected_snapshots_leave_no_trace(doc in document(), seed in any::<u64>()) {
        let mut rng = TestRng::from_seed(proptest::test_runner::RngAlgorithm::ChaCha, &seed_bytes(seed));
        let mut series = snapshots(&doc, &mut rng);
        for _ in 0..series.len() / 2 {
            let (i, j) = (below(&mut rng, 0, series.len()), below(&mut rng, 0, series.len()));
            series.swap(i, j);
        }
        for hold in [false, true] {
            let mut chunker = SnapshotChunker::new().hold_placeholders(hold);
            let mut text = String::new();
            let mut last = None;
            for snapshot in &series {
                if let Ok(chunks) = crate::common::chunks_of_value(&mut chunker, snapshot) {
                    text.extend(chunks);
                    last = Some(snapshot);
                }
            }
            text.extend(crate::common::closing_chunks(&mut chunker));
            match last {
                Some(last) => prop_assert_eq!(to_serde(&text), to_serde(&last.to_json()), "{}", text),
                None => prop_assert_eq!(text, ""),
            }
        }
    }
}

fn seed_bytes(seed: u64) -> [u8; 32] {
    let mut bytes = [0u8; 32];
    for (i, b) in seed.to_le_bytes().iter().enumerate() {
        bytes[i] = *b;
        bytes[i + 8] = b.wrapping_mul(31);
    }
    bytes
}
