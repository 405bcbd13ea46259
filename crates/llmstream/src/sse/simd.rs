//! The SSE decoder's SIMD kernels: the search for a line end (CR or LF)
//! sixteen bytes at a time with SSE2, sixty-four at a time in
//! [`line_ends64`], and 128 at a time with AVX2 on a long line
//! ([`wide::line_end`]); the one-pass copy of a long line that checks it
//! for ASCII on the way ([`wide::extend_clean`]); and the ASCII prefix of
//! a data line ([`ascii_prefix`]). Each SIMD kernel has a portable twin
//! here, which other targets use and the tests compare it with. AVX2 is
//! found at run time by [`crate::simd::wide::available`].

/// The lanes of `block` that hold a CR or an LF, as SSE2 compare masks.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
#[allow(unused_unsafe)]
fn line_end_lanes(block: &[u8; 16]) -> core::arch::x86_64::__m128i {
    use core::arch::x86_64::{_mm_cmpeq_epi8, _mm_loadu_si128, _mm_or_si128, _mm_set1_epi8};
    // SAFETY: as in `crate::simd::run_ends`: SSE2 is part of the x86-64 baseline, and
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
#[allow(unused_unsafe)]
pub(crate) fn line_ends(block: &[u8; 16]) -> u32 {
    // SAFETY: a plain SSE2 instruction (see `line_end_lanes`).
    unsafe { core::arch::x86_64::_mm_movemask_epi8(line_end_lanes(block)) as u32 }
}

/// [`line_ends`] of 64 bytes at once: the four blocks' compares are
/// combined first and tested with one mask, and only a quad that holds a
/// line end pays for the four masks that place it. On a long data line
/// (a base64 image) nearly every quad holds none.
#[inline(always)]
#[allow(unused_unsafe)]
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
    crate::simd::lane_bits(block, |b| b == b'\n' || b == b'\r')
}

