//! UTF-8 validation, for pieces of every size, and the bytes of a
//! character cut by the end of a piece ([`Utf8Tail`]).
//!
//! A stream arrives as many small pieces (16 bytes is typical of a tool
//! call's argument deltas), and every piece must become `&str` before its
//! text can join a `String`. `core::str::from_utf8` has a fixed cost that
//! is large next to a 16-byte slice (its word-at-a-time loop only starts at
//! an aligned address, and it branches per character class). Here a short
//! slice is checked for ASCII with a few word reads; anything else runs
//! through a branch-free automaton, a table load and a shift a byte, which
//! skips sixteen bytes of ASCII at a time, and a long slice goes to the
//! AVX2 check of `simd` where the CPU has it. Only a slice that is not
//! valid UTF-8 goes to `core`, for the exact place of the error.
//!
//! The text is then made with `from_utf8_unchecked`, each call next to the
//! argument that it is sound and a debug assertion that it is.

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
        debug_assert!(core::str::from_utf8(bytes).is_ok());
        // SAFETY: every byte is below 0x80, and a sequence of such bytes is
        // valid UTF-8 (each is a one-byte character: RFC 3629 section 3).
        // `short_slices_agree_with_core` checks every length up to past
        // `SHORT` with a non-ASCII byte at each position.
        return (unsafe { core::str::from_utf8_unchecked(bytes) }, End::Valid);
    }
    #[cfg(target_arch = "x86_64")]
    if bytes.len() >= WIDE {
        if let Some(found) = wide_valid_prefix(bytes) {
            return found;
        }
    }
    automaton_valid_prefix(bytes)
}

/// [`valid_prefix`] by the automaton alone (and `core` for where an error
/// is), whatever the length: what it does where the CPU has no AVX2.
#[inline(always)]
pub(crate) fn automaton_valid_prefix(bytes: &[u8]) -> (&str, End) {
    match automaton_state(bytes) {
        ACCEPT => {
            debug_assert!(core::str::from_utf8(bytes).is_ok());
            // SAFETY: the automaton accepts exactly the well-formed
            // byte sequences of the Unicode Standard's table 3-7 (see
            // `NEXT`), and skips only blocks of ASCII met between
            // characters; `every_sequence_of_up_to_three_bytes_agrees_with_core`,
            // `four_byte_sequences_agree_with_core` (also after long
            // prefixes, at every offset in a block) and
            // `random_pieces_agree_with_core` check it.
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
                debug_assert!(core::str::from_utf8(valid).is_ok());
                // SAFETY: the automaton met no error, so `bytes` is
                // whole characters followed by the valid start of one
                // more, and `valid` ends where that one starts. Checked
                // by the same tests.
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
            debug_assert!(core::str::from_utf8(valid).is_ok());
            // SAFETY: `Utf8Error::valid_up_to` is documented as "the index
            // in the given string up to which valid UTF-8 was verified";
            // the slice ends there (one pass, where taking the prefix
            // safely would validate it a second time). Checked by
            // `long_slices_agree_with_core`.
            let text = unsafe { core::str::from_utf8_unchecked(valid) };
            (text, end)
        }
    }
}

/// Length from which a slice is validated with AVX2 (where the CPU has
/// it) rather than by the automaton: 32 bytes a step, whatever the
/// script, where the automaton takes a table load and a shift a byte
/// outside blocks of ASCII.
pub(crate) const WIDE: usize = 256;

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
    let valid = unsafe { crate::simd::wide::utf8_valid(whole) };
    if !valid {
        return None;
    }
    let end = match run(ACCEPT, tail) {
        ACCEPT => End::Valid,
        ERROR => return None,
        _ => End::Cut,
    };
    debug_assert!(core::str::from_utf8(whole).is_ok());
    // SAFETY: `utf8_valid` accepts exactly the well-formed UTF-8 of table
    // 3-7 that ends between characters (the tests hold it against
    // `core::str::from_utf8` on every sequence of up to three bytes, at
    // every offset of a block, and on random text), and `whole` is a prefix
    // of `bytes` ending where `tail` starts.
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
    debug_assert!(core::str::from_utf8(block).is_ok());
    // SAFETY: every byte is below 0x80, and a sequence of such bytes is
    // valid UTF-8 (each is a one-byte character: RFC 3629 section 3).
    // `ascii_block_agrees_with_is_ascii` checks every byte value in every
    // lane of blocks of several sizes.
    Some(unsafe { core::str::from_utf8_unchecked(block) })
}

