//! The push decoder: the WHATWG "interpreting an event stream" algorithm as
//! a state machine over bytes that arrive in pieces split anywhere.
//!
//! Input goes into one buffer that holds only the line not yet finished.
//! The decoder remembers how far it has searched that line for its end, so
//! a line is scanned once however many pieces it arrives in, and finished
//! lines are interpreted in place. Events are handed out as views into the
//! decoder's own buffers, which are reused, so the steady state allocates
//! nothing. [`Decoder::feed_borrowed`] goes further: the lines a piece holds whole
//! are interpreted where they lie in the caller's bytes, and only the start
//! of a line the piece cuts is copied.

use alloc::string::String;

use super::error::{Error, ErrorKind, Reading};
use super::event::{EventRef, ItemRef, DEFAULT_EVENT_TYPE};
use super::limits::Limits;
use super::scan::{find_line_end, push_lossy, LONG_LINE};
use super::utf8::{to_str, LineBuf};

/// The UTF-8 byte order mark, stripped once at the start of a stream.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Field names are compared as bytes: the standard matches them exactly,
/// case included, and a name with invalid UTF-8 can match none of them.
const DATA: &[u8] = b"data";
const EVENT: &[u8] = b"event";
const ID: &[u8] = b"id";
const RETRY: &[u8] = b"retry";

/// A text/event-stream decoder: feed it bytes, pull out what they complete.
///
/// ```
/// use llmstream::sse::{Decoder, ItemRef};
///
/// let mut decoder = Decoder::new();
/// let mut seen = Vec::new();
/// for piece in [&b"event: delta\nda"[..], b"ta: hel", b"lo\r", b"\n\n: ping\n"] {
///     decoder.feed(piece);
///     while let Some(item) = decoder.next_event() {
///         match item.unwrap() {
///             ItemRef::Event(e) => seen.push(format!("{}={}", e.event_type, e.data)),
///             ItemRef::Comment(c) => seen.push(format!("comment{c}")),
///             ItemRef::Retry(ms) => seen.push(format!("retry {ms}")),
///         }
///     }
/// }
/// decoder.finish().unwrap();
/// assert_eq!(seen, ["delta=hello", "comment ping"]);
/// ```
///
/// Call [`next_event`](Decoder::next_event) until it returns `None` after each
/// [`feed`](Decoder::feed): the decoder buffers what it is given until it is
/// pulled, and only then are the [`Limits`] checked. Everything a piece
/// completes is available at once; in particular a CR that ends a piece
/// ends its line there, and an LF that starts the next piece is taken as
/// the second half of that CRLF.
#[derive(Debug, Clone, Default)]
pub struct Decoder {
    limits: Limits,
    /// Bytes fed and not yet interpreted, from the start of the current
    /// line (with what of them is known ASCII: see [`LineBuf`]).
    buf: LineBuf,
    /// Start of the current line in `buf`.
    pos: usize,
    /// Index in `buf` up to which the current line has no CR or LF: where
    /// the next search for its end starts.
    scanned: usize,
    /// Stream offset of `buf[0]`.
    base: u64,
    /// Whether the start of the stream has been checked for a BOM.
    bom_checked: bool,
    /// The last line ended with a CR at the end of the input: an LF that
    /// comes first in the next piece completes that line ending.
    skip_lf: bool,
    /// The data buffer of the standard: each `data` value plus LF. While
    /// an event has one data line, see `data_line` instead.
    data: String,
    /// The event's only data line so far, as the range of its value in
    /// `buf` or in the piece being decoded in place, not yet decoded: the
    /// data buffer is this value plus LF. Saves copying (and decoding
    /// twice) the data of the common one-line event, however long; moved
    /// into `data` when a second line comes, before `buf` is compacted, or
    /// before the piece is let go.
    data_line: Option<(Src, usize, usize)>,
    /// Input bytes of the data buffer (values plus LFs), for the limit.
    data_bytes: usize,
    /// The event type buffer of the standard.
    event_type: String,
    /// The last event ID buffer of the standard; persists across events.
    id_buffer: String,
    /// The event source's last event ID string: the buffer as it stood at
    /// the last blank line. Kept apart because an `id` read in a block
    /// that is never dispatched (the stream ends first) must not reach
    /// the `Last-Event-ID` of a reconnection: the client never saw it.
    last_event_id: String,
    /// An `id` field was read since the last blank line.
    id_pending: bool,
    /// A comment that was not valid UTF-8, decoded.
    scratch: String,
    /// An event was handed out: empty its buffers before going on.
    dispatched: bool,
    /// A limit was exceeded; the decoder takes no more input.
    failed: Option<Error>,
    /// The failure has been returned by `next`.
    failure_reported: bool,
    /// Bytes examined in searches for line ends, to test that no byte is
    /// searched twice.
    #[cfg(test)]
    pub(super) searched: u64,
}

