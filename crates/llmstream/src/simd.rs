//! SIMD classifiers, each beside its portable twin: the string loop's
//! sixteen-byte step, and the AVX2 kernels for long slices.
//!
//! A JSON string body is scanned for the bytes that end a plain run (`"`,
//! `\`, control characters) sixteen at a time ([`run_ends`]). With SSE2
//! (part of every x86-64 CPU) the result is one bit a byte in one
//! register; written portably, the compiler vectorizes the compares but
//! then works on a 128-bit value in two registers. Other targets use the
//! portable version ([`ends_run`] a byte), which the tests compare with
//! the SIMD one on every byte value in every lane.
//!
//! A long slice is checked for UTF-8 32 bytes a step with AVX2
//! (`wide::utf8_valid`), whatever the script, where the CPU has it. The
//! SSE decoder's kernels live in `sse::simd`, on the same run-time
//! detection ([`wide::available`]).

/// One bit a byte: bit `k` is set when `block[k]` ends a plain string run
/// (`"`, `\`, or a control character below 0x20).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
#[allow(unused_unsafe)]
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
    lane_bits(block, ends_run)
}

/// Whether `b` ends a plain string run: the one-byte form of [`run_ends`].
#[inline]
pub(crate) fn ends_run(b: u8) -> bool {
    (b == b'"') | (b == b'\\') | (b < 0x20)
}

/// One bit a byte of `block`, set where `test` holds: the portable form of
/// every classifier here.
#[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
#[inline(always)]
pub(crate) fn lane_bits(block: &[u8; 16], test: impl Fn(u8) -> bool) -> u32 {
    let mut bits = 0u32;
    for (k, &b) in block.iter().enumerate() {
        bits |= u32::from(test(b)) << k;
    }
    bits
}

/// AVX2 (32 bytes a compare), for long slices: the UTF-8 check here and
/// the SSE decoder's line kernels (`sse::simd::wide`). Not part of the
/// x86-64 baseline, so it is found at run time, once, with CPUID (`core`
/// has no `is_x86_feature_detected!`: that is `std`'s), unless the build
/// already enables it. Only long inputs ask: the short inputs of a stream
/// pay nothing for the choice.
#[cfg(target_arch = "x86_64")]
pub(crate) mod wide {
    use core::sync::atomic::{AtomicU8, Ordering};

    /// Bytes a step of the AVX2 loops: four 32-byte blocks, whose
    /// results are combined before one test.
    pub(crate) const STEP: usize = 128;

    #[cfg(test)]
    extern crate std;

    #[cfg(test)]
    std::thread_local! {
        /// Set by [`without`]: this thread's callers see no AVX2.
        static NARROW_ONLY: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
    }

    /// Runs `f` on this thread as if the CPU had no AVX2, so that the
    /// tests hold the SSE2 paths too on a machine that has it.
    #[cfg(test)]
    pub(crate) fn without<T>(f: impl FnOnce() -> T) -> T {
        NARROW_ONLY.with(|n| n.set(true));
        let out = f();
        NARROW_ONLY.with(|n| n.set(false));
        out
    }

    /// Whether the AVX2 loops can run here.
    #[inline]
    pub(crate) fn available() -> bool {
        #[cfg(test)]
        if NARROW_ONLY.with(core::cell::Cell::get) {
            return false;
        }
        if cfg!(target_feature = "avx2") {
            return true;
        }
        // 0: not yet known, 1: no, 2: yes. Relaxed: every thread that
        // looks computes the same answer.
        static KNOWN: AtomicU8 = AtomicU8::new(0);
        match KNOWN.load(Ordering::Relaxed) {
            2 => true,
            1 => false,
            _ => {
                let yes = detect();
                KNOWN.store(if yes { 2 } else { 1 }, Ordering::Relaxed);
                yes
            }
        }
    }

    /// CPUID says AVX2, and the OS saves the 256-bit registers (XCR0's
    /// SSE and AVX state bits), as Intel's manual (14.3) and `std`'s
    /// detection require.
    #[cold]
    #[allow(unused_unsafe)]
    fn detect() -> bool {
        use core::arch::x86_64::{__cpuid, __cpuid_count};
        // SAFETY: CPUID exists on every x86-64 CPU; leaf 0 gives the
        // highest leaf, and leaves 1 and 7 are read only when it is there.
        let max_leaf = unsafe { __cpuid(0) }.eax;
        if max_leaf < 7 {
            return false;
        }
        // SAFETY: as above.
        let leaf1 = unsafe { __cpuid(1) };
        let osxsave = leaf1.ecx & (1 << 27) != 0;
        let avx = leaf1.ecx & (1 << 28) != 0;
        if !(osxsave && avx) {
            return false;
        }
        // SAFETY: XGETBV is there when CPUID reports OSXSAVE (checked
        // just above).
        let xcr0 = unsafe { xcr0() };
        if xcr0 & 0b110 != 0b110 {
            return false;
        }
        // SAFETY: leaf 7 is at most the highest leaf (checked above).
        let leaf7 = unsafe { __cpuid_count(7, 0) };
        leaf7.ebx & (1 << 5) != 0
    }

