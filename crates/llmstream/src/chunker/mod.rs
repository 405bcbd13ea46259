//! Complete JSON snapshots back into a stream of text chunks.
//!
//! Some models and platforms (the AI integration of .NET MAUI among them)
//! stream structured output as a series of *complete* JSON documents, each
//! the whole object so far, with member order that changes from one
//! snapshot to the next. A consumer that wants ordinary streaming text (to
//! feed an incremental parser, or to show text as it arrives) cannot diff
//! the serialized snapshots: the order moves and closing quotes sit in the
//! middle. [`SnapshotChunker`] compares snapshots by path instead and emits
//! only new text, so that the concatenation of every chunk is one valid JSON
//! document equal to the last snapshot (member order may differ).
//!
//! ```
//! use llmstream::chunker::SnapshotChunker;
//!
//! let mut chunker = SnapshotChunker::new();
//! let mut text = String::new();
//! for snapshot in [
//!     r#"{"title": "Vol"}"#,
//!     r#"{"title": "Volcano trip"}"#,
//!     r#"{"days": [], "title": "Volcano trip"}"#,
//!     r#"{"title": "Volcano trip", "days": [{"name": "Hike"}]}"#,
//! ] {
//!     chunker.feed_text(snapshot)?;
//!     text.extend(std::iter::from_fn(|| chunker.next_event()));
//! }
//! // The title streamed early: its text was out before the stream ended.
//! assert!(text.starts_with(r#"{"title":"Volcano trip""#));
//! chunker.finish()?;
//! text.extend(std::iter::from_fn(|| chunker.next_event()));
//! assert_eq!(text, r#"{"title":"Volcano trip","days":[{"name":"Hike"}]}"#);
//! # Ok::<(), llmstream::chunker::ChunkError>(())
//! ```
//!
//! # How certainty is decided
//!
//! The generator behind the snapshots writes one value at a time, so in any
//! snapshot everything that is not on the path to where it is writing is
//! finished. The chunker keeps one chain of open containers from the root
//! (the output is written depth first and can never go back into a closed
//! container) and at most one open string at its end, whose closing quote is
//! withheld. For each snapshot:
//!
//! - **Sibling rule**: a new member at the level of the open string means the
//!   string is finished: its new text and its closing quote are emitted.
//! - **Parent-level rule**: new content at a higher level (a parent array
//!   gains an item, a new member appears in an ancestor object) means the
//!   open string and every container below that level are finished: they are
//!   completed and closed.
//! - **Unchanged rule**: an open string that did not change while something
//!   else in the snapshot did is finished. A snapshot identical to the
//!   previous one says nothing about where the generator is, so it closes
//!   nothing (a pause must not turn later growth into an error).
//! - **Pending rule**: when two or more new strings, arrays or objects
//!   appear at one level in one snapshot, none of them is emitted until a
//!   later snapshot shows which one grows; then the others are emitted
//!   complete first and the growing one is opened. Numbers, booleans and
//!   null are emitted complete at once. An empty string, array or object
//!   is no exception: held beside a sibling that then grows, it is
//!   finished, and is emitted empty.
//! - Empty arrays and objects are opened and stay open until one of the
//!   rules above (or [`SnapshotChunker::finish`]) closes them.
//!
//! So, from a generator that writes one value at a time, a value it has
//! finished is emitted complete at the latest one snapshot after the first
//! snapshot that holds it finished (a property test holds the chunker to
//! that). Input outside that assumption can wait longer (two held values
//! that grow in the same snapshot stay held until a snapshot shows one of
//! them growing alone) or be rejected (below); what is emitted is never
//! wrong.
//!
//! # Producers that declare every field up front
//!
//! The rules assume the generator writes one value at a time. Some
//! producers instead send every field empty first (`{"title": "", "tags":
//! [], "meta": {"author": ""}}`) and fill them in one by one. Under the
//! rules a member left behind empty is finished, so its later filling is
//! rejected ([`ChunkErrorKind::PlaceholderFilled`]). For such producers,
//! [`SnapshotChunker::hold_placeholders`] keeps an unchanged hollow member
//! (an empty string, or an array or object holding only hollow values)
//! held until it grows or its object closes, at the cost of that wait.
//! Array items are never held so: items come in order, and an item
//! followed by another is finished.
//!
//! # Errors
//!
//! Snapshots must only grow. A snapshot that breaks that (a member that
//! disappears, a value that changes type, a string that no longer extends
//! its previous text, a number or literal that changes, content added to
//! something already closed) is rejected with a [`ChunkError`] naming the
//! snapshot number and the path, and the chunker is left exactly as it was
//! before the call, so the caller may skip the snapshot and go on.

