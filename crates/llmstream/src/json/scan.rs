//! Byte scanning for the hot loops: string runs and UTF-8 across pieces.

use crate::simd::run_ends;

/// Index of the first byte in `s` that ends a plain string run: `"`, `\`,
/// or a control character (below 0x20); `s.len()` if none.
///
/// Sixteen bytes at a time ([`run_end_bits`], SSE2 on x86-64): the
/// strings of a document are read here whole (a `json::Tape`, the state
/// machine's runs). Eight bytes a word (SWAR) took 7% more instructions
/// on twitter-like input and was slower on the wall clock than sonic-rs's
/// SIMD string scan.
#[inline]
pub(crate) fn string_run_end(s: &[u8]) -> usize {
    let mut base = 0;
    loop {
        let bits = run_end_bits(s, base);
        if bits != 0 {
            return base + bits.trailing_zeros() as usize;
        }
        base += 16;
        if base >= s.len() {
            return s.len();
        }
    }
}

/// What a one-character escape stands for, by the byte after its
/// backslash (`"`, `\\`, `/`, `b`, `f`, `n`, `r`, `t`); `None` for `u`
/// (four hex digits follow) and for anything else (an invalid escape).
/// A table, not a `match`: one predictable branch instead of a jump that
/// mispredicts as the escapes in a text vary.
#[inline]
pub(crate) fn escaped_char(byte: u8) -> Option<char> {
    let decoded = ESCAPES.get(usize::from(byte)).copied()?;
    (decoded != 0).then(|| char::from(decoded))
}

/// [`escaped_char`]'s table: the character, or 0.
// Evaluated at compile time: an index out of bounds here would be a build
// error, never a panic.
#[allow(clippy::indexing_slicing)]
const ESCAPES: [u8; 256] = {
    let mut table = [0u8; 256];
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table[b'/' as usize] = b'/';
    table[b'b' as usize] = 0x08;
    table[b'f' as usize] = 0x0c;
    table[b'n' as usize] = b'\n';
    table[b'r' as usize] = b'\r';
    table[b't' as usize] = b'\t';
    table
};

/// The character a `\uD8xx\uDCxx` pair stands for (`high` in
/// D800–DBFF, `low` in DC00–DFFF; anything else is `None`).
#[inline]
pub(crate) fn surrogate_pair(high: u16, low: u16) -> Option<char> {
    if !(0xD800..=0xDBFF).contains(&high) || !(0xDC00..=0xDFFF).contains(&low) {
        return None;
    }
    char::from_u32(0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(low) - 0xDC00))
}

/// The value of a hex digit.
pub(crate) fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// The bytes that end a plain string run (`"`, `\\`, control characters)
/// among the sixteen from `hay[base]` on, one bit a byte: bit `k` is set
/// when `hay[base + k]` is one; bits for bytes past the end of `hay` are
/// clear. Sixteen bytes are classified at once (`crate::simd`); near the
/// end of `hay` it reads the last sixteen bytes and shifts, or (when `hay`
/// is shorter than that) a padded copy.
#[inline(always)]
pub(crate) fn run_end_bits(hay: &[u8], base: usize) -> u32 {
    if let Some(block) = hay.get(base..).and_then(<[u8]>::first_chunk::<16>) {
        return run_ends(block);
    }
    let len = hay.len();
    if base >= len {
        return 0;
    }
    if let Some(block) = hay
        .get(len.wrapping_sub(16)..)
        .and_then(<[u8]>::first_chunk::<16>)
    {
        return run_ends(block) >> (base + 16 - len);
    }
    let mut padded = [b' '; 16];
    let tail = hay.get(base..).unwrap_or(&[]);
    if let Some(dst) = padded.get_mut(..tail.len()) {
        dst.copy_from_slice(tail);
    }
    run_ends(&padded)
}

#[inline]
pub(crate) fn ends_run(b: u8) -> bool {
    (b == b'"') | (b == b'\\') | (b < 0x20)
}

/// JSON's four whitespace bytes.
#[inline]
pub(crate) fn is_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t')
}

/// The index of the first byte at or after `pos` that is not whitespace
/// (`bytes.len()` if none).
#[inline]
pub(crate) fn skip_whitespace(bytes: &[u8], mut pos: usize) -> usize {
    while bytes.get(pos).is_some_and(|&b| is_whitespace(b)) {
        pos += 1;
    }
    pos
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
    /// Unicode Standard, and the character is put together from them. In
    /// Japanese text cut into 16-byte pieces nearly every piece starts by
    /// finishing a character: through the general validator and a copy it
    /// cost 124 instructions a piece.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_end_finds_first_special_in_every_lane() {
        for len in 0..40 {
            for at in 0..len {
                for special in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
                    let mut s = alloc::vec![b'a'; len];
                    // Non-ASCII and near-miss bytes must not match.
                    if at > 0 {
                        s[at - 1] = 0xe9;
                    }
                    if at + 1 < len {
                        s[at + 1] = b'"';
                    }
                    s[at] = special;
                    assert_eq!(string_run_end(&s), at, "len {len} at {at} byte {special}");
                }
            }
            let plain = alloc::vec![b' '; len];
            assert_eq!(string_run_end(&plain), len);
            let high = alloc::vec![0xffu8; len];
            assert_eq!(string_run_end(&high), len);
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
