//! The pull side: a piece of input, and the events it yields.

use super::{Parser, Raw, Step};
use crate::json::error::{Error, ErrorKind};
use crate::json::event::{Event, EventKind};
use crate::json::path::Path;

impl Parser {
    pub(super) fn event(&self, raw: Raw) -> Event<'_> {
        let path = |depth: usize| Path::new(self.segments.get(..depth).unwrap_or(&[]));
        let (depth, kind) = match raw {
            Raw::StartObject(d) => (d, EventKind::StartObject),
            Raw::EndObject(d) => (d, EventKind::EndObject),
            Raw::StartArray(d) => (d, EventKind::StartArray),
            Raw::EndArray(d) => (d, EventKind::EndArray),
            Raw::Delta { depth, from } => (
                depth,
                EventKind::StringDelta(self.open_text(depth).get(from..).unwrap_or("")),
            ),
            Raw::Str(d) => (d, EventKind::String(self.open_text(d))),
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

/// A piece of input, with its UTF-8 validated lazily, a window at a time:
/// string runs and numbers are sliced out of the current window's one
/// validated `&str` instead of being validated on their own (a quarter of
/// the parse time on text-heavy documents when done per run), and the
/// window is small enough that the scan that follows still finds its bytes
/// in the first-level cache (validating a whole large piece up front cost
/// a cache miss per line on the second pass).
#[derive(Debug)]
pub(super) struct Input<'i> {
    pub(super) bytes: &'i [u8],
    /// The current window: where it starts, and its valid text (up to its
    /// end, or to the first byte that is not valid UTF-8).
    valid: core::cell::Cell<Option<(usize, &'i str)>>,
}

/// How many bytes are validated at a time.
pub(super) const WINDOW: usize = 8192;

impl<'i> Input<'i> {
    pub(super) fn new(bytes: &'i [u8]) -> Self {
        Input {
            bytes,
            valid: core::cell::Cell::new(None),
        }
    }

    /// A piece already validated from `valid.0` on, as far as `valid.1`
    /// goes.
    pub(super) fn validated(bytes: &'i [u8], valid: (usize, &'i str)) -> Self {
        Input {
            bytes,
            valid: core::cell::Cell::new(Some(valid)),
        }
    }

    /// The validated text from `start` to the end of its window (as far as
    /// it is valid); `start` must be a character boundary, as every caller's
    /// is (after an ASCII byte or a completed sequence).
    #[inline]
    pub(super) fn rest(&self, start: usize) -> Option<&'i str> {
        if let Some((from, text)) = self.valid.get() {
            if let Some(rest) = start.checked_sub(from).and_then(|at| text.get(at..)) {
                if !rest.is_empty() {
                    return Some(rest);
                }
            }
        }
        let window = validate(self.bytes, start);
        self.valid.set(Some(window));
        Some(window.1)
    }

    /// The run `start..end` as text, if it lies in a validated window (it
    /// starts at a character boundary). `None` sends the caller to the
    /// slow, exact path, which also finds and reports invalid bytes.
    #[inline]
    pub(super) fn text(&self, start: usize, end: usize) -> Option<&'i str> {
        let rest = self.rest(start)?;
        rest.get(..end.checked_sub(start)?)
    }
}

/// The valid UTF-8 text of the window of `bytes` from `start` on: up to
/// [`WINDOW`] bytes, less a character cut by the window's end (the next
/// window starts with it), or up to the first byte that is not valid.
pub(super) fn validate(bytes: &[u8], start: usize) -> (usize, &str) {
    let rest = bytes.get(start..).unwrap_or(&[]);
    let window = rest.get(..WINDOW).unwrap_or(rest);
    let text = crate::utf8::valid_prefix(window).0;
    (start, text)
}

