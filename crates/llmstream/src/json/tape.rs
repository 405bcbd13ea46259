//! Complete documents read in place: a flat tape of entries, reused from
//! document to document, and borrowed views into it.
//!
//! A provider stream is thousands of small JSON payloads, one per SSE
//! event, each read once and thrown away. Building a [`Value`] for each
//! costs an allocation per object, array and string, a free for each
//! again, and moves of every member into place: most of the time of a
//! stream, where the reader wants three fields of each payload. A [`Tape`]
//! holds a document as one vector of 8-byte entries (a container records
//! where it ends, so a reader skips it in one step) over the input itself:
//! a string without escapes, a key or a number is only a place in the
//! input, which the tape borrows, and only the strings with escapes are
//! decoded, into one text buffer of the tape's. Both keep their capacity,
//! so after the first few payloads a parse allocates nothing. [`Node`]
//! reads it like a `&Value`.
//!
//! Its heap stays near the document's size (at most twice it on the
//! documents of the benchmarks). Entries that fill up grow
//! sixteenfold, but never past a bound counted when they first do (one
//! value at most per `[`, `{`, `,` and `:`, plus the root): a large
//! document's last move is to its bound, from a sixteenth of it. Plain
//! doubling held three times the entries at that move; reserving the
//! bound up front reserved for invalid input before reading it, and for
//! the commas of every string (a tool call's arguments are JSON in a
//! string), where the growth from what was read keeps both in proportion.
//! The decoded text never grows past what the rest of the input could
//! decode to. A number-heavy document is the hard case: a coordinate
//! `-73.123456,` is eleven bytes of text and one entry, so entries had to
//! be 8 bytes, not the 12 of an enum of two `u32`s.
//!
//! The document is read by the walk that [`parse`](super::parse) reads
//! one with too (`json/walk.rs`): RFC 8259's grammar, strictly, within
//! [`Limits`], deciding only valid or not. For input it refuses,
//! [`Tape::parse`] runs the incremental [`Parser`](super::Parser) to
//! report exactly what is wrong and where, as `parse` would.

use alloc::string::String;
use alloc::vec::Vec;

use super::error::Error;
use super::key::Key;
use super::options::{Limits, Options};
use super::value::{Map, Number, Value};
use super::walk::{closed, decode, plain_end, walk, Literal, Sink};

/// The largest document a tape holds: an [`Entry`] packs a place in the
/// input or in the decoded text (never longer than the input) into 30
/// bits, and a container's end and length (entries are at most half the
/// input's bytes, plus one) too. A text's length fits too: a string has
/// its quotes around it, and a number is held below [`MASK`] bytes.
const MAX_INPUT: u64 = 1 << 30;

/// How many times over the entries grow when they are full: never past
/// the document's [`value_bound`], counted at the first growth.
const GROWTH: usize = 16;

/// One value of a document, as read back from its [`Packed`] form. Text
/// lives at `at..at + len` of the input, or of [`Tape::text`] when `own`;
/// a container's entries follow it, and `end` is the index just past them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Entry {
    Null,
    Bool(bool),
    Number(Text),
    String(Text),
    Array { end: u32, len: u32 },
    Object { end: u32, len: u32 },
}

/// Where a number's or a string's text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Text {
    at: u32,
    len: u32,
    /// In the tape's own text (decoded, or loaded from a [`Value`]), not
    /// in the input.
    own: bool,
}

/// An [`Entry`] in 8 bytes: its kind in the top three bits, then whether
/// its text is the tape's own, then two 30-bit fields (`at` and `len`, or
/// `end` and `len`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Packed(u64);

/// The kinds of [`Packed`] entries; containers last, so that one compare
/// tells them apart.
mod kind {
    pub(super) const NULL: u64 = 0;
    pub(super) const FALSE: u64 = 1;
    pub(super) const TRUE: u64 = 2;
    pub(super) const NUMBER: u64 = 3;
    pub(super) const STRING: u64 = 4;
    pub(super) const ARRAY: u64 = 5;
    pub(super) const OBJECT: u64 = 6;
}

const FIELD: u32 = 30;
const MASK: u64 = (1 << FIELD) - 1;
const OWN: u64 = 1 << (2 * FIELD);
const KIND: u32 = 2 * FIELD + 1;

impl Packed {
    const NULL: Packed = Packed(kind::NULL << KIND);
    const FALSE: Packed = Packed(kind::FALSE << KIND);
    const TRUE: Packed = Packed(kind::TRUE << KIND);

    /// `a` and `b` are below 2³⁰ by construction: every place, length and
    /// index is bounded by the input's size, which [`MAX_INPUT`] bounds
    /// (and a number's length by its clamped limit).
    #[inline]
    fn new(kind: u64, a: u32, b: u32) -> Packed {
        debug_assert!(u64::from(a) <= MASK && u64::from(b) <= MASK);
        Packed(kind << KIND | u64::from(a) << FIELD | u64::from(b))
    }