use alloc::collections::{BTreeMap, BTreeSet, VecDeque};
use alloc::string::String;
use alloc::vec::Vec;

use crate::json::{self, PathBuf, Segment, Value};

mod error;
mod error_form;
mod out;

use crate::json::unique::{by_key, unique, unique_by};
pub use error::{ChunkError, ChunkErrorKind, MAX_DEPTH};
use out::{escape_into, write_value, Out};

/// Turns a series of complete JSON snapshots into text chunks whose
/// concatenation is the last snapshot. See the [module docs](self) for the
/// rules.
///
/// Like every stage, it has three verbs: [`feed`](Self::feed) each
/// snapshot (or [`feed_text`](Self::feed_text) its JSON text), take the
/// chunks that became certain with [`next_event`](Self::next_event), and
/// [`finish`](Self::finish) at the end of the stream for the closing text.
/// After `finish` the chunker is ready for a new document.
#[derive(Clone, Debug, Default)]
pub struct SnapshotChunker {
    /// Snapshots accepted in the current document.
    accepted: usize,
    /// The last accepted snapshot: what the next one is compared against.
    prev: Option<Value>,
    /// The open containers, root first. Everything emitted that is not on
    /// this chain is closed.
    frames: Vec<Frame>,
    /// The open string, a child of the deepest frame.
    open: Option<OpenString>,
    /// Keep unchanged empty values held until they grow or their level
    /// closes (see [`SnapshotChunker::hold_placeholders`]).
    hold_placeholders: bool,
    /// Chunks fed but not yet taken by [`SnapshotChunker::next_event`].
    chunks: VecDeque<String>,
}

/// An open container in the output.
#[derive(Clone, Debug)]
struct Frame {
    /// How the parent reaches it; `None` for the root.
    seg: Option<Segment>,
    /// An array (`[`) rather than an object (`{`).
    array: bool,
    /// Children emitted so far (decides the commas; for arrays, the index
    /// of the next item to emit).
    sent: usize,
    /// Keys of the members emitted so far (objects only).
    keys: BTreeSet<String>,
    /// Of those, the members emitted complete while hollow because a
    /// sibling grew: what holding placeholders would have kept back, so
    /// their filling is [`ChunkErrorKind::PlaceholderFilled`].
    left_hollow: BTreeSet<String>,
}

impl Frame {
    fn new(seg: Option<Segment>, array: bool) -> Self {
        Frame {
            seg,
            array,
            sent: 0,
            keys: BTreeSet::new(),
            left_hollow: BTreeSet::new(),
        }
    }

    fn is_emitted(&self, seg: &Segment) -> bool {
        match seg {
            Segment::Key(key) => self.keys.contains(key),
            Segment::Index(index) => *index < self.sent,
        }
    }
}

/// The string whose closing quote is withheld.
#[derive(Clone, Debug)]
struct OpenString {
    /// Its place in the deepest frame.
    seg: Segment,
    /// Bytes of its text already emitted.
    sent: usize,
}

impl SnapshotChunker {
    /// A chunker waiting for its first snapshot.
    pub fn new() -> Self {
        SnapshotChunker::default()
    }