/// The events of one piece, pulled one at a time.
///
/// A lending iterator: each [`Event`] borrows the parser until the next
/// call, which is what lets events carry paths and text without allocating.
/// Dropping the feed consumes the rest of the piece.
#[derive(Debug)]
pub struct Feed<'p, 'i> {
    pub(super) parser: &'p mut Parser,
    pub(super) input: Input<'i>,
    pub(super) pos: usize,
    pub(super) eof: bool,
    pub(super) done: bool,
    /// Whether the piece was cut at the input limit: once the bytes within
    /// it are parsed, the rest is an [`InputLimit`](ErrorKind::InputLimit)
    /// error. Parsing up to the limit first keeps the outcome the same
    /// however the stream was cut.
    pub(super) over_limit: bool,
}

impl Feed<'_, '_> {
    /// The piece is used up: account for it, and report the input limit if
    /// the piece went past it.
    #[inline]
    fn exhausted(&mut self) -> Option<Error> {
        self.done = true;
        self.parser.offset += self.pos as u64;
        if self.over_limit && self.pos == self.input.bytes.len() {
            let limit = self.parser.opts.limits.max_input_bytes;
            let path = self.parser.path().to_path_buf();
            let error = Error::new(ErrorKind::InputLimit { limit }, limit, path);
            self.parser.error = Some(alloc::boxed::Box::new(error.clone()));
            return Some(error);
        }
        None
    }

    /// The next event of this piece, `None` when the piece is used up, or
    /// the error that stopped the parser (reported once per feed).
    #[allow(clippy::should_implement_trait)]
    pub fn next_event(&mut self) -> Option<Result<Event<'_>, Error>> {
        if self.done {
            return None;
        }
        if let Some(error) = self.parser.error.as_deref() {
            self.done = true;
            return Some(Err(error.clone()));
        }
        match self
            .parser
            .step(&self.input, &mut self.pos, self.eof, false)
        {
            Step::Event(raw) => {
                if self.parser.has_watches() {
                    self.parser.check_watches(raw);
                }
                Some(Ok(self.parser.event(raw)))
            }
            Step::Exhausted => self.exhausted().map(Err),
            Step::Error => {
                // Text of the failed string that a piece ending before the
                // bad byte would have reported: its delta first, the error
                // (sticky) at the next call.
                if let Some(Step::Event(raw)) = self.parser.pending_delta() {
                    return Some(Ok(self.parser.event(raw)));
                }
                self.done = true;
                self.parser.error.as_deref().cloned().map(Err)
            }
        }
    }

    /// The live value as of the last event pulled (see
    /// [`Parser::snapshot`]): a container whose end was just reported is
    /// complete in it, and is the last member or element of each of its
    /// ancestors, so [`Value::at`](crate::json::Value::at) with the event's
    /// path finds it even among duplicate keys, which it might not once
    /// the rest of the piece has been read.
    pub fn snapshot(&self) -> Option<&crate::json::Value> {
        self.parser.snapshot()
    }

    /// Bytes of this piece consumed so far (all of them once the feed is
    /// done, unless [`Options::stop_after_value`](crate::json::Options::stop_after_value)
    /// stopped it early).
    pub fn consumed(&self) -> usize {
        self.pos
    }

    /// Consumes the rest of the piece, discarding events (without even
    /// building them: the fast path of [`Parser::feed`]).
    pub fn run(mut self) -> Result<(), Error> {
        if let Some(error) = self.parser.error.as_deref() {
            self.done = true;
            return Err(error.clone());
        }
        // Events matter here only to watches.
        let quiet = !self.parser.has_watches();
        while !self.done {
            match self
                .parser
                .step(&self.input, &mut self.pos, self.eof, quiet)
            {
                Step::Event(raw) => {
                    if self.parser.has_watches() {
                        self.parser.check_watches(raw);
                    }
                }
                Step::Exhausted => {
                    if let Some(error) = self.exhausted() {
                        return Err(error);
                    }
                }
                Step::Error => {
                    self.done = true;
                    if let Some(error) = self.parser.error.as_deref().cloned() {
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
        // Checked here first: a feed that ran is done, and this runs at
        // the end of every piece.
        if !self.done {
            while self.next_event().is_some() {}
        }
    }
}
