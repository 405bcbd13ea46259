//! Sixteen bytes classified at once: the string loop's one SIMD step, and
//! the SSE decoder's search for a line end.
//!
//! A JSON string body is scanned for the bytes that end a plain run (`"`,
//! `\`, control characters) sixteen at a time. Written portably, the
//! compiler did vectorize the three compares, but then stored the result
//! and reloaded it as two 64-bit halves, and every step after that
//! (counting trailing zeros, clearing the bits behind an escape) worked on
//! a 128-bit value in two registers. SSE2 (part of every x86-64 CPU) gives
//! the result as one bit a byte in one register instead. BENCHMARKS.md has
//! the counts before and after. Other targets use the portable version.

/// One bit a byte: bit `k` is set when `block[k]` ends a plain string run
/// (`"`, `\`, or a control character below 0x20).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
#[allow(unsafe_code, unused_unsafe)]
pub(crate) fn run_ends(block: &[u8; 16]) -> u32 {
    use core::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    // The intrinsics below are safe to call on compilers from Rust 1.87
    // on (SSE2 is enabled for every x86-64 target); older ones, down to
    // the crate's MSRV, need the block for them too (hence the `allow`).
    // SAFETY: SSE2 is part of the x86-64 baseline, so every instruction
    // used here exists on any CPU this code runs on. `_mm_loadu_si128`
    // reads 16 bytes from `block`'s address with no alignment needed, and
    // `block` is exactly 16 bytes long. The tests below compare the result
    // with `portable` on every byte value in every lane.
    unsafe {
        let bytes = _mm_loadu_si128(block.as_ptr().cast());
        let quote = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(b'\\' as i8));
        // Unsigned `byte <= 0x1f` is `min(byte, 0x1f) == byte`.
        let control = _mm_cmpeq_epi8(_mm_min_epu8(bytes, _mm_set1_epi8(0x1f)), bytes);
        let ends = _mm_or_si128(_mm_or_si128(quote, backslash), control);
        // Sixteen sign bits: the result fits in the low 16 bits.
        _mm_movemask_epi8(ends) as u32
    }
}

/// [`run_ends`] where SSE2 is not there to use.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(crate) fn run_ends(block: &[u8; 16]) -> u32 {
    portable(block)
}

/// [`run_ends`] in portable code, one byte at a time (the compiler
/// vectorizes the compares).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline]
fn portable(block: &[u8; 16]) -> u32 {
    lane_bits(block, crate::json::scan::ends_run)
}

/// One bit a byte of `block`, set where `test` holds: the portable form of
/// every classifier here.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
fn lane_bits(block: &[u8; 16], test: impl Fn(u8) -> bool) -> u32 {
    let mut bits = 0u32;
    for (k, &b) in block.iter().enumerate() {
        bits |= u32::from(test(b)) << k;
    }
    bits
}

/// The lanes of `block` that hold a CR or an LF, as SSE2 compare masks.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
#[allow(unsafe_code, unused_unsafe)]
fn line_end_lanes(block: &[u8; 16]) -> core::arch::x86_64::__m128i {
    use core::arch::x86_64::{_mm_cmpeq_epi8, _mm_loadu_si128, _mm_or_si128, _mm_set1_epi8};
    // SAFETY: as in `run_ends`: SSE2 is part of the x86-64 baseline, and
    // the unaligned load reads exactly the 16 bytes of `block`. The tests
    // below compare `line_ends` and `line_ends64` with `portable_line_ends`
    // on every byte value in every lane.
    unsafe {
        let bytes = _mm_loadu_si128(block.as_ptr().cast());
        _mm_or_si128(
            _mm_cmpeq_epi8(bytes, _mm_set1_epi8(b'\n' as i8)),
            _mm_cmpeq_epi8(bytes, _mm_set1_epi8(b'\r' as i8)),
        )
    }
}

