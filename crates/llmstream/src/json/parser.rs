//! The incremental JSON parser: a push state machine over bytes.
//!
//! One state per grammar position, a stack of open containers, and the live
//! partial value kept beside them. Every byte is examined once; a piece that
//! ends anywhere (inside an escape, a UTF-8 sequence, a number, a literal)
//! leaves the state waiting for the rest. Nothing recurses.

use alloc::collections::VecDeque;
use alloc::string::String;
use alloc::vec::Vec;

use super::error::{Error, ErrorKind, Expected};
use super::event::{Event, EventKind};
use super::options::Options;
use super::path::{Path, PathBuf, Segment};
use super::scan::{is_whitespace, run_end_mask, string_run_end, Tail, Utf8Tail};
use super::value::{Map, Number, Value};

/// An incremental JSON parser.
///
/// Feed it bytes in pieces split anywhere; after each piece, pull the
/// [`Event`]s that became certain and read the live partial value with
/// [`Parser::snapshot`]. Total work is linear in the bytes fed, however they
/// are cut.
///
/// ```
/// use llmstream::json::{EventKind, Parser};
///
/// let mut parser = Parser::new();
/// let mut deltas = Vec::new();
/// for piece in [&br#"{"blocks":[{"content":"Hel"#[..], br#"lo"}]}"#] {
///     let mut feed = parser.feed(piece);
///     while let Some(event) = feed.next_event() {
///         let event = event?;
///         if let EventKind::StringDelta(text) = event.kind {
///             deltas.push(format!("{} += {text:?}", event.path));
///         }
///     }
///     drop(feed);
///     // The snapshot is current after every piece.
///     println!("{}", parser.snapshot().unwrap());
/// }
/// parser.end()?;
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
    /// Decoded text of the current object key.
    key: String,
    /// Source text of the current number.
    number: String,
    /// Whether a still-growing number is shown in the snapshot.
    number_shown: bool,
    utf8: Utf8Tail,
    root: Option<Value>,
    completed: VecDeque<Value>,
    /// Stream offset of the first byte of the current piece.
    offset: u64,
    error: Option<Error>,
    /// Whether the end of input has been processed.
    ended: bool,
    /// Whether any value has started (for "empty input").
    started: bool,
    /// Paths whose completion the caller wants to hear of.
    watches: Vec<PathBuf>,
    /// Watched values that completed, oldest first.
    watched: VecDeque<(WatchId, Value)>,
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
            key: String::new(),
            number: String::new(),
            number_shown: false,
            utf8: Utf8Tail::default(),
            root: None,
            completed: VecDeque::new(),
            offset: 0,
            error: None,
            ended: false,
            started: false,
            watches: Vec::new(),
            watched: VecDeque::new(),
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
    /// parser.push(br#"{"name":"search","input":{"q":"ru"#).unwrap();
    /// let (id, value) = parser.next_watched().unwrap();
    /// assert_eq!((id, value.as_str()), (name, Some("search")));
    /// ```
    pub fn watch(&mut self, path: PathBuf) -> WatchId {
        self.watches.push(path);
        WatchId(self.watches.len() - 1)
    }

    /// The next watched value that completed.
    pub fn next_watched(&mut self) -> Option<(WatchId, Value)> {
        self.watched.pop_front()
    }

    /// Queues the watches a completion at `depth` satisfies.
    fn check_watches(&mut self, raw: Raw) {
        let depth = match raw {
            Raw::EndObject(d) | Raw::EndArray(d) | Raw::Str(d) | Raw::Number(d) => d,
            Raw::Bool(d, _) | Raw::Null(d) => d,
            _ => return,
        };
        let Some(path) = self.segments.get(..depth) else {
            return;
        };
        for (i, watch) in self.watches.iter().enumerate() {
            if watch.segments() != path {
                continue;
            }
            let value = match raw {
                Raw::Str(_) => Value::String(self.text.clone()),
                Raw::Number(_) => Value::Number(Number::from_valid(&self.number)),
                Raw::Bool(_, b) => Value::Bool(b),
                Raw::Null(_) => Value::Null,
                _ => {
                    let root = if depth == 0 && self.root.is_none() {
                        self.completed.back()
                    } else {
                        self.root.as_ref()
                    };
                    match root.and_then(|r| r.at(Path::new(path))) {
                        Some(v) => v.clone(),
                        None => continue,
                    }
                }
            };
            self.watched.push_back((WatchId(i), value));
        }
    }

    /// The options in force.
    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// Feeds the next piece; pull its events from the returned [`Feed`].
    ///
    /// Parsing happens as events are pulled. Dropping the `Feed` early still
    /// consumes the whole piece (the events are discarded), so the snapshot
    /// never misses accepted bytes.
    pub fn feed<'p, 'i>(&'p mut self, input: &'i [u8]) -> Feed<'p, 'i> {
        let mut feed = Feed {
            parser: self,
            input: Input::new(input),
            pos: 0,
            eof: false,
            done: false,
        };
        feed.check_input_limit();
        feed
    }

    /// Feeds text; see [`Parser::feed`].
    pub fn feed_str<'p, 'i>(&'p mut self, input: &'i str) -> Feed<'p, 'i> {
        self.feed(input.as_bytes())
    }

    /// Signals the end of input; pull its last events from the returned
    /// [`Feed`]. A document still open is then an
    /// [`UnexpectedEnd`](ErrorKind::UnexpectedEnd) error.
    pub fn finish(&mut self) -> Feed<'_, 'static> {
        Feed {
            parser: self,
            input: Input::new(&[]),
            pos: 0,
            eof: true,
            done: false,
        }
    }

    /// Feeds a piece, discarding its events.
    pub fn push(&mut self, input: &[u8]) -> Result<(), Error> {
        match self.string_piece(input) {
            None => self.feed(input).run(),
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
            }
            .run(),
        }
    }

    /// The common case when streaming, without the state machine: a piece
    /// that continues an open value string with plain text and the common
    /// escapes. Decodes what it can; `None` if it did nothing (the piece
    /// then takes the general path), else how far it got (the whole piece:
    /// its text is then reported and shown, as at the end of any piece) and
    /// the piece's validated text (where it starts, the text) for the
    /// general path to go on from there.
    #[inline]
    fn string_piece<'i>(&mut self, input: &'i [u8]) -> Option<(usize, (usize, &'i str))> {
        let State::Str {
            key: false,
            escape: Escape::None,
        } = self.state
        else {
            return None;
        };
        let limits = &self.opts.limits;
        // At most three held bytes complete a character of at most four:
        // with them, the decoded text is never longer than its source.
        if self.error.is_some()
            || self.offset.saturating_add(input.len() as u64) > limits.max_input_bytes
            || self.text.len().saturating_add(input.len() + 3) > limits.max_string_bytes
        {
            return None;
        }
        let (end, valid) = decode_piece(&mut self.text, &mut self.utf8, input)?;
        if end == input.len() && self.text.len() > self.delivered {
            self.delta();
        }
        Some((end, valid))
    }

    /// Feeds a piece, handing each event to `on_event`.
    pub fn push_with(
        &mut self,
        input: &[u8],
        mut on_event: impl FnMut(Event<'_>),
    ) -> Result<(), Error> {
        let mut feed = self.feed(input);
        while let Some(event) = feed.next_event() {
            on_event(event?);
        }
        Ok(())
    }

    /// Signals the end of input, discarding its events.
    pub fn end(&mut self) -> Result<(), Error> {
        self.finish().run()
    }

    /// Signals the end of input, handing each event to `on_event`.
    pub fn end_with(&mut self, mut on_event: impl FnMut(Event<'_>)) -> Result<(), Error> {
        let mut feed = self.finish();
        while let Some(event) = feed.next_event() {
            on_event(event?);
        }
        Ok(())
    }

    /// The live partial value: `None` while no value has started (or, with
    /// [`Options::multiple_values`], between values). See DESIGN.md's
    /// snapshot policy: completed values as in the document, open strings
    /// with their text so far, members whose value has not started omitted,
    /// numbers that may still grow omitted, literals shown from their first
    /// byte. It only ever grows.
    pub fn snapshot(&self) -> Option<&Value> {
        self.root.as_ref()
    }

    /// Takes the value out (the snapshot, complete once [`Parser::end`]
    /// succeeded).
    pub fn into_value(self) -> Option<Value> {
        self.root
    }

    /// With [`Options::multiple_values`]: the next completed top-level value.
    pub fn take_completed(&mut self) -> Option<Value> {
        self.completed.pop_front()
    }

    /// The error that stopped the parser, if any.
    pub fn error(&self) -> Option<&Error> {
        self.error.as_ref()
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
        Path::new(self.segments.get(..self.frames.len()).unwrap_or(&[]))
    }

    /// Signals the end of input and takes the value, accepting a document
    /// cut short: if the input ended inside a value, the result is what
    /// [`Parser::partial_value`] describes instead of an error. Input that
    /// is invalid (not merely incomplete) is still an error.
    pub fn end_partial(&mut self) -> Result<Option<Value>, Error> {
        match self.end() {
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
    /// what [`repair`](super::repair) returns.
    pub fn partial_value(&self) -> Option<Value> {
        self.with_cut_number(self.root.clone())
    }

    fn with_cut_number(&self, mut root: Option<Value>) -> Option<Value> {
        if let State::Number(_) = self.state {
            if !self.number_shown {
                if let Some(n) = number_prefix(&self.number) {
                    let depth = self.frames.len();
                    if depth == 0 {
                        root = Some(Value::Number(n));
                    } else if let Some(container) = descend(&mut root, depth - 1) {
                        attach(container, &self.key, Value::Number(n));
                    }
                }
            }
        }
        root
    }

    // ----- the state machine -----

    fn fail(&mut self, kind: ErrorKind, offset: u64) -> Step {
        let depth = self.frames.len();
        let len = match self.state {
            State::ObjectFirst | State::ObjectKey | State::ArrayFirst => depth.saturating_sub(1),
            State::Str { key: true, .. } => depth.saturating_sub(1),
            _ => depth,
        };
        let path = PathBuf::from(self.segments.get(..len).unwrap_or(&[]).to_vec());
        self.error = Some(Error::new(kind, offset, path));
        Step::Error
    }

    fn unexpected(&mut self, expected: Expected, found: u8, offset: u64) -> Step {
        self.fail(ErrorKind::Unexpected { expected, found }, offset)
    }

    /// Runs until one event is certain or the piece is used up.
    fn step(&mut self, input: &Input<'_>, pos: &mut usize, eof: bool) -> Step {
        let bytes = input.bytes;
        loop {
            let Some(&byte) = bytes.get(*pos) else {
                return self.end_of_piece(eof);
            };
            let at = self.offset + *pos as u64;
            match self.state {
                State::Str { key, escape } => {
                    if let Some(step) = self.string(input, pos, key, escape) {
                        return step;
                    }
                }
                State::Number(num) => {
                    if let Some(step) = self.number(bytes, pos, num) {
                        return step;
                    }
                }
                State::Literal { word, matched } => {
                    let expected = word.text().as_bytes();
                    if expected.get(usize::from(matched)) != Some(&byte) {
                        return self.unexpected(Expected::Literal(word.text()), byte, at);
                    }
                    *pos += 1;
                    if usize::from(matched) + 1 == expected.len() {
                        let depth = self.frames.len();
                        self.after_scalar();
                        return Step::Event(match word {
                            Word::True => Raw::Bool(depth, true),
                            Word::False => Raw::Bool(depth, false),
                            Word::Null => Raw::Null(depth),
                        });
                    }
                    self.state = State::Literal {
                        word,
                        matched: matched + 1,
                    };
                }
                State::RootSeparator if is_whitespace(byte) => {
                    *pos += 1;
                    self.state = State::RootValue;
                }
                State::RootSeparator => {
                    if !matches!(byte, b'"' | b'[' | b'{') {
                        return self.unexpected(Expected::ValueSeparator, byte, at);
                    }
                    if let Some(step) = self.value(byte, pos, Expected::Value) {
                        return step;
                    }
                }
                _ if is_whitespace(byte) => *pos += 1,
                State::RootValue => {
                    if let Some(step) = self.value(byte, pos, Expected::Value) {
                        return step;
                    }
                }
                State::MemberValue => {
                    if let Some(step) = self.value(byte, pos, Expected::ValueAfterColon) {
                        return step;
                    }
                }
                State::ArrayFirst => {
                    if byte == b']' {
                        *pos += 1;
                        return self.close(Container::Array);
                    }
                    if let Some(step) = self.value(byte, pos, Expected::ValueOrArrayEnd) {
                        return step;
                    }
                }
                State::ArrayValue => {
                    if byte == b']' && self.opts.trailing_commas {
                        *pos += 1;
                        return self.close(Container::Array);
                    }
                    if let Some(step) = self.value(byte, pos, Expected::ValueAfterComma) {
                        return step;
                    }
                }
                State::ArrayNext => match byte {
                    b',' => {
                        *pos += 1;
                        if let Some(Segment::Index(i)) =
                            self.segments.get_mut(self.frames.len().wrapping_sub(1))
                        {
                            *i += 1;
                        }
                        self.state = State::ArrayValue;
                    }
                    b']' => {
                        *pos += 1;
                        return self.close(Container::Array);
                    }
                    _ => return self.unexpected(Expected::CommaOrArrayEnd, byte, at),
                },
                State::ObjectFirst | State::ObjectKey => match byte {
                    b'"' => {
                        *pos += 1;
                        self.key.clear();
                        self.state = State::Str {
                            key: true,
                            escape: Escape::None,
                        };
                    }
                    b'}' if self.state == State::ObjectFirst || self.opts.trailing_commas => {
                        *pos += 1;
                        return self.close(Container::Object);
                    }
                    _ => {
                        let expected = if self.state == State::ObjectFirst {
                            Expected::KeyOrObjectEnd
                        } else {
                            Expected::KeyAfterComma
                        };
                        return self.unexpected(expected, byte, at);
                    }
                },
                State::Colon => {
                    if byte != b':' {
                        return self.unexpected(Expected::Colon, byte, at);
                    }
                    *pos += 1;
                    self.state = State::MemberValue;
                }
                State::ObjectNext => match byte {
                    b',' => {
                        *pos += 1;
                        self.state = State::ObjectKey;
                    }
                    b'}' => {
                        *pos += 1;
                        return self.close(Container::Object);
                    }
                    _ => return self.unexpected(Expected::CommaOrObjectEnd, byte, at),
                },
                State::Done if self.opts.stop_after_value => return Step::Exhausted,
                State::Done => return self.unexpected(Expected::EndOfInput, byte, at),
            }
        }
    }

    /// The piece is used up: report an open string's new text, show a
    /// growing number, or (at the end of input) finish or fail.
    fn end_of_piece(&mut self, eof: bool) -> Step {
        if let State::Str { key: false, .. } = self.state {
            if self.text.len() > self.delivered {
                return self.delta();
            }
        }
        if let State::Number(num) = self.state {
            if eof && self.frames.is_empty() && num.is_complete() {
                return self.complete_number();
            }
            if self.opts.growing_numbers && !eof {
                self.show_growing_number();
            }
        }
        if !eof {
            return Step::Exhausted;
        }
        let at = self.offset;
        let expected = match self.state {
            State::Done => return Step::Exhausted,
            State::RootValue | State::RootSeparator
                if self.opts.multiple_values && self.frames.is_empty() =>
            {
                return Step::Exhausted
            }
            State::RootValue | State::RootSeparator => Expected::Value,
            State::ArrayFirst => Expected::ValueOrArrayEnd,
            State::ArrayValue => Expected::ValueAfterComma,
            State::ArrayNext => Expected::CommaOrArrayEnd,
            State::ObjectFirst => Expected::KeyOrObjectEnd,
            State::ObjectKey => Expected::KeyAfterComma,
            State::Colon => Expected::Colon,
            State::MemberValue => Expected::ValueAfterColon,
            State::ObjectNext => Expected::CommaOrObjectEnd,
            State::Str { escape, .. } => match escape {
                Escape::Hex { .. } => Expected::HexDigit,
                Escape::AfterHigh { .. } | Escape::AfterHighBackslash { .. } => {
                    Expected::LowSurrogate
                }
                _ => Expected::StringEnd,
            },
            State::Number(num) if num.is_complete() => {
                if self.frames.last() == Some(&Container::Array) {
                    Expected::CommaOrArrayEnd
                } else {
                    Expected::CommaOrObjectEnd
                }
            }
            State::Number(_) => Expected::Digit,
            State::Literal { word, .. } => Expected::Literal(word.text()),
        };
        self.fail(ErrorKind::UnexpectedEnd { expected }, at)
    }

    /// The first byte of a value; `Some` when an event is due or on error.
    fn value(&mut self, byte: u8, pos: &mut usize, expected: Expected) -> Option<Step> {
        let at = self.offset + *pos as u64;
        self.started = true;
        match byte {
            b'"' => {
                *pos += 1;
                self.text.clear();
                self.delivered = 0;
                self.insert(Value::String(String::new()));
                self.state = State::Str {
                    key: false,
                    escape: Escape::None,
                };
                // The string's events come when its text does.
                None
            }
            b'{' | b'[' => {
                let depth = self.frames.len();
                if depth >= self.opts.limits.max_depth {
                    let limit = self.opts.limits.max_depth;
                    return Some(self.fail(ErrorKind::DepthLimit { limit }, at));
                }
                *pos += 1;
                let (container, value, state, raw) = if byte == b'{' {
                    let map = Value::Object(Map::new());
                    (
                        Container::Object,
                        map,
                        State::ObjectFirst,
                        Raw::StartObject(depth),
                    )
                } else {
                    let items = Value::Array(Vec::new());
                    (
                        Container::Array,
                        items,
                        State::ArrayFirst,
                        Raw::StartArray(depth),
                    )
                };
                self.insert(value);
                self.frames.push(container);
                if container == Container::Array {
                    self.set_segment_index(depth, 0);
                }
                self.state = state;
                Some(Step::Event(raw))
            }
            b'-' | b'0'..=b'9' => {
                *pos += 1;
                self.number.clear();
                self.number.push(char::from(byte));
                self.number_shown = false;
                self.state = State::Number(match byte {
                    b'-' => Num::Minus,
                    b'0' => Num::Zero,
                    _ => Num::Int,
                });
                None
            }
            b't' | b'f' | b'n' => {
                *pos += 1;
                let word = match byte {
                    b't' => Word::True,
                    b'f' => Word::False,
                    _ => Word::Null,
                };
                self.insert(word.value());
                self.state = State::Literal { word, matched: 1 };
                None
            }
            _ => Some(self.unexpected(expected, byte, at)),
        }
    }

    fn close(&mut self, container: Container) -> Step {
        self.frames.pop();
        let depth = self.frames.len();
        self.after_value();
        Step::Event(match container {
            Container::Array => Raw::EndArray(depth),
            Container::Object => Raw::EndObject(depth),
        })
    }

    /// Moves to what may follow a complete value.
    fn after_value(&mut self) {
        self.state = match self.frames.last() {
            Some(Container::Array) => State::ArrayNext,
            Some(Container::Object) => State::ObjectNext,
            None if self.opts.multiple_values => {
                if let Some(done) = self.root.take() {
                    self.completed.push_back(done);
                }
                State::RootValue
            }
            None => State::Done,
        };
    }

    /// After a number or literal, which end where the next byte cannot
    /// continue them: at the top level of a sequence, that byte must set the
    /// next value apart.
    fn after_scalar(&mut self) {
        self.after_value();
        if self.state == State::RootValue && self.frames.is_empty() {
            self.state = State::RootSeparator;
        }
    }

    fn set_segment_index(&mut self, depth: usize, index: usize) {
        match self.segments.get_mut(depth) {
            Some(segment) => *segment = Segment::Index(index),
            None => self.segments.push(Segment::Index(index)),
        }
    }

    fn set_segment_key(&mut self, depth: usize) {
        match self.segments.get_mut(depth) {
            Some(Segment::Key(buf)) => {
                buf.clear();
                buf.push_str(&self.key);
            }
            Some(segment) => *segment = Segment::Key(self.key.clone()),
            None => self.segments.push(Segment::Key(self.key.clone())),
        }
    }

    // ----- strings -----

    /// Consumes string bytes; `Some` when an event is due or on error.
    fn string(
        &mut self,
        input: &Input<'_>,
        pos: &mut usize,
        key: bool,
        mut escape: Escape,
    ) -> Option<Step> {
        let limit = self.opts.limits.max_string_bytes;
        let bytes = input.bytes;
        loop {
            let at = self.offset + *pos as u64;
            let rest = bytes.get(*pos..).unwrap_or(&[]);
            let Some(&byte) = rest.first() else {
                self.state = State::Str { key, escape };
                return None;
            };
            if !self.utf8.is_empty() {
                // An invalid sequence is reported where it starts, which may
                // be in an earlier piece: the offset must not depend on the
                // cut.
                let held = self.utf8.len() as u64;
                match self.utf8.resume(rest) {
                    Tail::Waiting => {
                        *pos = bytes.len();
                        continue;
                    }
                    Tail::Char(c, used) => {
                        *pos += used;
                        // The character is complete at its last byte.
                        if let Some(step) = self.push_char(key, c, at + used as u64 - 1) {
                            return Some(step);
                        }
                        continue;
                    }
                    Tail::Invalid => {
                        return Some(self.fail(ErrorKind::InvalidUtf8, at - held));
                    }
                }
            }
            match escape {
                Escape::None => {
                    // The common case in one tight loop: plain runs and
                    // two-byte escapes over validated text, when the string
                    // limit cannot be reached within this piece (decoded
                    // text is never longer than its source). It stops at the
                    // closing quote and at anything unusual, which the exact
                    // code below handles.
                    if let Some(valid) = input.rest(*pos) {
                        let target = if key { &mut self.key } else { &mut self.text };
                        if target.len().saturating_add(valid.len()) <= limit {
                            let used = decode_plain(target, bytes, *pos, valid);
                            if used > 0 {
                                *pos += used;
                                continue;
                            }
                        }
                    }
                    let run = string_run_end(rest);
                    if run > 0 {
                        let raw = rest.get(..run).unwrap_or(&[]);
                        let fast = input.text(*pos, *pos + run);
                        let text = match fast.map_or_else(|| core::str::from_utf8(raw), Ok) {
                            Ok(text) => text,
                            Err(e) => {
                                let valid = e.valid_up_to();
                                if e.error_len().is_some() || run < rest.len() {
                                    return Some(
                                        self.fail(ErrorKind::InvalidUtf8, at + valid as u64),
                                    );
                                }
                                // A sequence cut by the end of the piece.
                                self.utf8.hold(raw.get(valid..).unwrap_or(&[]));
                                core::str::from_utf8(raw.get(..valid).unwrap_or(&[])).unwrap_or("")
                            }
                        };
                        let target = if key { &mut self.key } else { &mut self.text };
                        if target.len() + text.len() > limit {
                            // Point at the last byte of the first character
                            // over the limit, as a byte-by-byte feed would.
                            let over = limit.saturating_sub(target.len());
                            let end = text
                                .char_indices()
                                .map(|(i, c)| i + c.len_utf8() - 1)
                                .find(|&last| last >= over)
                                .unwrap_or(over);
                            return Some(
                                self.fail(ErrorKind::StringLimit { limit }, at + end as u64),
                            );
                        }
                        target.push_str(text);
                        *pos += run;
                        continue;
                    }
                    match byte {
                        b'"' => {
                            if key {
                                *pos += 1;
                                let depth = self.frames.len().wrapping_sub(1);
                                self.set_segment_key(depth);
                                self.state = State::Colon;
                                return None;
                            }
                            if self.text.len() > self.delivered {
                                self.state = State::Str { key, escape };
                                return Some(self.delta());
                            }
                            *pos += 1;
                            let depth = self.frames.len();
                            self.after_value();
                            return Some(Step::Event(Raw::Str(depth)));
                        }
                        b'\\' => {
                            // The common two-byte escapes, decoded in place
                            // when the piece holds both bytes.
                            let c = match rest.get(1) {
                                Some(b'n') => '\n',
                                Some(b'"') => '"',
                                Some(b'\\') => '\\',
                                Some(b't') => '\t',
                                Some(b'/') => '/',
                                Some(b'r') => '\r',
                                _ => {
                                    *pos += 1;
                                    escape = Escape::Backslash;
                                    continue;
                                }
                            };
                            if let Some(step) = self.push_char(key, c, at + 1) {
                                return Some(step);
                            }
                            *pos += 2;
                        }
                        _ => {
                            return Some(self.fail(ErrorKind::ControlCharacter { found: byte }, at))
                        }
                    }
                }
                Escape::Backslash => {
                    *pos += 1;
                    let c = match byte {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            escape = Escape::Hex {
                                digits: 0,
                                unit: 0,
                                high: 0,
                            };
                            continue;
                        }
                        _ => return Some(self.fail(ErrorKind::InvalidEscape { found: byte }, at)),
                    };
                    if let Some(step) = self.push_char(key, c, at) {
                        return Some(step);
                    }
                    escape = Escape::None;
                }
                Escape::Hex { digits, unit, high } => {
                    let Some(nibble) = hex_value(byte) else {
                        return Some(self.unexpected(Expected::HexDigit, byte, at));
                    };
                    *pos += 1;
                    let unit = (unit << 4) | u16::from(nibble);
                    if digits < 3 {
                        escape = Escape::Hex {
                            digits: digits + 1,
                            unit,
                            high,
                        };
                        continue;
                    }
                    let c = match (high, unit) {
                        (0, 0xD800..=0xDBFF) => {
                            escape = Escape::AfterHigh { high: unit };
                            continue;
                        }
                        (0, 0xDC00..=0xDFFF) => {
                            return Some(self.fail(ErrorKind::LoneSurrogate { unit }, at))
                        }
                        (0, unit) => char::from_u32(u32::from(unit)),
                        (high, 0xDC00..=0xDFFF) => char::from_u32(
                            0x10000
                                + ((u32::from(high) - 0xD800) << 10)
                                + (u32::from(unit) - 0xDC00),
                        ),
                        (high, _) => {
                            return Some(self.fail(ErrorKind::LoneSurrogate { unit: high }, at))
                        }
                    };
                    let Some(c) = c else {
                        return Some(self.fail(ErrorKind::LoneSurrogate { unit }, at));
                    };
                    if let Some(step) = self.push_char(key, c, at) {
                        return Some(step);
                    }
                    escape = Escape::None;
                }
                Escape::AfterHigh { high } => {
                    if byte != b'\\' {
                        return Some(self.fail(ErrorKind::LoneSurrogate { unit: high }, at));
                    }
                    *pos += 1;
                    escape = Escape::AfterHighBackslash { high };
                }
                Escape::AfterHighBackslash { high } => {
                    if byte != b'u' {
                        return Some(self.fail(ErrorKind::LoneSurrogate { unit: high }, at));
                    }
                    *pos += 1;
                    escape = Escape::Hex {
                        digits: 0,
                        unit: 0,
                        high,
                    };
                }
            }
        }
    }

    fn target(&mut self, key: bool) -> &mut String {
        if key {
            &mut self.key
        } else {
            &mut self.text
        }
    }

    fn push_char(&mut self, key: bool, c: char, at: u64) -> Option<Step> {
        let limit = self.opts.limits.max_string_bytes;
        let target = self.target(key);
        if target.len() + c.len_utf8() > limit {
            return Some(self.fail(ErrorKind::StringLimit { limit }, at));
        }
        target.push(c);
        None
    }

    /// Reports the undelivered text of the open value string and shows it.
    fn delta(&mut self) -> Step {
        let from = self.delivered;
        self.delivered = self.text.len();
        if self.opts.snapshot {
            let depth = self.frames.len();
            if let Some(Value::String(shown)) = descend(&mut self.root, depth) {
                shown.push_str(self.text.get(from..).unwrap_or(""));
            }
        }
        Step::Event(Raw::Delta {
            depth: self.frames.len(),
            from,
        })
    }

    // ----- numbers -----

    fn number(&mut self, input: &[u8], pos: &mut usize, mut num: Num) -> Option<Step> {
        let limit = self.opts.limits.max_number_bytes;
        let start = *pos;
        while let Some(&byte) = input.get(*pos) {
            let next = match (num, byte) {
                (Num::Minus, b'0') => Num::Zero,
                (Num::Minus, b'1'..=b'9') => Num::Int,
                (Num::Int, b'0'..=b'9') => Num::Int,
                (Num::Zero | Num::Int, b'.') => Num::Dot,
                (Num::Dot | Num::Frac, b'0'..=b'9') => Num::Frac,
                (Num::Zero | Num::Int | Num::Frac, b'e' | b'E') => Num::Exp,
                (Num::Exp, b'+' | b'-') => Num::ExpSign,
                (Num::Exp | Num::ExpSign | Num::ExpDigits, b'0'..=b'9') => Num::ExpDigits,
                (Num::Zero, b'0'..=b'9') => {
                    let at = self.offset + *pos as u64;
                    return Some(self.fail(ErrorKind::LeadingZero, at));
                }
                _ if num.is_complete() => {
                    self.push_number_bytes(input, start, *pos);
                    self.state = State::Number(num);
                    if self.number.len() > limit {
                        let at = self.offset + *pos as u64;
                        return Some(self.fail(ErrorKind::NumberLimit { limit }, at));
                    }
                    return Some(self.complete_number());
                }
                _ => {
                    let at = self.offset + *pos as u64;
                    return Some(self.unexpected(Expected::Digit, byte, at));
                }
            };
            num = next;
            if self.number.len() + (*pos + 1 - start) > limit {
                let at = self.offset + *pos as u64;
                return Some(self.fail(ErrorKind::NumberLimit { limit }, at));
            }
            *pos += 1;
        }
        self.push_number_bytes(input, start, *pos);
        self.state = State::Number(num);
        None
    }

    fn push_number_bytes(&mut self, input: &[u8], start: usize, end: usize) {
        // Every byte accepted by the number grammar is ASCII.
        let bytes = input.get(start..end).unwrap_or(&[]);
        self.number
            .push_str(core::str::from_utf8(bytes).unwrap_or(""));
    }

    fn complete_number(&mut self) -> Step {
        let value = Value::Number(Number::from_valid(&self.number));
        if self.number_shown {
            self.replace_current(value);
        } else {
            self.insert(value);
        }
        self.number_shown = false;
        let depth = self.frames.len();
        self.after_scalar();
        Step::Event(Raw::Number(depth))
    }

    fn show_growing_number(&mut self) {
        if let Some(n) = number_prefix(&self.number) {
            if self.number_shown {
                self.replace_current(Value::Number(n));
            } else {
                self.insert(Value::Number(n));
                self.number_shown = true;
            }
        }
    }

    // ----- the snapshot -----

    /// Adds a value that has just started to the snapshot.
    fn insert(&mut self, value: Value) {
        if !self.opts.snapshot {
            return;
        }
        let depth = self.frames.len();
        if depth == 0 {
            self.root = Some(value);
            return;
        }
        if let Some(container) = descend(&mut self.root, depth - 1) {
            attach(container, &self.key, value);
        }
    }

    /// Replaces the value being parsed (a growing number) in the snapshot.
    fn replace_current(&mut self, value: Value) {
        if !self.opts.snapshot {
            return;
        }
        let depth = self.frames.len();
        if let Some(slot) = descend(&mut self.root, depth) {
            *slot = value;
        }
    }

    fn event(&self, raw: Raw) -> Event<'_> {
        let path = |depth: usize| Path::new(self.segments.get(..depth).unwrap_or(&[]));
        let (depth, kind) = match raw {
            Raw::StartObject(d) => (d, EventKind::StartObject),
            Raw::EndObject(d) => (d, EventKind::EndObject),
            Raw::StartArray(d) => (d, EventKind::StartArray),
            Raw::EndArray(d) => (d, EventKind::EndArray),
            Raw::Delta { depth, from } => (
                depth,
                EventKind::StringDelta(self.text.get(from..).unwrap_or("")),
            ),
            Raw::Str(d) => (d, EventKind::String(&self.text)),
            Raw::Number(d) => (d, EventKind::Number(&self.number)),
            Raw::Bool(d, b) => (d, EventKind::Bool(b)),
            Raw::Null(d) => (d, EventKind::Null),
        };
        Event {
            path: path(depth),
            kind,
        }
    }
}

/// Walks `levels` steps down the last children from the root: the open
/// value at that depth. Cost is the depth, never the document size.
fn descend(root: &mut Option<Value>, levels: usize) -> Option<&mut Value> {
    let mut value = root.as_mut()?;
    for _ in 0..levels {
        value = match value {
            Value::Array(items) => items.last_mut()?,
            Value::Object(map) => &mut map.last_mut()?.1,
            _ => return None,
        };
    }
    Some(value)
}

/// Appends `value` to an open container (`key` names it in an object).
fn attach(container: &mut Value, key: &str, value: Value) {
    match container {
        Value::Array(items) => items.push(value),
        Value::Object(map) => map.push(key, value),
        _ => {}
    }
}

/// The longest prefix of a cut number text that is a number itself.
fn number_prefix(text: &str) -> Option<Number> {
    let mut end = text.len();
    let bytes = text.as_bytes();
    // Drop an unfinished exponent, then an unfinished fraction.
    if let Some(e) = bytes.iter().position(|&b| b == b'e' || b == b'E') {
        if !bytes
            .get(e + 1..)
            .unwrap_or(&[])
            .iter()
            .any(u8::is_ascii_digit)
        {
            end = e;
        }
    }
    let head = text.get(..end).unwrap_or("");
    let head = head.strip_suffix('.').unwrap_or(head);
    Number::from_text(head)
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// A piece of input, with its UTF-8 validated once, lazily, from the first
/// string run onward: every later run is sliced out of that one validated
/// `&str`, instead of being validated on its own (a quarter of the parse
/// time on text-heavy documents when done per run).
#[derive(Debug)]
struct Input<'i> {
    bytes: &'i [u8],
    /// Where validation started, and the valid text from there.
    valid: core::cell::OnceCell<(usize, &'i str)>,
}

impl<'i> Input<'i> {
    fn new(bytes: &'i [u8]) -> Self {
        Input {
            bytes,
            valid: core::cell::OnceCell::new(),
        }
    }

    /// A piece already validated from `valid.0` on.
    fn validated(bytes: &'i [u8], valid: (usize, &'i str)) -> Self {
        Input {
            bytes,
            valid: core::cell::OnceCell::from(valid),
        }
    }

    /// The validated text from `start` on (as far as it is valid), if
    /// `start` lies in the validated region.
    #[inline]
    fn rest(&self, start: usize) -> Option<&'i str> {
        let (from, text) = *self.valid.get_or_init(|| validate(self.bytes, start));
        text.get(start.checked_sub(from)?..)
    }

    /// The run `start..end` as text, if it lies in the validated region
    /// (it starts at a character boundary: runs begin after ASCII bytes or
    /// after a completed sequence). `None` sends the caller to the slow,
    /// exact path, which also finds and reports invalid bytes.
    #[inline]
    fn text(&self, start: usize, end: usize) -> Option<&'i str> {
        let (from, text) = *self.valid.get_or_init(|| validate(self.bytes, start));
        text.get(start.checked_sub(from)?..end.checked_sub(from)?)
    }
}