/// What interpreting the input came to, before it is turned into an
/// [`ItemRef`] (kept free of borrows so that the scanning loop can go on).
enum Step {
    NeedInput,
    Event,
    Retry(u64),
    /// A comment whose text is `start..end` of its source, not yet decoded.
    Comment(Src, usize, usize),
    Failed,
}

/// Where a range of bytes lies: in the decoder's buffer, or in the piece
/// [`Decoder::feed_borrowed`] is reading in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Src {
    Buf,
    Input,
}

/// `start..end` of the buffer or of the piece.
fn source<'a>(buf: &'a [u8], input: &'a [u8], src: Src, start: usize, end: usize) -> &'a [u8] {
    let bytes = match src {
        Src::Buf => buf,
        Src::Input => input,
    };
    bytes.get(start..end).unwrap_or_default()
}

impl Decoder {
    /// A decoder with the default [`Limits`].
    pub fn new() -> Self {
        Self::default()
    }

    /// A decoder with these limits.
    pub fn with_limits(limits: Limits) -> Self {
        Decoder {
            limits,
            ..Self::default()
        }
    }

    /// The limits in force.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The last event ID: what a reconnecting client sends as
    /// `Last-Event-ID`. It changes at a blank line (the standard's
    /// dispatch, even one with no data), not at the `id` field itself: an
    /// `id` in a block the stream cut short belongs to an event that never
    /// arrived.
    pub fn last_event_id(&self) -> &str {
        &self.last_event_id
    }

    /// Sets the last event ID, as when resuming a stream after reconnecting.
    pub fn set_last_event_id(&mut self, id: &str) {
        self.id_buffer.clear();
        self.id_buffer.push_str(id);
        self.last_event_id.clear();
        self.last_event_id.push_str(id);
        self.id_pending = false;
    }

