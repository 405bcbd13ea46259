//! The incremental JSON parser: a push state machine over bytes.
//!
//! One state per grammar position, a stack of open containers, and the live
//! partial value kept beside them. Every byte is examined once; a piece that
//! ends anywhere (inside an escape, a UTF-8 sequence, a number, a literal)
//! leaves the state waiting for the rest. Nothing recurses.

mod feed;
mod live;
mod machine;
mod numbers;
mod snapshot;
mod strings;

use alloc::boxed::Box;
use alloc::collections::VecDeque;
use alloc::string::String;
use alloc::vec::Vec;

use super::error::Error;
use super::event::OwnedEvent;
use super::options::Options;
use super::path::{Path, PathBuf, Segment};
use super::value::{Number, Value};
use crate::utf8::Utf8Tail;

pub use feed::Feed;
use feed::Input;
use live::LiveValue;
use numbers::number_prefix;
use snapshot::{attach, descend};

/// An incremental JSON parser.
///
/// Like every stage of llmstream it has three verbs: [`Parser::feed`] a
/// piece of any size, split anywhere; [`Parser::next_event`] pulls the
/// [`OwnedEvent`]s that became certain; [`Parser::finish`] says the input
/// ended. The live partial value is [`Parser::snapshot`], current after
/// every piece. Total work is linear in the bytes fed, however they are
/// cut. For hot paths, [`Parser::feed_borrowed`] lends each event instead
/// of queueing a copy; a caller that wants only the snapshot turns events
/// off with [`Options::events`].
///
/// ```
/// use llmstream::json::{OwnedEventKind, Parser};
///
/// let mut parser = Parser::new();
/// let mut deltas = Vec::new();
/// for piece in [&br#"{"blocks":[{"content":"Hel"#[..], br#"lo"}]}"#] {
///     parser.feed(piece)?;
///     while let Some(event) = parser.next_event() {
///         if let OwnedEventKind::StringDelta(text) = event.kind {
///             deltas.push(format!("{} += {text:?}", event.path));
///         }
///     }
///     // The snapshot is current after every piece.
///     println!("{}", parser.snapshot().unwrap());
/// }
/// parser.finish()?;
/// assert_eq!(deltas, [r#"blocks[0].content += "Hel""#, r#"blocks[0].content += "lo""#]);
/// # Ok::<(), llmstream::json::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Parser {
    opts: Options,
    state: State,
    /// The open containers, outermost first.
    frames: Vec<Container>,
    /// `segments[d]` is the step to the current child of `frames[d]`.
    /// Entries past `frames.len()` are kept so their key buffers are reused.
    segments: Vec<Segment>,
    /// Decoded text of the current value string.
    text: String,
    /// How much of `text` has been reported as deltas.
    delivered: usize,
    /// Source text of the current number.
    number: String,
    /// Whether a still-growing number is shown in the snapshot.
    number_shown: bool,
    utf8: Utf8Tail,
    root: LiveValue,
    /// What few parsers use (sequences of values, watched paths), boxed so
    /// that an idle parser stays small.
    extras: Option<Box<Extras>>,
    /// Stream offset of the first byte of the current piece.
    offset: u64,
    /// Boxed: it is rare, and an `Error` is larger than everything else a
    /// parser holds inline.
    error: Option<Box<Error>>,
    /// With [`Options::lenient`]: the lenient reader, which then reads
    /// every piece (boxed: strict parsers do without).
    lenient: Option<Box<crate::json::lenient::Lenient>>,
}

/// The rarely used parts of a [`Parser`].
#[derive(Debug, Clone, Default)]
struct Extras {
    /// Completed top-level values (with [`Options::multiple_values`]).
    completed: VecDeque<Value>,
    /// Events fed but not yet taken by [`Parser::next_event`].
    queue: VecDeque<OwnedEvent>,
    /// Paths whose completion the caller wants to hear of.
    watches: Vec<PathBuf>,
    /// Watched values that completed, oldest first.
    watched: VecDeque<(WatchId, Value)>,
    /// With [`Keep::Final`](crate::json::options::Keep): the elements of
    /// the open containers.
    building: snapshot::Building,
    /// Key buffers of path segments that became indices: where arrays and
    /// objects take turns at a depth, each turn back to an object would
    /// otherwise allocate its key buffer again (5,295 times in a parse of
    /// the 1 MiB twitter-like document). A buffer is made only when none is
    /// spare, so there are never more than the deepest path has segments.
    spare_keys: Vec<String>,
}

/// A path registered with [`Parser::watch`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WatchId(pub usize);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Container {
    Array,
    Object,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before a top-level value.
    RootValue,
    /// After `[`.
    ArrayFirst,
    /// After `,` in an array.
    ArrayValue,
    /// After an array element.
    ArrayNext,
    /// After `{`.
    ObjectFirst,
    /// After `,` in an object.
    ObjectKey,
    /// After a key.
    Colon,
    /// After `:`.
    MemberValue,
    /// After a member's value.
    ObjectNext,
    /// Inside a string (a key when `key`).
    Str { key: bool, escape: Escape },
    /// Inside a number.
    Number(Num),
    /// Inside `true`, `false` or `null`, `matched` bytes in.
    Literal { word: Word, matched: u8 },
    /// The top-level value is complete.
    Done,
    /// With multiple values, after a top-level number or literal: the next
    /// value must be set apart (`1 2`, not `1-2`).
    RootSeparator,
}

