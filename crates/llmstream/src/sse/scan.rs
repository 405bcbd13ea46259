//! The two byte-level primitives the decoder is built on: finding a line end
//! fast, and decoding UTF-8 the way the WHATWG decoder does.

use alloc::string::String;

/// Bytes examined per step of [`find_line_end`]. A fixed-size block lets the
/// compiler turn the test into a few SIMD compares without any `unsafe`.
const BLOCK: usize = 32;

fn is_line_end(byte: &u8) -> bool {
    *byte == b'\n' || *byte == b'\r'
}

/// The index of the first CR or LF in `haystack`.
///
/// Scans a block at a time and only looks for the exact index inside the
/// block that has one, so long lines cost a few instructions per 32 bytes.
pub(crate) fn find_line_end(haystack: &[u8]) -> Option<usize> {
    let mut blocks = haystack.chunks_exact(BLOCK);
    let mut start = 0;
    for block in &mut blocks {
        let hit = match <&[u8; BLOCK]>::try_from(block) {
            Ok(block) => {
                block.iter().fold(0u8, |acc, &b| {
                    acc | u8::from(b == b'\n') | u8::from(b == b'\r')
                }) != 0
            }
            Err(_) => true,
        };
        if hit {
            if let Some(i) = block.iter().position(is_line_end) {
                return Some(start + i);
            }
        }
        start += BLOCK;
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
    match core::str::from_utf8(bytes) {
        Ok(text) => dst.push_str(text),
        Err(_) => {
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