    /// For producers that declare every field empty up front and then fill
    /// them in one by one: an object member that is held, unchanged and
    /// hollow (an empty string, or an array or object of only hollow
    /// values, as `{"tags": []}`) stays held until it grows or its object
    /// closes, rather than being taken as finished when a sibling grows
    /// (the default, which emits it at once and rejects its later filling
    /// with [`ChunkErrorKind::PlaceholderFilled`]). The price is that a
    /// field that really is empty comes out only when its object closes.
    ///
    /// ```
    /// use llmstream::chunker::SnapshotChunker;
    ///
    /// let snapshots = [
    ///     r#"{"title": "", "tags": []}"#,
    ///     r#"{"title": "Trip", "tags": []}"#,
    ///     r#"{"title": "Trip", "tags": ["summer"]}"#,
    /// ];
    /// let mut chunker = SnapshotChunker::new().hold_placeholders(true);
    /// let mut text = String::new();
    /// for snapshot in snapshots {
    ///     chunker.feed_text(snapshot)?;
    ///     text.extend(std::iter::from_fn(|| chunker.next_event()));
    /// }
    /// chunker.finish()?;
    /// text.extend(std::iter::from_fn(|| chunker.next_event()));
    /// assert_eq!(text, r#"{"title":"Trip","tags":["summer"]}"#);
    ///
    /// // By default the empty `tags` was finished when `title` grew alone.
    /// let mut chunker = SnapshotChunker::new();
    /// chunker.feed_text(snapshots[0])?;
    /// chunker.feed_text(snapshots[1])?;
    /// assert!(chunker.feed_text(snapshots[2]).is_err());
    /// # Ok::<(), llmstream::chunker::ChunkError>(())
    /// ```
    pub fn hold_placeholders(mut self, hold: bool) -> Self {
        self.hold_placeholders = hold;
        self
    }

    /// The number of snapshots accepted since the start (or the last
    /// [`finish`](Self::finish) or [`reset`](Self::reset)).
    pub fn snapshots(&self) -> usize {
        self.accepted
    }

    /// [`SnapshotChunker::feed`] of a snapshot given as JSON text.
    ///
    /// Text that is not one valid JSON document is an error
    /// ([`ChunkErrorKind::InvalidJson`]) and changes nothing.
    pub fn feed_text(&mut self, text: &str) -> Result<(), ChunkError> {
        match json::parse(text.as_bytes()) {
            Ok(value) => self.feed(&value),
            Err(error) => Err(ChunkError {
                snapshot: self.accepted + 1,
                path: error.path().clone(),
                kind: ChunkErrorKind::InvalidJson(error),
            }),
        }
    }

    /// Takes the next complete snapshot: the text that became certain waits
    /// for [`SnapshotChunker::next_event`], as chunks split where one
    /// emitted item ends and the next begins (possibly none).
    ///
    /// On error nothing is emitted and the chunker is unchanged.
    pub fn feed(&mut self, snapshot: &Value) -> Result<(), ChunkError> {
        let number = self.accepted + 1;
        if too_deep(snapshot) {
            return Err(ChunkError {
                snapshot: number,
                path: PathBuf::new(),
                kind: ChunkErrorKind::TooDeep,
            });
        }
        let mut out = Out::default();
        match self.prev.take() {
            None => {
                let array = match snapshot {
                    Value::Array(_) => true,
                    Value::Object(_) => false,
                    other => {
                        return Err(ChunkError {
                            snapshot: number,
                            path: PathBuf::new(),
                            kind: ChunkErrorKind::RootNotContainer {
                                found: other.type_name(),
                            },
                        })
                    }
                };
                out.open(if array { "[" } else { "{" });
                self.frames.push(Frame::new(None, array));
                self.choose(snapshot, None, &mut Diffs::default(), &mut out);
            }
            Some(prev) => {
                if let Err(kind_at) = self.validate(&prev, snapshot) {
                    self.prev = Some(prev);
                    let (path, kind) = kind_at;
                    return Err(ChunkError {
                        snapshot: number,
                        path,
                        kind,
                    });
                }
                self.advance(&prev, snapshot, &mut out);
            }
        }
        self.prev = Some(snapshot.clone());
        self.accepted = number;
        self.chunks.extend(out.finish());
        Ok(())
    }