/// Where inside an escape sequence a string is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Escape {
    None,
    /// After `\`.
    Backslash,
    /// In `\uXXXX`: `digits` read, `high` a preceding high surrogate (or 0).
    Hex {
        digits: u8,
        unit: u16,
        high: u16,
    },
    /// After a high surrogate's escape: a `\` must follow.
    AfterHigh {
        high: u16,
    },
    /// After a high surrogate and `\`: a `u` must follow.
    AfterHighBackslash {
        high: u16,
    },
}

/// Position in RFC 8259's number grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Num {
    Minus,
    Zero,
    Int,
    Dot,
    Frac,
    Exp,
    ExpSign,
    ExpDigits,
}

impl Num {
    /// Whether the text so far is a whole number.
    fn is_complete(self) -> bool {
        matches!(self, Num::Zero | Num::Int | Num::Frac | Num::ExpDigits)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Word {
    True,
    False,
    Null,
}

impl Word {
    fn text(self) -> &'static str {
        match self {
            Word::True => "true",
            Word::False => "false",
            Word::Null => "null",
        }
    }
    fn value(self) -> Value {
        match self {
            Word::True => Value::Bool(true),
            Word::False => Value::Bool(false),
            Word::Null => Value::Null,
        }
    }
}

/// An event before it borrows from the parser: `depth` is the length of its
/// path.
#[derive(Debug, Clone, Copy)]
enum Raw {
    StartObject(usize),
    EndObject(usize),
    StartArray(usize),
    EndArray(usize),
    Delta { depth: usize, from: usize },
    Str(usize),
    Number(usize),
    Bool(usize, bool),
    Null(usize),
}

enum Step {
    Event(Raw),
    /// The piece is used up.
    Exhausted,
    Error,
}

impl Default for Parser {
    fn default() -> Self {
        Parser::new()
    }
}

impl Parser {
    /// A strict parser with default limits.
    pub fn new() -> Self {
        Parser::with_options(Options::new())
    }

    /// A parser with these options.
    pub fn with_options(opts: Options) -> Self {
        Parser {
            opts,
            state: State::RootValue,
            frames: Vec::new(),
            segments: Vec::new(),
            text: String::new(),
            delivered: 0,
            number: String::new(),
            number_shown: false,
            utf8: Utf8Tail::default(),
            root: LiveValue::default(),
            extras: None,
            offset: 0,
            error: None,
            lenient: opts
                .lenient
                .then(|| Box::new(crate::json::lenient::Lenient::new(&opts.limits))),
        }
    }

    /// Asks to be told when the value at `path` completes: it is then
    /// queued for [`Parser::next_watched`], with its final value (a string
    /// as soon as its closing quote arrives, an object when its `}` does).
    /// Cost: a path comparison per completed value while watches exist.
    ///
    /// ```
    /// use llmstream::json::{Parser, PathBuf};
    /// let mut parser = Parser::new();
    /// let name = parser.watch(PathBuf::parse("name").unwrap());
    /// parser.feed(br#"{"name":"search","input":{"q":"ru"#).unwrap();
    /// let (id, value) = parser.next_watched().unwrap();
    /// assert_eq!((id, value.as_str()), (name, Some("search")));
    /// ```
    pub fn watch(&mut self, path: PathBuf) -> WatchId {
        let watches = &mut self.extras.get_or_insert_with(Box::default).watches;
        watches.push(path);
        WatchId(watches.len() - 1)
    }

    /// The next watched value that completed.
    pub fn next_watched(&mut self) -> Option<(WatchId, Value)> {
        self.extras.as_mut()?.watched.pop_front()
    }

    /// Queues the watches a completion at `depth` satisfies.
    /// Whether any path is watched (checked per event, so kept cheap).
    fn has_watches(&self) -> bool {
        self.extras.as_ref().is_some_and(|e| !e.watches.is_empty())
    }

    fn extras_mut(&mut self) -> &mut Extras {
        self.extras.get_or_insert_with(Box::default)
    }

    /// Keeps a completed top-level value of a sequence.
    fn keep_completed(&mut self, value: Value) {
        self.extras_mut().completed.push_back(value);
    }

    fn check_watches(&mut self, raw: Raw) {
        let found = self.watched_values(raw);
        if let Some(extras) = self.extras.as_deref_mut() {
            extras.watched.extend(found);
        }
    }

    /// The watches that the completion `raw` satisfies, with their values
    /// (read while the completed values of a sequence are in place: a
    /// top-level value has just moved there).
    fn watched_values(&self, raw: Raw) -> Vec<(WatchId, Value)> {
        let mut found = Vec::new();
        let Some(extras) = self.extras.as_deref() else {
            return found;
        };
        let depth = match raw {
            Raw::EndObject(d) | Raw::EndArray(d) | Raw::Str(d) | Raw::Number(d) => d,
            Raw::Bool(d, _) | Raw::Null(d) => d,
            _ => return found,
        };
        let Some(path) = self.segments.get(..depth) else {
            return found;
        };
        for (i, watch) in extras.watches.iter().enumerate() {
            if watch.segments() != path {
                continue;
            }
            let value = match raw {
                Raw::Str(d) => Value::String(self.open_text(d).into()),
                Raw::Number(_) => Value::Number(Number::from_valid(&self.number)),
                Raw::Bool(_, b) => Value::Bool(b),
                Raw::Null(_) => Value::Null,
                _ => match self.completed_at(depth) {
                    Some(v) => v.clone(),
                    None => continue,
                },
            };
            found.push((WatchId(i), value));
        }
        found
    }

