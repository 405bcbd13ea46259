//! The recorded provider SSE bodies of ../shared/fixtures/providers, for
//! the async adapter tests (stream_adapters.rs, http_e2e.rs).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// ../shared/fixtures/providers beside the repository, if present.
pub fn providers_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/providers");
    dir.is_dir().then_some(dir)
}

/// Every raw SSE body under the providers fixtures (files whose first line
/// is an SSE field or comment; JSON-lines recordings and cassettes are
/// not bodies), as (path relative to the folder, bytes), sorted by path.
/// `None` (with the reason printed) when the fixtures are absent.
pub fn recorded_bodies() -> Option<Vec<(String, Vec<u8>)>> {
    let Some(dir) = providers_dir() else {
        eprintln!("skipped: ../shared/fixtures/providers is not present beside the repository");
        return None;
    };
    let mut out = Vec::new();
    collect(&dir, &dir, &mut out);
    out.sort();
    assert!(
        !out.is_empty(),
        "no SSE bodies found under {}",
        dir.display()
    );
    Some(out)
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    for entry in std::fs::read_dir(dir).expect("readable fixture folder") {
        let path = entry.expect("readable entry").path();
        if path.is_dir() {
            collect(root, &path, out);
            continue;
        }
        let bytes = std::fs::read(&path).expect("readable fixture");
        let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
        let first = text.split(|&b| b == b'\n').next().unwrap_or(&[]);
        let is_sse = [&b"data:"[..], b"event:", b"id:", b"retry:", b":"]
            .iter()
            .any(|field| first.starts_with(field));
        if is_sse {
            let name = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .display()
                .to_string();
            out.push((name, bytes));
        }
    }
}

/// A small seeded generator (splitmix64): same seed, same numbers.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }
}

/// `bytes` cut into pieces of 1 to `max` bytes.
pub fn pieces(bytes: &[u8], seed: u64, max: u64) -> Vec<Vec<u8>> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let n = (rng.range(1, max) as usize).min(rest.len());
        let (head, tail) = rest.split_at(n);
        out.push(head.to_vec());
        rest = tail;
    }
    out
}

/// The non-async path: the whole body through a `Pipeline`, with every
/// event and the final message.
pub fn pipeline_reference(
    body: &[u8],
) -> (
    Vec<llmstream::providers::StreamEvent>,
    Option<llmstream::json::Value>,
) {
    let mut pipeline = llmstream::providers::Pipeline::new();
    let mut events = Vec::new();
    pipeline.feed(body).expect("fixture within SSE limits");
    while let Some(event) = pipeline.next_event() {
        events.push(event);
    }
    pipeline.finish().expect("fixture within SSE limits");
    while let Some(event) = pipeline.next_event() {
        events.push(event);
    }
    (events, pipeline.message().map(|m| m.to_value()))
}