    /// XCR0: which register states the OS saves.
    ///
    /// # Safety
    /// The CPU must have XGETBV (CPUID.1:ECX.OSXSAVE).
    #[target_feature(enable = "xsave")]
    #[allow(unused_unsafe)]
    unsafe fn xcr0() -> u64 {
        // SAFETY: the caller checked OSXSAVE.
        unsafe { core::arch::x86_64::_xgetbv(0) }
    }

    // The UTF-8 check below is the "lookup" algorithm of Keiser and
    // Lemire ("Validating UTF-8 in less than one instruction per byte",
    // 2021; simdjson's and simdutf8's): each byte is classified by three
    // 16-entry tables, indexed by the high and low nibbles of the byte
    // before it and the high nibble of the byte itself, whose entries are
    // sets of the errors the pair could be part of; the AND of the three is
    // the errors the pair is. Three- and four-byte characters add a check
    // that exactly the bytes two and three after their lead are
    // continuations. The error bits:
    const TOO_SHORT: u8 = 1 << 0; // a lead not followed by a continuation
    const TOO_LONG: u8 = 1 << 1; // ASCII followed by a continuation
    const OVERLONG_3: u8 = 1 << 2; // E0 80..9F
    const TOO_LARGE: u8 = 1 << 3; // F4 90..BF, F5..FF 80..BF
    const SURROGATE: u8 = 1 << 4; // ED A0..BF
    const OVERLONG_2: u8 = 1 << 5; // C0, C1 80..BF
    const TOO_LARGE_1000: u8 = 1 << 6; // F5..FF 80..8F
    const OVERLONG_4: u8 = 1 << 6; // F0 80..8F (the same bit: both 1000____)
    const TWO_CONTS: u8 = 1 << 7; // a continuation followed by one
    const CARRY: u8 = TOO_SHORT | TOO_LONG | TWO_CONTS;

    /// A 16-entry table twice, for a 32-byte shuffle (one per 128-bit lane).
    // Evaluated at compile time (only statics call it): an index out of
    // bounds would be a build error, never a panic.
    #[allow(clippy::indexing_slicing)]
    const fn twice(t: [u8; 16]) -> [u8; 32] {
        let mut out = [0u8; 32];
        let mut i = 0;
        while i < 16 {
            out[i] = t[i];
            out[i + 16] = t[i];
            i += 1;
        }
        out
    }

    /// By the high nibble of the byte before.
    static BYTE_1_HIGH: [u8; 32] = twice([
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TWO_CONTS,
        TWO_CONTS,
        TWO_CONTS,
        TWO_CONTS,
        TOO_SHORT | OVERLONG_2,
        TOO_SHORT,
        TOO_SHORT | OVERLONG_3 | SURROGATE,
        TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
    ]);

    /// By the low nibble of the byte before.
    static BYTE_1_LOW: [u8; 32] = twice([
        CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4,
        CARRY | OVERLONG_2,
        CARRY,
        CARRY,
        CARRY | TOO_LARGE,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
    ]);

    /// By the high nibble of the byte itself.
    static BYTE_2_HIGH: [u8; 32] = twice([
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
    ]);

    /// Subtracted (saturating) from a block's last three bytes: non-zero
    /// where a character starts that the block does not finish.
    #[allow(clippy::indexing_slicing)] // evaluated at compile time
    static INCOMPLETE: [u8; 32] = {
        let mut t = [0xFF; 32];
        t[29] = 0xF0 - 1;
        t[30] = 0xE0 - 1;
        t[31] = 0xC0 - 1;
        t
    };

    /// [`utf8_valid`] where AVX2 is [`available`]; `None` where it is not.
    pub(crate) fn utf8_valid_if_available(bytes: &[u8]) -> Option<bool> {
        if !available() {
            return None;
        }
        // SAFETY: AVX2 is available (checked just above).
        Some(unsafe { utf8_valid(bytes) })
    }