/// One bit a byte: bit `k` is set when `block[k]` is a CR or an LF (the
/// SSE decoder's line ends). The compiler vectorized the portable test
/// too, but reduced it to one "somewhere in the block" flag, so a block
/// that held a line end was scanned a second time for its index.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
#[allow(unsafe_code, unused_unsafe)]
pub(crate) fn line_ends(block: &[u8; 16]) -> u32 {
    // SAFETY: a plain SSE2 instruction (see `line_end_lanes`).
    unsafe { core::arch::x86_64::_mm_movemask_epi8(line_end_lanes(block)) as u32 }
}

/// [`line_ends`] of 64 bytes at once: the four blocks' compares are
/// combined first and tested with one mask, and only a quad that holds a
/// line end pays for the four masks that place it. On a long data line
/// (a base64 image) nearly every quad holds none.
#[inline(always)]
#[allow(unsafe_code, unused_unsafe)]
pub(crate) fn line_ends64(quad: &[u8; 64]) -> u64 {
    let (a, rest) = quad.split_first_chunk::<16>().unwrap_or((&[0; 16], &[]));
    let (b, rest) = rest.split_first_chunk::<16>().unwrap_or((&[0; 16], &[]));
    let (c, d) = rest.split_first_chunk::<16>().unwrap_or((&[0; 16], &[]));
    let d = d.first_chunk::<16>().unwrap_or(&[0; 16]);
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_movemask_epi8, _mm_or_si128};
        let (la, lb, lc, ld) = (
            line_end_lanes(a),
            line_end_lanes(b),
            line_end_lanes(c),
            line_end_lanes(d),
        );
        // SAFETY: plain SSE2 instructions (see `line_end_lanes`).
        unsafe {
            if _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(la, lb), _mm_or_si128(lc, ld))) == 0 {
                return 0;
            }
            let mask = |lanes| u64::from(_mm_movemask_epi8(lanes) as u32);
            mask(la) | mask(lb) << 16 | mask(lc) << 32 | mask(ld) << 48
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    [a, b, c, d].iter().enumerate().fold(0, |bits, (k, block)| {
        bits | u64::from(line_ends(block)) << (16 * k)
    })
}

/// [`line_ends`] where SSE2 is not there to use.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(crate) fn line_ends(block: &[u8; 16]) -> u32 {
    portable_line_ends(block)
}

/// [`line_ends`] in portable code.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline]
fn portable_line_ends(block: &[u8; 16]) -> u32 {
    lane_bits(block, |b| b == b'\n' || b == b'\r')
}

/// How many bytes at the start of `bytes` are known to be ASCII: whole
/// blocks of sixteen, 64 bytes a step where it can (the sign bits of four
/// blocks in one mask), stopping at the first block with a byte of 0x80 or
/// more. The SSE decoder checks a long data line with this before `core`
/// validates what is left.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code, unused_unsafe)]
pub(crate) fn ascii_prefix(bytes: &[u8]) -> usize {
    use core::arch::x86_64::{_mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128};
    let sign_bits = |block: &[u8; 16]| {
        // SAFETY: as in `run_ends`: SSE2 is part of the x86-64 baseline,
        // and the unaligned load reads exactly the 16 bytes of `block`.
        // `ascii_prefix_matches_is_ascii` checks the result.
        unsafe { _mm_loadu_si128(block.as_ptr().cast()) }
    };
    let mut done = 0;
    for quad in bytes.chunks_exact(64) {
        let mut blocks = quad
            .chunks_exact(16)
            .filter_map(|b| <&[u8; 16]>::try_from(b).ok());
        let (Some(a), Some(b), Some(c), Some(d)) =
            (blocks.next(), blocks.next(), blocks.next(), blocks.next())
        else {
            break;
        };
        // SAFETY: as above; OR and the sign-bit mask are plain SSE2.
        let any_high = unsafe {
            _mm_movemask_epi8(_mm_or_si128(
                _mm_or_si128(sign_bits(a), sign_bits(b)),
                _mm_or_si128(sign_bits(c), sign_bits(d)),
            ))
        };
        if any_high != 0 {
            break;
        }
        done += 64;
    }
    for block in bytes.get(done..).unwrap_or(&[]).chunks_exact(16) {
        let Ok(block) = <&[u8; 16]>::try_from(block) else {
            break;
        };
        // SAFETY: as above.
        if unsafe { _mm_movemask_epi8(sign_bits(block)) } != 0 {
            break;
        }
        done += 16;
    }
    done
}