    #[inline]
    fn text(kind: u64, text: Text) -> Packed {
        let own = if text.own { OWN } else { 0 };
        Packed(Packed::new(kind, text.at, text.len).0 | own)
    }

    fn pack(entry: Entry) -> Packed {
        match entry {
            Entry::Null => Packed::NULL,
            Entry::Bool(false) => Packed::FALSE,
            Entry::Bool(true) => Packed::TRUE,
            Entry::Number(text) => Packed::text(kind::NUMBER, text),
            Entry::String(text) => Packed::text(kind::STRING, text),
            Entry::Array { end, len } => Packed::new(kind::ARRAY, end, len),
            Entry::Object { end, len } => Packed::new(kind::OBJECT, end, len),
        }
    }

    /// Whether this is a string of `len` bytes: the test of every key that
    /// a reader looks up, made on the packed bits (the kind and the length,
    /// whatever the place).
    #[inline]
    fn is_string_of_len(self, len: usize) -> bool {
        self.0 & !(OWN | MASK << FIELD) == kind::STRING << KIND | len as u64
    }

    /// Where a text entry's text is: its place, and whether in the tape's
    /// own text.
    #[inline]
    fn place(self) -> (usize, bool) {
        ((self.0 >> FIELD & MASK) as usize, self.0 & OWN != 0)
    }

    /// The index past a container's entries, if this is one.
    #[inline]
    fn end(self) -> Option<u32> {
        (self.0 >> KIND >= kind::ARRAY).then_some((self.0 >> FIELD & MASK) as u32)
    }

    #[inline]
    fn unpack(self) -> Entry {
        let a = (self.0 >> FIELD & MASK) as u32;
        let b = (self.0 & MASK) as u32;
        let text = Text {
            at: a,
            len: b,
            own: self.0 & OWN != 0,
        };
        match self.0 >> KIND {
            kind::FALSE => Entry::Bool(false),
            kind::TRUE => Entry::Bool(true),
            kind::NUMBER => Entry::Number(text),
            kind::STRING => Entry::String(text),
            kind::ARRAY => Entry::Array { end: a, len: b },
            kind::OBJECT => Entry::Object { end: a, len: b },
            _ => Entry::Null,
        }
    }
}

/// A parsed document, kept for reading, whose buffers are reused by the
/// next [`Tape::parse`]. It borrows the input it read, for as long as its
/// [`Node`]s are read.
///
/// ```
/// use llmstream::json::Tape;
/// let mut tape = Tape::new();
/// for payload in [&br#"{"choices":[{"delta":{"content":"Hel"}}]}"#[..],
///                 br#"{"choices":[{"delta":{"content":"lo"}}]}"#] {
///     let doc = tape.parse(payload)?;
///     let delta = doc.get("choices").and_then(|c| c.get_index(0)).and_then(|c| c.get("delta"));
///     print!("{}", delta.and_then(|d| d.get("content")).and_then(|t| t.as_str()).unwrap_or(""));
/// }
/// # Ok::<(), llmstream::json::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Tape {
    entries: Vec<Packed>,
    /// The decoded text of the strings with escapes.
    text: String,
    /// The open containers while parsing.
    open: Vec<Open>,
    /// The [`value_bound`] of the document being read, once its entries
    /// had to grow.
    bound: Option<usize>,
    limits: Limits,
}

/// A container still open while parsing: its entry, its elements so far,
/// and its kind (kept here: reading it back from its entry, far behind on
/// the tape, was a cache miss after every value of a large document, a
/// fifth of the time on twitter-like input).
#[derive(Debug, Clone, Copy)]
struct Open {
    index: u32,
    len: u32,
    object: bool,
}

impl Tape {
    /// An empty tape with the default [`Limits`].
    pub fn new() -> Self {
        Tape::with_limits(Limits::new())
    }

    /// An empty tape with these limits. A tape places text with 30-bit
    /// offsets, so it holds documents of up to 1 GiB (the default limit):
    /// a larger `max_input_bytes` is lowered to that, and a
    /// `max_number_bytes` of 1 GiB or more to one byte less.
    pub fn with_limits(mut limits: Limits) -> Self {
        limits.max_input_bytes = limits.max_input_bytes.min(MAX_INPUT);
        limits.max_number_bytes = limits.max_number_bytes.min(MASK as usize);
        Tape {
            entries: Vec::new(),
            text: String::new(),
            open: Vec::new(),
            bound: None,
            limits,
        }
    }

