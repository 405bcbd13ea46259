//! The grammar: one state per position in RFC 8259's grammar, and the
//! transitions between them for the bytes outside strings and numbers.

use super::feed::Input;
use super::{Container, Escape, Num, Parser, Raw, State, Step, Word};
use crate::json::error::{Error, ErrorKind, Expected, Note};
use crate::json::path::Segment;
use crate::json::scan::{is_whitespace, skip_whitespace};

impl Parser {
    /// How many segments name the value being parsed now: before an
    /// object's key is complete, or an array's first element has begun, the
    /// container itself.
    pub(super) fn path_len(&self) -> usize {
        let depth = self.frames.len();
        match self.state {
            State::ObjectFirst | State::ObjectKey | State::ArrayFirst => depth.saturating_sub(1),
            State::Str { key: true, .. } => depth.saturating_sub(1),
            _ => depth,
        }
    }

    pub(super) fn fail(&mut self, kind: ErrorKind, offset: u64) -> Step {
        self.fail_noted(kind, offset, None)
    }

    /// Records the error (`note`, else what the state says: in a key or
    /// not). Out of line: the many paths to an error are cold, and inlined
    /// they cost the hot ones their own inlining.
    #[cold]
    #[inline(never)]
    fn fail_noted(&mut self, kind: ErrorKind, offset: u64, note: Option<Note>) -> Step {
        let note = note.unwrap_or(match self.state {
            State::Str { key: true, .. } => Note::InKey,
            _ => Note::None,
        });
        let path = self.path().to_path_buf();
        let error = Error::new(kind, offset, path).with_note(note);
        self.error = Some(alloc::boxed::Box::new(error));
        Step::Error
    }

    pub(super) fn unexpected(&mut self, expected: Expected, found: u8, offset: u64) -> Step {
        self.fail(ErrorKind::Unexpected { expected, found }, offset)
    }

