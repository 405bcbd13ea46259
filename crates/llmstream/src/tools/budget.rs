//! What the argument events of one JSON value may cost, so that their total
//! stays proportional to the text that produced them.
//!
//! Every event owns its path, and a completed container's event owns a copy
//! of the container. Unchecked, both multiply the input: a long key is
//! copied into the path of every value under it (a string streamed one
//! character per fragment under a 1 MB key copied the key per character),
//! and a value nested d deep is copied again at each of its d ancestors'
//! closes (2 MB of 126-deep arrays became 7 GB of events). So events are
//! charged what they hold — each path segment, a fixed amount per event and,
//! for a container, its text and a value's size per value inside — against
//! an allowance of [`BASE`] plus [`PER_BYTE`] per byte of the value's text
//! read so far. Ordinary arguments (a few levels, short keys) stay far
//! below it; the allowance only decides what the events of pathological
//! ones leave out. What they leave out stays in the live snapshot and in
//! the final value; nothing is lost from those.
//!
//! Past the allowance:
//! - a completed value (scalar or container) whose event does not fit is
//!   not reported on its own (an enclosing container's event, or the final
//!   arguments, hold it);
//! - a string delta that does not fit is held and goes out merged with the
//!   string's next delta that fits. Once a delta of a string went out, the
//!   rest of that string's text goes out at the latest when the string
//!   completes (or the text fails, or ends inside it), whatever it costs: the deltas a
//!   consumer saw then add up to the string. That forced delta costs no
//!   more than the one that started the string, so it at most doubles the
//!   total.
//!
//! The allowance follows the offset in the value's text (where the event's
//! own text began), not the pieces it came in: how the text was cut changes
//! only the deltas, and what they were charged.

use alloc::string::String;
use alloc::vec::Vec;
use core::mem::size_of;

use crate::json::{EventKind, Number, Path, Segment, Value};

/// Event bytes allowed before any text: small values are never limited.
pub(crate) const BASE: u64 = 64 * 1024;

/// Event bytes allowed per byte of text: above what ordinary arguments
/// cost at their worst — a delta per byte (fragments of one token, or
/// one byte, are common) eight levels deep under 8-byte keys is about 350
/// bytes of path a byte, a small number in GeoJSON-like coordinates about
/// 110 — and far below what copying a deep value at every level, or a
/// long key into every delta under it, did (thousands a byte, without
/// bound). At 64 a byte, ordinary arguments lost events.
pub(crate) const PER_BYTE: u64 = 512;

/// The fixed cost of an event (its value, or its text's allocation).
const EVENT: u64 = size_of::<Value>() as u64;

/// The cost of one path segment, besides its key's text.
const SEGMENT: u64 = size_of::<Segment>() as u64;

/// The cost of owning `segments` as a path.
pub(crate) fn path_cost(segments: &[Segment]) -> u64 {
    segments
        .iter()
        .map(|s| match s {
            Segment::Key(k) => SEGMENT + k.len() as u64,
            Segment::Index(_) => SEGMENT,
        })
        .sum()
}

/// What one parser event inside the arguments gives to report, in this
/// order: held text of a string, then a completed value.
#[derive(Debug, Default)]
pub(crate) struct Report {
    /// Text of a string: a delta that fits (with what was held before it),
    /// or the held rest of a string that completed.
    pub(crate) delta: Option<String>,
    /// A value that completed and whose event fits.
    pub(crate) value: Option<Completed>,
}

/// A completed value whose event fits.
#[derive(Debug)]
pub(crate) enum Completed {
    /// A scalar, built only once it is known to be reported.
    Scalar(Value),
    /// A container: its value is the snapshot's at the event's path, read
    /// at its end event (where the path names it even among duplicate
    /// keys; a later duplicate would stand in for it at the piece's end).
    Container,
}

/// The account of one JSON value's argument events.
#[derive(Clone, Debug, Default)]
pub(crate) struct Budget {
    /// Charged so far.
    spent: u64,
    /// Charged to every event on top of its own cost (what the consumer
    /// adds to each event, such as a call id).
    pub(crate) extra: u64,
    /// Per open container: the offset it started at and the number of
    /// values completed before it.
    open: Vec<(u64, u64)>,
    /// Values completed so far.
    values: u64,
    /// Text of the open string not reported yet.
    pending: String,
    /// Whether a delta of the open string was reported.
    started: bool,
}