    /// The options in force.
    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// Takes the next piece of input, of any size, cut anywhere.
    ///
    /// The piece is parsed at once: the snapshot includes it when this
    /// returns, and its events (unless [`Options::events`] is off) wait
    /// for [`Parser::next_event`]. An error names the byte offset in the
    /// whole stream and the path; the events before it are queued, and
    /// the parser refuses further input with the same error.
    pub fn feed(&mut self, piece: &[u8]) -> Result<(), Error> {
        if let Some(lenient) = self.lenient.as_deref_mut() {
            lenient.feed(piece)?;
            self.offset += piece.len() as u64;
            return Ok(());
        }
        if self.opts.events {
            let mut queue = self.take_queue();
            let result = drain(&mut self.feed_borrowed(piece), &mut queue);
            self.extras_mut().queue = queue;
            result
        } else {
            self.feed_quietly(piece)
        }
    }

    /// The next event that became certain, oldest first; `None` when the
    /// events of what was fed so far have all been taken.
    pub fn next_event(&mut self) -> Option<OwnedEvent> {
        self.extras.as_mut()?.queue.pop_front()
    }

    /// The input ended: a document still open is an
    /// [`UnexpectedEnd`](crate::json::ErrorKind::UnexpectedEnd) error, and
    /// the last events (a number that ended with the input) are queued.
    pub fn finish(&mut self) -> Result<(), Error> {
        if let Some(lenient) = self.lenient.as_deref_mut() {
            return lenient.finish();
        }
        if self.opts.events {
            let mut queue = self.take_queue();
            let result = drain(&mut self.finish_borrowed(), &mut queue);
            self.extras_mut().queue = queue;
            result
        } else {
            self.finish_borrowed().run()
        }
    }

    /// The lending variant of [`Parser::feed`], for hot paths: the piece's
    /// events are pulled one at a time from the returned [`Feed`], each
    /// borrowing the parser and the piece instead of being copied into the
    /// queue. Parsing happens as events are pulled; dropping the `Feed`
    /// early still consumes the whole piece (the rest of its events are
    /// discarded), so the snapshot never misses accepted bytes.
    pub fn feed_borrowed<'p, 'i>(&'p mut self, piece: &'i [u8]) -> Feed<'p, 'i> {
        if let Some(lenient) = self.lenient.as_deref_mut() {
            // Lenient mode reports no events: the piece is read, and the
            // cursor is empty, or holds the error of a limit passed.
            let read = lenient.feed(piece);
            self.offset += piece.len() as u64;
            return self.lenient_feed(read);
        }
        let room = self.opts.limits.max_input_bytes.saturating_sub(self.offset);
        let room = usize::try_from(room).unwrap_or(usize::MAX);
        let over_limit = piece.len() > room;
        let input = piece.get(..room).unwrap_or(piece);
        Feed {
            parser: self,
            input: Input::new(input),
            pos: 0,
            eof: false,
            done: false,
            over_limit,
        }
    }

    /// The lending variant of [`Parser::finish`]: the last events, pulled
    /// from the returned [`Feed`].
    pub fn finish_borrowed(&mut self) -> Feed<'_, 'static> {
        if let Some(lenient) = self.lenient.as_deref_mut() {
            let read = lenient.finish();
            return self.lenient_feed(read);
        }
        Feed {
            parser: self,
            input: Input::new(&[]),
            pos: 0,
            eof: true,
            done: false,
            over_limit: false,
        }
    }

    /// The cursor of a piece lenient mode read: empty, or the error.
    fn lenient_feed<'i>(&mut self, read: Result<(), Error>) -> Feed<'_, 'i> {
        let failed = read.is_err();
        if let Err(error) = read {
            self.error = Some(Box::new(error));
        }
        Feed {
            parser: self,
            input: Input::new(&[]),
            pos: 0,
            eof: true,
            done: !failed,
            over_limit: false,
        }
    }

    /// Parses a piece without building its events: the fast path of
    /// [`Parser::feed`] when [`Options::events`] is off.
    fn feed_quietly(&mut self, input: &[u8]) -> Result<(), Error> {
        match self.string_piece(input) {
            None => self.feed_borrowed(input).run(),
            Some((pos, _)) if pos == input.len() => {
                self.offset += pos as u64;
                Ok(())
            }
            Some((pos, valid)) => Feed {
                parser: self,
                input: Input::validated(input, valid),
                pos,
                eof: false,
                done: false,
                over_limit: false,
            }
            .run(),
        }
    }

    /// The queue of events not yet taken, moved out while a piece adds to
    /// it (the [`Feed`] borrows the parser meanwhile).
    fn take_queue(&mut self) -> VecDeque<OwnedEvent> {
        self.extras
            .as_mut()
            .map(|extras| core::mem::take(&mut extras.queue))
            .unwrap_or_default()
    }