    /// The next chunk of text that became certain, oldest first.
    pub fn next_event(&mut self) -> Option<String> {
        self.chunks.pop_front()
    }

    /// Ends the document: queues whatever is still held and closes the
    /// open string and every open container, then makes the chunker ready
    /// for a new document (nothing is queued when no snapshot was fed).
    /// Never fails: every snapshot was checked as it was fed.
    pub fn finish(&mut self) -> Result<(), ChunkError> {
        let mut out = Out::default();
        if let Some(last) = self.prev.take() {
            let values = values_along(&self.frames, &last);
            while let Some(value) = values.get(self.frames.len().wrapping_sub(1)).copied() {
                self.finish_deepest(value, &mut out);
            }
        }
        let chunks = core::mem::take(&mut self.chunks);
        self.reset();
        self.chunks = chunks;
        self.chunks.extend(out.finish());
        Ok(())
    }

    /// Forgets the current document, even in the middle of a string: the
    /// text emitted so far (and queued, not yet taken) is abandoned and the
    /// next snapshot starts anew.
    /// The setting of [`hold_placeholders`](Self::hold_placeholders) stays.
    pub fn reset(&mut self) {
        *self = SnapshotChunker::new().hold_placeholders(self.hold_placeholders);
    }

    /// Checks that `cur` only grows `prev` and leaves closed content alone.
    fn validate(&self, prev: &Value, cur: &Value) -> Result<(), (PathBuf, ChunkErrorKind)> {
        let mut path = PathBuf::new();
        check_growth(prev, cur, &mut path)?;
        // Everything emitted and not on the open chain is closed: it must be
        // exactly what it was.
        let mut path = PathBuf::new();
        let (mut p, mut c) = (prev, cur);
        for (depth, frame) in self.frames.iter().enumerate() {
            let next = self.frames.get(depth + 1);
            let open_seg = match next {
                Some(next) => next.seg.as_ref(),
                None => self.open.as_ref().map(|open| &open.seg),
            };
            let closed: Vec<Segment> = if frame.array {
                (0..frame.sent).map(Segment::Index).collect()
            } else {
                frame.keys.iter().cloned().map(Segment::Key).collect()
            };
            // Looked up by key in O(log k): `child`'s scan per closed key
            // made a wide object cost k² a snapshot.
            let (p_keys, c_keys) = match (p, c) {
                (Value::Object(pm), Value::Object(cm)) if !frame.array => (by_key(pm), by_key(cm)),
                _ => (BTreeMap::new(), BTreeMap::new()),
            };
            for seg in closed {
                if Some(&seg) == open_seg {
                    continue;
                }
                if let (Some(pc), Some(cc)) =
                    (child_in(p, &p_keys, &seg), child_in(c, &c_keys, &seg))
                {
                    push_seg(&mut path, &seg);
                    if find_change(pc, cc, &mut path) {
                        let placeholder =
                            matches!(&seg, Segment::Key(key) if frame.left_hollow.contains(key));
                        let kind = if placeholder {
                            ChunkErrorKind::PlaceholderFilled
                        } else {
                            ChunkErrorKind::ChangedAfterComplete
                        };
                        return Err((path, kind));
                    }
                    path.pop();
                }
            }
            let Some(seg) = next.and_then(|next| next.seg.as_ref()) else {
                break;
            };
            match (child(p, seg), child(c, seg)) {
                (Some(pc), Some(cc)) => {
                    push_seg(&mut path, seg);
                    (p, c) = (pc, cc);
                }
                _ => break,
            }
        }
        Ok(())
    }

