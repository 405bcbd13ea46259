//! Strings: plain runs, escapes, surrogate pairs and UTF-8 cut by the end
//! of a piece; and the fast path for a piece that continues an open string.

use alloc::string::String;

use super::feed::{Input, WINDOW};
use super::live::LiveValue;
use super::snapshot::descend_ref;
use super::{Escape, Parser, Raw, State, Step};
use crate::json::error::{ErrorKind, Expected};
use crate::json::options::Keep;
use crate::json::path::Segment;
use crate::json::scan::{
    ends_run, escaped_char, hex_value, run_end_bits, string_run_end, surrogate_pair,
};
use crate::json::value::Value;
use crate::utf8::{End, Tail, Utf8Tail};

impl Parser {
    /// The common case when streaming, without the state machine: a piece
    /// that continues an open value string with plain text and the common
    /// escapes, including one cut by the end of the last piece or of this
    /// one (a `\` at the end of a piece and its letter at the start of the
    /// next: with an escape every 28 bytes of LLM text, 16-byte pieces cut
    /// one in sixteen, and each sent two pieces down the general path).
    /// Decodes what it can (live, straight into the snapshot); `None` if it
    /// did nothing (the piece then takes the general path), else how far it
    /// got (when that is the whole piece, its text counts as delivered, as
    /// at the end of any piece) and the validated window it decoded from
    /// (where it starts, its text), for the general path to go on from
    /// there. Only `push` takes this path: it reads no events.
    #[inline]
    pub(super) fn string_piece<'i>(
        &mut self,
        input: &'i [u8],
    ) -> Option<(usize, (usize, &'i str))> {
        let State::Str { key: false, escape } = self.state else {
            return None;
        };
        // A `\u` escape, or one cut before this piece further than its
        // backslash, takes the general path.
        let escaped = match escape {
            Escape::None => None,
            Escape::Backslash => Some(short_escape(input.first())?),
            _ => return None,
        };
        let limits = self.opts.limits;
        if self.error.is_some()
            || self.offset.saturating_add(input.len() as u64) > limits.max_input_bytes
        {
            return None;
        }
        let depth = self.frames.len();
        let target = open_text_mut(self.opts.keep, &mut self.root, &mut self.text, depth);
        // At most three held bytes complete a character of at most four:
        // with them, the decoded text is never longer than its source.
        if target.len().saturating_add(input.len() + 3) > limits.max_string_bytes {
            return None;
        }
        let mut start = 0;
        if let Some(c) = escaped {
            // Nothing is held after a backslash (it is ASCII), so the
            // piece is taken from here on whatever follows.
            target.push(c);
            start = 1;
            self.state = State::Str {
                key: false,
                escape: Escape::None,
            };
        }
        let Some((mut end, valid)) = decode_piece(target, &mut self.utf8, input, start) else {
            // A held character this piece does not complete: unless an
            // escape was taken above (then nothing is held), nothing
            // changed, and the general path reports it.
            return (start > 0).then_some((start, (start, "")));
        };
        if end + 1 == input.len() && input.get(end) == Some(&b'\\') {
            // An escape cut after its backslash: the next piece completes
            // it (above).
            end = input.len();
            self.state = State::Str {
                key: false,
                escape: Escape::Backslash,
            };
        }
        let len = target.len();
        if end == input.len() && len > self.delivered {
            self.delivered = len;
        }
        Some((end, valid))
    }

    /// The common case of a key: plain text whose closing quote is in this
    /// piece, near. Taken whole (`pos` moves past the quote) if so; `false`
    /// sends it through the string states, which handle everything else.
    pub(super) fn whole_key(&mut self, input: &Input<'_>, pos: &mut usize) -> bool {
        let Some((text, end)) = plain_string(input, *pos, self.opts.limits.max_string_bytes) else {
            return false;
        };
        self.target(true).push_str(text);
        *pos = end + 1;
        true
    }

    /// [`Parser::whole_key`] for a value string, when nobody reads events
    /// (which would want its text as a delta first): the string is complete
    /// at once.
    pub(super) fn whole_string(&mut self, input: &Input<'_>, pos: &mut usize) -> Option<Step> {
        let (text, end) = plain_string(input, *pos, self.opts.limits.max_string_bytes)?;
        self.add_scalar(Value::String(text.into()));
        *pos = end + 1;
        let depth = self.frames.len();
        self.after_value();
        Some(Step::Event(Raw::Str(depth)))
    }

    /// Consumes string bytes; `Some` when an event is due or on error.
    pub(super) fn string(
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
                        let target = self.target(key);
                        if target.len().saturating_add(valid.len()) <= limit {
                            let used = decode_plain(target, bytes, *pos, valid);
                            if used > 0 {
                                *pos += used;
                                continue;
                            }
                        }
                    }
                    // At a quote or an escape (the usual stop) there is no
                    // run to look for.
                    let run = if ends_run(byte) {
                        0
                    } else {
                        string_run_end(rest)
                    };
                    if run > 0 {
                        let raw = rest.get(..run).unwrap_or(&[]);
                        let fast = input.text(*pos, *pos + run);
                        // Invalid UTF-8 inside the run is reported after
                        // the valid text before it is counted, so a limit
                        // crossed first is reported first, as when the same
                        // bytes arrive one by one.
                        let mut invalid_at = None;
                        let (text, end) = fast
                            .map_or_else(|| crate::utf8::valid_prefix(raw), |t| (t, End::Valid));
                        let valid = text.len();
                        match end {
                            End::Valid => {}
                            // A sequence cut by the end of the piece.
                            End::Cut if run == rest.len() => {
                                self.utf8.hold(raw.get(valid..).unwrap_or(&[]));
                            }
                            End::Cut | End::Invalid => invalid_at = Some(at + valid as u64),
                        }
                        let target = self.target(key);
                        if target.len() + text.len() > limit {
                            // Point at the last byte of the first character
                            // over the limit, as a byte-by-byte feed would,
                            // and keep the text before it, as that feed
                            // would have (its delta comes before the error).
                            let over = limit.saturating_sub(target.len());
                            let (start, end) = text
                                .char_indices()
                                .map(|(i, c)| (i, i + c.len_utf8() - 1))
                                .find(|&(_, last)| last >= over)
                                .unwrap_or((over, over));
                            target.push_str(text.get(..start).unwrap_or(""));
                            return Some(
                                self.fail(ErrorKind::StringLimit { limit }, at + end as u64),
                            );
                        }
                        // The valid text before an invalid byte is kept
                        // first, as a byte-by-byte feed keeps it.
                        target.push_str(text);
                        if let Some(offset) = invalid_at {
                            return Some(self.fail(ErrorKind::InvalidUtf8, offset));
                        }
                        *pos += run;
                        continue;
                    }
                    match byte {
                        b'"' => {
                            if key {
                                *pos += 1;
                                self.state = State::Colon;
                                return None;
                            }
                            let len = self.open_text(self.frames.len()).len();
                            if len > self.delivered {
                                self.state = State::Str { key, escape };
                                return Some(self.delta(len));
                            }
                            *pos += 1;
                            let depth = self.frames.len();
                            self.close_string();
                            self.after_value();
                            return Some(Step::Event(Raw::Str(depth)));
                        }
                        b'\\' => {
                            // The common two-byte escapes, decoded in place
                            // when the piece holds both bytes.
                            let Some(c) = short_escape(rest.get(1)) else {
                                *pos += 1;
                                escape = Escape::Backslash;
                                continue;
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
                    if byte == b'u' {
                        *pos += 1;
                        escape = Escape::Hex {
                            digits: 0,
                            unit: 0,
                            high: 0,
                        };
                        continue;
                    }
                    // Checked before it is taken: a feed stops at the byte
                    // that failed (`Feed::consumed`), as everywhere else.
                    let Some(c) = escaped_char(byte) else {
                        return Some(self.fail(ErrorKind::InvalidEscape { found: byte }, at));
                    };
                    *pos += 1;
                    if let Some(step) = self.push_char(key, c, at) {
                        return Some(step);
                    }
                    escape = Escape::None;
                }
                Escape::Hex { digits, unit, high } => {
                    let Some(nibble) = hex_value(byte) else {
                        return Some(self.unexpected(Expected::HexDigit, byte, at));
                    };
                    let unit = (unit << 4) | u16::from(nibble);
                    // A surrogate's fate is sealed by its escape's first two
                    // digits (`DC`–`DF` is low; after a high surrogate
                    // only a low one will do): fail there, so that a
                    // document cut after them is invalid, not incomplete.
                    if let Some(kind) = lone_surrogate(digits, unit, high) {
                        return Some(self.fail(kind, at));
                    }
                    *pos += 1;
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
                        (0, unit) => char::from_u32(u32::from(unit)),
                        (high, unit) => surrogate_pair(high, unit),
                    };
                    // Unreachable: `lone_surrogate` let only scalar values
                    // and whole pairs through.
                    let Some(c) = c else {
                        return Some(self.fail(ErrorKind::LoneLowSurrogate, at));
                    };
                    if let Some(step) = self.push_char(key, c, at) {
                        return Some(step);
                    }
                    escape = Escape::None;
                }
                Escape::AfterHigh { high } => {
                    if byte != b'\\' {
                        return Some(self.fail(ErrorKind::LoneHighSurrogate { unit: high }, at));
                    }
                    *pos += 1;
                    escape = Escape::AfterHighBackslash { high };
                }
                Escape::AfterHighBackslash { high } => {
                    if byte != b'u' {
                        return Some(self.fail(ErrorKind::LoneHighSurrogate { unit: high }, at));
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

    /// Where decoded string text goes: the key, or the open value string.
    pub(super) fn target(&mut self, key: bool) -> &mut String {
        if key {
            let depth = self.frames.len().wrapping_sub(1);
            if let Some(Segment::Key(key)) = self.segments.get_mut(depth) {
                return key;
            }
            // Unreachable: `open_key` made the segment a key. Any buffer
            // keeps this total; the parse goes on correctly either way.
            return &mut self.text;
        }
        let depth = self.frames.len();
        open_text_mut(self.opts.keep, &mut self.root, &mut self.text, depth)
    }

    /// The open (or just closed) value string at `depth`: its text so far.
    pub(super) fn open_text(&self, depth: usize) -> &str {
        if self.opts.keep != Keep::Live {
            return &self.text;
        }
        match descend_ref(self.live_root(depth), depth) {
            Some(Value::String(text)) => text,
            _ => "",
        }
    }

    pub(super) fn push_char(&mut self, key: bool, c: char, at: u64) -> Option<Step> {
        let limit = self.opts.limits.max_string_bytes;
        let target = self.target(key);
        if target.len() + c.len_utf8() > limit {
            return Some(self.fail(ErrorKind::StringLimit { limit }, at));
        }
        target.push(c);
        None
    }

    /// The open value string's text not yet reported as a delta, if any:
    /// reported before an error in the same piece, so that the deltas of
    /// a failed string do not depend on where the pieces were cut.
    pub(super) fn pending_delta(&mut self) -> Option<Step> {
        let State::Str { key: false, .. } = self.state else {
            return None;
        };
        let len = self.open_text(self.frames.len()).len();
        (len > self.delivered).then(|| self.delta(len))
    }

    /// Reports the undelivered text of the open value string, `len` bytes
    /// long now (live, it is in the snapshot already).
    pub(super) fn delta(&mut self, len: usize) -> Step {
        let from = self.delivered;
        self.delivered = len;
        Step::Event(Raw::Delta {
            depth: self.frames.len(),
            from,
        })
    }
}

/// A string body at `start` that is plain, valid text up to a closing quote
/// within the next 64 bytes, and within `limit`: the text, and where the
/// quote is. Anything else (an escape, a control character, invalid or cut
/// UTF-8, a longer string) is `None`, for the string states.
fn plain_string<'i>(input: &Input<'i>, start: usize, limit: usize) -> Option<(&'i str, usize)> {
    let bytes = input.bytes;
    let mut base = start;
    let end = loop {
        let bits = run_end_bits(bytes, base);
        if bits != 0 {
            break base + bits.trailing_zeros() as usize;
        }
        base += 16;
        if base >= bytes.len() || base - start >= 64 {
            return None;
        }
    };
    if bytes.get(end) != Some(&b'"') || end - start > limit {
        return None;
    }
    Some((input.text(start, end)?, end))
}

/// Where the open value string's decoded text lives: live, in the snapshot
/// itself (one copy, appended in place); else in the parser's `text`.
#[inline(always)]
fn open_text_mut<'a>(
    keep: Keep,
    root: &'a mut LiveValue,
    text: &'a mut String,
    depth: usize,
) -> &'a mut String {
    if keep == Keep::Live {
        if let Some(shown) = root.string_mut(depth) {
            return shown;
        }
    }
    text
}

