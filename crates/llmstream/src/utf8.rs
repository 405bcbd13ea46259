//! UTF-8 validation, for pieces of every size: with `simd` and
//! `json::parser::live`, the library's only `unsafe` code.
//!
//! A stream arrives as many small pieces (16 bytes is typical of a tool
//! call's argument deltas), and every piece must become `&str` before its
//! text can join a `String`. `core::str::from_utf8` has a fixed cost of
//! about 80 instructions on a 16-byte slice of ASCII (its word-at-a-time
//! loop only starts at an aligned address) and about 180 on one of CJK
//! text (a branch per character class, which mispredicts as the text
//! mixes scripts): together a sixth of the cost of parsing a streamed
//! text-heavy document, and a fifth of a whole parse of one. Here a short
//! slice is checked for ASCII with a few word reads; anything else runs
//! through a branch-free automaton, a table load and a shift a byte, which
//! skips sixteen bytes of ASCII at a time. Only a slice that is not valid
//! UTF-8 goes to `core`, for the exact place of the error.
//! docs/benchmarks-history.md has the counts before and after.

use alloc::vec::Vec;

/// Longest slice given the whole-slice ASCII check first (a longer one is
/// checked sixteen bytes at a time inside the automaton's loop).
const SHORT: usize = 64;

/// How a slice goes on after its longest valid prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum End {
    /// Nothing: all of it is valid.
    Valid,
    /// With the start of a character that more bytes could complete.
    Cut,
    /// With bytes that no continuation makes valid.
    Invalid,
}

/// The longest valid UTF-8 prefix of `bytes` as text, and what follows it.
/// Always inlined: on a 16-byte piece the call cost as much as the check.
#[inline(always)]
pub(crate) fn valid_prefix(bytes: &[u8]) -> (&str, End) {
    if bytes.len() <= SHORT && bytes.is_ascii() {
        // SAFETY: every byte is below 0x80, and a sequence of such bytes is
        // valid UTF-8 (each is a one-byte character: RFC 3629 section 3).
        // `short_slices_agree_with_core` checks every length up to past
        // `SHORT` with a non-ASCII byte at each position.
        #[allow(unsafe_code)]
        return (unsafe { core::str::from_utf8_unchecked(bytes) }, End::Valid);
    }
    #[cfg(target_arch = "x86_64")]
    if bytes.len() >= WIDE {
        if let Some(found) = wide_valid_prefix(bytes) {
            return found;
        }
    }
    match automaton_state(bytes) {
        ACCEPT => {
            // SAFETY: the automaton accepts exactly the well-formed
            // byte sequences of the Unicode Standard's table 3-7 (see
            // `NEXT`), and skips only blocks of ASCII met between
            // characters; `every_sequence_of_up_to_three_bytes_agrees_with_core`,
            // `four_byte_sequences_agree_with_core` (also after long
            // prefixes, at every offset in a block) and
            // `random_pieces_agree_with_core` check it.
            #[allow(unsafe_code)]
            return (unsafe { core::str::from_utf8_unchecked(bytes) }, End::Valid);
        }
        ERROR => {}
        _ => {
            // Valid so far, ending inside a character: that character
            // starts at the last byte that is not a continuation byte.
            if let Some(valid) = bytes
                .iter()
                .rposition(|&b| !matches!(b, 0x80..=0xBF))
                .and_then(|lead| bytes.get(..lead))
            {
                // SAFETY: the automaton met no error, so `bytes` is
                // whole characters followed by the valid start of one
                // more, and `valid` ends where that one starts. Checked
                // by the same tests.
                #[allow(unsafe_code)]
                return (unsafe { core::str::from_utf8_unchecked(valid) }, End::Cut);
            }
        }
    }
    match core::str::from_utf8(bytes) {
        Ok(text) => (text, End::Valid),
        Err(e) => {
            let valid = bytes.get(..e.valid_up_to()).unwrap_or(&[]);
            let end = match e.error_len() {
                Some(_) => End::Invalid,
                None => End::Cut,
            };
            // SAFETY: `Utf8Error::valid_up_to` is documented as "the index
            // in the given string up to which valid UTF-8 was verified";
            // the slice ends there (one pass, where taking the prefix
            // safely would validate it a second time). Checked by
            // `long_slices_agree_with_core`.
            #[allow(unsafe_code)]
            let text = unsafe { core::str::from_utf8_unchecked(valid) };
            (text, end)
        }
    }
}