    /// Runs until one event is certain or the piece is used up; when
    /// `quiet` (nobody reads the events), on past events until the piece is
    /// used up, which saves a return and a call per event.
    pub(super) fn step(
        &mut self,
        input: &Input<'_>,
        pos: &mut usize,
        eof: bool,
        quiet: bool,
    ) -> Step {
        let bytes = input.bytes;
        // Hands an event to the caller, or (quiet) goes on.
        macro_rules! emit {
            ($step:expr) => {{
                let step = $step;
                if quiet && matches!(step, Step::Event(_)) {
                    continue;
                }
                return step;
            }};
        }
        loop {
            let Some(&byte) = bytes.get(*pos) else {
                emit!(self.end_of_piece(eof));
            };
            let at = self.offset + *pos as u64;
            match self.state {
                State::Str { key, escape } => {
                    if let Some(step) = self.string(input, pos, key, escape) {
                        emit!(step);
                    }
                }
                State::Number(num) => {
                    if let Some(step) = self.number(input, pos, num) {
                        emit!(step);
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
                        emit!(Step::Event(match word {
                            Word::True => Raw::Bool(depth, true),
                            Word::False => Raw::Bool(depth, false),
                            Word::Null => Raw::Null(depth),
                        }));
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
                    if let Some(step) = self.value(input, pos, Expected::Value, quiet) {
                        emit!(step);
                    }
                }
                _ if is_whitespace(byte) => {
                    // Indentation comes in runs: skip them in one loop.
                    *pos = skip_whitespace(bytes, *pos + 1);
                }
                State::RootValue => {
                    if let Some(step) = self.value(input, pos, Expected::Value, quiet) {
                        emit!(step);
                    }
                }
                State::MemberValue => {
                    if let Some(step) = self.value(input, pos, Expected::ValueAfterColon, quiet) {
                        emit!(step);
                    }
                }
                State::ArrayFirst => {
                    if byte == b']' {
                        *pos += 1;
                        emit!(self.close(Container::Array));
                    }
                    if let Some(step) = self.value(input, pos, Expected::ValueOrArrayEnd, quiet) {
                        emit!(step);
                    }
                }
                State::ArrayValue => {
                    if byte == b']' && self.opts.trailing_commas {
                        *pos += 1;
                        emit!(self.close(Container::Array));
                    }
                    if let Some(step) = self.value(input, pos, Expected::ValueAfterComma, quiet) {
                        emit!(step);
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
                        // The next element at once, not through another
                        // dispatch on the state (see `member`).
                        *pos = skip_whitespace(bytes, *pos);
                        if bytes.get(*pos).is_some_and(|&b| b != b']') {
                            if let Some(step) =
                                self.value(input, pos, Expected::ValueAfterComma, quiet)
                            {
                                emit!(step);
                            }
                        }
                    }
                    b']' => {
                        *pos += 1;
                        emit!(self.close(Container::Array));
                    }
                    _ => return self.unexpected(Expected::CommaOrArrayEnd, byte, at),
                },
                State::ObjectFirst | State::ObjectKey => match byte {
                    b'"' => {
                        *pos += 1;
                        if let Some(step) = self.member(input, pos, quiet) {
                            emit!(step);
                        }
                    }
                    b'}' if self.state == State::ObjectFirst || self.opts.trailing_commas => {
                        *pos += 1;
                        emit!(self.close(Container::Object));
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
                        *pos = skip_whitespace(bytes, *pos);
                        if bytes.get(*pos) == Some(&b'"') {
                            *pos += 1;
                            if let Some(step) = self.member(input, pos, quiet) {
                                emit!(step);
                            }
                        }
                    }
                    b'}' => {
                        *pos += 1;
                        emit!(self.close(Container::Object));
                    }
                    _ => return self.unexpected(Expected::CommaOrObjectEnd, byte, at),
                },
                State::Done if self.opts.stop_after_value => return Step::Exhausted,
                State::Done => return self.unexpected(Expected::EndOfInput, byte, at),
            }
        }
    }

    /// A member from just after its key's opening quote: the key, and in
    /// the usual `"key": value` also the colon and the value's first byte,
    /// here rather than through a dispatch on the state for each. That
    /// dispatch is one indirect jump whose target changes at every token,
    /// and it mispredicts on most of them when parsing the small objects
    /// of a provider stream. `Some` when an
    /// event is due or on error; otherwise the state says where it stopped.
    fn member(&mut self, input: &Input<'_>, pos: &mut usize, quiet: bool) -> Option<Step> {
        self.open_key();
        if !self.whole_key(input, pos) {
            self.state = State::Str {
                key: true,
                escape: Escape::None,
            };
            return None;
        }
        self.state = State::Colon;
        let bytes = input.bytes;
        let colon = skip_whitespace(bytes, *pos);
        if bytes.get(colon) != Some(&b':') {
            return None;
        }
        *pos = skip_whitespace(bytes, colon + 1);
        self.state = State::MemberValue;
        self.value(input, pos, Expected::ValueAfterColon, quiet)
    }

    /// The piece is used up: report an open string's new text, show a
    /// growing number, or (at the end of input) finish or fail.
    pub(super) fn end_of_piece(&mut self, eof: bool) -> Step {
        if let State::Str { key: false, .. } = self.state {
            let len = self.open_text(self.frames.len()).len();
            if len > self.delivered {
                return self.delta(len);
            }
        }
        if let State::Number(num) = self.state {
            if eof && self.frames.is_empty() && num.is_complete() {
                // Checked here too: a number's first byte is taken before
                // any limit check, and no byte after it will come.
                let limit = self.opts.limits.max_number_bytes;
                if self.number.len() > limit {
                    return self.fail(ErrorKind::NumberLimit { limit }, self.offset);
                }
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
    pub(super) fn value(
        &mut self,
        input: &Input<'_>,
        pos: &mut usize,
        expected: Expected,
        quiet: bool,
    ) -> Option<Step> {
        let at = self.offset + *pos as u64;
        let byte = *input.bytes.get(*pos)?;
        match byte {
            b'"' => {
                *pos += 1;
                self.text.clear();
                self.delivered = 0;
                if quiet {
                    if let Some(step) = self.whole_string(input, pos) {
                        return Some(step);
                    }
                }
                self.open_string();
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
                let (container, state, raw) = if byte == b'{' {
                    (
                        Container::Object,
                        State::ObjectFirst,
                        Raw::StartObject(depth),
                    )
                } else {
                    (Container::Array, State::ArrayFirst, Raw::StartArray(depth))
                };
                self.open_container(container);
                self.frames.push(container);
                if container == Container::Array {
                    self.set_segment_index(depth, 0);
                }
                self.state = state;
                Some(Step::Event(raw))
            }
            b'-' | b'0'..=b'9' => {
                if let Some(step) = self.whole_number(input.bytes, pos, quiet) {
                    return Some(step);
                }
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
                self.add_scalar(word.value());
                self.state = State::Literal { word, matched: 1 };
                None
            }
            // Where a document begins (at the top level), the first byte
            // of a UTF-8 byte order mark: an error at once, whatever
            // follows, whose message names the mark.
            0xef if expected == Expected::Value => {
                let kind = ErrorKind::Unexpected {
                    expected,
                    found: byte,
                };
                Some(self.fail_noted(kind, at, Some(Note::ByteOrderMark)))
            }
            _ => Some(self.unexpected(expected, byte, at)),
        }
    }

    pub(super) fn close(&mut self, container: Container) -> Step {
        self.frames.pop();
        let depth = self.frames.len();
        self.close_container(container);
        self.after_value();
        Step::Event(match container {
            Container::Array => Raw::EndArray(depth),
            Container::Object => Raw::EndObject(depth),
        })
    }

    /// Moves to what may follow a complete value.
    pub(super) fn after_value(&mut self) {
        self.state = match self.frames.last() {
            Some(Container::Array) => State::ArrayNext,
            Some(Container::Object) => State::ObjectNext,
            None if self.opts.multiple_values => {
                if let Some(done) = self.root.take() {
                    self.keep_completed(done);
                }
                State::RootValue
            }
            None => State::Done,
        };
    }

    /// After a number or literal, which end where the next byte cannot
    /// continue them: at the top level of a sequence, that byte must set the
    /// next value apart.
    pub(super) fn after_scalar(&mut self) {
        self.after_value();
        if self.state == State::RootValue && self.frames.is_empty() {
            self.state = State::RootSeparator;
        }
    }

    pub(super) fn set_segment_index(&mut self, depth: usize, index: usize) {
        match self.segments.get_mut(depth) {
            Some(Segment::Index(i)) => *i = index,
            Some(segment) => {
                if let Segment::Key(buf) = core::mem::replace(segment, Segment::Index(index)) {
                    if buf.capacity() > 0 {
                        self.extras_mut().spare_keys.push(buf);
                    }
                }
            }
            None => self.segments.push(Segment::Index(index)),
        }
    }

    /// A key starts: it is decoded straight into its path segment (whose
    /// buffer is reused from key to key at this depth, and kept aside
    /// while the depth holds an index).
    pub(super) fn open_key(&mut self) {
        let depth = self.frames.len().wrapping_sub(1);
        if let Some(Segment::Key(buf)) = self.segments.get_mut(depth) {
            buf.clear();
            return;
        }
        let mut buf = self
            .extras
            .as_deref_mut()
            .and_then(|extras| extras.spare_keys.pop())
            .unwrap_or_default();
        buf.clear();
        match self.segments.get_mut(depth) {
            Some(segment) => *segment = Segment::Key(buf),
            None => self.segments.push(Segment::Key(buf)),
        }
    }

    /// The key of the member being parsed in the innermost object.
    pub(super) fn member_key(&self) -> &str {
        member_key(&self.segments, self.frames.len())
    }
}

/// The key that `segments` names for the current member of the container
/// at depth `depth - 1` ("" in an array).
pub(super) fn member_key(segments: &[Segment], depth: usize) -> &str {
    match segments.get(depth.wrapping_sub(1)) {
        Some(Segment::Key(key)) => key,
        _ => "",
    }
}