    /// Whether all of `bytes` is well-formed UTF-8 (the Unicode Standard's
    /// table 3-7), ending between characters. 32 bytes a step; a block of
    /// ASCII costs a load, a mask and a test.
    ///
    /// # Safety
    /// AVX2 must be [`available`].
    #[target_feature(enable = "avx2")]
    #[allow(unused_unsafe, unused_assignments)]
    pub(crate) unsafe fn utf8_valid(bytes: &[u8]) -> bool {
        use core::arch::x86_64::{
            __m256i, _mm256_alignr_epi8, _mm256_and_si256, _mm256_loadu_si256,
            _mm256_movemask_epi8, _mm256_or_si256, _mm256_permute2x128_si256, _mm256_set1_epi8,
            _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_srli_epi16, _mm256_subs_epu8,
            _mm256_testz_si256, _mm256_xor_si256,
        };
        // SAFETY: here and in every block below, AVX2 is available (the
        // caller's promise); every load reads 32 bytes from a 32-byte array or from
        // a 32-byte chunk of `bytes`. The tests compare the result with
        // `core::str::from_utf8` on every sequence of up to three bytes at
        // every offset of a block, on every four-byte sequence's edges,
        // and on random text.
        let load = |p: *const u8| unsafe { _mm256_loadu_si256(p.cast::<__m256i>()) };
        let (b1h, b1l, b2h, incomplete) = (
            load(BYTE_1_HIGH.as_ptr()),
            load(BYTE_1_LOW.as_ptr()),
            load(BYTE_2_HIGH.as_ptr()),
            load(INCOMPLETE.as_ptr()),
        );
        // SAFETY: AVX2 is available (see above).
        let (low_nibble, high_bit) = unsafe { (_mm256_set1_epi8(0x0F), _mm256_set1_epi8(-128)) };
        // SAFETY: AVX2 is available (see above).
        let mut error = unsafe { _mm256_setzero_si256() };
        let mut prev_input = error;
        let mut prev_incomplete = error;
        // One 32-byte block: its errors, given the block before it.
        macro_rules! block {
            ($input:expr) => {
                // SAFETY: AVX2 is available (see above); no memory is
                // touched but `input`, already loaded.
                unsafe {
                    let input = $input;
                    if _mm256_movemask_epi8(input) == 0 {
                        // ASCII: fine unless the block before ended
                        // inside a character.
                        error = _mm256_or_si256(error, prev_incomplete);
                    } else {
                        // The block shifted right by one, two and three
                        // bytes, the last bytes of the block before
                        // coming in.
                        let carried = _mm256_permute2x128_si256::<0x21>(prev_input, input);
                        let prev1 = _mm256_alignr_epi8::<15>(input, carried);
                        let prev2 = _mm256_alignr_epi8::<14>(input, carried);
                        let prev3 = _mm256_alignr_epi8::<13>(input, carried);
                        let nibble = |v| _mm256_and_si256(v, low_nibble);
                        let high = |v| nibble(_mm256_srli_epi16::<4>(v));
                        let special = _mm256_and_si256(
                            _mm256_and_si256(
                                _mm256_shuffle_epi8(b1h, high(prev1)),
                                _mm256_shuffle_epi8(b1l, nibble(prev1)),
                            ),
                            _mm256_shuffle_epi8(b2h, high(input)),
                        );
                        // 0x80 where the byte must be the second or third
                        // continuation of a three- or four-byte character.
                        let must23 = _mm256_and_si256(
                            _mm256_or_si256(
                                _mm256_subs_epu8(
                                    prev2,
                                    _mm256_set1_epi8(0xE0u8.wrapping_sub(0x80) as i8),
                                ),
                                _mm256_subs_epu8(
                                    prev3,
                                    _mm256_set1_epi8(0xF0u8.wrapping_sub(0x80) as i8),
                                ),
                            ),
                            high_bit,
                        );
                        error = _mm256_or_si256(error, _mm256_xor_si256(must23, special));
                        prev_incomplete = _mm256_subs_epu8(input, incomplete);
                    }
                    prev_input = input;
                }
            };
        }
        let mut blocks = bytes.chunks_exact(32);
        for chunk in &mut blocks {
            block!(load(chunk.as_ptr()));
        }
        // The rest, padded with ASCII zeros: a character it cuts is then
        // too short, and one the last whole block cut, followed by ASCII.
        let rest = blocks.remainder();
        let mut last = [0u8; 32];
        if let Some(head) = last.get_mut(..rest.len()) {
            head.copy_from_slice(rest);
        }
        block!(load(last.as_ptr()));
        // SAFETY: AVX2 is available (see above).
        unsafe { _mm256_testz_si256(error, error) == 1 }
    }
}

/// Runs `f` as if the CPU had no AVX2 (on other targets, as it is).
#[cfg(test)]
pub(crate) fn narrow<T>(f: impl FnOnce() -> T) -> T {
    #[cfg(target_arch = "x86_64")]
    return wide::without(f);
    #[cfg(not(target_arch = "x86_64"))]
    f()
}

/// Runs `f` as the CPU runs it, then (on x86-64) as if it had no AVX2:
/// the tests hold both paths, whatever the machine they run on.
#[cfg(test)]
pub(crate) fn each_width(f: impl Fn()) {
    f();
    narrow(f);
}

/// `simd` and `portable` agree on every byte value in every lane, the
/// other lanes holding each of `others` in turn.
#[cfg(test)]
pub(crate) fn every_byte_in_every_lane(
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_in_every_lane_matches_the_portable_version() {
        // The other lanes hold a byte that never ends a run, and one that
        // always does, in turn.
        every_byte_in_every_lane(b"a\"", run_ends, portable);
        assert_eq!(portable(&[b'"'; 16]), 0xffff);
        assert_eq!(portable(&[0x7f; 16]), 0);
        assert_eq!(portable(&[0x80; 16]), 0);
    }

    /// The run-time detection agrees with `std`'s.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_is_detected_as_std_detects_it() {
        extern crate std;
        assert_eq!(wide::available(), std::is_x86_feature_detected!("avx2"));
        // The answer is kept: asked again, the same.
        assert_eq!(wide::available(), std::is_x86_feature_detected!("avx2"));
        assert!(!wide::without(wide::available));
        assert_eq!(wide::available(), std::is_x86_feature_detected!("avx2"));
    }
}