    /// Bytes of the stream interpreted so far (a BOM and line endings
    /// included).
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Adds the next piece of the stream. Pieces may be split anywhere,
    /// inside a line ending, a UTF-8 sequence or the BOM. Ignored once the
    /// decoder has failed.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.release_event();
        if self.failed.is_some() {
            return;
        }
        self.compact();
        self.buf.extend_from_slice(bytes);
    }

    /// Drops the interpreted lines from the buffer, keeping the unfinished
    /// one. Its bytes move at most once: until it ends, `pos` stays 0.
    fn compact(&mut self) {
        if self.pos == self.buf.len() && self.data_line.is_none() {
            // All of it interpreted (the usual case): nothing to move.
            self.base += self.pos as u64;
            self.buf.clear();
            self.scanned = 0;
            self.pos = 0;
        } else if self.pos > 0 {
            self.data_to_string(&[]);
            self.buf.drain_front(self.pos);
            self.base += self.pos as u64;
            self.scanned -= self.pos;
            self.pos = 0;
        }
    }

    /// Reads `input` as the next piece of the stream, interpreting the
    /// lines it holds whole where they lie: nothing is copied but the start
    /// of a line it cuts (and the data of an event it leaves open). Pull
    /// the items from the returned [`Feed`] as from [`Decoder::next_event`];
    /// whatever is not pulled before it is dropped is kept, and
    /// [`Decoder::next_event`] hands it out. The items are the same as
    /// [`Decoder::feed`]'s, however the stream is cut.
    ///
    /// ```
    /// use llmstream::sse::{Decoder, ItemRef};
    ///
    /// let mut decoder = Decoder::new();
    /// let mut seen = Vec::new();
    /// for piece in [&b"data: one\n\ndata: tw"[..], b"o\n\n"] {
    ///     let mut items = decoder.feed_borrowed(piece);
    ///     while let Some(item) = items.next_event() {
    ///         if let ItemRef::Event(e) = item.unwrap() {
    ///             seen.push(e.data.to_owned());
    ///         }
    ///     }
    /// }
    /// decoder.finish().unwrap();
    /// assert_eq!(seen, ["one", "two"]);
    /// ```
    pub fn feed_borrowed<'d, 'i>(&'d mut self, input: &'i [u8]) -> Feed<'d, 'i> {
        self.release_event();
        let input_base = self.base + self.buf.len() as u64;
        Feed {
            decoder: self,
            input,
            at: 0,
            input_base,
        }
    }

    /// The next event, retry change or comment completed by the input fed
    /// so far; `None` when more input is needed.
    ///
    /// The item borrows the decoder and is valid until the next call on it.
    /// After a limit is exceeded, returns that error once and `None` from
    /// then on.
    pub fn next_event(&mut self) -> Option<Result<ItemRef<'_>, Error>> {
        self.release_event();
        let step = match self.failed {
            None => self.step(),
            Some(_) => Step::Failed,
        };
        self.item(step, &[])
    }

    /// The item `step` came to (`None` for more input), its bytes read
    /// from the buffer or from `input`, the piece being decoded in place.
    #[inline]
    fn item<'a>(&'a mut self, step: Step, input: &'a [u8]) -> Option<Result<ItemRef<'a>, Error>> {
        match step {
            Step::NeedInput => return None,
            Step::Event => {
                self.dispatched = true;
                let event_type = if self.event_type.is_empty() {
                    DEFAULT_EVENT_TYPE
                } else {
                    &self.event_type
                };
                let data = match self.data_line {
                    Some((src, start, end)) => {
                        let text = match src {
                            // The buffer knows what of itself is ASCII.
                            Src::Buf => self.buf.to_str(start, end),
                            Src::Input => to_str(source(&self.buf, input, src, start, end)),
                        };
                        match text {
                            Some(text) => text,
                            None => {
                                let bytes = source(&self.buf, input, src, start, end);
                                push_lossy(&mut self.data, bytes);
                                &self.data
                            }
                        }
                    }
                    None => &self.data,
                };
                return Some(Ok(ItemRef::Event(EventRef {
                    event_type,
                    data,
                    last_event_id: &self.id_buffer,
                })));
            }
            Step::Retry(ms) => return Some(Ok(ItemRef::Retry(ms))),
            Step::Comment(src, start, end) => {
                let bytes = source(&self.buf, input, src, start, end);
                let text = match to_str(bytes) {
                    Some(text) => text,
                    None => {
                        self.scratch.clear();
                        push_lossy(&mut self.scratch, bytes);
                        &self.scratch
                    }
                };
                return Some(Ok(ItemRef::Comment(text)));
            }
            Step::Failed => {}
        }
        if self.failure_reported {
            return None;
        }
        self.failure_reported = true;
        self.failed.clone().map(Err)
    }

    /// Ends the stream. What is left of an unfinished event is discarded,
    /// as the standard says; so is an unfinished last line (and anything
    /// fed but not yet pulled with [`next_event`](Decoder::next_event)). Returns the
    /// error if a limit was exceeded.
    ///
    /// The decoder is then ready for a new stream (a new connection: a BOM
    /// is stripped again) and keeps the last event ID, as an `EventSource`
    /// does across reconnections.
    pub fn finish(&mut self) -> Result<(), Error> {
        let failed = self.failed.take();
        *self = Decoder {
            limits: self.limits,
            buf: core::mem::take(&mut self.buf),
            data: core::mem::take(&mut self.data),
            event_type: core::mem::take(&mut self.event_type),
            id_buffer: core::mem::take(&mut self.id_buffer),
            last_event_id: core::mem::take(&mut self.last_event_id),
            scratch: core::mem::take(&mut self.scratch),
            ..Decoder::default()
        };
        // An `id` read after the last blank line went with the discarded
        // event.
        self.id_buffer.clear();
        self.id_buffer.push_str(&self.last_event_id);
        self.buf.clear();
        self.data.clear();
        self.event_type.clear();
        match failed {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }

    /// After an event was handed out, empty the data and event type buffers
    /// (dispatch step 7), reusing their memory.
    fn release_event(&mut self) {
        if self.dispatched {
            self.dispatched = false;
            self.data_line = None;
            self.data_bytes = 0;
            self.data.clear();
            self.event_type.clear();
        }
    }

    /// Interprets lines until one yields an item or the input runs out.
    fn step(&mut self) -> Step {
        loop {
            if !self.bom_checked {
                let rest = self.buf.get(self.pos..).unwrap_or_default();
                let n = rest.len().min(BOM.len());
                if rest.get(..n) != BOM.get(..n) {
                    self.bom_checked = true;
                } else if n < BOM.len() {
                    return Step::NeedInput; // maybe a BOM split across pieces
                } else {
                    self.bom_checked = true;
                    self.pos += BOM.len();
                    self.scanned = self.pos;
                }
            }
            if self.skip_lf {
                match self.buf.get(self.pos) {
                    None => return Step::NeedInput,
                    Some(b'\n') => self.pos += 1,
                    Some(_) => {}
                }
                self.skip_lf = false;
                self.scanned = self.scanned.max(self.pos);
            }
            let unscanned = self.buf.get(self.scanned..).unwrap_or_default();
            let start = self.pos;
            let found = find_line_end(unscanned);
            #[cfg(test)]
            {
                self.searched += found.map_or(unscanned.len(), |i| i + 1) as u64;
            }
            let Some(found) = found else {
                self.scanned = self.buf.len();
                if self.scanned - start > self.limits.max_line_bytes {
                    return self.fail_buffered_line(start);
                }
                return Step::NeedInput;
            };
            let end = self.scanned + found;
            let mut next = end + 1;
            if self.buf.get(end) == Some(&b'\r') {
                match self.buf.get(next) {
                    Some(b'\n') => next += 1,
                    Some(_) => {}
                    None => self.skip_lf = true,
                }
            }
            self.pos = next;
            self.scanned = next;
            if end - start > self.limits.max_line_bytes {
                return self.fail_buffered_line(start);
            }
            match self.interpret_line::<false>((&[], 0), start, end) {
                Some(step) => return step,
                None => continue,
            }
        }
    }

    /// [`Decoder::step`] over `input`, the piece being decoded in place,
    /// from `*at`, once the buffer holds nothing left to interpret:
    /// `NeedInput` when the rest of `input` is the start of a line (left
    /// to the caller to keep). `input_base` is the stream offset of
    /// `input[0]`.
    #[inline]
    fn step_in_place(&mut self, input: &[u8], at: &mut usize, input_base: u64) -> Step {
        loop {
            if self.skip_lf {
                match input.get(*at) {
                    None => return Step::NeedInput,
                    Some(b'\n') => *at += 1,
                    Some(_) => {}
                }
                self.skip_lf = false;
            }
            let start = *at;
            let rest = input.get(start..).unwrap_or_default();
            let found = find_line_end(rest);
            #[cfg(test)]
            {
                self.searched += found.map_or(rest.len(), |i| i + 1) as u64;
            }
            let Some(found) = found else {
                if rest.len() > self.limits.max_line_bytes {
                    return self.fail_line_too_long(rest, input_base + start as u64);
                }
                return Step::NeedInput;
            };
            let end = start + found;
            let mut next = end + 1;
            if input.get(end) == Some(&b'\r') {
                match input.get(next) {
                    Some(b'\n') => next += 1,
                    Some(_) => {}
                    None => self.skip_lf = true,
                }
            }
            *at = next;
            if end - start > self.limits.max_line_bytes {
                let line = input.get(start..).unwrap_or_default();
                return self.fail_line_too_long(line, input_base + start as u64);
            }
            match self.interpret_line::<true>((input, input_base), start, end) {
                Some(step) => return step,
                None => continue,
            }
        }
    }

    /// Interprets the line `start..end` (line ending excluded) of the
    /// buffer or of `input` (whose first byte is at stream offset
    /// `input_base`). `None` when it changes state without producing an
    /// item.
    #[inline]
    fn interpret_line<const IN_PLACE: bool>(
        &mut self,
        (input, input_base): (&[u8], u64),
        start: usize,
        end: usize,
    ) -> Option<Step> {
        // One copy of this function per source, each inlined where its
        // lines come from, so no line pays for the choice.
        let src = if IN_PLACE { Src::Input } else { Src::Buf };
        let line = source(&self.buf, input, src, start, end);
        let Some((&first, _)) = line.split_first() else {
            // A blank line dispatches the event, if it has data; the last
            // event ID is set either way (dispatch step 1).
            if self.id_pending {
                self.id_pending = false;
                self.last_event_id.clear();
                self.last_event_id.push_str(&self.id_buffer);
            }
            if self.data_bytes == 0 {
                self.event_type.clear();
                return None;
            }
            if self.data_line.is_none() {
                self.data.pop(); // the LF after the last data line
            }
            return Some(Step::Event);
        };
        if first == b':' {
            return Some(Step::Comment(src, start + 1, end));
        }
        let (name, value_start) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let after = start + colon + 1;
                let space = usize::from(line.get(colon + 1) == Some(&b' ') && after < end);
                (line.get(..colon).unwrap_or_default(), after + space)
            }
            None => (line, end),
        };
        let value = source(&self.buf, input, src, value_start, end);
        match name {
            DATA => {
                if self.data_bytes.saturating_add(value.len()) > self.limits.max_event_data_bytes {
                    let offset = match src {
                        Src::Buf => self.base,
                        Src::Input => input_base,
                    };
                    return Some(self.fail_data_too_long(offset + start as u64));
                }
                self.data_bytes += value.len() + 1;
                if self.data_bytes == value.len() + 1 {
                    self.data_line = Some((src, value_start, end));
                    return None;
                }
                self.data_to_string(input);
                let value = source(&self.buf, input, src, value_start, end);
                push_lossy(&mut self.data, value);
                self.data.push('\n');
                None
            }
            EVENT => {
                self.event_type.clear();
                push_lossy(&mut self.event_type, value);
                None
            }
            ID => {
                if !value.contains(&0) {
                    self.id_buffer.clear();
                    push_lossy(&mut self.id_buffer, value);
                    self.id_pending = true;
                }
                None
            }
            RETRY => parse_retry(value).map(Step::Retry),
            _ => None,
        }
    }

    /// Moves a data line kept where it lies (in `buf`, or in `input`, the
    /// piece being decoded in place) into the data buffer proper.
    fn data_to_string(&mut self, input: &[u8]) {
        if let Some((src, start, end)) = self.data_line.take() {
            push_lossy(&mut self.data, source(&self.buf, input, src, start, end));
            self.data.push('\n');
        }
    }

    /// The line from `buf[start]` on went past the line limit.
    fn fail_buffered_line(&mut self, start: usize) -> Step {
        // Taken out (failing frees it anyway) so the line can be read
        // while the decoder records the error.
        let buf = core::mem::take(&mut self.buf);
        self.fail_line_too_long(
            buf.get(start..).unwrap_or_default(),
            self.base + start as u64,
        )
    }

    /// `line` (from its start; it may go on past its end), which starts at
    /// stream offset `line_offset`, went past the line limit.
    fn fail_line_too_long(&mut self, line: &[u8], line_offset: u64) -> Step {
        let limit = self.limits.max_line_bytes;
        let within = line.get(..limit).unwrap_or(line);
        let reading = if within.first() == Some(&b':') {
            Reading::Comment
        } else {
            match within.iter().position(|&b| b == b':') {
                Some(colon) => Reading::Field(field_name(within.get(..colon).unwrap_or_default())),
                None => Reading::FieldName,
            }
        };
        let offset = line_offset.saturating_add(limit as u64);
        self.fail(Error::new(
            ErrorKind::LineTooLong { limit },
            offset,
            reading,
        ))
    }

    /// The data line at stream offset `offset` went past the event data
    /// limit.
    fn fail_data_too_long(&mut self, offset: u64) -> Step {
        let limit = self.limits.max_event_data_bytes;
        let reading = Reading::Field(String::from("data"));
        self.fail(Error::new(
            ErrorKind::EventDataTooLong { limit },
            offset,
            reading,
        ))
    }

    /// Enters the failed state and frees the buffers: nothing more is read.
    fn fail(&mut self, error: Error) -> Step {
        self.failed = Some(error);
        self.failure_reported = false;
        self.buf = LineBuf::default();
        self.data = String::new();
        self.data_line = None;
        self.data_bytes = 0;
        self.event_type = String::new();
        self.pos = 0;
        self.scanned = 0;
        Step::Failed
    }
}