/// Length from which a slice is validated with AVX2 (where the CPU has
/// it) rather than by the automaton: 32 bytes a step, whatever the
/// script, where the automaton takes a table load and a shift a byte
/// outside blocks of ASCII.
const WIDE: usize = 256;

/// [`valid_prefix`] of a long slice with AVX2: `None` where the CPU lacks
/// it, or where the slice is not valid UTF-8 up to a character its end
/// cuts (the automaton then finds exactly where it stops).
#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn wide_valid_prefix(bytes: &[u8]) -> Option<(&str, End)> {
    if !crate::simd::wide::available() {
        return None;
    }
    // Where a character the slice's end cuts starts: at one of its last
    // three bytes, a lead byte with more continuation bytes to come than
    // there are bytes after it.
    let len = bytes.len();
    let mut cut = len;
    for at in (len.saturating_sub(3)..len).rev() {
        let lead = *bytes.get(at)?;
        if lead < 0x80 {
            break;
        }
        if lead >= 0xC0 {
            let needs = match lead {
                0xF0.. => 4,
                0xE0.. => 3,
                _ => 2,
            };
            if len - at < needs {
                cut = at;
            }
            break;
        }
    }
    let (whole, tail) = bytes.split_at_checked(cut)?;
    // SAFETY: AVX2 is available (checked above).
    #[allow(unsafe_code)]
    let valid = unsafe { crate::simd::wide::utf8_valid(whole) };
    if !valid {
        return None;
    }
    let end = match run(ACCEPT, tail) {
        ACCEPT => End::Valid,
        ERROR => return None,
        _ => End::Cut,
    };
    // SAFETY: `utf8_valid` accepts exactly the well-formed UTF-8 of table
    // 3-7 that ends between characters (the tests hold it against
    // `core::str::from_utf8` on every sequence of up to three bytes, at
    // every offset of a block, and on random text), and `whole` is a prefix
    // of `bytes` ending where `tail` starts.
    #[allow(unsafe_code)]
    let text = unsafe { core::str::from_utf8_unchecked(whole) };
    Some((text, end))
}

/// A block of bytes as text, if they are all ASCII (a test of the sign
/// bits of two words per sixteen bytes): for a buffer built on the stack
/// whose bytes are then appended as a copy of known size.
#[inline(always)]
pub(crate) fn ascii_block<const N: usize>(block: &[u8; N]) -> Option<&str> {
    const HIGH: u128 = 0x8080_8080_8080_8080_8080_8080_8080_8080;
    let mut blocks = block.chunks_exact(16);
    let mut bits = 0u128;
    for sixteen in &mut blocks {
        if let Some(sixteen) = sixteen.first_chunk::<16>() {
            bits |= u128::from_le_bytes(*sixteen);
        }
    }
    if bits & HIGH != 0 || !blocks.remainder().is_ascii() {
        return None;
    }
    // SAFETY: every byte is below 0x80, and a sequence of such bytes is
    // valid UTF-8 (each is a one-byte character: RFC 3629 section 3).
    // `ascii_block_agrees_with_is_ascii` checks every byte value in every
    // lane of blocks of several sizes.
    #[allow(unsafe_code)]
    Some(unsafe { core::str::from_utf8_unchecked(block) })
}

/// `bytes` as text if all of it is valid UTF-8, for long mostly-ASCII
/// slices (an SSE data line): the ASCII blocks at the start are skipped
/// with SIMD ([`crate::simd::ascii_prefix`]) and `core` validates the rest
/// (or, from 256 bytes, [`valid_prefix`] and its AVX2 check).
/// The automaton of [`valid_prefix`] took more instructions than `core` on
/// long ASCII lines.
#[inline]
pub(crate) fn to_str(bytes: &[u8]) -> Option<&str> {
    let ascii = crate::simd::ascii_prefix(bytes);
    let rest = bytes.get(ascii..).unwrap_or(&[]);
    if rest.len() >= WIDE {
        // Text in another script (a JSON payload with CJK text, say).
        if !all_valid(rest) {
            return None;
        }
    } else if !(rest.len() < 16 && rest.is_ascii()) {
        core::str::from_utf8(rest).ok()?;
    }
    // SAFETY: `bytes[..ascii]` is ASCII (`ascii_prefix` is tested against
    // `is_ascii`) and `rest` was just validated. An ASCII byte is a whole
    // character and never a continuation byte, so text that is ASCII
    // followed by valid UTF-8 is valid UTF-8. `to_str_agrees_with_core`
    // checks it.
    #[allow(unsafe_code)]
    Some(unsafe { core::str::from_utf8_unchecked(bytes) })
}