/// Whether all of `bytes` is valid UTF-8, by [`valid_prefix`]. Out of
/// line: `sse::utf8::to_str` is inlined where each SSE event's data is read, and
/// with `valid_prefix` inlined in it the common short line was slower.
#[inline(never)]
pub(crate) fn all_valid(bytes: &[u8]) -> bool {
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
/// caller makes them slower.
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

/// The bytes of one UTF-8 sequence cut by the end of a piece, waiting for
/// the rest. At most three bytes ever wait (a four-byte sequence less one).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Utf8Tail {
    bytes: [u8; 4],
    len: u8,
}

/// What became of a waiting sequence after more bytes.
pub(crate) enum Tail {
    /// Still incomplete; every byte offered was used.
    Waiting,
    /// Complete: this character, having used `used` of the bytes offered.
    Char(char, usize),
    /// Not UTF-8 (the waiting bytes are dropped).
    Invalid,
}

impl Utf8Tail {
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many bytes are waiting.
    pub(crate) fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Holds the valid but incomplete end of a run (1 to 3 bytes).
    pub(crate) fn hold(&mut self, bytes: &[u8]) {
        // Byte by byte: a `copy_from_slice` of one to three bytes was a
        // `memcpy` call.
        let mut n = 0;
        for (to, &from) in self.bytes.iter_mut().zip(bytes.iter().take(3)) {
            *to = from;
            n += 1;
        }
        self.len = n;
    }

    /// Continues the waiting sequence with the start of `input`. The lead
    /// byte (held, and valid: `hold` only holds a valid but incomplete
    /// end) says how long the sequence is, so only the bytes it lacks are
    /// looked at, each checked against its place in table 3-7 of the
    /// Unicode Standard, and the character is put together from them: in
    /// CJK text cut into 16-byte pieces nearly every piece starts by
    /// finishing a character, so this is kept far cheaper than the general
    /// validator and a copy.
    pub(crate) fn resume(&mut self, input: &[u8]) -> Tail {
        let held = usize::from(self.len);
        let [lead, ..] = self.bytes;
        let total: usize = match lead {
            0xC2..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF4 => 4,
            _ => {
                self.len = 0;
                return Tail::Invalid;
            }
        };
        let mut len = held;
        for &b in input.iter().take(total.saturating_sub(held)) {
            // The second byte's range depends on the lead; the others are
            // plain continuation bytes.
            let ok = match (len, lead) {
                (1, 0xE0) => matches!(b, 0xA0..=0xBF),
                (1, 0xED) => matches!(b, 0x80..=0x9F),
                (1, 0xF0) => matches!(b, 0x90..=0xBF),
                (1, 0xF4) => matches!(b, 0x80..=0x8F),
                _ => matches!(b, 0x80..=0xBF),
            };
            let Some(slot) = self.bytes.get_mut(len).filter(|_| ok) else {
                self.len = 0;
                return Tail::Invalid;
            };
            *slot = b;
            len += 1;
        }
        if len < total {
            // Every byte offered was used.
            self.len = len as u8;
            return Tail::Waiting;
        }
        self.len = 0;
        let [_, b1, b2, b3] = self.bytes.map(|b| u32::from(b & 0x3F));
        let code = match total {
            2 => (u32::from(lead & 0x1F) << 6) | b1,
            3 => (u32::from(lead & 0x0F) << 12) | (b1 << 6) | b2,
            _ => (u32::from(lead & 0x07) << 18) | (b1 << 12) | (b2 << 6) | b3,
        };
        match char::from_u32(code) {
            Some(c) => Tail::Char(c, total - held),
            None => Tail::Invalid,
        }
    }
}

/// A part of a byte piece read as text: a valid run, or one invalid
/// sequence of this many bytes (read as U+FFFD).
pub(crate) enum Lossy<'a> {
    Text(&'a str),
    Invalid(usize),
}

