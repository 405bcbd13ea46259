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
//! UTF-8 goes to `core`, for the exact place of the error. BENCHMARKS.md
//! has the counts before and after.

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

/// `bytes` as text if all of it is valid UTF-8, for long mostly-ASCII
/// slices (an SSE data line): the ASCII blocks at the start are skipped
/// with SIMD ([`crate::simd::ascii_prefix`]) and `core` validates the rest.
/// The automaton of [`valid_prefix`] took more instructions than `core` on
/// long ASCII lines.
#[inline]
pub(crate) fn to_str(bytes: &[u8]) -> Option<&str> {
    let ascii = crate::simd::ascii_prefix(bytes);
    let rest = bytes.get(ascii..).unwrap_or(&[]);
    if !(rest.len() < 16 && rest.is_ascii()) {
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
            bytes.extend(core::iter::repeat(b'q').take(ascii_run));
            for k in 0..(seed >> 20) as usize % 4 {
                bytes.extend_from_slice(pieces[(seed as usize >> (8 * k)) % pieces.len()]);
                bytes.extend(core::iter::repeat(b'z').take((seed >> (10 + k)) as usize % 40));
            }
            assert_eq!(
                to_str(&bytes),
                core::str::from_utf8(&bytes).ok(),
                "{bytes:?}"
            );
        }
    }
}
