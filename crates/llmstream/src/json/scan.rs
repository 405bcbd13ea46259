//! Byte scanning for the hot loops: string runs, escapes and whitespace,
//! on the SIMD classifiers of `crate::simd`.

pub(crate) use crate::simd::ends_run;
use crate::simd::run_ends;

/// Index of the first byte in `s` that ends a plain string run: `"`, `\`,
/// or a control character (below 0x20); `s.len()` if none.
///
/// Sixteen bytes at a time ([`run_end_bits`], SSE2 on x86-64): the
/// strings of a document are read here whole (a `json::Tape`, the state
/// machine's runs), which is why it is SIMD rather than eight bytes a
/// word (SWAR).
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
}