    /// Emits what `cur` makes certain, given the validated `prev`.
    fn advance(&mut self, prev: &Value, cur: &Value, out: &mut Out) {
        let mut diffs = Diffs::default();
        let prevs = values_along(&self.frames, prev);
        let curs = values_along(&self.frames, cur);
        // The highest level where the generator moved on: everything below
        // it is finished.
        let moved = (0..self.frames.len()).find(|&depth| {
            match (self.frames.get(depth), prevs.get(depth), curs.get(depth)) {
                (Some(frame), Some(p), Some(c)) => frame_moved(frame, p, c, &mut diffs),
                _ => false,
            }
        });
        let Some(level) = moved else {
            // Nothing moved: only the open string can have grown.
            if let (Some(open), Some(c)) = (self.open.as_mut(), curs.last()) {
                if let Some(text) = child(c, &open.seg).and_then(Value::as_str) {
                    let tail = text.get(open.sent..).unwrap_or("");
                    if !tail.is_empty() {
                        let mut piece = String::new();
                        escape_into(&mut piece, tail);
                        out.text(&piece);
                        open.sent = text.len();
                    }
                }
            }
            return;
        };
        while self.frames.len() > level + 1 {
            match curs.get(self.frames.len() - 1) {
                Some(value) => self.finish_deepest(value, out),
                None => break,
            }
        }
        if let (Some(c), Some(p)) = (curs.get(level), prevs.get(level)) {
            self.close_open_string(c, out);
            self.choose(c, Some(p), &mut diffs, out);
        }
    }

    /// Emits the rest of the open string (a child of the deepest frame,
    /// whose value is `frame_value`) and its closing quote.
    fn close_open_string(&mut self, frame_value: &Value, out: &mut Out) {
        let Some(open) = self.open.take() else {
            return;
        };
        let text = child(frame_value, &open.seg)
            .and_then(Value::as_str)
            .unwrap_or("");
        let mut piece = String::new();
        escape_into(&mut piece, text.get(open.sent..).unwrap_or(""));
        piece.push('"');
        out.text(&piece);
    }

    /// Completes and closes the deepest frame, whose value is `value`: the
    /// rest of its open string, every child not yet emitted, its bracket.
    fn finish_deepest(&mut self, value: &Value, out: &mut Out) {
        self.close_open_string(value, out);
        for (seg, item) in unsent(self.frames.last(), value) {
            self.emit_complete(seg, item, out);
        }
        if let Some(frame) = self.frames.pop() {
            out.close(if frame.array { "]" } else { "}" });
        }
    }

    /// Decides what to emit in the deepest frame (value `cur`, previous
    /// value `prev` if it existed), which has nothing open: completes what is
    /// certain, opens the one value being written, holds what is ambiguous.
    fn choose(&mut self, cur: &Value, prev: Option<&Value>, diffs: &mut Diffs, out: &mut Out) {
        let Some(frame) = self.frames.last() else {
            return;
        };
        let pending = unsent(Some(frame), cur);
        // Each member's previous value looked up by key in O(log k):
        // `child`'s scan per unsent member made a wide object cost k² a
        // snapshot (12 s for one of 80,000 members).
        let prev_keys = match prev {
            Some(Value::Object(map)) if !frame.array => by_key(map),
            _ => BTreeMap::new(),
        };
        let before_of = |seg: &Segment| prev.and_then(|p| child_in(p, &prev_keys, seg));
        if frame.array {
            // Items come in order: all but the last are finished; the last
            // is being written if it is new or grew.
            let count = pending.len();
            for (i, (seg, item)) in pending.into_iter().enumerate() {
                let before = before_of(&seg);
                let active = i + 1 == count
                    && is_growable(item)
                    && before.is_none_or(|b| diffs.differs(b, item));
                if active {
                    self.open_child(seg, item, before, diffs, out);
                } else {
                    self.emit_complete(seg, item, out);
                }
            }
            return;
        }
        let mut classes = Vec::with_capacity(pending.len());
        let mut any_new = false;
        for (seg, item) in pending {
            let before = before_of(&seg);
            let class = match before {
                _ if !is_growable(item) => Class::Complete,
                None => {
                    any_new = true;
                    Class::New
                }
                Some(b) if diffs.differs(b, item) => Class::Grown,
                Some(_) if is_hollow(item) && self.hold_placeholders => Class::Placeholder,
                Some(_) if is_hollow(item) => Class::LeftHollow,
                Some(_) => Class::Complete,
            };
            classes.push((seg, item, before, class));
        }
        // New values come after everything that existed: if any appeared,
        // the ones that grew are finished.
        let candidate = if any_new { Class::New } else { Class::Grown };
        let count = classes.iter().filter(|c| c.3 == candidate).count();
        let mut active = None;
        for (seg, item, before, class) in classes {
            if class == candidate {
                if count == 1 {
                    active = Some((seg, item, before));
                }
            } else if class == Class::LeftHollow {
                if let (Segment::Key(key), Some(frame)) = (&seg, self.frames.last_mut()) {
                    frame.left_hollow.insert(key.clone());
                }
                self.emit_complete(seg, item, out);
            } else if class != Class::Placeholder {
                self.emit_complete(seg, item, out);
            }
        }
        if let Some((seg, item, before)) = active {
            self.open_child(seg, item, before, diffs, out);
        }
    }