/// A byte buffer that remembers one stretch of itself known to be ASCII,
/// found as the bytes were copied in, so that its text is later validated
/// without reading that stretch again: the SSE decoder's line buffer,
/// where a 4 MiB data line arriving in 1,460-byte pieces was read three
/// times (searched for its end, copied, then validated when its event was
/// dispatched) and is now read once ([`LineBuf::extend_line`]). The bytes
/// change only through its methods, each of which keeps the stretch true.
#[derive(Debug, Clone, Default)]
pub(crate) struct LineBuf {
    bytes: Vec<u8>,
    /// `bytes[ascii.0..ascii.1]` is ASCII (empty when nothing is known).
    ascii: (usize, usize),
}

impl core::ops::Deref for LineBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}

impl LineBuf {
    pub(crate) fn clear(&mut self) {
        self.bytes.clear();
        self.ascii = (0, 0);
    }

    /// Drops the first `n` bytes.
    pub(crate) fn drain_front(&mut self, n: usize) {
        let n = n.min(self.bytes.len());
        self.bytes.drain(..n);
        self.ascii = (
            self.ascii.0.saturating_sub(n),
            self.ascii.1.saturating_sub(n),
        );
    }

    /// Appends `bytes` (the known stretch, before them, stays true).
    pub(crate) fn extend_from_slice(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
    }

    /// Appends `bytes`, checked for ASCII on the way in (they have just
    /// been searched, so they are in the cache): the end of a line whose
    /// start [`LineBuf::extend_line`] copied, or the start of a line a
    /// piece cut.
    pub(crate) fn extend_checked(&mut self, bytes: &[u8]) {
        let from = self.bytes.len();
        self.bytes.extend_from_slice(bytes);
        if bytes.is_ascii() {
            self.note_ascii(from, self.bytes.len());
        }
    }

    /// Appends the start of `src` that holds no CR or LF, in whole blocks
    /// of 32 bytes, checking on the way whether it is ASCII: the bytes
    /// appended (up to 31 short of the line end, or of the end of `src`;
    /// the caller appends the rest). Only with AVX2 (found at run
    /// time) and a `src` of two steps or more; otherwise appends nothing.
    pub(crate) fn extend_line(&mut self, src: &[u8]) -> usize {
        #[cfg(target_arch = "x86_64")]
        {
            use crate::simd::wide;
            if src.len() >= 2 * wide::STEP && wide::available() {
                let from = self.bytes.len();
                // SAFETY: AVX2 is available (checked just above).
                #[allow(unsafe_code)]
                let (copied, ascii) = unsafe { wide::extend_clean(&mut self.bytes, src) };
                if ascii {
                    // The kernel tested the sign bit of every byte it
                    // copied.
                    self.note_ascii(from, from + copied);
                }
                return copied;
            }
        }
        let _ = src;
        0
    }

    /// `bytes[from..to]` is ASCII: the known stretch grows if it ends at
    /// `from`, and is replaced otherwise.
    fn note_ascii(&mut self, from: usize, to: usize) {
        if from == to {
            return;
        }
        self.ascii = if self.ascii.1 == from && self.ascii.0 < from {
            (self.ascii.0, to)
        } else {
            (from, to)
        };
    }

    /// `self[start..end]` as text, if it is valid UTF-8 (and in bounds);
    /// the part of it known to be ASCII is not read again.
    #[inline]
    pub(crate) fn to_str(&self, start: usize, end: usize) -> Option<&str> {
        if self.ascii.1 <= start || self.ascii.0 >= end {
            // Nothing of it is known: the usual short line.
            return to_str(self.bytes.get(start..end)?);
        }
        self.to_str_past_ascii(start, end)
    }