    /// Parses one complete document (strict RFC 8259, this tape's limits),
    /// replacing what the tape held: its root. An error is the one
    /// [`parse`](super::parse) gives for the same input.
    pub fn parse<'t>(&'t mut self, input: &'t [u8]) -> Result<Node<'t>, Error> {
        let Some(source) = self.build(input) else {
            // Refused: the incremental parser says exactly why. Should it
            // accept what the fast path refused, its value is used, so the
            // result never depends on which path read the input.
            let options = Options::new().limits(self.limits);
            let value = super::parse_incrementally(input, options)?;
            self.entries.clear();
            self.text.clear();
            self.load(&value);
            return Ok(Node {
                tape: self,
                source: "",
                index: 0,
            });
        };
        Ok(Node {
            tape: self,
            source,
            index: 0,
        })
    }

    /// The whole fast path: the input as text, or `None` for anything
    /// invalid or over a limit.
    fn build<'i>(&mut self, input: &'i [u8]) -> Option<&'i str> {
        self.entries.clear();
        self.text.clear();
        self.open.clear();
        self.bound = None;
        let limits = self.limits;
        walk(self, input, &limits)
    }

    /// One more entry, read from `source`.
    #[inline]
    fn add(&mut self, entry: Packed, source: &str) {
        if self.entries.len() == self.entries.capacity() {
            self.grow(source.as_bytes());
        }
        self.entries.push(entry);
    }

    /// Room for more entries: sixteen times what there is (four to begin
    /// with), but never past the document's bound, counted the first time.
    /// Growth follows what was read, so input that turns out invalid, or
    /// strings full of commas, never reserve more than sixteen times the
    /// entries actually read.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, input: &[u8]) {
        let len = self.entries.len();
        let bound = *self.bound.get_or_insert_with(|| value_bound(input));
        let wanted = (len.max(4) * GROWTH).min(bound).max(len + 1);
        self.entries.reserve_exact(wanted - len);
    }

    /// [`Sink::string`] from its first escape at `pos`: kept apart, so
    /// that the common string (a key, a short value) is read inline.
    #[inline(never)]
    fn escaped_string(&mut self, source: &str, start: usize, pos: usize) -> Option<(usize, usize)> {
        let at = self.text.len();
        let end = decode(&mut self.text, source, start, pos, room)?;
        Some((end, at))
    }

    /// Text of a loaded value onto the tape's own.
    fn push_text(&mut self, text: &str) -> Text {
        let at = self.text.len() as u32;
        self.text.push_str(text);
        Text {
            at,
            len: text.len() as u32,
            own: true,
        }
    }

    /// Puts a value on the (cleared) tape: for input only the incremental
    /// parser accepted. A loop over a stack, not recursion, so that no
    /// depth limit is too deep for it.
    fn load(&mut self, root: &Value) {
        enum Walk<'v> {
            Items(core::slice::Iter<'v, Value>),
            Members(core::slice::Iter<'v, (Key, Value)>),
        }
        self.open.clear();
        let mut walks = Vec::new();
        let mut next = Some(root);
        loop {
            match next.take() {
                Some(Value::Null) => self.entries.push(Packed::NULL),
                Some(&Value::Bool(b)) => self.entries.push(Packed::pack(Entry::Bool(b))),
                Some(Value::Number(n)) => {
                    let text = self.push_text(n.as_str());
                    self.entries.push(Packed::text(kind::NUMBER, text));
                }
                Some(Value::String(s)) => self.load_string(s),
                Some(Value::Array(items)) => {
                    self.open.push(Open {
                        index: self.entries.len() as u32,
                        len: items.len() as u32,
                        object: false,
                    });
                    self.entries.push(Packed::new(kind::ARRAY, 0, 0));
                    walks.push(Walk::Items(items.iter()));
                }
                Some(Value::Object(map)) => {
                    self.open.push(Open {
                        index: self.entries.len() as u32,
                        len: map.len() as u32,
                        object: true,
                    });
                    self.entries.push(Packed::new(kind::OBJECT, 0, 0));
                    walks.push(Walk::Members(map.iter()));
                }
                None => {}
            }
            let Some(walk) = walks.last_mut() else {
                return;
            };
            match walk {
                Walk::Items(items) => next = items.next(),
                Walk::Members(members) => {
                    if let Some((key, value)) = members.next() {
                        self.load_string(key);
                        next = Some(value);
                    }
                }
            }
            if next.is_none() {
                walks.pop();
                self.close();
            }
        }
    }

    fn load_string(&mut self, s: &str) {
        let text = self.push_text(s);
        self.entries.push(Packed::text(kind::STRING, text));
    }

    fn entry(&self, index: u32) -> Entry {
        self.entries
            .get(index as usize)
            .map_or(Entry::Null, |packed| packed.unpack())
    }

    /// The index just past the value at `index` (and its contents).
    #[inline]
    fn skip(&self, index: u32) -> u32 {
        self.entries
            .get(index as usize)
            .and_then(|packed| packed.end())
            .unwrap_or(index + 1)
    }
}