/// [`ascii_prefix`] where SSE2 is not there to use.
#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn ascii_prefix(bytes: &[u8]) -> usize {
    portable_ascii_prefix(bytes)
}

/// [`ascii_prefix`] in portable code.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn portable_ascii_prefix(bytes: &[u8]) -> usize {
    bytes
        .chunks_exact(16)
        .take_while(|block| block.is_ascii())
        .count()
        * 16
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    /// `simd` and `portable` agree on every byte value in every lane, the
    /// other lanes holding each of `others` in turn.
    fn every_byte_in_every_lane(
        others: &[u8],
        simd: fn(&[u8; 16]) -> u32,
        portable: fn(&[u8; 16]) -> u32,
    ) {
        for lane in 0..16 {
            for byte in 0..=255u8 {
                for &other in others {
                    let mut block = [other; 16];
                    block[lane] = byte;
                    assert_eq!(simd(&block), portable(&block), "{byte:#x} in lane {lane}");
                }
            }
        }
    }

    #[test]
    fn every_byte_in_every_lane_matches_the_portable_version() {
        // The other lanes hold a byte that never ends a run, and one that
        // always does, in turn.
        every_byte_in_every_lane(b"a\"", run_ends, portable);
        assert_eq!(portable(&[b'"'; 16]), 0xffff);
        assert_eq!(portable(&[0x7f; 16]), 0);
        assert_eq!(portable(&[0x80; 16]), 0);
    }

    #[test]
    fn line_ends_match_the_portable_version_in_every_lane() {
        every_byte_in_every_lane(b"a\n\r", line_ends, portable_line_ends);
        assert_eq!(portable_line_ends(&[b'\r'; 16]), 0xffff);
        assert_eq!(portable_line_ends(&[0x8a; 16]), 0);
    }

    #[test]
    fn ascii_prefix_matches_is_ascii() {
        for len in 0..200 {
            let clean = vec![b'a'; len];
            assert_eq!(ascii_prefix(&clean), len / 16 * 16);
            assert_eq!(ascii_prefix(&clean), portable_ascii_prefix(&clean));
            for at in 0..len {
                for high in [0x80, 0xc3, 0xff] {
                    let mut bytes = clean.clone();
                    bytes[at] = high;
                    let expected = (at / 16 * 16).min(len / 16 * 16);
                    assert_eq!(
                        ascii_prefix(&bytes),
                        expected,
                        "len {len}, {high:#x} at {at}"
                    );
                    assert_eq!(portable_ascii_prefix(&bytes), expected);
                }
            }
        }
    }

    #[test]
    fn line_ends64_matches_line_ends() {
        for at in 0..64 {
            for byte in [b'\n', b'\r', b'a', 0x8a, 0x8d, 0x0b] {
                for other in [b'x', b'\n'] {
                    let mut quad = [b'x'; 64];
                    quad[(at + 17) % 64] = other;
                    quad[at] = byte;
                    let mut expected = 0u64;
                    for (k, block) in quad.chunks_exact(16).enumerate() {
                        let block: &[u8; 16] = block.try_into().expect("16 bytes");
                        expected |= u64::from(line_ends(block)) << (16 * k);
                    }
                    assert_eq!(line_ends64(&quad), expected, "{byte:#x} at {at}");
                }
            }
        }
    }
}