/// Whether a `\u` escape is a lone surrogate, certain with its digit
/// number `digits` (from 0), `unit` holding the digits read so far and
/// `high` a high surrogate just before (or 0).
fn lone_surrogate(digits: u8, unit: u16, high: u16) -> Option<ErrorKind> {
    let low = (0xDC..=0xDF).contains(&unit);
    match (high, digits) {
        (0, 1) if low => Some(ErrorKind::LoneLowSurrogate),
        (0, _) => None,
        (high, 0) if unit != 0xD => Some(ErrorKind::LoneHighSurrogate { unit: high }),
        (high, 1) if !low => Some(ErrorKind::LoneHighSurrogate { unit: high }),
        _ => None,
    }
}

/// What the two-byte escape whose second byte is `second` decodes to;
/// `None` for `\u` (or no second byte), which takes the exact path.
#[inline]
fn short_escape(second: Option<&u8>) -> Option<char> {
    escaped_char(*second?)
}

/// Decodes a piece inside a string from `start` into `target` (see
/// `Parser::string_piece`): completes a character cut by the last
/// piece, then plain text and common escapes. `None` if the cut character
/// cannot be completed here (nothing is changed then); else how far it got
/// (the whole piece when only a cut character is left, which `utf8` then
/// holds) and the piece's validated text, from where it starts.
#[inline]
pub(super) fn decode_piece<'i>(
    target: &mut String,
    utf8: &mut Utf8Tail,
    input: &'i [u8],
    mut start: usize,
) -> Option<(usize, (usize, &'i str))> {
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
    // A window at a time (see `Input`); a sequence cut by the window's end
    // is left to the next window unless the window ends the piece.
    let window = rest.get(..WINDOW).unwrap_or(rest);
    let (text, end) = crate::utf8::valid_prefix(window);
    let cut = end == End::Cut && window.len() == rest.len();
    // Most pieces of a stream are plain text: taken whole, without setting
    // up the block walk; so is one that ends inside a character (one
    // piece in two or three of CJK text), whose start is then held.
    if !cut && text.len() <= 16 {
        let bits = run_end_bits(text.as_bytes(), 0);
        if bits == 0 {
            // The usual piece, sixteen bytes: a copy of known size,
            // inlined, where one of a varying size is a `memcpy` call.
            match text.get(..16).filter(|_| text.len() == 16) {
                Some(whole) => target.push_str(whole),
                None => target.push_str(text),
            }
            // `text` stops before an invalid byte, left to the general path.
            return Some((start + text.len(), (start, text)));
        }
        // A piece with escapes (a `\n` every 28 bytes of LLM text: one
        // 16-byte piece in two).
        let used = escaped_piece::<16, 32>(target, text.as_bytes(), u64::from(bits));
        return Some((start + used, (start, text)));
    }
    if !cut && text.len() <= 64 {
        // The same for pieces of up to 64 bytes (larger deltas), with
        // four blocks' bits.
        let bytes = text.as_bytes();
        let bits = (0..4).fold(0u64, |all, k| {
            all | u64::from(run_end_bits(bytes, 16 * k)) << (16 * k)
        });
        let used = if bits == 0 {
            target.push_str(text);
            text.len()
        } else {
            escaped_piece::<64, 80>(target, bytes, bits)
        };
        return Some((start + used, (start, text)));
    }
    if cut && plain_then_cut(target, utf8, input, start, text) {
        return Some((input.len(), (start, text)));
    }
    let mut end = start + decode_plain(target, input, start, text);
    if cut && end == start + text.len() {
        // A sequence cut by the end of the piece waits for the rest.
        utf8.hold(input.get(end..).unwrap_or(&[]));
        end = input.len();
    }
    Some((end, (start, text)))
}

/// Appends the decoded text of `piece` (at most `MAX` bytes of valid
/// text inside a string; `bits` its [`run_end_bits`], one a byte), plain
/// runs and the common two-byte escapes, and returns the bytes used: it
/// stops where [`decode_plain`] does. The piece is put together in a
/// buffer on the stack with copies of a fixed sixteen bytes (a run, then
/// its escape's character over the copy's excess) and appended once:
/// `decode_plain`'s appends of each run, whose sizes vary, were a
/// `memcpy` call apiece. `CAP` is `MAX + 16`, room for a copy from
/// anywhere in the piece.
fn escaped_piece<const MAX: usize, const CAP: usize>(
    target: &mut String,
    piece: &[u8],
    mut bits: u64,
) -> usize {
    let len = piece.len();
    // The piece, then room for a sixteen-byte copy from anywhere in it
    // (a copy of known size when the piece is `MAX` bytes, the usual).
    let mut src = [0u8; CAP];
    match (piece.first_chunk::<MAX>(), src.first_chunk_mut::<MAX>()) {
        (Some(whole), Some(head)) => *head = *whole,
        _ => {
            if let Some(head) = src.get_mut(..len) {
                head.copy_from_slice(piece);
            }
        }
    }
    let mut out = [0u8; CAP];
    let (mut written, mut start) = (0, 0);
    // Copies `src[start..to]` to `out[written..]`, sixteen bytes at a
    // time: `start <= to <= len <= MAX`, so every copy is in bounds.
    let copy_run = |out: &mut [u8; CAP], written: usize, start: usize, to: usize| {
        if MAX <= 16 {
            // One copy covers any run of a sixteen-byte piece.
            if let (Some(from), Some(into)) = (
                src.get(start..start + 16),
                out.get_mut(written..written + 16),
            ) {
                into.copy_from_slice(from);
            }
            return;
        }
        let mut k = 0;
        while k < to - start {
            if let (Some(from), Some(into)) = (
                src.get(start + k..start + k + 16),
                out.get_mut(written + k..written + k + 16),
            ) {
                into.copy_from_slice(from);
            }
            k += 16;
        }
    };
    let end = loop {
        if bits == 0 {
            break len;
        }
        let at = bits.trailing_zeros() as usize;
        // Only a backslash whose letter is in the piece; a `\u` escape,
        // a quote or a control character ends the walk.
        let escaped = match (piece.get(at), piece.get(at + 1)) {
            (Some(b'\\'), Some(&letter)) => escaped_char(letter),
            _ => None,
        };
        let Some(c) = escaped else {
            break at;
        };
        copy_run(&mut out, written, start, at);
        written += at - start;
        if let Some(slot) = out.get_mut(written) {
            // The two-byte escapes all stand for ASCII characters.
            *slot = c as u8;
        }
        written += 1;
        start = at + 2;
        // `start <= MAX`: a shift of 64 only in a 64-byte piece.
        bits &= if MAX < 64 {
            !0u64 << start
        } else {
            (!0u64).checked_shl(start as u32).unwrap_or(0)
        };
    };
    copy_run(&mut out, written, start, end.max(start));
    written += end.saturating_sub(start);
    // Runs of valid text between ASCII bytes, and ASCII characters: valid
    // text, checked again rather than vouched for with `unsafe`. When the
    // first `MAX` bytes of the buffer are ASCII (the decoded piece and
    // what the copies left after it), they are appended whole and cut
    // back: a copy of known size, not a `memcpy` call.
    if let Some(block) = out.first_chunk::<MAX>().and_then(crate::utf8::ascii_block) {
        let keep = target.len() + written;
        target.push_str(block);
        target.truncate(keep);
        return end;
    }
    let (text, whole) = crate::utf8::valid_prefix(out.get(..written).unwrap_or(&[]));
    if whole != End::Valid {
        return 0;
    }
    target.push_str(text);
    end
}

/// A piece (from `start`) that is plain `text` and then the start of a
/// character the next piece ends: the text is appended and the start held.
/// Out of line: inlined, it made every other piece a little dearer.
#[inline(never)]
fn plain_then_cut(
    target: &mut String,
    utf8: &mut Utf8Tail,
    input: &[u8],
    start: usize,
    text: &str,
) -> bool {
    if text.len() >= 16 || run_end_bits(input, start) & !(!0u32 << text.len()) != 0 {
        return false;
    }
    target.push_str(text);
    utf8.hold(input.get(start + text.len()..).unwrap_or(&[]));
    true
}

/// Appends the decoded text of a string body to `target`: plain runs and
/// the common two-byte escapes. `text` is the valid text of `bytes` from
/// `pos` to its end or to its first invalid byte. Stops before the closing
/// quote, a control character, any other escape, a `\\` at the end, or the
/// end of `text`; returns the bytes used.
///
/// Sixteen bytes are classified at a time ([`run_end_bits`]) and the runs
/// within them are walked bit by bit: the average run in LLM text is short,
/// so finding its end must not cost a fresh scan.
#[inline]
pub(super) fn decode_plain(target: &mut String, bytes: &[u8], pos: usize, text: &str) -> usize {
    let hay = bytes.get(..pos + text.len()).unwrap_or(&[]);
    let len = hay.len();
    // The plain text not yet copied starts at `start`; the block at `base`.
    let mut start = pos;
    let mut base = pos;
    let end = 'scan: loop {
        if base >= len {
            break len;
        }
        // Less the bits before `start` (the escaped byte of an escape
        // that straddled two blocks).
        let mut bits = run_end_bits(hay, base) & !0u32 << start.saturating_sub(base);
        while bits != 0 {
            let at = base + bits.trailing_zeros() as usize;
            if hay.get(at) != Some(&b'\\') {
                break 'scan at;
            }
            let Some(c) = short_escape(hay.get(at + 1)) else {
                break 'scan at;
            };
            // Runs start and end next to ASCII bytes: char boundaries.
            push_run(target, text, start - pos, at - pos);
            target.push(c);
            start = at + 2;
            // At most 17 (an escape at the block's last byte): every bit
            // is then clear.
            bits &= !0u32 << (start - base);
        }
        base += 16;
    };
    push_run(target, text, start.min(end) - pos, end - pos);
    end - pos
}

/// Appends `text[from..to]` (both character boundaries) to `target`. A run
/// of up to 16 bytes with 16 bytes of text behind it is appended as those
/// 16 bytes and cut back to its length: a copy of known size, inlined,
/// where a `memcpy` call of a varying small size branches on the size and
/// mispredicts (its branches were a third of all mispredictions in a
/// streamed text-heavy parse, cachegrind).
#[inline(always)]
fn push_run(target: &mut String, text: &str, from: usize, to: usize) {
    if to - from <= 16 {
        if let Some(block) = text.get(from..from + 16) {
            let len = target.len() + (to - from);
            target.push_str(block);
            // `to` is a character boundary of `text`, so `len` is one of
            // `target`'s.
            target.truncate(len);
            return;
        }
    }
    target.push_str(text.get(from..to).unwrap_or(""));
}
