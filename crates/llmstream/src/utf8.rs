//! UTF-8 validation for short pieces: the library's only `unsafe` code.
//!
//! A stream arrives as many small pieces (16 bytes is typical of a tool
//! call's argument deltas), and every piece must become `&str` before its
//! text can join a `String`. `core::str::from_utf8` has a fixed cost of
//! about 80 instructions on a 16-byte slice (its word-at-a-time loop only
//! starts at an aligned address), which was a sixth of the cost of parsing
//! a streamed text-heavy document. Most pieces are plain ASCII: checking
//! that takes a handful of instructions, and ASCII is valid UTF-8 by
//! definition. And the valid part of a slice that is not all valid is
//! taken without validating it twice. BENCHMARKS.md has the counts before
//! and after.

use core::str::Utf8Error;

/// Longest slice given the ASCII shortcut; longer ones go straight to
/// `core::str::from_utf8`, whose per-call cost no longer matters there and
/// whose own ASCII loop is as fast.
const SHORT: usize = 64;

/// `core::str::from_utf8`, with a shortcut for short ASCII slices.
#[inline]
pub(crate) fn from_utf8(bytes: &[u8]) -> Result<&str, Utf8Error> {
    if bytes.len() <= SHORT && bytes.is_ascii() {
        // SAFETY: every byte is below 0x80, and a sequence of such bytes is
        // valid UTF-8 (each is a one-byte character: RFC 3629 section 3).
        // The test `ascii_shortcut_agrees_with_core` checks every length up
        // to past `SHORT` with a non-ASCII byte at each position.
        #[allow(unsafe_code)]
        return Ok(unsafe { core::str::from_utf8_unchecked(bytes) });
    }
    core::str::from_utf8(bytes)
}

/// The longest valid UTF-8 prefix of `bytes` as text, and the error that
/// ended it if it is not all of `bytes`: one pass, where taking the prefix
/// from `Utf8Error::valid_up_to` safely would validate it a second time (a
/// piece that ends inside a character paid that: one in twelve when issue
/// 2's text-heavy document is cut into 16-byte pieces).
#[inline]
pub(crate) fn valid_prefix(bytes: &[u8]) -> (&str, Option<Utf8Error>) {
    match from_utf8(bytes) {
        Ok(text) => (text, None),
        Err(e) => {
            let valid = bytes.get(..e.valid_up_to()).unwrap_or(&[]);
            // SAFETY: `Utf8Error::valid_up_to` is documented as "the index
            // in the given string up to which valid UTF-8 was verified";
            // the slice ends there. `valid_prefix_is_from_utf8s_prefix`
            // checks it against a second validation.
            #[allow(unsafe_code)]
            let text = unsafe { core::str::from_utf8_unchecked(valid) };
            (text, Some(e))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_prefix_is_from_utf8s_prefix() {
        let text = "aé日😀".as_bytes();
        let mut cases: alloc::vec::Vec<alloc::vec::Vec<u8>> = alloc::vec::Vec::new();
        for len in 0..=text.len() {
            cases.push(text[..len].to_vec());
            for bad in [0x80, 0xff, 0xc0, 0xed] {
                let mut case = text[..len].to_vec();
                case.push(bad);
                case.extend_from_slice(b"z");
                cases.push(case);
            }
        }
        for case in cases {
            let (valid, error) = valid_prefix(&case);
            match core::str::from_utf8(&case) {
                Ok(text) => assert_eq!((valid, error), (text, None)),
                Err(e) => {
                    assert_eq!(error, Some(e), "{case:x?}");
                    let expected = core::str::from_utf8(&case[..e.valid_up_to()]);
                    assert_eq!(Ok(valid), expected, "{case:x?}");
                }
            }
        }
    }

    #[test]
    fn ascii_shortcut_agrees_with_core() {
        for len in 0..SHORT + 9 {
            let plain: alloc::vec::Vec<u8> = (0..len).map(|i| (i * 37 % 128) as u8).collect();
            assert_eq!(from_utf8(&plain), core::str::from_utf8(&plain), "len {len}");
            for at in 0..len {
                // A lone continuation byte, a valid two-byte character cut
                // short, and the first byte of a valid one.
                for (high, next) in [(0x80, b'a'), (0xc3, b'a'), (0xc3, 0xa9)] {
                    let mut bytes = plain.clone();
                    bytes[at] = high;
                    if at + 1 < len {
                        bytes[at + 1] = next;
                    }
                    assert_eq!(
                        from_utf8(&bytes),
                        core::str::from_utf8(&bytes),
                        "len {len}, {high:#x} at {at}"
                    );
                }
            }
        }
    }
}