/// The tape's side of a walk: an entry per value, a container's filled
/// in when it closes.
impl Sink for Tape {
    #[inline]
    fn depth(&self) -> usize {
        self.open.len()
    }

    #[inline]
    fn innermost(&self) -> Option<bool> {
        self.open.last().map(|open| open.object)
    }

    #[inline]
    fn open(&mut self, object: bool, source: &str) {
        self.open.push(Open {
            index: self.entries.len() as u32,
            len: 0,
            object,
        });
        let kind = if object { kind::OBJECT } else { kind::ARRAY };
        self.add(Packed::new(kind, 0, 0), source);
    }

    #[inline]
    fn element(&mut self) {
        if let Some(Open { len, .. }) = self.open.last_mut() {
            *len += 1;
        }
    }

    /// The innermost container ends after the last entry so far.
    #[inline]
    fn close(&mut self) {
        let end = self.entries.len() as u32;
        if let Some(Open {
            index, len: count, ..
        }) = self.open.pop()
        {
            if let Some(entry) = self.entries.get_mut(index as usize) {
                // The kind stays; the end and length go in.
                *entry = Packed::new(entry.0 >> KIND, end, count);
            }
        }
    }

    /// Without escapes, the string is the place of its text in the input;
    /// with them, its text is decoded onto the tape's. A key is an entry
    /// like any string.
    #[inline]
    fn string(&mut self, source: &str, start: usize, _key: bool, limits: &Limits) -> Option<usize> {
        let input = source.as_bytes();
        let pos = plain_end(source, start)?;
        let (end, text) = if input.get(pos) == Some(&b'\\') {
            let (end, at) = self.escaped_string(source, start, pos)?;
            let text = Text {
                at: at as u32,
                len: (self.text.len() - at) as u32,
                own: true,
            };
            (end, text)
        } else {
            let text = Text {
                at: start as u32,
                len: (pos - start) as u32,
                own: false,
            };
            (pos, text)
        };
        let after = closed(input, end, text.len as usize, limits)?;
        self.add(Packed::text(kind::STRING, text), source);
        Some(after)
    }

    #[inline]
    fn number(&mut self, source: &str, at: usize, len: usize) {
        self.add(Packed::new(kind::NUMBER, at as u32, len as u32), source);
    }

    #[inline]
    fn literal(&mut self, literal: Literal, source: &str) {
        let entry = match literal {
            Literal::Null => Packed::NULL,
            Literal::False => Packed::FALSE,
            Literal::True => Packed::TRUE,
        };
        self.add(entry, source);
    }
}

/// Room on a tape's decoded text for `need` more bytes decoded from the
/// input's last `rest` bytes. Not `String`'s doubling alone: on
/// text-heavy input nearly every string has an escape, and its last
/// doubling held the old text, and a new buffer of up to twice what was
/// needed. Doubling, but never past what the rest of the input can decode
/// to (decoded text is never longer than its source), so the buffer is
/// never larger than the document's decoded text can be.
#[inline]
fn room(text: &mut String, need: usize, rest: usize) {
    let (len, capacity) = (text.len(), text.capacity());
    if capacity - len < need {
        let wanted = capacity
            .saturating_mul(2)
            .max(64)
            .max(len + need)
            .min(len + rest);
        text.reserve_exact(wanted - len);
    }
}

/// An upper bound on the values of a document, keys counted: every value
/// but the root comes after a `[`, a `,` or a `:` (the first key of an
/// object after its `{`), each of which comes before one value at most.
/// Those bytes inside strings only make the bound looser. Counted in
/// blocks whose count fits a byte, which the compiler vectorizes.
fn value_bound(input: &[u8]) -> usize {
    let opens = |block: &[u8]| {
        block
            .iter()
            .map(|&b| u8::from(matches!(b, b'[' | b'{' | b',' | b':')))
            .fold(0u8, u8::wrapping_add)
    };
    let blocks = input.chunks_exact(128);
    let mut count = 1 + usize::from(opens(blocks.remainder()));
    for block in blocks {
        count += usize::from(opens(block));
    }
    count
}

/// A value on a [`Tape`]: reads like a `&Value`, borrowing its text from
/// the tape and the input.
#[derive(Clone, Copy)]
pub struct Node<'t> {
    tape: &'t Tape,
    /// The input the tape read (empty when the tape holds a loaded value).
    source: &'t str,
    index: u32,
}

/// As the JSON text of the value (not the whole tape it points into).
impl core::fmt::Debug for Node<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Node({})", self.to_value().to_json())
    }
}

impl<'t> Node<'t> {
    fn entry(self) -> Entry {
        self.tape.entry(self.index)
    }