/// The items of one piece read by [`Decoder::feed_borrowed`], pulled one at a
/// time.
///
/// A lending iterator, like [`Decoder::next_event`]: each item borrows the piece
/// and the decoder until the next call. Dropping it keeps what was not
/// pulled, for [`Decoder::next_event`] to hand out.
#[derive(Debug)]
pub struct Feed<'d, 'i> {
    decoder: &'d mut Decoder,
    input: &'i [u8],
    /// Bytes of `input` interpreted in place or moved to the buffer.
    at: usize,
    /// Stream offset of `input[0]`.
    input_base: u64,
}

impl Feed<'_, '_> {
    /// The next event, retry change or comment of the stream so far; `None`
    /// when the piece is used up. After a limit is exceeded, returns that
    /// error once and `None` from then on.
    pub fn next_event(&mut self) -> Option<Result<ItemRef<'_>, Error>> {
        let decoder = &mut *self.decoder;
        decoder.release_event();
        let input = self.input;
        let step = loop {
            if decoder.failed.is_some() {
                break Step::Failed;
            }
            // The buffer first: what earlier pieces left (or, at the start
            // of the stream, what may be a BOM), finished by this piece's
            // bytes up to its first line end.
            if decoder.pos < decoder.buf.len() || !decoder.bom_checked {
                // A buffered line already searched to its end, and found
                // within the line limit, at the start of a piece (the usual
                // case) needs this piece's bytes first. Once they are added,
                // `step` finds its end or checks the limit.
                // The same once this piece's bytes have all gone into the
                // buffer without a line end (a long line): only the limit
                // is left to check, which `step` would do after searching
                // nothing.
                let searched =
                    decoder.scanned == decoder.buf.len() && decoder.bom_checked && !decoder.skip_lf;
                let step = if searched && self.at == 0 {
                    Step::NeedInput
                } else if searched && self.at == input.len() {
                    if decoder.buf.len() - decoder.pos > decoder.limits.max_line_bytes {
                        break decoder.fail_buffered_line(decoder.pos);
                    }
                    break Step::NeedInput;
                } else {
                    decoder.step()
                };
                match step {
                    Step::NeedInput if self.at < input.len() => {
                        decoder.buffer_next_line(input, &mut self.at);
                        continue;
                    }
                    step => break step,
                }
            }
            match decoder.step_in_place(input, &mut self.at, self.input_base) {
                Step::NeedInput => {
                    decoder.keep_rest(input, self.at, self.input_base, true);
                    self.at = input.len();
                    break Step::NeedInput;
                }
                step => break step,
            }
        };
        self.decoder.item(step, input)
    }
}