/// The valid UTF-8 text of `bytes` from `start` on, up to the first byte
/// that is not (or the end), with `start`.
fn validate(bytes: &[u8], start: usize) -> (usize, &str) {
    let rest = bytes.get(start..).unwrap_or(&[]);
    let text = match core::str::from_utf8(rest) {
        Ok(text) => text,
        Err(e) => core::str::from_utf8(rest.get(..e.valid_up_to()).unwrap_or(&[])).unwrap_or(""),
    };
    (start, text)
}

/// Decodes the start of a piece inside a string into `target` (see
/// `Parser::string_piece`): completes a character cut by the last
/// piece, then plain text and common escapes. `None` if the cut character
/// cannot be completed here (nothing is changed then); else how far it got
/// (the whole piece when only a cut character is left, which `utf8` then
/// holds) and the piece's validated text, from where it starts.
#[inline]
fn decode_piece<'i>(
    target: &mut String,
    utf8: &mut Utf8Tail,
    input: &'i [u8],
) -> Option<(usize, (usize, &'i str))> {
    let mut start = 0;
    if !utf8.is_empty() {
        let mut tail = *utf8;
        match tail.resume(input) {
            Tail::Char(c, used) => {
                *utf8 = tail;
                target.push(c);
                start = used;
            }
            _ => return None,
        }
    }
    let rest = input.get(start..).unwrap_or(&[]);
    let (text, cut) = match core::str::from_utf8(rest) {
        Ok(text) => (text, false),
        Err(e) => {
            let valid = rest.get(..e.valid_up_to()).unwrap_or(&[]);
            let text = core::str::from_utf8(valid).unwrap_or("");
            (text, e.error_len().is_none())
        }
    };
    let mut end = start + decode_plain(target, input, start, text);
    if cut && end == start + text.len() {
        // A sequence cut by the end of the piece waits for the rest.
        utf8.hold(input.get(end..).unwrap_or(&[]));
        end = input.len();
    }
    Some((end, (start, text)))
}

/// Appends the decoded text of a string body to `target`: plain runs and
/// the common two-byte escapes. `text` is the valid text of `bytes` from
/// `pos` to its end or to its first invalid byte. Stops before the closing
/// quote, a control character, any other escape, a `\\` at the end, or the
/// end of `text`; returns the bytes used.
///
/// Sixteen bytes are classified at a time ([`run_end_mask`]) and the runs
/// within them are walked bit by bit: the average run in LLM text is short,
/// so finding its end must not cost a fresh scan.
#[inline]
fn decode_plain(target: &mut String, bytes: &[u8], pos: usize, text: &str) -> usize {
    let hay = bytes.get(..pos + text.len()).unwrap_or(&[]);
    let len = hay.len();
    // The plain text not yet copied starts at `start`; the block at `base`.
    let mut start = pos;
    let mut base = pos;
    let end = 'scan: loop {
        if base >= len {
            break len;
        }
        let mut mask = run_end_mask(hay, base);
        if start > base {
            // The escaped byte of an escape that straddled the blocks.
            mask &= !0u128 << ((start - base) * 8);
        }
        while mask != 0 {
            let at = base + (mask.trailing_zeros() / 8) as usize;
            if hay.get(at) != Some(&b'\\') {
                break 'scan at;
            }
            let c = match hay.get(at + 1) {
                Some(b'n') => '\n',
                Some(b'"') => '"',
                Some(b'\\') => '\\',
                Some(b't') => '\t',
                Some(b'/') => '/',
                Some(b'r') => '\r',
                _ => break 'scan at,
            };
            // Runs start and end next to ASCII bytes: char boundaries.
            target.push_str(text.get(start - pos..at - pos).unwrap_or(""));
            target.push(c);
            start = at + 2;
            let skip = start - base;
            if skip >= 16 {
                break;
            }
            mask &= !0u128 << (skip * 8);
        }
        base += 16;
    };
    target.push_str(text.get(start.min(end) - pos..end - pos).unwrap_or(""));
    end - pos
}

