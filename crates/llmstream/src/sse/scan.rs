//! The two byte-level primitives the decoder is built on: finding a line end
//! fast, and decoding UTF-8 the way the WHATWG decoder does.

use alloc::string::String;

use super::utf8::to_str;

fn is_line_end(byte: &u8) -> bool {
    *byte == b'\n' || *byte == b'\r'
}

/// How far a line is searched with SSE2 before AVX2 takes over (where the
/// CPU has it): past the lines of a provider stream, whose events are a
/// few hundred bytes (going wide sooner costs them the call and the wide
/// setup, for a line end a step or two away).
pub(crate) const LONG_LINE: usize = 512;

/// The index of the first CR or LF in `haystack`.
///
/// Classifies sixteen bytes at a time into one bit a byte
/// ([`super::simd::line_ends64`]), four blocks a step, so a long line costs
/// a few instructions per 64 bytes and the index comes from the mask
/// itself: the block that holds the line end is not scanned twice. A line
/// that runs on past [`LONG_LINE`] bytes (a base64 image) is searched on
/// with AVX2 where the CPU has it, 128 bytes a step.
#[inline]
pub(crate) fn find_line_end(haystack: &[u8]) -> Option<usize> {
    search(haystack, cfg!(target_arch = "x86_64"))
}

/// [`find_line_end`] past a line's first [`LONG_LINE`] bytes, with AVX2
/// if the CPU has it. Out of line, so that the search inlined where lines
/// are read stays the size of the SSE2 loop.
#[inline(never)]
fn long_line_end(haystack: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        use super::simd::wide;
        if haystack.len() >= 2 * wide::STEP {
            match wide::line_end_if_available(haystack) {
                Some(Ok(at)) => return Some(at),
                Some(Err(done)) => {
                    let rest = haystack.get(done..).unwrap_or_default();
                    return narrow_line_end(rest).map(|i| i + done);
                }
                None => {}
            }
        }
    }
    narrow_line_end(haystack)
}

/// [`find_line_end`] with SSE2 (or portable code) only: what the AVX2
/// search leaves, or all of a long line where there is no AVX2.
fn narrow_line_end(haystack: &[u8]) -> Option<usize> {
    search(haystack, false)
}

/// The SSE2 (or portable) loops of [`find_line_end`]; `go_wide`: on with
/// [`long_line_end`] once [`LONG_LINE`] bytes hold no line end.
#[inline(always)]
fn search(haystack: &[u8], go_wide: bool) -> Option<usize> {
    use super::simd::{line_ends, line_ends64};
    let mut quads = haystack.chunks_exact(64);
    let mut start = 0;
    for quad in &mut quads {
        let bits = quad.first_chunk::<64>().map_or(0, line_ends64);
        if bits != 0 {
            return Some(start + bits.trailing_zeros() as usize);
        }
        start += 64;
        if go_wide && start == LONG_LINE {
            let rest = haystack.get(LONG_LINE..).unwrap_or_default();
            return long_line_end(rest).map(|i| i + LONG_LINE);
        }
    }
    let rest = quads.remainder();
    let mut blocks = rest.chunks_exact(16);
    for block in &mut blocks {
        let bits = block.first_chunk::<16>().map_or(0, line_ends);
        if bits != 0 {
            return Some(start + bits.trailing_zeros() as usize);
        }
        start += 16;
    }
    blocks
        .remainder()
        .iter()
        .position(is_line_end)
        .map(|i| start + i)
}

/// Appends `bytes` to `dst` decoded as UTF-8, each maximal invalid
/// subsequence replaced by one U+FFFD: the WHATWG "UTF-8 decode" (the same
/// replacement as `String::from_utf8_lossy`).
///
/// Decoding a line on its own gives the same text as decoding the whole
/// stream: CR, LF and `:` are ASCII, and an ASCII byte always ends an
/// invalid sequence, so no sequence spans a line end or the field colon.
pub(crate) fn push_lossy(dst: &mut String, bytes: &[u8]) {
    match to_str(bytes) {
        Some(text) => dst.push_str(text),
        None => {
            for chunk in bytes.utf8_chunks() {
                dst.push_str(chunk.valid());
                if !chunk.invalid().is_empty() {
                    dst.push(char::REPLACEMENT_CHARACTER);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    #[test]
    fn find_line_end_finds_the_first_cr_or_lf_at_every_position() {
        for len in 0..100 {
            for at in 0..len {
                for end in [b'\n', b'\r'] {
                    let mut hay: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
                    hay[at] = end;
                    if at + 1 < len {
                        hay[len - 1] = b'\n';
                    }
                    assert_eq!(find_line_end(&hay), Some(at), "len {len} at {at}");
                }
            }
            let hay: Vec<u8> = (0..len).map(|_| 0xFF).collect();
            assert_eq!(find_line_end(&hay), None);
        }
    }

    /// Lines long enough for the AVX2 search (where the CPU has it): the
    /// first CR or LF at every position of every lane of its steps, with
    /// line ends after it, and none.
    #[test]
    fn find_line_end_finds_the_first_line_end_of_a_long_line() {
        crate::simd::each_width(long_lines_here);
    }

    fn long_lines_here() {
        for len in [64, 319, 767, 768, 769, 800, 895, 1460] {
            let clean: Vec<u8> = (0..len).map(|i| [b'a', 0x8a, 0x8d, 0x0b][i % 4]).collect();
            assert_eq!(find_line_end(&clean), None, "len {len}");
            for at in 0..len {
                for end in [b'\n', b'\r'] {
                    let mut hay = clean.clone();
                    hay[at] = end;
                    for later in [at + 1, at + 31, at + 129] {
                        if let Some(b) = hay.get_mut(later) {
                            *b = b'\n';
                        }
                    }
                    assert_eq!(find_line_end(&hay), Some(at), "len {len} at {at}");
                }
            }
        }
    }

    #[test]
    fn push_lossy_matches_from_utf8_lossy() {
        let cases: [&[u8]; 6] = [
            b"plain",
            b"\xF0\x9F\x98\x80 ok",
            b"a\xFFb",
            b"\xE2\x82",
            b"\xF0\x9F\x98",
            b"\xED\xA0\x80 surrogate",
        ];
        for bytes in cases {
            let mut out = String::new();
            push_lossy(&mut out, bytes);
            assert_eq!(out, String::from_utf8_lossy(bytes));
        }
    }
}
