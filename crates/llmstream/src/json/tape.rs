//! Complete documents read in place: a flat tape of entries, reused from
//! document to document, and borrowed views into it.
//!
//! A provider stream is thousands of small JSON payloads, one per SSE
//! event, each read once and thrown away. Building a [`Value`] for each
//! costs an allocation per object, array and string, a free for each
//! again, and moves of every member into place: most of the time of a
//! stream, where the reader wants three fields of each payload. A [`Tape`]
//! holds a document as one vector of fixed-size entries (a container
//! records where it ends, so a reader skips it in one step) and one text
//! buffer: a copy of the input, in which a string without escapes, a key
//! or a number is only a place, then the decoded text of the strings with
//! escapes. Both keep their capacity, so after the first few payloads a
//! parse allocates nothing. [`Node`] reads it like a `&Value`.
//!
//! The grammar is RFC 8259's, strictly, and the limits are
//! [`Limits`]'. The fast path here only decides valid or not; for input
//! it refuses, [`Tape::parse`] runs the incremental [`Parser`](super::Parser)
//! to report exactly what is wrong and where, as [`parse`](super::parse)
//! would.

use alloc::string::String;
use alloc::vec::Vec;

use super::error::Error;
use super::key::Key;
use super::options::{Limits, Options};
use super::scan::{escaped_char, hex_value, is_whitespace, string_run_end, surrogate_pair};
use super::value::{number_len, Map, Number, Value};
use crate::utf8::{valid_prefix, End};

/// The largest document a tape holds: decoded strings go after the copy
/// of the input and are never longer than their source, so twice this
/// fits the `u32` offsets of [`Entry`].
const MAX_INPUT: u64 = (u32::MAX / 2) as u64;

/// One value of a document. Text lives in [`Tape::text`] at `at..at + len`;
/// a container's entries follow it, and `end` is the index just past them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Entry {
    Null,
    Bool(bool),
    Number { at: u32, len: u32 },
    String { at: u32, len: u32 },
    Array { end: u32, len: u32 },
    Object { end: u32, len: u32 },
}