/// The events of one piece, pulled one at a time.
///
/// A lending iterator: each [`Event`] borrows the parser until the next
/// call, which is what lets events carry paths and text without allocating.
/// Dropping the feed consumes the rest of the piece.
#[derive(Debug)]
pub struct Feed<'p, 'i> {
    parser: &'p mut Parser,
    input: Input<'i>,
    pos: usize,
    eof: bool,
    done: bool,
}

impl Feed<'_, '_> {
    fn check_input_limit(&mut self) {
        if self.parser.error.is_some() {
            return;
        }
        let limit = self.parser.opts.limits.max_input_bytes;
        let total = self
            .parser
            .offset
            .saturating_add(self.input.bytes.len() as u64);
        if total > limit {
            let path = self.parser.path().to_path_buf();
            self.parser.error = Some(Error::new(ErrorKind::InputLimit { limit }, limit, path));
        }
    }

    /// The next event of this piece, `None` when the piece is used up, or
    /// the error that stopped the parser (reported once per feed).
    #[allow(clippy::should_implement_trait)]
    pub fn next_event(&mut self) -> Option<Result<Event<'_>, Error>> {
        if self.done {
            return None;
        }
        if let Some(error) = self.parser.error.as_ref() {
            self.done = true;
            return Some(Err(error.clone()));
        }
        match self.parser.step(&self.input, &mut self.pos, self.eof) {
            Step::Event(raw) => {
                if !self.parser.watches.is_empty() {
                    self.parser.check_watches(raw);
                }
                Some(Ok(self.parser.event(raw)))
            }
            Step::Exhausted => {
                self.done = true;
                self.parser.offset += self.pos as u64;
                if self.eof {
                    self.parser.ended = true;
                }
                None
            }
            Step::Error => {
                self.done = true;
                self.parser.error.clone().map(Err)
            }
        }
    }

    /// Bytes of this piece consumed so far (all of them once the feed is
    /// done, unless [`Options::stop_after_value`] stopped it early).
    pub fn consumed(&self) -> usize {
        self.pos
    }

    /// Consumes the rest of the piece, discarding events (without even
    /// building them: the fast path of [`Parser::push`]).
    pub fn run(mut self) -> Result<(), Error> {
        if let Some(error) = self.parser.error.as_ref() {
            self.done = true;
            return Err(error.clone());
        }
        while !self.done {
            match self.parser.step(&self.input, &mut self.pos, self.eof) {
                Step::Event(raw) => {
                    if !self.parser.watches.is_empty() {
                        self.parser.check_watches(raw);
                    }
                }
                Step::Exhausted => {
                    self.done = true;
                    self.parser.offset += self.pos as u64;
                    if self.eof {
                        self.parser.ended = true;
                    }
                }
                Step::Error => {
                    self.done = true;
                    if let Some(error) = self.parser.error.clone() {
                        return Err(error);
                    }
                }
            }
        }
        Ok(())
    }
}

impl Drop for Feed<'_, '_> {
    fn drop(&mut self) {
        while self.next_event().is_some() {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Limits;
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
            let a = fast.push(piece);
            let b = slow.push_with(piece, |_| {});
            assert_eq!(a, b, "{doc:?} {cuts:?}");
            assert_eq!(fast.snapshot(), slow.snapshot(), "{doc:?} {cuts:?}");
            assert_eq!(fast.bytes_fed(), slow.bytes_fed());
            assert_eq!(fast.utf8.len(), slow.utf8.len());
            if a.is_err() {
                return;
            }
        }
        assert_eq!(fast.end(), slow.end_with(|_| {}));
        assert_eq!(fast.into_value(), slow.into_value());
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
            let step = 1 + rng.below(20) as usize;
            let even: Vec<usize> = (1..doc.len()).step_by(step).collect();
            let mut random = vec![];
            let mut at = 0;
            while at < doc.len() {
                at += 1 + rng.below(24) as usize;
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