    /// Writes the comma and key before a new child of the deepest frame and
    /// records it as emitted.
    fn begin_child(&mut self, seg: &Segment, out: &mut String) {
        let Some(frame) = self.frames.last_mut() else {
            return;
        };
        if frame.sent > 0 {
            out.push(',');
        }
        if let Segment::Key(key) = seg {
            out.push('"');
            escape_into(out, key);
            out.push_str("\":");
            frame.keys.insert(key.clone());
        }
        frame.sent += 1;
    }

    /// Emits a finished child of the deepest frame whole.
    fn emit_complete(&mut self, seg: Segment, value: &Value, out: &mut Out) {
        let mut piece = String::new();
        self.begin_child(&seg, &mut piece);
        write_value(&mut piece, value);
        out.text(&piece);
    }

    /// Opens the child being written: a string without its closing quote,
    /// or a container, inside which the choice goes on.
    fn open_child(
        &mut self,
        seg: Segment,
        value: &Value,
        prev: Option<&Value>,
        diffs: &mut Diffs,
        out: &mut Out,
    ) {
        let mut piece = String::new();
        self.begin_child(&seg, &mut piece);
        match value {
            Value::String(text) => {
                piece.push('"');
                escape_into(&mut piece, text);
                out.text(&piece);
                self.open = Some(OpenString {
                    seg,
                    sent: text.len(),
                });
            }
            Value::Array(_) | Value::Object(_) => {
                let array = matches!(value, Value::Array(_));
                piece.push(if array { '[' } else { '{' });
                out.open(&piece);
                self.frames.push(Frame::new(Some(seg), array));
                self.choose(value, prev, diffs, out);
            }
            other => {
                write_value(&mut piece, other);
                out.text(&piece);
            }
        }
    }
}

/// How a child not yet emitted is treated when choosing.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Certain: emit it whole.
    Complete,
    /// Appeared in this snapshot: a candidate for being written now.
    New,
    /// Existed, held, and changed: a candidate if nothing new appeared.
    Grown,
    /// A hollow member held and unchanged, when placeholders are held: it
    /// stays held until it grows or its object closes.
    Placeholder,
    /// The same when placeholders are not held: finished, emitted whole,
    /// and remembered (its filling is reported as a placeholder filled).
    LeftHollow,
}

/// Whether the generator moved on at this frame: a new child appeared, or a
/// held child changed. Either way the open child is finished.
fn frame_moved(frame: &Frame, prev: &Value, cur: &Value, diffs: &mut Diffs) -> bool {
    match (prev, cur) {
        (Value::Array(p), Value::Array(c)) => c.len() > p.len(),
        (Value::Object(p), Value::Object(c)) => {
            let p = by_key(p);
            unique(c).iter().any(|(key, value)| match p.get(key) {
                None => true,
                Some(before) => !frame.keys.contains(*key) && diffs.differs(before, value),
            })
        }
        _ => false,
    }
}

