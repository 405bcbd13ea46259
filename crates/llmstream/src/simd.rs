//! Sixteen bytes classified at once: the string loop's one SIMD step, and
//! the SSE decoder's search for a line end.
//!
//! A JSON string body is scanned for the bytes that end a plain run (`"`,
//! `\`, control characters) sixteen at a time. Written portably, the
//! compiler did vectorize the three compares, but then stored the result
//! and reloaded it as two 64-bit halves, and every step after that
//! (counting trailing zeros, clearing the bits behind an escape) worked on
//! a 128-bit value in two registers. SSE2 (part of every x86-64 CPU) gives
//! the result as one bit a byte in one register instead.
//! docs/benchmarks-history.md has the counts before and after. Other
//! targets use the portable version.
//!
//! A long SSE line (a base64 image in one `data` field) is searched,
//! copied and checked for ASCII 32 bytes at a time with AVX2 ([`wide`]),
//! where CPUID says the CPU has it: one pass over the line where three
//! had read it, which took a 4 MiB line from behind sse-stream (memchr
//! and simdutf8, with AVX2) to ahead of it. And a long slice is checked
//! for UTF-8 there too (`wide::utf8_valid`), 32 bytes a step whatever
//! the script, where the byte-at-a-time automaton of `utf8` took a fifth
//! of a whole parse of text-heavy JSON.

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

/// AVX2 (32 bytes a compare), for long runs of bytes: the SSE decoder's
/// search for the end of a long line, its one-pass copy of one, and the
/// UTF-8 check of long slices. Not part of the x86-64 baseline, so it is
/// found at run time, once, with CPUID (`core` has no `is_x86_feature_detected!`: that is `std`'s),
/// unless the build already enables it. Only a line past 512 bytes, or a
/// slice of 256 bytes or more, asks: the short inputs of a stream pay
/// nothing for the choice.
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
    #[allow(unsafe_code, unused_unsafe)]
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
    #[allow(unsafe_code, unused_unsafe)]
    unsafe fn xcr0() -> u64 {
        // SAFETY: the caller checked OSXSAVE.
        unsafe { core::arch::x86_64::_xgetbv(0) }
    }

    /// [`line_end`] where AVX2 is [`available`]; `None` where it is not.
    #[inline]
    #[allow(unsafe_code)]
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
    #[allow(unsafe_code, unused_unsafe)]
    pub(crate) unsafe fn line_end(haystack: &[u8]) -> Result<usize, usize> {
        use core::arch::x86_64::{
            _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256,
            _mm256_set1_epi8,
        };
        // SAFETY (every block below): AVX2 is available (the caller's
        // promise), and each load reads 32 bytes at an offset of 0, 32, 64
        // or 96 into `quad`, which is exactly 128 bytes long. The tests
        // compare the result with the SSE2 search at every position.
        let (lf, cr) = unsafe { (_mm256_set1_epi8(b'\n' as i8), _mm256_set1_epi8(b'\r' as i8)) };
        macro_rules! lanes {
            ($quad:expr, $at:expr) => {
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
            let any = unsafe {
                _mm256_movemask_epi8(_mm256_or_si256(
                    _mm256_or_si256(a, b),
                    _mm256_or_si256(c, d),
                ))
            };
            if any != 0 {
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
    #[allow(unsafe_code, unused_unsafe)]
    pub(crate) unsafe fn extend_clean(buf: &mut alloc::vec::Vec<u8>, src: &[u8]) -> (usize, bool) {
        use core::arch::x86_64::{
            _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256,
            _mm256_set1_epi8, _mm256_setzero_si256, _mm256_storeu_si256,
        };
        let room = src.len() / 32 * 32;
        buf.reserve(room);
        let dst = buf.spare_capacity_mut();
        let mut done = 0;
        // SAFETY (every block below): AVX2 is available (the caller's
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
        let mut high = unsafe { _mm256_setzero_si256() };
        for quad in src.chunks_exact(STEP) {
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
        (done, unsafe { _mm256_movemask_epi8(high) } == 0)
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

    /// Whether all of `bytes` is well-formed UTF-8 (the Unicode Standard's
    /// table 3-7), ending between characters. 32 bytes a step; a block of
    /// ASCII costs a load, a mask and a test.
    ///
    /// # Safety
    /// AVX2 must be [`available`].
    #[target_feature(enable = "avx2")]
    #[allow(unsafe_code, unused_unsafe, unused_assignments)]
    pub(crate) unsafe fn utf8_valid(bytes: &[u8]) -> bool {
        use core::arch::x86_64::{
            __m256i, _mm256_alignr_epi8, _mm256_and_si256, _mm256_loadu_si256,
            _mm256_movemask_epi8, _mm256_or_si256, _mm256_permute2x128_si256, _mm256_set1_epi8,
            _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_srli_epi16, _mm256_subs_epu8,
            _mm256_testz_si256, _mm256_xor_si256,
        };
        // SAFETY (every block below): AVX2 is available (the caller's
        // promise); every load reads 32 bytes from a 32-byte array or from
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
        let (low_nibble, high_bit) = unsafe { (_mm256_set1_epi8(0x0F), _mm256_set1_epi8(-128)) };
        let mut error = unsafe { _mm256_setzero_si256() };
        let mut prev_input = error;
        let mut prev_incomplete = error;
        // One 32-byte block: its errors, given the block before it.
        macro_rules! block {
            ($input:expr) => {
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