    /// The live partial value: `None` while no value has started (or, with
    /// [`Options::multiple_values`], between values). The snapshot policy:
    /// completed values as in the document, open strings
    /// with their text so far, members whose value has not started omitted,
    /// numbers that may still grow omitted, literals shown from their first
    /// byte. It only ever grows.
    pub fn snapshot(&self) -> Option<&Value> {
        match self.lenient.as_deref() {
            Some(lenient) => lenient.value(),
            None => self.root.get(),
        }
    }

    /// Lenient mode: whether several values were read at the top, so that
    /// the value is the array of them. The snapshot turns into that array
    /// when the second value begins (its one change that is not growth at
    /// the end); a reader that mirrors it starts again then. Always false
    /// in strict mode.
    pub fn several_values(&self) -> bool {
        self.lenient
            .as_deref()
            .is_some_and(|lenient| lenient.several_values())
    }

    /// Takes the value out (the snapshot, complete once [`Parser::finish`]
    /// succeeded).
    pub fn into_value(mut self) -> Option<Value> {
        match self.lenient.as_deref_mut() {
            Some(lenient) => lenient.take_value(),
            None => self.root.into_inner(),
        }
    }

    /// Takes the value out, leaving the parser with none (see
    /// [`Parser::reset`] to parse another document with it).
    pub fn take_value(&mut self) -> Option<Value> {
        match self.lenient.as_deref_mut() {
            Some(lenient) => lenient.take_value(),
            None => self.root.take(),
        }
    }

    /// Makes the parser ready for a new document, with the same options and
    /// watches, keeping its buffers: a parser reused for many small
    /// documents (one per SSE event, say) allocates only for their values.
    ///
    /// ```
    /// use llmstream::json::Parser;
    /// let mut parser = Parser::new();
    /// for doc in [&br#"{"a":1}"#[..], b"[true]"] {
    ///     parser.reset();
    ///     parser.feed(doc)?;
    ///     parser.finish()?;
    ///     println!("{}", parser.take_value().unwrap());
    /// }
    /// # Ok::<(), llmstream::json::Error>(())
    /// ```
    pub fn reset(&mut self) {
        self.state = State::RootValue;
        self.frames.clear();
        self.text.clear();
        self.delivered = 0;
        self.number.clear();
        self.number_shown = false;
        self.utf8 = Utf8Tail::default();
        self.root.take();
        if let Some(extras) = self.extras.as_deref_mut() {
            extras.completed.clear();
            extras.watched.clear();
            extras.building.clear();
        }
        self.offset = 0;
        self.error = None;
        if let Some(lenient) = self.lenient.as_deref_mut() {
            *lenient = crate::json::lenient::Lenient::new(&self.opts.limits);
        }
    }

    /// With [`Options::multiple_values`]: the next completed top-level value.
    pub fn take_completed(&mut self) -> Option<Value> {
        self.extras.as_mut()?.completed.pop_front()
    }

    /// The error that stopped the parser, if any.
    pub fn error(&self) -> Option<&Error> {
        self.error.as_deref()
    }

    /// Bytes fed so far.
    pub fn bytes_fed(&self) -> u64 {
        self.offset
    }

    /// Whether the top-level value is complete (single-value mode).
    pub fn is_complete(&self) -> bool {
        self.state == State::Done
    }

    /// The path of the value being parsed now.
    pub fn path(&self) -> Path<'_> {
        Path::new(self.segments.get(..self.path_len()).unwrap_or(&[]))
    }

    /// Signals the end of input and takes the value, accepting a document
    /// cut short: if the input ended inside a value, the result is what
    /// [`Parser::partial_value`] describes instead of an error. Input that
    /// is invalid (not merely incomplete) is still an error.
    pub fn finish_partial(&mut self) -> Result<Option<Value>, Error> {
        if let Some(lenient) = self.lenient.as_deref_mut() {
            lenient.finish()?;
            return Ok(lenient.take_value());
        }
        match self.finish_borrowed().run() {
            Ok(()) => Ok(self.root.take()),
            Err(e) if e.is_incomplete() => {
                let root = self.root.take();
                Ok(self.with_cut_number(root))
            }
            Err(e) => Err(e),
        }
    }

    /// The best-effort value of what was fed, as if the document ended here:
    /// the snapshot plus a number cut short, kept as its longest valid
    /// prefix (`12`, `1.`→`1`, `1e`→`1`; a lone `-` is dropped). This is
    /// what [`repair`](super::repair) returns. After an error (other than
    /// the input ending) it is the snapshot: a number the error cut short
    /// is not the prefix of anything valid.
    pub fn partial_value(&self) -> Option<Value> {
        if let Some(lenient) = self.lenient.as_deref() {
            return lenient.value().cloned();
        }
        self.with_cut_number(self.root.get().cloned())
    }

    fn with_cut_number(&self, mut root: Option<Value>) -> Option<Value> {
        // Failed inside a number, the parser holds only the part of it that
        // came in earlier pieces (the rest was read in place): taking it
        // would make the value depend on the cuts. (Ending inside one is
        // the case this is for.)
        if self.error.as_deref().is_some_and(|e| !e.is_incomplete()) {
            return root;
        }
        if let State::Number(_) = self.state {
            if !self.number_shown {
                if let Some(n) = number_prefix(&self.number) {
                    let depth = self.frames.len();
                    if depth == 0 {
                        root = Some(Value::Number(n));
                    } else if let Some(container) = descend(&mut root, depth - 1) {
                        attach(container, self.member_key(), Value::Number(n));
                    }
                }
            }
        }
        root
    }
}