impl Drop for Feed<'_, '_> {
    /// Keeps what was not pulled: nothing accepted is lost.
    fn drop(&mut self) {
        let decoder = &mut *self.decoder;
        decoder.release_event();
        if decoder.failed.is_some() {
            return;
        }
        if decoder.pos < decoder.buf.len() {
            // Still in the buffer: the rest of the piece follows it.
            decoder
                .buf
                .extend_from_slice(self.input.get(self.at..).unwrap_or_default());
        } else {
            decoder.keep_rest(self.input, self.at, self.input_base, false);
        }
    }
}

impl Decoder {
    /// Moves `input` from `*at` up to and including its next line end into
    /// the buffer, which holds the start of that line (or of the stream).
    fn buffer_next_line(&mut self, input: &[u8], at: &mut usize) {
        #[cfg(test)]
        let start = *at;
        // The interpreted lines are dropped from the buffer, unless a data
        // line among them waits for its event's end: dropping them would
        // copy it out, where it can stay until the blank line (a 4 MiB
        // data line would be copied at its line end).
        if self.data_line.is_none() {
            self.compact();
        }
        // A long line (a base64 image) goes on: its next bytes searched,
        // copied and checked for ASCII in one pass (where the CPU can),
        // up to near its end. A short one, the usual line cut by a piece,
        // ends a few bytes on: searching and copying it is enough.
        let long = self.buf.len().saturating_sub(self.pos) >= LONG_LINE;
        if long {
            *at += self.buf.extend_line(input.get(*at..).unwrap_or_default());
        }
        let rest = input.get(*at..).unwrap_or_default();
        let found = find_line_end(rest);
        #[cfg(test)]
        {
            // The line end itself is searched again, from the buffer.
            self.searched += (*at - start + found.unwrap_or(rest.len())) as u64;
        }
        let take = match found {
            Some(end) if rest.get(end) == Some(&b'\r') && rest.get(end + 1) == Some(&b'\n') => {
                end + 2
            }
            Some(end) => end + 1,
            None => rest.len(),
        };
        let searched_to = self.buf.len() + found.unwrap_or(take);
        let taken = rest.get(..take).unwrap_or_default();
        if long {
            // The stretch known ASCII goes on to the line's end.
            self.buf.extend_checked(taken);
        } else {
            self.buf.extend_from_slice(taken);
        }
        // No CR or LF before the one found: the next search starts there.
        self.scanned = self.scanned.max(searched_to);
        *at += take;
    }