    fn at(self, index: u32) -> Node<'t> {
        Node { index, ..self }
    }

    /// Where texts are: the tape's own, or the input.
    #[inline]
    fn buffer(self, own: bool) -> &'t str {
        if own {
            self.tape.text.as_str()
        } else {
            self.source
        }
    }

    /// The text of a number or a string.
    #[inline]
    fn text(self, text: Text) -> &'t str {
        let at = text.at as usize;
        self.buffer(text.own)
            .get(at..at + text.len as usize)
            .unwrap_or("")
    }

    /// Whether this is `null`.
    pub fn is_null(self) -> bool {
        self.entry() == Entry::Null
    }

    /// The boolean, if this is one.
    pub fn as_bool(self) -> Option<bool> {
        match self.entry() {
            Entry::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The string's decoded text, if this is a string.
    pub fn as_str(self) -> Option<&'t str> {
        match self.entry() {
            Entry::String(text) => Some(self.text(text)),
            _ => None,
        }
    }

    /// The number's text exactly as written, if this is a number.
    pub fn as_number(self) -> Option<&'t str> {
        match self.entry() {
            Entry::Number(text) => Some(self.text(text)),
            _ => None,
        }
    }

    /// The number as a `u64`, if it is a non-negative integer in range.
    pub fn as_u64(self) -> Option<u64> {
        self.as_number()?.parse().ok()
    }

    /// The number as an `i64`, if it is an integer in range.
    pub fn as_i64(self) -> Option<i64> {
        self.as_number()?.parse().ok()
    }

    /// The nearest `f64`, if this is a number.
    pub fn as_f64(self) -> Option<f64> {
        self.as_number()?.parse().ok()
    }

    /// Whether this is an array.
    pub fn is_array(self) -> bool {
        matches!(self.entry(), Entry::Array { .. })
    }

    /// Whether this is an object.
    pub fn is_object(self) -> bool {
        matches!(self.entry(), Entry::Object { .. })
    }

    /// An array's elements or an object's members (duplicates counted);
    /// `None` for anything else (so no `is_empty`: ask `len() == Some(0)`).
    #[allow(clippy::len_without_is_empty)]
    pub fn len(self) -> Option<usize> {
        match self.entry() {
            Entry::Array { len, .. } | Entry::Object { len, .. } => Some(len as usize),
            _ => None,
        }
    }

    /// The member `key` of an object (the last one if the key is repeated,
    /// as [`Map::get`]).
    #[inline]
    pub fn get(self, key: &str) -> Option<Node<'t>> {
        let Entry::Object { end, .. } = self.entry() else {
            return None;
        };
        // The hot loop of reading a payload: kinds and lengths are compared
        // on the packed entries before any text, and no `&str` is made for
        // the keys that differ.
        let (tape, wanted) = (self.tape, key.as_bytes());
        let mut found = None;
        let mut index = self.index + 1;
        while index < end {
            let Some(&entry) = tape.entries.get(index as usize) else {
                break;
            };
            if entry.is_string_of_len(wanted.len()) {
                let (at, own) = entry.place();
                if self.buffer(own).as_bytes().get(at..at + wanted.len()) == Some(wanted) {
                    found = Some(index + 1);
                }
            }
            index = tape.skip(index + 1);
        }
        found.map(|index| self.at(index))
    }

    /// The members `keys` of an object in one pass over it (each the last
    /// one if repeated, as [`Node::get`]): a payload read for many keys,
    /// most of them absent, is walked once rather than once per key.
    #[inline]
    pub(crate) fn get_many<const N: usize>(self, keys: &[&str; N]) -> [Option<Node<'t>>; N] {
        let mut found = [None; N];
        let Entry::Object { end, .. } = self.entry() else {
            return [None; N];
        };
        let tape = self.tape;
        let mut index = self.index + 1;
        while index < end {
            let Some(&entry) = tape.entries.get(index as usize) else {
                break;
            };
            for (slot, key) in found.iter_mut().zip(keys) {
                if entry.is_string_of_len(key.len()) {
                    let (at, own) = entry.place();
                    let text = self.buffer(own).as_bytes().get(at..at + key.len());
                    if text == Some(key.as_bytes()) {
                        *slot = Some(index + 1);
                    }
                }
            }
            index = tape.skip(index + 1);
        }
        found.map(|index| index.map(|index| self.at(index)))
    }

    /// The element at `index` of an array.
    pub fn get_index(self, index: usize) -> Option<Node<'t>> {
        self.elements().nth(index)
    }

    /// An array's elements in order (none for anything else).
    pub fn elements(self) -> Elements<'t> {
        let (next, end) = match self.entry() {
            Entry::Array { end, .. } => (self.index + 1, end),
            _ => (0, 0),
        };
        Elements {
            node: self.at(next),
            end,
        }
    }

    /// An object's members in document order (none for anything else).
    pub fn members(self) -> Members<'t> {
        let (next, end) = match self.entry() {
            Entry::Object { end, .. } => (self.index + 1, end),
            _ => (0, 0),
        };
        Members {
            node: self.at(next),
            end,
        }
    }

    /// The value as an owned [`Value`] (built with a loop over a stack,
    /// not recursion, however deep the document).
    pub fn to_value(self) -> Value {
        enum Build<'t> {
            Items(Elements<'t>, Vec<Value>),
            /// With the key of the member being built.
            Members(Members<'t>, Vec<(Key, Value)>, Key),
        }
        let mut builds: Vec<Build<'t>> = Vec::new();
        let mut next = self;
        loop {
            let mut done = match next.entry() {
                Entry::Array { len, .. } => {
                    let items = Vec::with_capacity(len as usize);
                    builds.push(Build::Items(next.elements(), items));
                    None
                }
                Entry::Object { len, .. } => {
                    let members = Vec::with_capacity(len as usize);
                    builds.push(Build::Members(next.members(), members, Key::default()));
                    None
                }
                Entry::Null => Some(Value::Null),
                Entry::Bool(b) => Some(Value::Bool(b)),
                Entry::Number(text) => Some(Value::Number(Number::from_valid(self.text(text)))),
                Entry::String(text) => Some(Value::String(self.text(text).into())),
            };
            // Attach what is done, close what is finished, until there is a
            // next child to read.
            loop {
                if let Some(value) = done.take() {
                    match builds.last_mut() {
                        None => return value,
                        Some(Build::Items(_, items)) => items.push(value),
                        Some(Build::Members(_, members, key)) => {
                            members.push((core::mem::take(key), value));
                        }
                    }
                }
                let child = match builds.last_mut() {
                    None => return Value::Null,
                    Some(Build::Items(elements, _)) => elements.next(),
                    Some(Build::Members(members, _, key)) => members.next().map(|(k, n)| {
                        *key = Key::from(k);
                        n
                    }),
                };
                if let Some(child) = child {
                    next = child;
                    break;
                }
                done = match builds.pop() {
                    Some(Build::Items(_, items)) => Some(Value::Array(items)),
                    Some(Build::Members(_, members, _)) => {
                        Some(Value::Object(Map::from_members(members)))
                    }
                    None => None,
                };
            }
        }
    }
}