    /// [`LineBuf::to_str`] of a line that overlaps the stretch known to be
    /// ASCII. Out of line: inlined where an event's data is read, it made
    /// reading a data line in place slower too.
    #[inline(never)]
    fn to_str_past_ascii(&self, start: usize, end: usize) -> Option<&str> {
        let bytes = self.bytes.get(start..end)?;
        let lo = self.ascii.0.clamp(start, end) - start;
        let hi = self.ascii.1.clamp(start, end) - start;
        let (lo, hi) = if lo < hi {
            (lo, hi)
        } else {
            (bytes.len(), bytes.len())
        };
        to_str(bytes.get(..lo)?)?;
        to_str(bytes.get(hi..)?)?;
        // SAFETY: `bytes[..lo]` and `bytes[hi..]` were just validated, and
        // `bytes[lo..hi]` lies inside the stretch `ascii`, which every
        // method that changes `self.bytes` keeps ASCII (`extend_line` sets
        // it only over bytes whose sign bits it tested; `drain_front`
        // moves it with the bytes; `clear` empties it; appending leaves
        // it). ASCII bytes are whole characters, so valid text, ASCII and
        // valid text joined are valid. `line_buf_agrees_with_core` checks
        // it on ASCII and non-ASCII lines cut every way.
        #[allow(unsafe_code)]
        Some(unsafe { core::str::from_utf8_unchecked(bytes) })
    }
}

/// Whether all of `bytes` is valid UTF-8, by [`valid_prefix`]. Out of
/// line: [`to_str`] is inlined where each SSE event's data is read, and
/// with `valid_prefix` inlined in it the common short line was slower.
#[inline(never)]
fn all_valid(bytes: &[u8]) -> bool {
    valid_prefix(bytes).1 == End::Valid
}

// The automaton's states, as bit offsets into a row of `NEXT` (six bits a
// state, nine states).
/// Between characters (the start state).
const ACCEPT: u64 = 0;
/// Not UTF-8, whatever follows.
const ERROR: u64 = 6;
/// One, two or three continuation bytes (0x80..=0xBF) to go.
const TAIL1: u64 = 12;
const TAIL2: u64 = 18;
const TAIL3: u64 = 24;
/// After the lead bytes whose second byte has a narrower range: E0 (A0..=BF,
/// no overlong forms), ED (80..=9F, no surrogates), F0 (90..=BF, no
/// overlong forms), F4 (80..=8F, nothing past U+10FFFF).
const AFTER_E0: u64 = 30;
const AFTER_ED: u64 = 36;
const AFTER_F0: u64 = 42;
const AFTER_F4: u64 = 48;

/// For each byte, the state it leads to from each state: bits `s..s + 6`
/// of `NEXT[byte]` hold the next state from state `s` (a "shift-based
/// DFA": one load and one shift a byte, no branch).
// Evaluated at compile time: an index out of bounds here would be a build
// error, never a panic.
#[allow(clippy::indexing_slicing)]
const NEXT: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut i = 0;
    while i < 256 {
        let byte = i as u8;
        let from_accept = match byte {
            0x00..=0x7F => ACCEPT,
            0xC2..=0xDF => TAIL1,
            0xE0 => AFTER_E0,
            0xE1..=0xEC | 0xEE..=0xEF => TAIL2,
            0xED => AFTER_ED,
            0xF0 => AFTER_F0,
            0xF1..=0xF3 => TAIL3,
            0xF4 => AFTER_F4,
            // Continuation bytes, C0 and C1 (overlong), F5..=FF.
            _ => ERROR,
        };
        let continuation = matches!(byte, 0x80..=0xBF);
        table[i] = from_accept << ACCEPT
            | ERROR << ERROR
            | pick(continuation, ACCEPT) << TAIL1
            | pick(continuation, TAIL1) << TAIL2
            | pick(continuation, TAIL2) << TAIL3
            | pick(matches!(byte, 0xA0..=0xBF), TAIL1) << AFTER_E0
            | pick(matches!(byte, 0x80..=0x9F), TAIL1) << AFTER_ED
            | pick(matches!(byte, 0x90..=0xBF), TAIL2) << AFTER_F0
            | pick(matches!(byte, 0x80..=0x8F), TAIL2) << AFTER_F4;
        i += 1;
    }
    table
};