/// How many bytes at the start of `bytes` are known to be ASCII: whole
/// blocks of sixteen, 64 bytes a step where it can (the sign bits of four
/// blocks in one mask), stopping at the first block with a byte of 0x80 or
/// more. The SSE decoder checks a long data line with this before `core`
/// validates what is left.
#[cfg(target_arch = "x86_64")]
#[allow(unused_unsafe)]
pub(crate) fn ascii_prefix(bytes: &[u8]) -> usize {
    use core::arch::x86_64::{_mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128};
    let sign_bits = |block: &[u8; 16]| {
        // SAFETY: as in `crate::simd::run_ends`: SSE2 is part of the x86-64 baseline,
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

/// The AVX2 kernels of the SSE decoder (see [`crate::simd::wide`]).
#[cfg(target_arch = "x86_64")]
pub(crate) mod wide {
    pub(crate) use crate::simd::wide::{available, STEP};

    /// [`line_end`] where AVX2 is [`available`]; `None` where it is not.
    #[inline]
    pub(crate) fn line_end_if_available(haystack: &[u8]) -> Option<Result<usize, usize>> {
        if !available() {
            return None;
        }
        // SAFETY: AVX2 is available (checked just above).
        Some(unsafe { line_end(haystack) })
    }

    /// The index of the first CR or LF in `haystack`'s whole steps of
    /// [`STEP`] bytes: `Ok(index)`, or `Err(bytes)` searched without one
    /// (a multiple of [`STEP`]; the caller searches the rest).
    ///
    /// # Safety
    /// AVX2 must be [`available`].
    #[target_feature(enable = "avx2")]
    #[allow(unused_unsafe)]
    pub(crate) unsafe fn line_end(haystack: &[u8]) -> Result<usize, usize> {
        use core::arch::x86_64::{
            _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256,
            _mm256_set1_epi8,
        };
        // SAFETY: here and in every block below, AVX2 is available (the
        // caller's promise), and each load reads 32 bytes at an offset of
        // 0, 32, 64 or 96 into `quad`, which is exactly 128 bytes long. The tests
        // compare the result with the SSE2 search at every position.
        let (lf, cr) = unsafe { (_mm256_set1_epi8(b'\n' as i8), _mm256_set1_epi8(b'\r' as i8)) };
        macro_rules! lanes {
            ($quad:expr, $at:expr) => {
                // SAFETY: AVX2 is available, and `$quad` is a 128-byte
                // chunk, `$at` at most 96 (see above).
                unsafe {
                    let bytes = _mm256_loadu_si256($quad.as_ptr().add($at).cast());
                    _mm256_or_si256(_mm256_cmpeq_epi8(bytes, lf), _mm256_cmpeq_epi8(bytes, cr))
                }
            };
        }
        let mut done = 0;
        for quad in haystack.chunks_exact(STEP) {
            let (a, b, c, d) = (
                lanes!(quad, 0),
                lanes!(quad, 32),
                lanes!(quad, 64),
                lanes!(quad, 96),
            );
            // SAFETY: AVX2 is available (see above).
            let any = unsafe {
                _mm256_movemask_epi8(_mm256_or_si256(
                    _mm256_or_si256(a, b),
                    _mm256_or_si256(c, d),
                ))
            };
            if any != 0 {
                // SAFETY: AVX2 is available (see above).
                let mask = |lanes| unsafe { u64::from(_mm256_movemask_epi8(lanes) as u32) };
                let (low, high) = (mask(a) | mask(b) << 32, mask(c) | mask(d) << 32);
                let at = if low != 0 {
                    low.trailing_zeros() as usize
                } else {
                    64 + high.trailing_zeros() as usize
                };
                return Ok(done + at);
            }
            done += STEP;
        }
        Err(done)
    }

    /// Appends to `buf` the whole 32-byte blocks from the start of `src`
    /// that hold no CR or LF (four blocks a step while it can), checking
    /// as it goes whether they are ASCII: the bytes appended (a multiple
    /// of 32) and whether they all were. One pass, each byte loaded once,
    /// where a search, a copy and a validation would read a long line
    /// three times.
    ///
    /// # Safety
    /// AVX2 must be [`available`].
    #[target_feature(enable = "avx2")]
    #[allow(unused_unsafe)]
    pub(crate) unsafe fn extend_clean(buf: &mut alloc::vec::Vec<u8>, src: &[u8]) -> (usize, bool) {
        use core::arch::x86_64::{
            _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256,
            _mm256_set1_epi8, _mm256_setzero_si256, _mm256_storeu_si256,
        };
        let room = src.len() / 32 * 32;
        buf.reserve(room);
        let dst = buf.spare_capacity_mut();
        let mut done = 0;
        // SAFETY: here and in every block below, AVX2 is available (the caller's
        // promise). Each load reads 32 bytes at an offset of 0, 32, 64 or
        // 96 into `quad`, which is exactly 128 bytes long. Each store
        // writes 32 bytes at `done + 0..=96` into `dst`, the spare
        // capacity, which holds at least `room` bytes (reserved above),
        // and `done + STEP <= room` while `chunks_exact` yields (`done`
        // is a multiple of 32 and `room` the length of `src`'s whole
        // blocks). In the second loop the load reads the 32 bytes of
        // `block`, and the store writes 32 at `done`, `done + 32 <= room`
        // as `block` is a whole block of `src` at `done`.
        let (lf, cr) = unsafe { (_mm256_set1_epi8(b'\n' as i8), _mm256_set1_epi8(b'\r' as i8)) };
        // SAFETY: AVX2 is available (see above).
        let mut high = unsafe { _mm256_setzero_si256() };
        for quad in src.chunks_exact(STEP) {
            // SAFETY: AVX2 is available; the loads stay inside `quad` and
            // the stores inside the reserved spare capacity (see above).
            let clean = unsafe {
                let load = |at: usize| _mm256_loadu_si256(quad.as_ptr().add(at).cast());
                let (a, b, c, d) = (load(0), load(32), load(64), load(96));
                let ends = |v| _mm256_or_si256(_mm256_cmpeq_epi8(v, lf), _mm256_cmpeq_epi8(v, cr));
                let line = _mm256_or_si256(
                    _mm256_or_si256(ends(a), ends(b)),
                    _mm256_or_si256(ends(c), ends(d)),
                );
                let clean = _mm256_movemask_epi8(line) == 0;
                if clean {
                    let to = dst.as_mut_ptr().add(done).cast::<u8>();
                    _mm256_storeu_si256(to.cast(), a);
                    _mm256_storeu_si256(to.add(32).cast(), b);
                    _mm256_storeu_si256(to.add(64).cast(), c);
                    _mm256_storeu_si256(to.add(96).cast(), d);
                    let all = _mm256_or_si256(_mm256_or_si256(a, b), _mm256_or_si256(c, d));
                    high = _mm256_or_si256(high, all);
                }
                clean
            };
            if !clean {
                break;
            }
            done += STEP;
        }
        while let Some(block) = src.get(done..done + 32) {
            // SAFETY: AVX2 is available; the load reads `block`, the store
            // stays inside the reserved spare capacity (see above).
            let clean = unsafe {
                let v = _mm256_loadu_si256(block.as_ptr().cast());
                let line = _mm256_or_si256(_mm256_cmpeq_epi8(v, lf), _mm256_cmpeq_epi8(v, cr));
                let clean = _mm256_movemask_epi8(line) == 0;
                if clean {
                    _mm256_storeu_si256(dst.as_mut_ptr().add(done).cast(), v);
                    high = _mm256_or_si256(high, v);
                }
                clean
            };
            if !clean {
                break;
            }
            done += 32;
        }
        // SAFETY: the first `done` bytes of the spare capacity were
        // written above (`done <= room`, reserved).
        unsafe { buf.set_len(buf.len() + done) };
        // SAFETY: AVX2 is available (see above).
        (done, unsafe { _mm256_movemask_epi8(high) } == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simd::every_byte_in_every_lane;
    use alloc::vec;

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
