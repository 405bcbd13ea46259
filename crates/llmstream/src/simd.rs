//! Sixteen bytes classified at once: the string loop's one SIMD step.
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
    let mut bits = 0u32;
    for (k, &b) in block.iter().enumerate() {
        bits |= u32::from(crate::json::scan::ends_run(b)) << k;
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_in_every_lane_matches_the_portable_version() {
        for lane in 0..16 {
            for byte in 0..=255u8 {
                // The other lanes hold a byte that never ends a run, and
                // one that always does, in turn.
                for other in [b'a', b'"'] {
                    let mut block = [other; 16];
                    block[lane] = byte;
                    assert_eq!(
                        run_ends(&block),
                        portable(&block),
                        "{byte:#x} in lane {lane}"
                    );
                }
            }
        }
        assert_eq!(portable(&[b'"'; 16]), 0xffff);
        assert_eq!(portable(&[0x7f; 16]), 0);
        assert_eq!(portable(&[0x80; 16]), 0);
    }
}