/// Reads `held` (a sequence cut by the end of the last piece) and then
/// `bytes` as text, giving `read` each valid run and each invalid sequence
/// in order; a sequence cut by the end of `bytes` is left in `held` to wait
/// for the next piece (at most three bytes ever wait).
pub(crate) fn read_lossy(
    held: &mut alloc::vec::Vec<u8>,
    bytes: &[u8],
    mut read: impl FnMut(Lossy<'_>),
) {
    let mut buf = core::mem::take(held);
    buf.extend_from_slice(bytes);
    let mut rest: &[u8] = &buf;
    loop {
        let (valid, end) = valid_prefix(rest);
        if !valid.is_empty() {
            read(Lossy::Text(valid));
        }
        let after = rest.get(valid.len()..).unwrap_or(&[]);
        match end {
            End::Valid => return,
            End::Cut => {
                *held = after.to_vec();
                return;
            }
            End::Invalid => {
                let n = core::str::from_utf8(after)
                    .err()
                    .and_then(|e| e.error_len())
                    .unwrap_or(1);
                read(Lossy::Invalid(n));
                rest = after.get(n..).unwrap_or(&[]);
            }
        }
    }
}

/// Text for the property tests of the UTF-8 checks: characters of every
/// length, runs of ASCII and stray bytes, up to 120 parts.
#[cfg(test)]
pub(crate) fn text_parts(
) -> impl proptest::strategy::Strategy<Value = alloc::vec::Vec<alloc::vec::Vec<u8>>> {
    use proptest::strategy::Strategy;
    proptest::collection::vec(
        proptest::prop_oneof![
            8 => proptest::char::any().prop_map(|c| alloc::string::String::from(c).into_bytes()),
            8 => proptest::string::string_regex("[a-z ]{1,40}")
                .expect("a regex")
                .prop_map(alloc::string::String::into_bytes),
            1 => proptest::num::u8::ANY.prop_map(|b| alloc::vec![b]),
        ],
        0..120,
    )
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
            parts in text_parts(),
            cut in 200usize..2000,
        ) {
            let bytes: Vec<u8> = parts.concat();
            let bytes = &bytes[..cut.min(bytes.len())];
            proptest::prop_assert_eq!(valid_prefix(bytes), expected(bytes));
            // And without AVX2: the automaton and `core`.
            let narrow = crate::simd::narrow(|| valid_prefix(bytes));
            proptest::prop_assert_eq!(narrow, expected(bytes));
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

    /// What `core::str::from_utf8` says, in the terms of `__fuzz`.
    fn core_verdict(bytes: &[u8]) -> crate::__fuzz::Utf8Verdict {
        core::str::from_utf8(bytes)
            .map(|_| ())
            .map_err(|e| (e.valid_up_to(), e.error_len().is_none()))
    }

    /// Every validator against `core` on `bytes`, with AVX2 and without.
    fn all_validators_agree(bytes: &[u8]) {
        use crate::__fuzz::*;
        let want = core_verdict(bytes);
        let check = || {
            assert_eq!(validate_utf8(bytes), want, "{bytes:x?}");
            assert_eq!(validate_utf8_automaton(bytes), want, "{bytes:x?}");
            assert_eq!(validate_sse_line(bytes), want.is_ok(), "{bytes:x?}");
            if let Some(valid) = validate_utf8_simd(bytes) {
                assert_eq!(valid, want.is_ok(), "{bytes:x?}");
            }
        };
        check();
        crate::simd::narrow(check);
    }

    /// The edges of the Unicode Standard's table 3-7 (overlong forms,
    /// surrogates, the largest code point and past it, bytes that never
    /// occur, lone and extra continuation bytes, sequences cut short), each
    /// after 0 to 31 bytes of filler, in short and in long slices (past
    /// `WIDE`, so the AVX2 check runs), starting at every offset of a
    /// block, followed by nothing, ASCII or more text, and cut at every
    /// byte: every validator says what `core` says.
    #[test]
    fn tricky_sequences_at_every_alignment_agree_with_core() {
        let tricky: &[&[u8]] = &[
            b"\xC0\x80",
            b"\xC1\xBF",
            b"\xE0\x80\x80",
            b"\xE0\x9F\xBF",
            b"\xF0\x80\x80\x80",
            b"\xF0\x8F\xBF\xBF",
            b"\xED\xA0\x80",
            b"\xED\xBF\xBF",
            b"\xED\x9F\xBF",
            b"\xEE\x80\x80",
            b"\xF4\x8F\xBF\xBF",
            b"\xF4\x90\x80\x80",
            b"\xF5\x80\x80\x80",
            b"\xF8\x88\x80\x80\x80",
            b"\xFE",
            b"\xFF",
            b"\x80",
            b"\xBF",
            b"\xC2",
            b"\xE2\x82",
            b"\xF0\x9F\x98",
            b"\xC2\x80",
            b"\xDF\xBF",
            b"\xE0\xA0\x80",
            b"\xEF\xBF\xBF",
            b"\xF0\x90\x80\x80",
            b"\xE2\x82\xAC\x80",
        ];
        for filler in ["a", "\u{e9}", "\u{65e5}", "\u{1f600}"] {
            for long in [false, true] {
                let mut text = Vec::new();
                while text.len() < if long { WIDE + 40 } else { 20 } {
                    text.extend_from_slice(filler.as_bytes());
                }
                for offset in 0..32 {
                    for &seq in tricky {
                        for tail in [&b""[..], b"z", "\u{65e5}".as_bytes()] {
                            let mut bytes = alloc::vec![b'a'; offset];
                            bytes.extend_from_slice(&text);
                            bytes.extend_from_slice(seq);
                            bytes.extend_from_slice(tail);
                            all_validators_agree(&bytes);
                            all_validators_agree(&bytes[offset..]);
                            if tail.is_empty() {
                                for cut in 1..seq.len() {
                                    let end = bytes.len() - seq.len() + cut;
                                    all_validators_agree(&bytes[offset..end]);
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn tail_completes_across_pieces() {
        let emoji = "😀".as_bytes();
        let mut t = Utf8Tail::default();
        t.hold(&emoji[..1]);
        assert!(matches!(t.resume(&emoji[1..2]), Tail::Waiting));
        match t.resume(&[emoji[2], emoji[3], b'x']) {
            Tail::Char(c, used) => {
                assert_eq!(c, '😀');
                assert_eq!(used, 2);
            }
            _ => panic!("expected a char"),
        }
        assert!(t.is_empty());
    }

    /// Every boundary class of two-, three- and four-byte characters, cut
    /// after each of its bytes: the rest completes it (offered whole or a
    /// byte at a time), and any other next byte gets the verdict `core`
    /// gives the same bytes.
    #[test]
    fn tail_agrees_with_core_on_every_cut_and_next_byte() {
        let chars = [
            '\u{80}',
            '\u{7ff}',
            '\u{800}',
            '\u{fff}',
            '\u{1000}',
            '\u{cfff}',
            '\u{d000}',
            '\u{d7ff}',
            '\u{e000}',
            '\u{ffff}',
            '\u{10000}',
            '\u{3ffff}',
            '\u{40000}',
            '\u{fffff}',
            '\u{100000}',
            '\u{10ffff}',
        ];
        for c in chars {
            let mut buf = [0u8; 4];
            let bytes = c.encode_utf8(&mut buf).as_bytes();
            for cut in 1..bytes.len() {
                let mut t = Utf8Tail::default();
                t.hold(&bytes[..cut]);
                let mut rest = alloc::vec::Vec::from(&bytes[cut..]);
                rest.push(b'x');
                assert!(
                    matches!(t.resume(&rest), Tail::Char(d, used) if d == c && used == bytes.len() - cut)
                );
                let mut t = Utf8Tail::default();
                t.hold(&bytes[..cut]);
                for (i, &b) in bytes[cut..].iter().enumerate() {
                    let last = cut + i + 1 == bytes.len();
                    match t.resume(&[b]) {
                        Tail::Char(d, 1) if last => assert_eq!(d, c),
                        Tail::Waiting if !last => {}
                        _ => panic!("{c:?} cut at {cut}, byte {i}"),
                    }
                }
                for next in 0..=255u8 {
                    let mut t = Utf8Tail::default();
                    t.hold(&bytes[..cut]);
                    let mut seq = alloc::vec::Vec::from(&bytes[..cut]);
                    seq.push(next);
                    let core_ok = match core::str::from_utf8(&seq) {
                        Ok(_) => true,
                        Err(e) => e.error_len().is_none(),
                    };
                    let got = t.resume(&[next]);
                    assert_eq!(!matches!(got, Tail::Invalid), core_ok, "{seq:x?}");
                }
            }
        }
    }

    #[test]
    fn tail_rejects_bad_continuations_at_once() {
        let mut t = Utf8Tail::default();
        t.hold(&[0xe2]);
        assert!(matches!(t.resume(b"\""), Tail::Invalid));
        let mut t = Utf8Tail::default();
        t.hold(&[0xed]);
        // ED A0 starts a UTF-16 surrogate: never valid UTF-8.
        assert!(matches!(t.resume(&[0xa0]), Tail::Invalid));
    }
}