/// The children of `value` that `frame` has not emitted, in document order.
fn unsent<'a>(frame: Option<&Frame>, value: &'a Value) -> Vec<(Segment, &'a Value)> {
    let Some(frame) = frame else {
        return Vec::new();
    };
    match value {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .skip(frame.sent)
            .map(|(i, item)| (Segment::Index(i), item))
            .collect(),
        Value::Object(map) => unique(map)
            .into_iter()
            .map(|(key, item)| (Segment::Key(String::from(key)), item))
            .filter(|(seg, _)| !frame.is_emitted(seg))
            .collect(),
        _ => Vec::new(),
    }
}

/// The values at each frame's path in `root` (stops early if one is
/// missing, which validation rules out).
fn values_along<'a>(frames: &[Frame], root: &'a Value) -> Vec<&'a Value> {
    let mut out = Vec::with_capacity(frames.len());
    let mut value = root;
    for frame in frames {
        if let Some(seg) = &frame.seg {
            match child(value, seg) {
                Some(next) => value = next,
                None => break,
            }
        }
        out.push(value);
    }
    out
}

fn push_seg(path: &mut PathBuf, seg: &Segment) {
    match seg {
        Segment::Key(key) => path.push_key(key.as_str()),
        Segment::Index(index) => path.push_index(*index),
    }
}

/// [`child`], a key looked up in `keys` (the object's [`by_key`]).
fn child_in<'a>(
    value: &'a Value,
    keys: &BTreeMap<&str, &'a Value>,
    seg: &Segment,
) -> Option<&'a Value> {
    match seg {
        Segment::Key(key) => keys.get(key.as_str()).copied(),
        Segment::Index(_) => child(value, seg),
    }
}

fn child<'a>(value: &'a Value, seg: &Segment) -> Option<&'a Value> {
    match seg {
        Segment::Key(key) => value.get(key),
        Segment::Index(index) => value.get_index(*index),
    }
}

fn is_growable(value: &Value) -> bool {
    matches!(value, Value::String(_) | Value::Array(_) | Value::Object(_))
}

/// Whether `value` is a skeleton with nothing in it yet: an empty string,
/// or an array or object whose every item or member is hollow (`[]`,
/// `{"tags": [], "title": ""}`). Numbers, booleans and null are content.
fn is_hollow(value: &Value) -> bool {
    match value {
        Value::String(s) => s.is_empty(),
        Value::Array(items) => items.iter().all(is_hollow),
        Value::Object(map) => map.values().all(is_hollow),
        _ => false,
    }
}

/// Whether two snapshots of a value differ (member order ignored), as
/// [`find_change`] says, remembered for every array and object compared
/// while one snapshot is processed. Opening a held container compares its
/// children, then opening the one that grew compares its own: without the
/// memory each level would walk again everything below it, depth × size
/// a snapshot. Only for one snapshot: the keys are
/// addresses.
#[derive(Default)]
struct Diffs(BTreeMap<(*const Value, *const Value), bool>);

impl Diffs {
    fn differs(&mut self, prev: &Value, cur: &Value) -> bool {
        if !matches!(
            (prev, cur),
            (Value::Array(_), Value::Array(_)) | (Value::Object(_), Value::Object(_))
        ) {
            return find_change(prev, cur, &mut PathBuf::new());
        }
        let key = (core::ptr::from_ref(prev), core::ptr::from_ref(cur));
        if let Some(&known) = self.0.get(&key) {
            return known;
        }
        let changed = match (prev, cur) {
            (Value::Array(a), Value::Array(b)) => {
                a.len() != b.len() || a.iter().zip(b).any(|(x, y)| self.differs(x, y))
            }
            (Value::Object(a), Value::Object(b)) => {
                // Distinct keys: the same set when as many and all of
                // `a`'s are in `b`.
                let (in_a, in_b) = (by_key(a), by_key(b));
                in_a.len() != in_b.len()
                    || in_a
                        .iter()
                        .any(|(key, x)| in_b.get(key).is_none_or(|y| self.differs(x, y)))
            }
            _ => true,
        };
        self.0.insert(key, changed);
        changed
    }
}