impl Budget {
    /// Charges one parser event read at text offset `at`, at `rel` (its
    /// path inside the arguments, not the root's): what it gives to
    /// report. The owner decides which events are arguments; this is the
    /// account every owner keeps of them.
    pub(crate) fn charge(&mut self, at: u64, rel: &[Segment], kind: EventKind<'_>) -> Report {
        let mut report = Report::default();
        let scalar = match kind {
            EventKind::StartObject | EventKind::StartArray => {
                self.open(at);
                return report;
            }
            EventKind::EndObject | EventKind::EndArray => {
                if self.close(at, rel) {
                    report.value = Some(Completed::Container);
                }
                return report;
            }
            EventKind::StringDelta(text) => {
                report.delta = self.delta(at, rel, text);
                return report;
            }
            EventKind::String(text) => {
                report.delta = self.string_end(rel);
                Scalar::String(text)
            }
            EventKind::Number(raw) => Scalar::Number(raw),
            EventKind::Bool(b) => Scalar::Other(Value::Bool(b)),
            EventKind::Null => Scalar::Other(Value::Null),
        };
        if self.value(at, rel) {
            report.value = Some(Completed::Scalar(match scalar {
                Scalar::String(text) => Value::from(text),
                Scalar::Number(raw) => Number::from_text(raw).map_or(Value::Null, Value::Number),
                Scalar::Other(value) => value,
            }));
        }
        report
    }

    /// Charges `cost` at text offset `at` if the allowance has room.
    fn spend(&mut self, at: u64, cost: u64) -> bool {
        let allowed = BASE.saturating_add(at.saturating_mul(PER_BYTE));
        match self.spent.checked_add(cost.saturating_add(self.extra)) {
            Some(total) if total <= allowed => {
                self.spent = total;
                true
            }
            _ => false,
        }
    }

    /// Charges `cost` whatever the allowance says.
    fn force(&mut self, cost: u64) {
        self.spent = self.spent.saturating_add(cost).saturating_add(self.extra);
    }

    /// A delta of the open string at `segments`, read at offset `at`: the
    /// text to report now, if any (what was held included).
    fn delta(&mut self, at: u64, segments: &[Segment], text: &str) -> Option<String> {
        if !self.spend(at, path_cost(segments) + EVENT) {
            self.pending.push_str(text);
            return None;
        }
        self.started = true;
        if self.pending.is_empty() {
            return Some(String::from(text));
        }
        let mut out = core::mem::take(&mut self.pending);
        out.push_str(text);
        Some(out)
    }

    /// The open string at `segments` completed (or the text failed, or
    /// ended inside it): the text held back, when some of the string was
    /// reported, so that its deltas add up to its text.
    pub(crate) fn string_end(&mut self, segments: &[Segment]) -> Option<String> {
        let started = core::mem::take(&mut self.started);
        let rest = core::mem::take(&mut self.pending);
        if !started || rest.is_empty() {
            return None;
        }
        self.force(path_cost(segments) + EVENT);
        Some(rest)
    }

    /// A scalar at `segments` completed at offset `at`: whether its event
    /// fits.
    fn value(&mut self, at: u64, segments: &[Segment]) -> bool {
        self.values += 1;
        self.spend(at, path_cost(segments) + EVENT)
    }

    /// A scalar completed that is not an argument (no event, or one that
    /// is reported whatever it costs).
    pub(crate) fn count(&mut self) {
        self.values += 1;
    }

    /// A container opened at offset `at`.
    pub(crate) fn open(&mut self, at: u64) {
        self.open.push((at, self.values));
    }

    /// A container closed at offset `at`: what a copy of it costs (its text
    /// and a value per value inside), and its path.
    fn close_cost(&mut self, at: u64, segments: &[Segment]) -> u64 {
        let (start, before) = self.open.pop().unwrap_or((at, self.values));
        let inside = self.values.saturating_sub(before);
        self.values += 1;
        at.saturating_sub(start)
            .saturating_add(inside.saturating_mul(EVENT))
            .saturating_add(path_cost(segments) + EVENT)
    }

    /// A container at `segments` closed at offset `at`: whether a copy of
    /// it fits.
    fn close(&mut self, at: u64, segments: &[Segment]) -> bool {
        let cost = self.close_cost(at, segments);
        self.spend(at, cost)
    }

    /// A container closed that is reported whatever it costs (a top-level
    /// value: those do not nest, so their copies add up to the text).
    pub(crate) fn close_forced(&mut self, at: u64, segments: &[Segment]) {
        let cost = self.close_cost(at, segments);
        self.force(cost);
    }

    /// A container closed that is not reported.
    pub(crate) fn close_quiet(&mut self) {
        self.open.pop();
        self.values += 1;
    }
}

impl Completed {
    /// The completed value, a container's read from `snapshot` at `path`.
    pub(crate) fn into_value(self, snapshot: Option<&Value>, path: Path<'_>) -> Option<Value> {
        match self {
            Completed::Scalar(value) => Some(value),
            Completed::Container => snapshot?.at(path).cloned(),
        }
    }
}

/// A scalar's text, before it is known to be reported.
enum Scalar<'a> {
    String(&'a str),
    Number(&'a str),
    Other(Value),
}
