//! Events back to bytes, for servers and proxies that re-emit a stream.
//!
//! The output decodes, by the same standard, to exactly the items encoded
//! (with CR and CRLF inside data and comments turned into LF): data is split
//! at every line break into `data` lines, an `id` line is written only when
//! the last event ID changes, and an `event` line only when the type is not
//! the default.

use alloc::vec::Vec;

use super::error::EncodeError;
use super::event::{EventRef, Item, DEFAULT_EVENT_TYPE};

/// Writes events, retry times and comments as a text/event-stream.
///
/// It remembers the last event ID it wrote, since IDs persist across
/// events: each event carries the ID in effect for it, and the encoder
/// writes an `id` field only when that differs from the one before.
///
/// ```
/// use llmstream::sse::{decode, Encoder, Event, Item};
///
/// let mut out = Vec::new();
/// let mut encoder = Encoder::new();
/// let event = Event { event_type: "delta".into(), data: "a\nb".into(), last_event_id: "7".into() };
/// encoder.encode_event(&event, &mut out).unwrap();
/// assert_eq!(out, b"event: delta\nid: 7\ndata: a\ndata: b\n\n");
/// assert_eq!(decode(&out).unwrap(), [Item::Event(event)]);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Encoder {
    last_event_id: alloc::string::String,
}

impl Encoder {
    /// An encoder for a new stream (last event ID `""`).
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends one item to `out`. On error nothing is written.
    pub fn encode(&mut self, item: &Item, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        match item {
            Item::Event(event) => self.encode_event(event, out),
            Item::Retry(ms) => {
                self.encode_retry(*ms, out);
                Ok(())
            }
            Item::Comment(text) => {
                self.encode_comment(text, out);
                Ok(())
            }
        }
    }

    /// Appends one event: its `event`, `id` and `data` lines and the blank
    /// line that dispatches it. An empty type is written as the default,
    /// `"message"`. On error nothing is written.
    pub fn encode_event<'e>(
        &mut self,
        event: impl Into<EventRef<'e>>,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        let event = event.into();
        if has_line_break(event.event_type) {
            return Err(EncodeError::LineBreakInEventType);
        }
        if has_line_break(event.last_event_id) {
            return Err(EncodeError::LineBreakInId);
        }
        if event.last_event_id.contains('\0') {
            return Err(EncodeError::NulInId);
        }
        if !event.event_type.is_empty() && event.event_type != DEFAULT_EVENT_TYPE {
            field(out, b"event", event.event_type);
        }
        if event.last_event_id != self.last_event_id {
            field(out, b"id", event.last_event_id);
            self.last_event_id.clear();
            self.last_event_id.push_str(event.last_event_id);
        }
        for line in lines(event.data) {
            field(out, b"data", line);
        }
        out.push(b'\n');
        Ok(())
    }

    /// Appends a `retry` field: the reconnection time in milliseconds.
    pub fn encode_retry(&mut self, ms: u64, out: &mut Vec<u8>) {
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        let mut rest = ms;
        loop {
            at -= 1;
            if let Some(d) = digits.get_mut(at) {
                *d = b'0' + (rest % 10) as u8;
            }
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        out.extend_from_slice(b"retry: ");
        out.extend_from_slice(digits.get(at..).unwrap_or_default());
        out.push(b'\n');
    }

    /// Appends a comment, one `:` line per line of `text` (decoders report
    /// each line as its own comment). An empty text gives a bare `:`, the
    /// usual keep-alive.
    pub fn encode_comment(&mut self, text: &str, out: &mut Vec<u8>) {
        for line in lines(text) {
            out.push(b':');
            out.extend_from_slice(line.as_bytes());
            out.push(b'\n');
        }
    }
}

/// Encodes a whole stream. An event that cannot be written (a line break
/// in its type or ID, a NUL in its ID: the reader would split or drop the
/// field) is an [`EncodeError`], and nothing is returned.
pub fn encode(items: &[Item]) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    let mut encoder = Encoder::new();
    for item in items {
        encoder.encode(item, &mut out)?;
    }
    Ok(out)
}

fn has_line_break(text: &str) -> bool {
    text.bytes().any(|b| b == b'\n' || b == b'\r')
}

/// Writes `name: value`; the space keeps a value that starts with a space
/// intact, since decoders remove exactly one.
fn field(out: &mut Vec<u8>, name: &[u8], value: &str) {
    out.extend_from_slice(name);
    if value.is_empty() {
        out.push(b':');
    } else {
        out.extend_from_slice(b": ");
        out.extend_from_slice(value.as_bytes());
    }
    out.push(b'\n');
}

/// The lines of `text` split at CRLF, LF or CR; `""` is one empty line.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    core::iter::from_fn(move || {
        let text = rest?;
        match text.find(['\r', '\n']) {
            None => {
                rest = None;
                Some(text)
            }
            Some(at) => {
                let (line, tail) = text.split_at(at);
                let tail = tail
                    .strip_prefix("\r\n")
                    .or_else(|| tail.get(1..))
                    .unwrap_or_default();
                rest = Some(tail);
                Some(line)
            }
        }
    })
}