    /// The piece being decoded in place is let go at `at` with the buffer
    /// used up: what is left of it (the start of a line, `searched` or
    /// not yet) becomes the buffer, and a data line read in place is
    /// copied out of it.
    fn keep_rest(&mut self, input: &[u8], at: usize, input_base: u64, searched: bool) {
        // The buffer is used up: it is emptied, a data line it holds (or
        // `input` does) copied out first.
        self.data_to_string(input);
        self.buf.clear();
        self.pos = 0;
        self.base = input_base + at as u64;
        let rest = input.get(at..).unwrap_or_default();
        self.buf.extend_from_slice(rest);
        self.scanned = if searched { rest.len() } else { 0 };
    }
}

/// The value of a `retry` field, if it is one or more ASCII digits. Larger
/// than `u64::MAX` milliseconds saturates (it means "practically never").
fn parse_retry(value: &[u8]) -> Option<u64> {
    if value.is_empty() || !value.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(value.iter().fold(0u64, |ms, &digit| {
        ms.saturating_mul(10)
            .saturating_add(u64::from(digit - b'0'))
    }))
}

/// A field name for an error message: decoded, and cut to 64 bytes.
fn field_name(bytes: &[u8]) -> String {
    let mut name = String::new();
    push_lossy(&mut name, bytes.get(..64).unwrap_or(bytes));
    name
}