/// `next` if `ok`, else [`ERROR`].
const fn pick(ok: bool, next: u64) -> u64 {
    if ok {
        next
    } else {
        ERROR
    }
}

/// The automaton's state after `bytes`, from [`ACCEPT`]: [`ERROR`] as soon
/// as a block of sixteen bytes meets an error. Between characters a block
/// of ASCII, which leaves the state where it is, is skipped whole.
#[inline]
fn automaton_state(bytes: &[u8]) -> u64 {
    if bytes.len() <= SHORT {
        // A piece: not ASCII (the caller checked), so no block to skip.
        return run(ACCEPT, bytes);
    }
    long_state(bytes)
}

/// [`automaton_state`] of a long slice. Out of line: the short pieces of a
/// stream take the path above, and inlining this loop too into every
/// caller made them slower (5% more instructions for a streamed parse).
#[inline(never)]
fn long_state(bytes: &[u8]) -> u64 {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut state = ACCEPT;
    let mut blocks = bytes.chunks_exact(16);
    for block in &mut blocks {
        if state == ACCEPT {
            if let (Some(a), Some(b)) = (block.first_chunk::<8>(), block.last_chunk::<8>()) {
                if (u64::from_le_bytes(*a) | u64::from_le_bytes(*b)) & HIGH == 0 {
                    continue;
                }
            }
        }
        state = run(state, block);
        if state == ERROR {
            return ERROR;
        }
    }
    run(state, blocks.remainder())
}