/// A parsed document, kept for reading, whose buffers are reused by the
/// next [`Tape::parse`].
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
    entries: Vec<Entry>,
    /// The input, then the decoded text of strings with escapes.
    text: String,
    /// The open containers while parsing.
    open: Vec<Open>,
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

    /// An empty tape with these limits. A tape places text with 32-bit
    /// offsets, so it holds documents of up to 2 GiB: a larger
    /// `max_input_bytes` is lowered to that.
    pub fn with_limits(mut limits: Limits) -> Self {
        limits.max_input_bytes = limits.max_input_bytes.min(MAX_INPUT);
        Tape {
            entries: Vec::new(),
            text: String::new(),
            open: Vec::new(),
            limits,
        }
    }

    /// Parses one complete document (strict RFC 8259, this tape's limits),
    /// replacing what the tape held: its root. An error is the one
    /// [`parse`](super::parse) gives for the same input.
    pub fn parse(&mut self, input: &[u8]) -> Result<Node<'_>, Error> {
        if self.build(input).is_none() {
            // Refused: the incremental parser says exactly why. Should it
            // accept what the fast path refused, its value is used, so the
            // result never depends on which path read the input.
            let options = Options::new().limits(self.limits);
            let value = super::parse_with(input, options)?;
            self.entries.clear();
            self.text.clear();
            self.load(&value);
        }
        Ok(Node {
            tape: self,
            index: 0,
        })
    }

    /// The whole fast path: `None` for anything invalid or over a limit.
    fn build(&mut self, input: &[u8]) -> Option<()> {
        self.entries.clear();
        self.text.clear();
        self.open.clear();
        if input.len() as u64 > self.limits.max_input_bytes {
            return None;
        }
        // The input is validated and copied whole, once: then a string
        // without escapes, a key or a number is only a place in that copy,
        // found by the scan for its end, and nothing is copied per string.
        let (source, end) = valid_prefix(input);
        if end != End::Valid {
            return None;
        }
        self.text.push_str(source);
        let mut pos = skip_whitespace(input, 0);
        'value: loop {
            match *input.get(pos)? {
                open @ (b'{' | b'[') => {
                    if self.open.len() >= self.limits.max_depth {
                        return None;
                    }
                    let object = open == b'{';
                    self.open.push(Open {
                        index: self.entries.len() as u32,
                        len: 0,
                        object,
                    });
                    self.entries.push(if object {
                        Entry::Object { end: 0, len: 0 }
                    } else {
                        Entry::Array { end: 0, len: 0 }
                    });
                    pos = skip_whitespace(input, pos + 1);
                    let close = if object { b'}' } else { b']' };
                    if input.get(pos) == Some(&close) {
                        pos += 1;
                        self.close();
                    } else {
                        if object {
                            pos = self.key(source, pos)?;
                        }
                        self.count();
                        continue 'value;
                    }
                }
                b'"' => pos = self.string(source, pos + 1)?,
                b't' => pos = self.literal(input, pos, b"true", Entry::Bool(true))?,
                b'f' => pos = self.literal(input, pos, b"false", Entry::Bool(false))?,
                b'n' => pos = self.literal(input, pos, b"null", Entry::Null)?,
                _ => {
                    let len = number_len(input.get(pos..)?)?;
                    if len > self.limits.max_number_bytes {
                        return None;
                    }
                    self.entries.push(Entry::Number {
                        at: pos as u32,
                        len: len as u32,
                    });
                    pos += len;
                }
            }
            // After a value: its container's separators and ends.
            loop {
                pos = skip_whitespace(input, pos);
                let Some(&Open { object, .. }) = self.open.last() else {
                    return (pos == input.len()).then_some(());
                };
                match (*input.get(pos)?, object) {
                    (b',', _) => {
                        pos = skip_whitespace(input, pos + 1);
                        if object {
                            pos = self.key(source, pos)?;
                        }
                        self.count();
                        continue 'value;
                    }
                    (b'}', true) | (b']', false) => {
                        pos += 1;
                        self.close();
                    }
                    _ => return None,
                }
            }
        }
    }

    /// One more element in the innermost container.
    fn count(&mut self) {
        if let Some(Open { len, .. }) = self.open.last_mut() {
            *len += 1;
        }
    }

    /// The innermost container ends after the last entry so far.
    fn close(&mut self) {
        let end = self.entries.len() as u32;
        if let Some(Open {
            index, len: count, ..
        }) = self.open.pop()
        {
            if let Some(Entry::Array { end: e, len } | Entry::Object { end: e, len }) =
                self.entries.get_mut(index as usize)
            {
                *e = end;
                *len = count;
            }
        }
    }

    /// A key, its colon and the whitespace around: where the value starts.
    fn key(&mut self, source: &str, pos: usize) -> Option<usize> {
        let input = source.as_bytes();
        if input.get(pos) != Some(&b'"') {
            return None;
        }
        let pos = skip_whitespace(input, self.string(source, pos + 1)?);
        if input.get(pos) != Some(&b':') {
            return None;
        }
        Some(skip_whitespace(input, pos + 1))
    }

    fn literal(&mut self, input: &[u8], pos: usize, word: &[u8], entry: Entry) -> Option<usize> {
        if input.get(pos..pos + word.len())? != word {
            return None;
        }
        self.entries.push(entry);
        Some(pos + word.len())
    }

    /// A string body from `pos` (after the opening quote): where the
    /// closing quote is, plus one. Without escapes it is the place of its
    /// text in the input's copy; with them, its text is decoded after it.
    fn string(&mut self, source: &str, start: usize) -> Option<usize> {
        let input = source.as_bytes();
        let mut pos = start + string_run_end(input.get(start..)?);
        if input.get(pos) != Some(&b'\\') {
            return self.end_string(input, pos, start, pos - start);
        }
        let at = self.text.len();
        // Runs end at ASCII bytes: character boundaries.
        self.text.push_str(source.get(start..pos)?);
        while input.get(pos) == Some(&b'\\') {
            pos = self.escape(input, pos + 1)?;
            let run = string_run_end(input.get(pos..)?);
            self.text.push_str(source.get(pos..pos + run)?);
            pos += run;
        }
        let len = self.text.len() - at;
        self.end_string(input, pos, at, len)
    }

    /// A string's closing quote at `pos` (anything else there is an error:
    /// a control character or the end of the input).
    fn end_string(&mut self, input: &[u8], pos: usize, at: usize, len: usize) -> Option<usize> {
        if input.get(pos) != Some(&b'"') || len > self.limits.max_string_bytes {
            return None;
        }
        self.entries.push(Entry::String {
            at: at as u32,
            len: len as u32,
        });
        Some(pos + 1)
    }

    /// An escape after its backslash, decoded onto `text`: where it ends.
    fn escape(&mut self, input: &[u8], pos: usize) -> Option<usize> {
        let byte = *input.get(pos)?;
        if byte != b'u' {
            self.text.push(escaped_char(byte)?);
            return Some(pos + 1);
        }
        let unit = hex4(input, pos + 1)?;
        let (c, used) = if (0xD800..=0xDBFF).contains(&unit) {
            if input.get(pos + 5..pos + 7)? != b"\\u" {
                return None;
            }
            (surrogate_pair(unit, hex4(input, pos + 7)?)?, 11)
        } else {
            // A lone low surrogate is not a `char`: `None`, as it should be.
            (char::from_u32(u32::from(unit))?, 5)
        };
        self.text.push(c);
        Some(pos + used)
    }

    fn push_text(&mut self, text: &str) -> u32 {
        let at = self.text.len() as u32;
        self.text.push_str(text);
        at
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
                Some(Value::Null) => self.entries.push(Entry::Null),
                Some(Value::Bool(b)) => self.entries.push(Entry::Bool(*b)),
                Some(Value::Number(n)) => {
                    let at = self.push_text(n.as_str());
                    let len = n.as_str().len() as u32;
                    self.entries.push(Entry::Number { at, len });
                }
                Some(Value::String(s)) => self.load_string(s),
                Some(Value::Array(items)) => {
                    self.open.push(Open {
                        index: self.entries.len() as u32,
                        len: items.len() as u32,
                        object: false,
                    });
                    self.entries.push(Entry::Array { end: 0, len: 0 });
                    walks.push(Walk::Items(items.iter()));
                }
                Some(Value::Object(map)) => {
                    self.open.push(Open {
                        index: self.entries.len() as u32,
                        len: map.len() as u32,
                        object: true,
                    });
                    self.entries.push(Entry::Object { end: 0, len: 0 });
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
        let at = self.push_text(s);
        let len = s.len() as u32;
        self.entries.push(Entry::String { at, len });
    }

    fn entry(&self, index: u32) -> Entry {
        self.entries
            .get(index as usize)
            .copied()
            .unwrap_or(Entry::Null)
    }

    fn text(&self, at: u32, len: u32) -> &str {
        let at = at as usize;
        self.text.get(at..at + len as usize).unwrap_or("")
    }

    /// The index just past the value at `index` (and its contents).
    fn skip(&self, index: u32) -> u32 {
        match self.entry(index) {
            Entry::Array { end, .. } | Entry::Object { end, .. } => end,
            _ => index + 1,
        }
    }
}