/// The elements of an array [`Node`].
#[derive(Clone, Debug)]
pub struct Elements<'t> {
    node: Node<'t>,
    end: u32,
}

impl<'t> Iterator for Elements<'t> {
    type Item = Node<'t>;
    fn next(&mut self) -> Option<Node<'t>> {
        let here = self.node;
        if here.index >= self.end {
            return None;
        }
        self.node = here.at(here.tape.skip(here.index));
        Some(here)
    }
}

/// The members of an object [`Node`]: each key and its value.
#[derive(Clone, Debug)]
pub struct Members<'t> {
    node: Node<'t>,
    end: u32,
}

impl<'t> Iterator for Members<'t> {
    type Item = (&'t str, Node<'t>);
    fn next(&mut self) -> Option<(&'t str, Node<'t>)> {
        let key = self.node;
        if key.index >= self.end {
            return None;
        }
        let value = key.at(key.index + 1);
        self.node = key.at(key.tape.skip(value.index));
        Some((key.as_str().unwrap_or(""), value))
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use alloc::vec;

    /// The fast path itself (not the fallback that would hide its
    /// mistakes) accepts exactly what `parse` accepts, with its value.
    fn agrees(tape: &mut Tape, input: &[u8]) {
        let expected = super::super::parse(input);
        let fast = tape.build(input).map(|source| {
            Node {
                tape: &*tape,
                source,
                index: 0,
            }
            .to_value()
        });
        assert_eq!(fast, expected.ok(), "{:?}", String::from_utf8_lossy(input));
    }

    #[test]
    fn the_fast_path_agrees_with_parse_on_every_one_byte_change() {
        let docs: [&[u8]; 3] = [
            br#"{"id":"c1","n":[0,-1.5e+3,true,false,null],"o":{"":{}}}"#,
            " [\"a\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00 é😀\", 10 ] ".as_bytes(),
            br#"{"a" : [ {} , [ ] , "x" ] , "b" : 0.5 }"#,
        ];
        let bytes: Vec<u8> = vec![
            0, b'\t', b'\n', b'\r', b' ', b'"', b',', b'-', b'.', b'/', b'0', b'1', b':', b'E',
            b'[', b'\\', b']', b'e', b'f', b'n', b't', b'u', b'{', b'}', 0x7f, 0x80, 0xc3, 0xed,
            0xf0, 0xff,
        ];
        let mut tape = Tape::new();
        for doc in docs {
            agrees(&mut tape, doc);
            for i in 0..doc.len() {
                for &b in &bytes {
                    let mut changed = doc.to_vec();
                    changed[i] = b;
                    agrees(&mut tape, &changed);
                }
                let mut dropped = doc.to_vec();
                dropped.remove(i);
                agrees(&mut tape, &dropped);
                agrees(&mut tape, &doc[..i]);
            }
        }
    }

    #[test]
    fn an_entry_packs_and_unpacks_every_field_at_its_extremes() {
        let texts = [0, 1, MASK as u32 - 1, MASK as u32];
        for at in texts {
            for len in texts {
                for own in [false, true] {
                    let text = Text { at, len, own };
                    for entry in [Entry::Number(text), Entry::String(text)] {
                        assert_eq!(Packed::pack(entry).unpack(), entry);
                    }
                }
                for entry in [
                    Entry::Array { end: at, len },
                    Entry::Object { end: at, len },
                ] {
                    assert_eq!(Packed::pack(entry).unpack(), entry);
                }
            }
        }
        for entry in [Entry::Null, Entry::Bool(false), Entry::Bool(true)] {
            assert_eq!(Packed::pack(entry).unpack(), entry);
            assert_eq!(Packed::pack(entry).end(), None);
        }
        // The readers' shortcuts on the packed bits.
        let key = Text {
            at: MASK as u32,
            len: 7,
            own: true,
        };
        let packed = Packed::pack(Entry::String(key));
        assert!(packed.is_string_of_len(7));
        assert!(!packed.is_string_of_len(6));
        assert!(!Packed::pack(Entry::Number(key)).is_string_of_len(7));
        assert_eq!(packed.place(), (MASK as usize, true));
        assert_eq!(packed.end(), None);
        let object = Packed::pack(Entry::Object { end: 9, len: 7 });
        assert!(!object.is_string_of_len(7));
        assert_eq!(object.end(), Some(9));
        assert_eq!(Packed::pack(Entry::Array { end: 3, len: 1 }).end(), Some(3));
        assert_eq!(core::mem::size_of::<Packed>(), 8);
    }

    #[test]
    fn the_value_bound_is_never_below_the_entries() {
        let mut docs: Vec<Vec<u8>> = vec![
            b"1".to_vec(),
            b"[]".to_vec(),
            b"[[[[]]]]".to_vec(),
            br#"{"":{"":[1,{}]}}"#.to_vec(),
            br#"["a,b:c[d{", {"k": [1, 2.5, true, null]}]"#.to_vec(),
        ];
        // Every block size's edge: the count is kept a byte per block.
        for n in [126, 127, 128, 129, 255, 256, 257, 1000] {
            docs.push(alloc::format!("[{}1]", "1,".repeat(n)).into_bytes());
            docs.push(alloc::format!("{{{}\"k\":0}}", "\"k\":[],".repeat(n)).into_bytes());
        }
        for n in [1, 64, 128] {
            docs.push(alloc::format!("{}{}", "[".repeat(n), "]".repeat(n)).into_bytes());
        }
        let mut tape = Tape::new();
        for doc in &docs {
            tape.build(doc).expect("valid");
            assert!(value_bound(doc) >= tape.entries.len(), "{doc:?}");
        }
        // Tight where the structure is all there is.
        let array = alloc::format!("[{}1]", "1,".repeat(300));
        assert_eq!(value_bound(array.as_bytes()), 302);
        tape.build(array.as_bytes()).unwrap();
        assert_eq!(tape.entries.len(), 302);
    }

    /// The heap a new tape takes for a document: its entries, its decoded
    /// text and its stack of open containers, at their capacity.
    fn held(tape: &Tape) -> usize {
        tape.entries.capacity() * core::mem::size_of::<Packed>()
            + tape.text.capacity()
            + tape.open.capacity() * core::mem::size_of::<Open>()
    }

    #[test]
    fn a_new_tape_holds_at_most_twice_the_document_it_reads() {
        // Number-heavy: a coordinate is eleven bytes and one entry.
        let mut coordinates = String::from(r#"{"type":"Polygon","coordinates":[["#);
        for i in 0..20_000 {
            if i > 0 {
                coordinates.push(',');
            }
            let (x, y) = (i as f64 * 0.000_317 - 73.0, i as f64 * 0.000_131 + 40.0);
            coordinates.push_str(&alloc::format!("[{x:.6},{y:.6}]"));
        }
        coordinates.push_str("]]}");
        // Text-heavy: nearly every string has escapes to decode.
        let mut text = String::from("[");
        for i in 0..2_000 {
            if i > 0 {
                text.push(',');
            }
            text.push_str(
                r#""line one\n\tline \"two\" \u00e9 and some more prose, to be decoded""#,
            );
        }
        text.push(']');
        for doc in [coordinates, text] {
            let mut tape = Tape::new();
            let value = tape.parse(doc.as_bytes()).unwrap().to_value();
            assert_eq!(value, super::super::parse(doc.as_bytes()).unwrap());
            // The decoded text never moved to a buffer larger than it can be.
            assert!(tape.text.capacity() <= doc.len());
            assert!(tape.entries.capacity() <= value_bound(doc.as_bytes()));
            let held = held(&tape);
            assert!(held <= 2 * doc.len(), "{held} bytes for {}", doc.len());
        }
    }

    #[test]
    fn invalid_input_reserves_nothing_for_what_it_never_read() {
        // Refused at the first byte, or at the depth limit (129 entries
        // and open containers: kilobytes, not the megabytes of 8 bytes an
        // input byte).
        for input in [vec![b'['; 1 << 20], vec![b','; 1 << 20]] {
            let mut tape = Tape::new();
            assert!(tape.parse(&input).is_err());
            assert!(held(&tape) <= 16 * 1024, "{} bytes held", held(&tape));
        }
        // Refused after a valid start: the entries grew from what was read.
        let mut input = alloc::format!("[{}", "1,".repeat(100));
        input.push_str(&",".repeat(1 << 20));
        let mut tape = Tape::new();
        assert!(tape.parse(input.as_bytes()).is_err());
        assert!(tape.entries.capacity() <= 101 * GROWTH);
    }

    #[test]
    fn commas_in_strings_do_not_reserve_entries() {
        // A tool call's arguments: JSON in a string, as providers send it.
        let rows: Vec<String> = (0..2000)
            .map(|i| alloc::format!("[{},{},{}]", i % 10, (i + 1) % 10, (i + 2) % 10))
            .collect();
        let arguments = alloc::format!(r#"{{\"rows\":[{}]}}"#, rows.join(","));
        let call = alloc::format!(r#"{{"name":"f","arguments":"{arguments}"}}"#);
        let commas = alloc::format!("\"{}\"", ",".repeat(10_000));
        for doc in [call, commas] {
            let mut tape = Tape::new();
            let value = tape.parse(doc.as_bytes()).unwrap().to_value();
            assert_eq!(value, super::super::parse(doc.as_bytes()).unwrap());
            let held = held(&tape);
            assert!(held <= 2 * doc.len(), "{held} bytes for {}", doc.len());
        }
    }

    #[test]
    fn a_reused_tape_grows_no_further_than_the_bound() {
        let small = alloc::format!("[{}1]", "1,".repeat(3000));
        let big = alloc::format!("[{}1]", "1,".repeat(4000));
        let mut tape = Tape::new();
        tape.parse(small.as_bytes()).unwrap();
        assert!(tape.entries.capacity() < 4002);
        tape.parse(big.as_bytes()).unwrap();
        assert_eq!(tape.entries.capacity(), value_bound(big.as_bytes()));
        // A smaller document after it takes the room there is.
        tape.parse(small.as_bytes()).unwrap();
        assert_eq!(tape.entries.capacity(), 4002);
    }

    #[test]
    fn a_node_debugs_as_its_json() {
        let mut tape = Tape::new();
        let doc = tape.parse(br#"{"a": [1, "x"]}"#).unwrap();
        assert_eq!(alloc::format!("{doc:?}"), r#"Node({"a":[1,"x"]})"#);
        let a = doc.get("a").unwrap();
        assert_eq!(
            alloc::format!("{:?}", a.get_index(1).unwrap()),
            r#"Node("x")"#
        );
    }

    #[test]
    fn a_tape_holds_at_most_one_gib() {
        let tape = Tape::with_limits(Limits::unlimited(128));
        assert_eq!(tape.limits.max_input_bytes, MAX_INPUT);
        assert_eq!(tape.limits.max_number_bytes as u64, MASK);
        // Every place and length of a document that large fits its field.
        assert_eq!(MAX_INPUT - 1, MASK);
        assert_eq!(Tape::new().limits, Limits::new());
    }

    #[test]
    fn a_value_loaded_by_the_fallback_reads_as_parsed_text() {
        let text = br#"{"a":[1,{"b":null}],"c":"d\n","a":[],"e":[[{}],-0.5]}"#;
        let value = super::super::parse(text).unwrap();
        let mut tape = Tape::new();
        tape.load(&value);
        let root = Node {
            tape: &tape,
            source: "",
            index: 0,
        };
        assert_eq!(root.to_value(), value);
        assert_eq!(root.len(), Some(4));
        assert_eq!(root.get("a").and_then(Node::len), Some(0));
        assert_eq!(root.get("c").and_then(Node::as_str), Some("d\n"));
        let e = root.get("e").unwrap();
        assert_eq!(e.get_index(1).and_then(Node::as_number), Some("-0.5"));
    }
}