/// The automaton run over `bytes` from `state`.
// A `u8` always indexes a 256-entry table: no bounds check, no panic, and
// no fallback row that could lead anywhere but where the table says.
#[allow(clippy::indexing_slicing)]
#[inline(always)]
fn run(mut state: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        state = NEXT[usize::from(b)] >> (state & 63);
    }
    state & 63
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;
    use proptest::strategy::Strategy;

    /// What `valid_prefix` must return, from `core::str::from_utf8` alone.
    fn expected(bytes: &[u8]) -> (&str, End) {
        match core::str::from_utf8(bytes) {
            Ok(text) => (text, End::Valid),
            Err(e) => (
                core::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap(),
                if e.error_len().is_some() {
                    End::Invalid
                } else {
                    End::Cut
                },
            ),
        }
    }

    #[test]
    fn every_sequence_of_up_to_three_bytes_agrees_with_core() {
        let mut bytes = [0u8; 3];
        for a in 0..=255u8 {
            bytes[0] = a;
            assert_eq!(valid_prefix(&bytes[..1]), expected(&bytes[..1]));
            for b in 0..=255u8 {
                bytes[1] = b;
                assert_eq!(valid_prefix(&bytes[..2]), expected(&bytes[..2]));
                for c in 0..=255u8 {
                    bytes[2] = c;
                    assert_eq!(valid_prefix(&bytes), expected(&bytes), "{bytes:x?}");
                }
            }
        }
    }

    /// `filler` text up to exactly `len` bytes (ASCII after the last
    /// whole character that fits), then `bytes`, then `tail`.
    #[cfg(target_arch = "x86_64")]
    fn placed(filler: &str, len: usize, bytes: &[u8], tail: &[u8]) -> Vec<u8> {
        let mut out = filler.repeat(len).into_bytes();
        out.truncate(len);
        while core::str::from_utf8(&out).is_err() {
            out.pop();
        }
        out.resize(len, b'a');
        out.extend_from_slice(bytes);
        out.extend_from_slice(tail);
        out
    }

    /// The AVX2 check (where the CPU has it) against `core`: every pair of
    /// bytes, and every sequence of four of table 3-7's edge bytes, placed
    /// across a 128-bit lane's end and a 32-byte block's end, after ASCII
    /// and after other text, with the slice ending right after them and
    /// going on.
    #[cfg(target_arch = "x86_64")]
    #[test]
    #[allow(unsafe_code)]
    fn the_wide_check_agrees_with_core() {
        if !crate::simd::wide::available() {
            return;
        }
        // SAFETY: AVX2 is available (checked above).
        let wide = |bytes: &[u8]| unsafe { crate::simd::wide::utf8_valid(bytes) };
        let core_ok = |bytes: &[u8]| core::str::from_utf8(bytes).is_ok();
        for filler in ["a", "\u{e9}"] {
            for at in [15, 31, 63] {
                for a in 0..=255u8 {
                    for b in 0..=255u8 {
                        for tail in [&b""[..], b"z"] {
                            let bytes = placed(filler, at, &[a, b], tail);
                            assert_eq!(wide(&bytes), core_ok(&bytes), "{bytes:x?}");
                        }
                    }
                }
            }
        }
        let edges = [
            0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1,
            0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF4, 0xF5, 0xFF,
        ];
        for &a in &edges {
            for &b in &edges {
                for &c in &edges {
                    for &d in &edges {
                        for at in [13, 30] {
                            let bytes = placed("\u{65e5}", at, &[a, b, c, d], b"");
                            assert_eq!(wide(&bytes), core_ok(&bytes), "{bytes:x?}");
                        }
                    }
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(500))]
        /// Long slices (the AVX2 path where the CPU has it): mixes of
        /// characters of every length and stray bytes, cut anywhere.
        #[test]
        fn long_random_text_agrees_with_core(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    8 => proptest::char::any().prop_map(|c| alloc::string::String::from(c).into_bytes()),
                    8 => proptest::string::string_regex("[a-z ]{1,40}")
                        .expect("a regex")
                        .prop_map(alloc::string::String::into_bytes),
                    1 => proptest::num::u8::ANY.prop_map(|b| alloc::vec![b]),
                ],
                0..120,
            ),
            cut in 200usize..2000,
        ) {
            let bytes: Vec<u8> = parts.concat();
            let bytes = &bytes[..cut.min(bytes.len())];
            proptest::prop_assert_eq!(valid_prefix(bytes), expected(bytes));
            proptest::prop_assert_eq!(to_str(bytes), core::str::from_utf8(bytes).ok());
            // And without AVX2: the automaton and `core`.
            let narrow = crate::simd::narrow(|| (valid_prefix(bytes), to_str(bytes)));
            proptest::prop_assert_eq!(narrow, (expected(bytes), core::str::from_utf8(bytes).ok()));
        }
    }

    #[test]
    fn four_byte_sequences_agree_with_core() {
        // Every byte value where a range in table 3-7 starts or ends, and
        // its neighbours: each class of each position.
        let edges: Vec<u8> = [
            0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0,
            0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
        ]
        .to_vec();
        for &a in &edges {
            for &b in &edges {
                for &c in &edges {
                    for &d in &edges {
                        let bytes = [a, b, c, d];
                        assert_eq!(valid_prefix(&bytes), expected(&bytes), "{bytes:x?}");
                        // And after a valid prefix, as inside a piece.
                        let mut longer = "é日a".as_bytes().to_vec();
                        longer.extend_from_slice(&bytes);
                        assert_eq!(valid_prefix(&longer), expected(&longer), "{longer:x?}");
                        // And at every offset of a block, after whole
                        // blocks of ASCII and of other text (the loop
                        // that skips blocks of ASCII).
                        for pad in [79, 80, 81, 85, 88, 93, 94, 95] {
                            for filler in ["a", "é"] {
                                let mut long: Vec<u8> =
                                    filler.repeat(pad).into_bytes()[..pad].to_vec();
                                if core::str::from_utf8(&long).is_err() {
                                    long.pop();
                                }
                                long.extend_from_slice(&bytes);
                                long.extend_from_slice(b"tail");
                                assert_eq!(valid_prefix(&long), expected(&long), "{long:x?}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn short_slices_agree_with_core() {
        let text = "a é 日本 😀 z".as_bytes();
        for len in 0..SHORT + 9 {
            let plain: Vec<u8> = (0..len).map(|i| (i * 37 % 128) as u8).collect();
            let mixed: Vec<u8> = text.iter().copied().cycle().take(len).collect();
            for base in [plain, mixed] {
                assert_eq!(valid_prefix(&base), expected(&base), "{base:x?}");
                for at in 0..len {
                    // A lone continuation byte, a two-byte character cut
                    // short, the first byte of a whole one, and a byte that
                    // is never UTF-8.
                    for (high, next) in [(0x80, b'a'), (0xc3, b'a'), (0xc3, 0xa9), (0xff, b'a')] {
                        let mut bytes = base.clone();
                        bytes[at] = high;
                        if at + 1 < len {
                            bytes[at + 1] = next;
                        }
                        assert_eq!(valid_prefix(&bytes), expected(&bytes), "{bytes:x?}");
                        // Cut at every length, as the end of a piece cuts.
                        for cut in 0..bytes.len() {
                            assert_eq!(valid_prefix(&bytes[..cut]), expected(&bytes[..cut]));
                        }
                    }
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(2000))]
        /// Random mixes of whole characters of every length and stray
        /// bytes, cut anywhere: the shape of pieces of a damaged stream.
        #[test]
        fn random_pieces_agree_with_core(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::char::any().prop_map(|c| alloc::string::String::from(c).into_bytes()),
                    proptest::num::u8::ANY.prop_map(|b| alloc::vec![b]),
                ],
                0..40,
            ),
            cut in 0usize..200,
        ) {
            let bytes: Vec<u8> = parts.concat();
            let bytes = &bytes[..cut.min(bytes.len())];
            proptest::prop_assert_eq!(valid_prefix(bytes), expected(bytes));
        }
    }

    /// What a `LineBuf` may be asked to do.
    #[derive(Debug, Clone)]
    enum LineOp {
        Extend(Vec<u8>),
        ExtendLine(Vec<u8>),
        ExtendChecked(Vec<u8>),
        DrainFront(usize),
        Clear,
    }

    /// Long runs of one kind of byte (the AVX2 steps are 128 bytes), with
    /// the odd line end, character or stray byte in them.
    fn line_bytes() -> impl Strategy<Value = Vec<u8>> {
        let run = proptest::prop_oneof![
            (1usize..400).prop_map(|n| alloc::vec![b'A'; n]),
            (1usize..100).prop_map(|n| "é日😀".repeat(n).into_bytes()),
            proptest::sample::select(alloc::vec![
                b"\n".to_vec(),
                b"\r".to_vec(),
                b"\xff".to_vec(),
                b"\xe6\x97".to_vec(),
                b"\x97".to_vec(),
            ]),
        ];
        proptest::collection::vec(run, 0..6).prop_map(|runs| runs.concat())
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(500))]
        /// Whatever a `LineBuf` was made of, and however, its text between
        /// any two points is what `core` says it is: the ASCII stretch it
        /// remembers is always ASCII.
        #[test]
        fn line_buf_agrees_with_core(
            ops in proptest::collection::vec(
                proptest::prop_oneof![
                    line_bytes().prop_map(LineOp::Extend),
                    line_bytes().prop_map(LineOp::ExtendLine),
                    line_bytes().prop_map(LineOp::ExtendChecked),
                    (0usize..600).prop_map(LineOp::DrainFront),
                    proptest::strategy::Just(LineOp::Clear),
                ],
                1..12,
            ),
            points in proptest::collection::vec(0usize..3000, 6),
        ) {
            for narrow in [false, true] {
            let mut buf = LineBuf::default();
            let mut model: Vec<u8> = Vec::new();
            for op in ops.iter().cloned() {
                match op {
                    LineOp::Extend(bytes) => {
                        buf.extend_from_slice(&bytes);
                        model.extend_from_slice(&bytes);
                    }
                    LineOp::ExtendLine(bytes) => {
                        let n = if narrow {
                            crate::simd::narrow(|| buf.extend_line(&bytes))
                        } else {
                            buf.extend_line(&bytes)
                        };
                        proptest::prop_assert!(!narrow || n == 0);
                        proptest::prop_assert_eq!(n % 32, 0);
                        proptest::prop_assert!(!bytes[..n].iter().any(|b| matches!(b, b'\n' | b'\r')));
                        model.extend_from_slice(&bytes[..n]);
                    }
                    LineOp::ExtendChecked(bytes) => {
                        buf.extend_checked(&bytes);
                        model.extend_from_slice(&bytes);
                    }
                    LineOp::DrainFront(n) => {
                        buf.drain_front(n);
                        model.drain(..n.min(model.len()));
                    }
                    LineOp::Clear => {
                        buf.clear();
                        model.clear();
                    }
                }
                proptest::prop_assert_eq!(&*buf, &model[..]);
                for pair in points.chunks_exact(2) {
                    let (a, b) = (pair[0].min(pair[1]), pair[0].max(pair[1]));
                    let want = model.get(a..b).and_then(|s| core::str::from_utf8(s).ok());
                    proptest::prop_assert_eq!(buf.to_str(a, b), want);
                }
                let want = core::str::from_utf8(&model).ok();
                proptest::prop_assert_eq!(buf.to_str(0, model.len()), want);
            }
            }
        }
    }

    /// A long ASCII line copied in by `extend_line` is known ASCII where
    /// AVX2 is there: the stretch covers what was copied.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn extend_line_remembers_the_ascii_it_copied() {
        let mut buf = LineBuf::default();
        buf.extend_checked(b"data: ");
        let line = alloc::vec![b'Q'; 1460];
        let n = buf.extend_line(&line);
        if crate::simd::wide::available() {
            assert_eq!(n, 1440);
            assert_eq!(buf.ascii, (0, 6 + 1440));
            buf.extend_checked(&line[n..]);
            let more = buf.extend_line(&line);
            assert_eq!(buf.ascii, (0, 6 + 1460 + more));
            buf.drain_front(4);
            assert_eq!(buf.ascii, (0, 2 + 1460 + more));
            buf.extend_checked("é".as_bytes());
            assert_eq!(buf.ascii, (0, 2 + 1460 + more));
            buf.extend_line(&line);
            let len = buf.len();
            assert_eq!(buf.ascii, (len - 1440, len));
        } else {
            assert_eq!((n, buf.ascii), (0, (0, 6)));
        }
    }

    fn ascii_block_of<const N: usize>() {
        for lane in 0..N {
            for byte in 0..=255u8 {
                let mut block = [b'a'; N];
                block[lane] = byte;
                let found = ascii_block(&block);
                assert_eq!(
                    found.is_some(),
                    block.is_ascii(),
                    "{byte:#x} in {lane} of {N}"
                );
                if let Some(text) = found {
                    assert_eq!(text.as_bytes(), &block);
                }
            }
        }
    }

    #[test]
    fn ascii_block_agrees_with_is_ascii() {
        ascii_block_of::<16>();
        ascii_block_of::<64>();
        ascii_block_of::<20>();
    }

    #[test]
    fn long_slices_agree_with_core() {
        let text = "a é 日本 😀 z".as_bytes();
        let long: Vec<u8> = text.iter().copied().cycle().take(SHORT * 3).collect();
        for cut in SHORT..long.len() {
            assert_eq!(valid_prefix(&long[..cut]), expected(&long[..cut]));
            let mut bad = long[..cut].to_vec();
            bad[cut / 2] = 0xff;
            assert_eq!(valid_prefix(&bad), expected(&bad));
        }
    }

    #[test]
    fn to_str_agrees_with_core() {
        let pieces: [&[u8]; 8] = [
            b"a",
            b"data: {\"x\":1}",
            "é".as_bytes(),
            "日本".as_bytes(),
            "🚀".as_bytes(),
            b"\xff",
            b"\xe6\x97",
            b"\xed\xa0\x80",
        ];
        let mut seed = 1u64;
        for _ in 0..3000 {
            let mut bytes = Vec::new();
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let ascii_run = (seed >> 40) as usize % 150;
            bytes.extend(core::iter::repeat_n(b'q', ascii_run));
            for k in 0..(seed >> 20) as usize % 4 {
                bytes.extend_from_slice(pieces[(seed as usize >> (8 * k)) % pieces.len()]);
                bytes.extend(core::iter::repeat_n(b'z', (seed >> (10 + k)) as usize % 40));
            }
            assert_eq!(
                to_str(&bytes),
                core::str::from_utf8(&bytes).ok(),
                "{bytes:?}"
            );
        }
    }
}