/// The four hex digits of a `\u` escape at `pos`.
fn hex4(input: &[u8], pos: usize) -> Option<u16> {
    input
        .get(pos..pos + 4)?
        .iter()
        .try_fold(0u16, |unit, &b| Some(unit << 4 | u16::from(hex_value(b)?)))
}

fn skip_whitespace(input: &[u8], mut pos: usize) -> usize {
    while input.get(pos).is_some_and(|&b| is_whitespace(b)) {
        pos += 1;
    }
    pos
}

/// A value on a [`Tape`]: reads like a `&Value`, borrowing its text.
#[derive(Clone, Copy)]
pub struct Node<'t> {
    tape: &'t Tape,
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
        Node {
            tape: self.tape,
            index,
        }
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
            Entry::String { at, len } => Some(self.tape.text(at, len)),
            _ => None,
        }
    }

    /// The number's text exactly as written, if this is a number.
    pub fn as_number(self) -> Option<&'t str> {
        match self.entry() {
            Entry::Number { at, len } => Some(self.tape.text(at, len)),
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
    pub fn get(self, key: &str) -> Option<Node<'t>> {
        let Entry::Object { end, .. } = self.entry() else {
            return None;
        };
        // The hot loop of reading a payload: lengths are compared before
        // any text, and no `&str` is made for the keys that differ.
        let (tape, wanted) = (self.tape, key.as_bytes());
        let mut found = None;
        let mut index = self.index + 1;
        while index < end {
            if let Entry::String { at, len } = tape.entry(index) {
                let at = at as usize;
                if len as usize == wanted.len()
                    && tape.text.as_bytes().get(at..at + wanted.len()) == Some(wanted)
                {
                    found = Some(index + 1);
                }
            }
            index = tape.skip(index + 1);
        }
        found.map(|index| self.at(index))
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
                Entry::Number { at, len } => {
                    Some(Value::Number(Number::from_valid(self.tape.text(at, len))))
                }
                Entry::String { at, len } => Some(Value::String(self.tape.text(at, len).into())),
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
        let fast = tape.build(input).map(|()| {
            Node {
                tape: &*tape,
                index: 0,
            }
            .to_value()
        });
        assert_eq!(fast, expected.ok(), "{:?}", String::from_utf8_lossy(input));
    }

    #[test]
    fn the_fast_path_agrees_with_parse_on_json_test_suite() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/fixtures/json/JSONTestSuite/test_parsing");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            std::eprintln!("skipped: {} not found", dir.display());
            return;
        };
        let mut tape = Tape::new();
        for entry in entries {
            let bytes = std::fs::read(entry.unwrap().path()).unwrap();
            agrees(&mut tape, &bytes);
        }
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
    fn a_tape_holds_at_most_two_gib() {
        let tape = Tape::with_limits(Limits::unlimited(128));
        assert_eq!(tape.limits.max_input_bytes, MAX_INPUT);
        assert!(MAX_INPUT * 2 <= u64::from(u32::MAX));
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