/// Whether `cur` differs from `prev` (member order ignored); if so, `path`
/// is extended to the first place where it does.
fn find_change(prev: &Value, cur: &Value, path: &mut PathBuf) -> bool {
    match (prev, cur) {
        (Value::Null, Value::Null) => false,
        (Value::Bool(a), Value::Bool(b)) => a != b,
        (Value::Number(a), Value::Number(b)) => a.as_str() != b.as_str(),
        (Value::String(a), Value::String(b)) => a != b,
        (Value::Array(a), Value::Array(b)) => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                path.push_index(i);
                if find_change(x, y, path) {
                    return true;
                }
                path.pop();
            }
            if a.len() != b.len() {
                path.push_index(a.len().min(b.len()));
                return true;
            }
            false
        }
        (Value::Object(a), Value::Object(b)) => {
            let (in_a, in_b) = (by_key(a), by_key(b));
            for (key, x) in unique_by(a, &in_a) {
                path.push_key(key);
                match in_b.get(key) {
                    Some(y) if !find_change(x, y, path) => {}
                    _ => return true,
                }
                path.pop();
            }
            let added = unique_by(b, &in_b)
                .into_iter()
                .find(|(k, _)| !in_a.contains_key(k));
            if let Some((key, _)) = added {
                path.push_key(key);
                return true;
            }
            false
        }
        _ => true,
    }
}

/// Checks that `cur` only grows `prev`: nothing disappears, no type
/// changes, strings extend, numbers and literals stay.
fn check_growth(
    prev: &Value,
    cur: &Value,
    path: &mut PathBuf,
) -> Result<(), (PathBuf, ChunkErrorKind)> {
    match (prev, cur) {
        (Value::Null, Value::Null) => Ok(()),
        (Value::Bool(_), Value::Bool(_)) | (Value::Number(_), Value::Number(_)) => {
            if find_change(prev, cur, &mut PathBuf::new()) {
                Err((
                    path.clone(),
                    ChunkErrorKind::ScalarChanged {
                        from: prev.to_json(),
                        to: cur.to_json(),
                    },
                ))
            } else {
                Ok(())
            }
        }
        (Value::String(a), Value::String(b)) => {
            if b.starts_with(a.as_str()) {
                Ok(())
            } else {
                Err((path.clone(), ChunkErrorKind::StringNotExtended))
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for (i, x) in a.iter().enumerate() {
                path.push_index(i);
                match b.get(i) {
                    Some(y) => check_growth(x, y, path)?,
                    None => return Err((path.clone(), ChunkErrorKind::Disappeared)),
                }
                path.pop();
            }
            Ok(())
        }
        (Value::Object(a), Value::Object(b)) => {
            let b = by_key(b);
            for (key, x) in unique(a) {
                path.push_key(key);
                match b.get(key).copied() {
                    Some(y) => check_growth(x, y, path)?,
                    None => return Err((path.clone(), ChunkErrorKind::Disappeared)),
                }
                path.pop();
            }
            Ok(())
        }
        _ => Err((
            path.clone(),
            ChunkErrorKind::TypeChanged {
                from: prev.type_name(),
                to: cur.type_name(),
            },
        )),
    }
}

/// Whether `value` nests deeper than [`MAX_DEPTH`], found without recursion.
fn too_deep(value: &Value) -> bool {
    let mut stack: Vec<(&Value, usize)> = alloc::vec![(value, 0)];
    while let Some((value, depth)) = stack.pop() {
        let children: &mut dyn Iterator<Item = &Value> = match value {
            Value::Array(items) => &mut items.iter(),
            Value::Object(map) => &mut map.values(),
            _ => continue,
        };
        if depth >= MAX_DEPTH {
            return true;
        }
        stack.extend(children.map(|child| (child, depth + 1)));
    }
    false
}