/// Pulls every event of a piece into the queue, as owned events.
fn drain(feed: &mut Feed<'_, '_>, queue: &mut VecDeque<OwnedEvent>) -> Result<(), Error> {
    while let Some(event) = feed.next_event() {
        queue.push_back(event?.to_owned());
    }
    Ok(())
}

#[cfg(test)]
mod tests {

    /// Feeds a piece through the lending variant, handing each event to
    /// `on_event` (what a test that watches events as they come wants).
    fn feed_with(
        parser: &mut Parser,
        piece: &[u8],
        mut on_event: impl FnMut(Event<'_>),
    ) -> Result<(), Error> {
        let mut feed = parser.feed_borrowed(piece);
        while let Some(event) = feed.next_event() {
            on_event(event?);
        }
        Ok(())
    }

    /// Ends the input through the lending variant, handing each last event to
    /// `on_event`.
    fn finish_with(parser: &mut Parser, mut on_event: impl FnMut(Event<'_>)) -> Result<(), Error> {
        let mut feed = parser.finish_borrowed();
        while let Some(event) = feed.next_event() {
            on_event(event?);
        }
        Ok(())
    }

    use super::*;
    use crate::json::Event;

    /// A gateway holds one idle parser per open tool call: it must stay
    /// small and own no heap until bytes arrive (at most 256 bytes).
    #[test]
    fn an_idle_parser_is_small_and_owns_no_heap() {
        assert!(core::mem::size_of::<Parser>() <= 256);
        let parser = Parser::new();
        assert!(parser.extras.is_none() && parser.error.is_none());
        assert_eq!(parser.frames.capacity(), 0);
        assert_eq!(parser.segments.capacity(), 0);
        assert_eq!(parser.text.capacity(), 0);
        assert_eq!(parser.number.capacity(), 0);
    }

    /// Live strings that open and close reuse one buffer: each closed one
    /// is left in the snapshot at its exact size, the buffer comes back for
    /// the next string, and one longer than the spare limit is shrunk in
    /// place instead of being kept as a spare.
    #[test]
    fn closed_live_strings_are_exact_and_their_buffer_is_reused() {
        let long = "y".repeat(snapshot::SPARE_ROOM_LIMIT + 100);
        let doc = alloc::format!(
            r#"{{"a":"{}","b":"{}","c":"{long}","d":"short"}}"#,
            "x".repeat(100),
            "z".repeat(40)
        );
        // Up to "b"'s colon: "a" has closed, "b" has not opened.
        let cut = doc.find(r#""b":"#).expect("b") + 4;
        let mut parser = Parser::new();
        for piece in doc.as_bytes()[..cut].chunks(7) {
            parser.feed(piece).expect("valid");
        }
        let spare_after_a = parser.text.capacity();
        for piece in doc.as_bytes()[cut..].chunks(7) {
            parser.feed(piece).expect("valid");
        }
        parser.finish().expect("valid");
        assert!(
            spare_after_a >= 100,
            "the buffer came back: {spare_after_a}"
        );
        assert!(parser.text.capacity() <= snapshot::SPARE_ROOM_LIMIT);
        let Some(Value::Object(map)) = parser.snapshot() else {
            panic!("an object");
        };
        for (key, value) in map.iter() {
            let Value::String(text) = value else {
                panic!("strings only");
            };
            assert_eq!(text.capacity(), text.len(), "{key} is exact");
        }
        assert_eq!(
            parser.into_value(),
            Some(crate::json::parse(doc.as_bytes()).expect("valid"))
        );
    }

    /// Where arrays and objects take turns at a depth, the key buffer an
    /// index displaced is kept and comes back for the next object there,
    /// and every path stays right (a longer key after a shorter one, keys
    /// cut across pieces).
    #[test]
    fn key_buffers_come_back_when_a_depth_turns_from_index_to_key() {
        let doc = br#"[{"id":1},[2],{"longer_name":3},[4,[5]],{"k":{"x":[6]}}]"#;
        let expected = [
            "[0].id",
            "[1][0]",
            "[2].longer_name",
            "[3][0]",
            "[3][1][0]",
            "[4].k.x[0]",
        ];
        for piece in [1, 2, 3, 5, doc.len()] {
            let mut parser = Parser::new();
            let mut paths = Vec::new();
            for part in doc.chunks(piece) {
                feed_with(&mut parser, part, |event| {
                    if let crate::json::EventKind::Number(_) = event.kind {
                        paths.push(alloc::format!("{}", event.path));
                    }
                })
                .expect("valid");
            }
            parser.finish().expect("valid");
            assert_eq!(paths, expected, "pieces of {piece}");
            // Depth 1 held "id", then an index, then "longer_name" in the
            // same buffer, then an index, then "k": still that buffer (a
            // new one for "k" would have room for 8 bytes).
            let Some(Segment::Key(k)) = parser.segments.get(1) else {
                panic!("depth 1 ends on a key");
            };
            assert_eq!(k, "k");
            assert!(k.capacity() >= "longer_name".len(), "{}", k.capacity());
            let spare = parser.extras.as_deref().map_or(0, |e| e.spare_keys.len());
            assert_eq!(spare, 0, "every buffer set aside was taken back");
        }
    }

    use crate::json::{Limits, OwnedEvent, OwnedEventKind};
    use alloc::vec;

    /// A small deterministic generator (64-bit LCG, high bits).
    struct Lcg(u64);

    impl Lcg {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 33) % n
        }
    }

    /// Feeds `doc` in `pieces` through `push` (its string fast path) and
    /// through the general path (`push_with`), comparing the snapshot, the
    /// offset and any error after every piece.
    fn same_both_ways(doc: &[u8], cuts: &[usize], opts: Options) {
        let mut fast = Parser::with_options(opts);
        let mut slow = Parser::with_options(opts);
        let mut at = 0;
        for &cut in cuts.iter().chain(core::iter::once(&doc.len())) {
            let piece = &doc[at..cut.clamp(at, doc.len())];
            at += piece.len();
            let a = fast.feed(piece);
            let b = feed_with(&mut slow, piece, |_| {});
            assert_eq!(a, b, "{doc:?} {cuts:?}");
            assert_eq!(fast.snapshot(), slow.snapshot(), "{doc:?} {cuts:?}");
            assert_eq!(fast.bytes_fed(), slow.bytes_fed());
            assert_eq!(fast.utf8.len(), slow.utf8.len());
            if a.is_err() {
                return;
            }
        }
        assert_eq!(fast.finish(), finish_with(&mut slow, |_| {}));
        assert_eq!(fast.into_value(), slow.into_value());
    }

    /// Feeds `doc` whole and byte by byte, quietly (`push`) and reading
    /// events (`push_with`): the outcome, the events and (on success) the
    /// value must be the same each way.
    fn same_whole_and_bytewise(doc: &[u8], opts: Options) {
        let run = |pieces: &[&[u8]], quiet: bool| {
            let mut parser = Parser::with_options(opts);
            let mut events = Vec::new();
            let mut outcome = Ok(());
            for piece in pieces.iter().chain([&&b""[..]]) {
                outcome = if piece.is_empty() {
                    finish_with(&mut parser, |e| events.push(e.to_owned()))
                } else if quiet {
                    parser.feed(piece)
                } else {
                    feed_with(&mut parser, piece, |e| events.push(e.to_owned()))
                };
                if outcome.is_err() {
                    break;
                }
            }
            // After an error the snapshot may hold a growing number shown
            // at the end of an earlier piece: it depends on the cuts by
            // design, so it is compared only on success.
            let value = outcome.is_ok().then(|| parser.into_value());
            // Likewise the text reported before an error: a piece's deltas
            // come at its end, so a later error cuts them off.
            if outcome.is_err() {
                events.retain(|e| !matches!(e.kind, OwnedEventKind::StringDelta(_)));
            }
            (outcome, merge_deltas(events), value)
        };
        let singles: Vec<&[u8]> = doc.chunks(1).collect();
        for quiet in [true, false] {
            assert_eq!(
                run(&[doc], quiet),
                run(&singles, quiet),
                "{:?} {opts:?} quiet {quiet}",
                String::from_utf8_lossy(doc)
            );
        }
    }

    /// Joins consecutive deltas of one string: how its text is split
    /// depends on the pieces, by design.
    fn merge_deltas(events: Vec<OwnedEvent>) -> Vec<OwnedEvent> {
        let mut out: Vec<OwnedEvent> = Vec::new();
        for event in events {
            if let (Some(last), OwnedEventKind::StringDelta(more)) = (out.last_mut(), &event.kind) {
                if let OwnedEventKind::StringDelta(text) = &mut last.kind {
                    if last.path == event.path {
                        text.push_str(more);
                        continue;
                    }
                }
            }
            out.push(event);
        }
        out
    }

    fn each_mode(limits: Limits) -> [Options; 5] {
        [
            Options::new(),
            Options::new().final_value(),
            Options::new().growing_numbers(true),
            Options::new().multiple_values(true),
            Options::new().limits(limits),
        ]
    }

    /// Numbers read whole (`whole_number`) and byte by byte (the state
    /// machine) give the same value, the same number events and the same
    /// error at the same byte, in every mode.
    #[test]
    fn whole_numbers_match_the_state_machine() {
        let numbers = [
            "0",
            "-0",
            "7",
            "-12",
            "3.25",
            "-0.5e-3",
            "1E+9",
            "6.02e23",
            "01",
            "-01",
            "1.",
            "1.e5",
            "1e",
            "1e+",
            "-",
            "--1",
            "1.5.",
            "1e5e",
            "1-",
            "0x1",
            "2]",
            "1,",
            "123456789012345678901234567890.5",
        ];
        let limits = Limits {
            max_number_bytes: 6,
            ..Limits::new()
        };
        for n in numbers {
            for doc in [
                alloc::format!("[{n}, 1]"),
                alloc::format!("{{\"a\":{n}}}"),
                alloc::format!("{n} "),
            ] {
                for opts in each_mode(limits) {
                    same_whole_and_bytewise(doc.as_bytes(), opts);
                }
            }
        }
    }

    /// Short strings and keys read whole (`whole_key`, `whole_string`) and
    /// through the string states give the same result in every mode,
    /// including at the string limit and on every kind of bad string.
    #[test]
    fn whole_strings_match_the_state_machine() {
        let strings: [&[u8]; 14] = [
            b"",
            b"a",
            b"plain text",
            b"exactly8",
            b"longer than the limit",
            b"an escape \\n here",
            b"\"quoted\"",
            "caf\u{e9} \u{65e5}\u{672c} \u{1f680}".as_bytes(),
            b"bad \xff byte",
            b"cut \xe6\x97",
            b"tab\there",
            b"\\u00e9",
            b"a string that runs on for more than sixty-four bytes before its quote",
            b"unterminated",
        ];
        let limits = Limits {
            max_string_bytes: 8,
            ..Limits::new()
        };
        for body in strings {
            let quoted = |s: &[u8]| {
                let mut out = b"\"".to_vec();
                out.extend_from_slice(s);
                if s != b"unterminated" {
                    out.push(b'"');
                }
                out
            };
            let q = quoted(body);
            let mut docs = Vec::new();
            for (head, mid, tail) in [
                (&b"["[..], &b""[..], &b",1]"[..]),
                (b"{\"k\":", b"", b"}"),
                (b"{", b":1,\"z\":", b"}"),
                (b"", b"", b" "),
            ] {
                let mut doc = head.to_vec();
                doc.extend_from_slice(&q);
                if !mid.is_empty() {
                    doc.extend_from_slice(mid);
                    doc.extend_from_slice(&q);
                }
                doc.extend_from_slice(tail);
                docs.push(doc);
            }
            for doc in docs {
                for opts in each_mode(limits) {
                    same_whole_and_bytewise(&doc, opts);
                }
            }
        }
    }

    /// UTF-8 is validated a window at a time: a string, key, number or
    /// character cut by a window's end reads as if it were not, wherever
    /// the cut falls.
    #[test]
    fn window_ends_change_nothing() {
        let atoms: [&str; 7] = ["é", "日", "🚀", "\\n", "\\u00e9", "\\ud83d\\ude80", "\\\\"];
        // The first window starts at the first string's first byte, 2.
        let end = feed::WINDOW + 2;
        for atom in atoms {
            for atom_at in end - 12..end + 4 {
                // What comes before the atom, and the padding that puts the
                // atom at `atom_at`.
                for (before, after) in [
                    // In a long string.
                    ("ab", "cd\"]"),
                    // At the start of a short string.
                    ("\",\"", "z\",12345.5e-3]"),
                    // In a key, a number after it.
                    ("\",{\"k", "\":-98765.4321}]"),
                ] {
                    let pad = atom_at - 2 - before.len();
                    let doc = alloc::format!("[\"{}{before}{atom}{after}", "x".repeat(pad));
                    assert_eq!(doc.find(atom), Some(atom_at));
                    for opts in [Options::new(), Options::new().final_value()] {
                        same_whole_and_bytewise(doc.as_bytes(), opts);
                    }
                    let value = crate::json::parse(doc.as_bytes()).expect("valid");
                    let mut parser = Parser::new();
                    for piece in doc.as_bytes().chunks(feed::WINDOW / 2 + 3) {
                        parser.feed(piece).expect("valid");
                    }
                    parser.finish().expect("valid");
                    assert_eq!(parser.into_value(), Some(value));
                }
            }
            // A piece that starts inside a string (the fast path for such
            // pieces validates a window of its own) and runs past a window.
            for cut_at in feed::WINDOW - 12..feed::WINDOW + 2 {
                let doc = alloc::format!("[\"{}{atom}tail\"]", "y".repeat(cut_at + 10));
                let (first, second) = doc.as_bytes().split_at(12);
                let mut parser = Parser::new();
                parser.feed(first).expect("valid");
                parser.feed(second).expect("valid");
                parser.finish().expect("valid");
                let value = crate::json::parse(doc.as_bytes()).expect("valid");
                assert_eq!(parser.into_value(), Some(value), "{atom} at {cut_at}");
            }
        }
    }

    /// A watch on the top level of a sequence gets each completed value,
    /// whatever its kind, in every mode that keeps a value.
    #[test]
    fn watching_the_top_of_a_sequence_gets_every_value() {
        let doc = br#"{"a":[1,"x"]} "two" [3] 4 true "#;
        for opts in [Options::new(), Options::new().final_value()] {
            let mut parser = Parser::with_options(opts.multiple_values(true));
            let top = parser.watch(PathBuf::parse("").expect("the root path"));
            parser.feed(doc).expect("valid");
            parser.finish().expect("valid");
            let seen: Vec<_> = core::iter::from_fn(|| parser.next_watched())
                .map(|(id, v)| {
                    assert_eq!(id, top);
                    v.to_json()
                })
                .collect();
            assert_eq!(
                seen,
                [r#"{"a":[1,"x"]}"#, r#""two""#, "[3]", "4", "true"],
                "{opts:?}"
            );
        }
    }

    /// A reset parser parses like a new one, whatever the last document
    /// left behind: an error, a cut string, open containers, keys.
    #[test]
    fn a_reset_parser_parses_like_a_new_one() {
        let firsts: [&[u8]; 6] = [
            br#"{"a":{"b":[1,2,{"c":"d"#,
            b"[1 2",
            br#"{"k":"\u00"#,
            b"[\"caf\xc3",
            br#"{"x":[true,false,null],"y":-1.5e3}"#,
            b"12",
        ];
        let seconds: [&[u8]; 4] = [
            br#"{"a":[{"b":"\u00e9t\u00e9"}],"n":[0,1.25,-3]}"#,
            br#"["x",{"y":{}},[]]"#,
            br#"{"a":"#,
            b"[1,]",
        ];
        for opts in [
            Options::new(),
            Options::new().final_value(),
            Options::new().snapshot(false),
            Options::new().multiple_values(true).trailing_commas(true),
        ] {
            for first in firsts {
                for second in seconds {
                    let mut reused = Parser::with_options(opts);
                    let _ = feed_with(&mut reused, first, |_| {});
                    reused.reset();
                    // Nothing of the last document is left to hold memory.
                    assert!(reused.extras.as_ref().is_none_or(|e| e.building.is_empty()
                        && e.completed.is_empty()
                        && e.watched.is_empty()));
                    let mut fresh = Parser::with_options(opts);
                    let mut events = (Vec::new(), Vec::new());
                    let a = feed_with(&mut reused, second, |e| events.0.push(e.to_owned()));
                    let b = feed_with(&mut fresh, second, |e| events.1.push(e.to_owned()));
                    assert_eq!(a, b, "{first:?} then {second:?}");
                    let a = finish_with(&mut reused, |e| events.0.push(e.to_owned()));
                    let b = finish_with(&mut fresh, |e| events.1.push(e.to_owned()));
                    assert_eq!(a, b, "{first:?} then {second:?}");
                    assert_eq!(events.0, events.1, "{first:?} then {second:?}");
                    assert_eq!(reused.take_completed(), fresh.take_completed());
                    assert_eq!(reused.bytes_fed(), fresh.bytes_fed());
                    assert_eq!(reused.take_value(), fresh.into_value());
                }
            }
        }
    }

    /// An escape cut after its backslash is finished by `push`'s string
    /// fast path at the start of the next piece: at every pair of cuts,
    /// with a bad escape letter, a `\u` escape and the closing quote right
    /// after, it gives what the general path gives.
    #[test]
    fn escapes_cut_after_the_backslash_match_the_general_path() {
        let docs: [&[u8]; 5] = [
            br#"{"a":"x\ny\tz\"q\\r\/"}"#,
            br#"["\n\n\n\u00e9\n"]"#,
            br#"["ab\x"]"#,
            br#"["ab\"#,
            r#"["é\\\n日\u00e9\\"]"#.as_bytes(),
        ];
        for doc in docs {
            for first in 1..doc.len() {
                for second in first..doc.len() {
                    for snapshot in [true, false] {
                        let opts = Options::new().snapshot(snapshot);
                        same_both_ways(doc, &[first, second], opts);
                    }
                }
            }
        }
    }

    #[test]
    fn push_fast_path_matches_general_path() {
        let atoms: &[&[u8]] = &[
            b"plain text ",
            b"\\n",
            b"\\\"",
            b"\\\\",
            b"\\t",
            b"\\/",
            b"\\r",
            b"\\b",
            b"\\u00e9",
            b"\\ud83d\\ude80",
            "é".as_bytes(),
            "日本".as_bytes(),
            "🚀".as_bytes(),
            b"0123456789abcdef",
        ];
        let bad: &[&[u8]] = &[b"\x01", b"\\x", b"\xff", b"\xe2\x28", b"\\ud800x"];
        let mut rng = Lcg(7);
        for round in 0..400 {
            let mut doc = b"{\"a\":[\"".to_vec();
            for _ in 0..rng.below(40) {
                doc.extend_from_slice(atoms[rng.below(atoms.len() as u64) as usize]);
            }
            if round % 5 == 0 {
                let at = rng.below(doc.len() as u64 - 6) as usize + 6;
                let b = bad[rng.below(bad.len() as u64) as usize];
                doc.splice(at..at, b.iter().copied());
            }
            doc.extend_from_slice(b"\",\"x\"],\"b\":\"");
            doc.extend_from_slice("tail é".as_bytes());
            if round % 2 == 0 {
                doc.extend_from_slice(b"\"}");
            }
            // Pieces of up to 16 bytes, and (one round in three) of up
            // to 70: both sizes of `escaped_piece`.
            let longest = if round % 3 == 0 { 70 } else { 20 };
            let step = 1 + rng.below(longest) as usize;
            let even: Vec<usize> = (1..doc.len()).step_by(step).collect();
            let mut random = vec![];
            let mut at = 0;
            while at < doc.len() {
                at += 1 + rng.below(longest + 4) as usize;
                random.push(at);
            }
            for limits in [
                Limits::new(),
                Limits {
                    max_string_bytes: 1 + rng.below(64) as usize,
                    ..Limits::new()
                },
                Limits {
                    max_input_bytes: 1 + rng.below(doc.len() as u64),
                    ..Limits::new()
                },
            ] {
                for snapshot in [true, false] {
                    let opts = Options::new().limits(limits).snapshot(snapshot);
                    same_both_ways(&doc, &even, opts);
                    same_both_ways(&doc, &random, opts);
                }
            }
        }
    }
}
