//! Helpers shared by the fuzz targets: reading cut positions out of the
//! fuzzer's input, comparing with serde_json, merging split-dependent events.

use llmstream::json::{OwnedEvent, OwnedEventKind, Value};
pub use llmstream_tests::pieces_at;

/// A fuzz input: a flags byte, fuzzer-chosen cut positions, and the document.
///
/// Layout: byte 0 = flags; byte 1 = number of cuts `n` (mod 16); then `n`
/// little-endian `u16` cut positions (taken modulo the document length + 1);
/// the rest is the document. `fuzz/seed.sh` prefixes seeds with two zero
/// bytes (no flags, no cuts).
pub struct Input<'a> {
    /// Target-specific switches.
    pub flags: u8,
    /// Sorted cut positions in `doc`, each in `0..=doc.len()`.
    pub cuts: Vec<usize>,
    /// The bytes under test.
    pub doc: &'a [u8],
}

impl<'a> Input<'a> {
    /// Reads the header; `None` if the input is too short to hold it.
    pub fn new(data: &'a [u8]) -> Option<Self> {
        let (&flags, rest) = data.split_first()?;
        let (&count, rest) = rest.split_first()?;
        let count = usize::from(count % 16);
        let header = rest.get(..count * 2)?;
        let doc = rest.get(count * 2..)?;
        let mut cuts: Vec<usize> = header
            .chunks_exact(2)
            .map(|pair| usize::from(u16::from_le_bytes([pair[0], pair[1]])) % (doc.len() + 1))
            .collect();
        cuts.sort_unstable();
        Some(Input { flags, cuts, doc })
    }

    /// The document cut at the chosen positions (empty pieces included:
    /// feeding an empty piece must change nothing either).
    pub fn pieces(&self) -> Vec<&'a [u8]> {
        pieces_at(self.doc, &self.cuts)
    }

    /// The cuts moved back to UTF-8 character boundaries of `text`.
    pub fn char_pieces<'t>(&self, text: &'t str) -> Vec<&'t str> {
        let mut out = Vec::new();
        let mut start = 0;
        for &cut in &self.cuts {
            let mut cut = cut.min(text.len());
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            if cut >= start {
                out.push(&text[start..cut]);
                start = cut;
            }
        }
        out.push(&text[start..]);
        out
    }
}

/// Documents up to this size are also fed one byte at a time.
pub const BYTEWISE_MAX: usize = 512;

/// The value as serde_json sees it: numbers through serde_json's own
/// number parser, objects with the last of duplicate keys (as serde_json
/// resolves them). `None` if a number is out of serde_json's range.
pub fn to_serde(value: &Value) -> Option<serde_json::Value> {
    Some(match value {
        Value::Null => serde_json::Value::Null,
        Value::Bool(b) => serde_json::Value::Bool(*b),
        Value::Number(n) => serde_json::from_str(n.as_str()).ok()?,
        Value::String(s) => serde_json::Value::String(s.clone()),
        Value::Array(items) => {
            serde_json::Value::Array(items.iter().map(to_serde).collect::<Option<Vec<_>>>()?)
        }
        Value::Object(map) => {
            let mut out = serde_json::Map::new();
            for (key, value) in map {
                out.insert(key.to_string(), to_serde(value)?);
            }
            serde_json::Value::Object(out)
        }
    })
}

/// Whether serde_json rejected the document only because a number is out
/// of `f64` range (which llmstream accepts: it keeps the number's text).
pub fn serde_number_out_of_range(error: &serde_json::Error) -> bool {
    error.to_string().starts_with("number out of range")
}

/// Joins consecutive string deltas of one path: how a string's text is cut
/// into deltas depends on the pieces, the text does not.
pub fn merge_json_events(events: Vec<OwnedEvent>) -> Vec<OwnedEvent> {
    let mut out: Vec<OwnedEvent> = Vec::with_capacity(events.len());
    for event in events {
        if let OwnedEventKind::StringDelta(text) = &event.kind {
            if let Some(OwnedEvent {
                path,
                kind: OwnedEventKind::StringDelta(prev),
            }) = out.last_mut()
            {
                if *path == event.path {
                    prev.push_str(text);
                    continue;
                }
            }
        }
        out.push(event);
    }
    out
}

/// Joins consecutive items for which `join` returns true (it appends the
/// second to the first).
pub fn merge_by<T>(items: Vec<T>, mut join: impl FnMut(&mut T, &T) -> bool) -> Vec<T> {
    let mut out: Vec<T> = Vec::with_capacity(items.len());
    for item in items {
        if let Some(last) = out.last_mut() {
            if join(last, &item) {
                continue;
            }
        }
        out.push(item);
    }
    out
}
