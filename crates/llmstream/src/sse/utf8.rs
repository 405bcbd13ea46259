//! Text of SSE lines: a line checked for UTF-8 with its ASCII start
//! skipped by SIMD, and the decoder's line buffer, which remembers the
//! stretch of itself it saw to be ASCII as it copied it in, so that stretch
//! is not read again when the line becomes text.

use alloc::vec::Vec;

use crate::utf8::{all_valid, WIDE};

/// `bytes` as text if all of it is valid UTF-8, for long mostly-ASCII
/// slices (an SSE data line): the ASCII blocks at the start are skipped
/// with SIMD ([`super::simd::ascii_prefix`]) and `core` validates the rest
/// (or, from 256 bytes, [`crate::utf8::valid_prefix`] and its AVX2
/// check): on long ASCII lines `core` is cheaper than the automaton.
#[inline]
pub(crate) fn to_str(bytes: &[u8]) -> Option<&str> {
    let ascii = super::simd::ascii_prefix(bytes);
    let rest = bytes.get(ascii..).unwrap_or(&[]);
    if rest.len() >= WIDE {
        // Text in another script (a JSON payload with CJK text, say).
        if !all_valid(rest) {
            return None;
        }
    } else if !(rest.len() < 16 && rest.is_ascii()) {
        core::str::from_utf8(rest).ok()?;
    }
    debug_assert!(core::str::from_utf8(bytes).is_ok());
    // SAFETY: `bytes[..ascii]` is ASCII (`ascii_prefix` is tested against
    // `is_ascii`) and `rest` was just validated. An ASCII byte is a whole
    // character and never a continuation byte, so text that is ASCII
    // followed by valid UTF-8 is valid UTF-8. `to_str_agrees_with_core`
    // checks it.
    Some(unsafe { core::str::from_utf8_unchecked(bytes) })
}

/// A byte buffer that remembers one stretch of itself known to be ASCII,
/// found as the bytes were copied in, so that its text is later validated
/// without reading that stretch again: the SSE decoder's line buffer,
/// where a 4 MiB data line arriving in 1,460-byte pieces was read three
/// times (searched for its end, copied, then validated when its event was
/// dispatched) and is now read once ([`LineBuf::extend_line`]). The bytes
/// change only through its methods, each of which keeps the stretch true.
#[derive(Debug, Clone, Default)]
pub(crate) struct LineBuf {
    bytes: Vec<u8>,
    /// `bytes[ascii.0..ascii.1]` is ASCII (empty when nothing is known).
    ascii: (usize, usize),
}

impl core::ops::Deref for LineBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}

impl LineBuf {
    pub(crate) fn clear(&mut self) {
        self.bytes.clear();
        self.ascii = (0, 0);
    }

    /// Drops the first `n` bytes.
    pub(crate) fn drain_front(&mut self, n: usize) {
        let n = n.min(self.bytes.len());
        self.bytes.drain(..n);
        self.ascii = (
            self.ascii.0.saturating_sub(n),
            self.ascii.1.saturating_sub(n),
        );
    }

    /// Appends `bytes` (the known stretch, before them, stays true).
    pub(crate) fn extend_from_slice(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
    }

    /// Appends `bytes`, checked for ASCII on the way in (they have just
    /// been searched, so they are in the cache): the end of a line whose
    /// start [`LineBuf::extend_line`] copied, or the start of a line a
    /// piece cut.
    pub(crate) fn extend_checked(&mut self, bytes: &[u8]) {
        let from = self.bytes.len();
        self.bytes.extend_from_slice(bytes);
        if bytes.is_ascii() {
            self.note_ascii(from, self.bytes.len());
        }
    }

    /// Appends the start of `src` that holds no CR or LF, in whole blocks
    /// of 32 bytes, checking on the way whether it is ASCII: the bytes
    /// appended (up to 31 short of the line end, or of the end of `src`;
    /// the caller appends the rest). Only with AVX2 (found at run
    /// time) and a `src` of two steps or more; otherwise appends nothing.
    pub(crate) fn extend_line(&mut self, src: &[u8]) -> usize {
        #[cfg(target_arch = "x86_64")]
        {
            use super::simd::wide;
            if src.len() >= 2 * wide::STEP && wide::available() {
                let from = self.bytes.len();
                // SAFETY: AVX2 is available (checked just above).
                let (copied, ascii) = unsafe { wide::extend_clean(&mut self.bytes, src) };
                if ascii {
                    // The kernel tested the sign bit of every byte it
                    // copied.
                    self.note_ascii(from, from + copied);
                }
                return copied;
            }
        }
        let _ = src;
        0
    }

    /// `bytes[from..to]` is ASCII: the known stretch grows if it ends at
    /// `from`, and is replaced otherwise.
    fn note_ascii(&mut self, from: usize, to: usize) {
        if from == to {
            return;
        }
        self.ascii = if self.ascii.1 == from && self.ascii.0 < from {
            (self.ascii.0, to)
        } else {
            (from, to)
        };
    }

    /// `self[start..end]` as text, if it is valid UTF-8 (and in bounds);
    /// the part of it known to be ASCII is not read again.
    #[inline]
    pub(crate) fn to_str(&self, start: usize, end: usize) -> Option<&str> {
        if self.ascii.1 <= start || self.ascii.0 >= end {
            // Nothing of it is known: the usual short line.
            return to_str(self.bytes.get(start..end)?);
        }
        self.to_str_past_ascii(start, end)
    }

    /// [`LineBuf::to_str`] of a line that overlaps the stretch known to be
    /// ASCII. Out of line: inlined where an event's data is read, it made
    /// reading a data line in place slower too.
    #[inline(never)]
    fn to_str_past_ascii(&self, start: usize, end: usize) -> Option<&str> {
        let bytes = self.bytes.get(start..end)?;
        let lo = self.ascii.0.clamp(start, end) - start;
        let hi = self.ascii.1.clamp(start, end) - start;
        let (lo, hi) = if lo < hi {
            (lo, hi)
        } else {
            (bytes.len(), bytes.len())
        };
        to_str(bytes.get(..lo)?)?;
        to_str(bytes.get(hi..)?)?;
        debug_assert!(core::str::from_utf8(bytes).is_ok());
        // SAFETY: `bytes[..lo]` and `bytes[hi..]` were just validated, and
        // `bytes[lo..hi]` lies inside the stretch `ascii`, which every
        // method that changes `self.bytes` keeps ASCII (`extend_line` sets
        // it only over bytes whose sign bits it tested; `drain_front`
        // moves it with the bytes; `clear` empties it; appending leaves
        // it). ASCII bytes are whole characters, so valid text, ASCII and
        // valid text joined are valid. `line_buf_agrees_with_core` checks
        // it on ASCII and non-ASCII lines cut every way.
        Some(unsafe { core::str::from_utf8_unchecked(bytes) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy;

    /// What a `LineBuf` may be asked to do.
    #[derive(Debug, Clone)]
    enum LineOp {
        Extend(Vec<u8>),
        ExtendLine(Vec<u8>),
        ExtendChecked(Vec<u8>),
        DrainFront(usize),
        Clear,
    }

    /// Long runs of one kind of byte (the AVX2 steps are 128 bytes), with
    /// the odd line end, character or stray byte in them.
    fn line_bytes() -> impl Strategy<Value = Vec<u8>> {
        let run = proptest::prop_oneof![
            (1usize..400).prop_map(|n| alloc::vec![b'A'; n]),
            (1usize..100).prop_map(|n| "é日😀".repeat(n).into_bytes()),
            proptest::sample::select(alloc::vec![
                b"\n".to_vec(),
                b"\r".to_vec(),
                b"\xff".to_vec(),
                b"\xe6\x97".to_vec(),
                b"\x97".to_vec(),
            ]),
        ];
        proptest::collection::vec(run, 0..6).prop_map(|runs| runs.concat())
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(500))]
        /// Whatever a `LineBuf` was made of, and however, its text between
        /// any two points is what `core` says it is: the ASCII stretch it
        /// remembers is always ASCII.
        #[test]
        fn line_buf_agrees_with_core(
            ops in proptest::collection::vec(
                proptest::prop_oneof![
                    line_bytes().prop_map(LineOp::Extend),
                    line_bytes().prop_map(LineOp::ExtendLine),
                    line_bytes().prop_map(LineOp::ExtendChecked),
                    (0usize..600).prop_map(LineOp::DrainFront),
                    proptest::strategy::Just(LineOp::Clear),
                ],
                1..12,
            ),
            points in proptest::collection::vec(0usize..3000, 6),
        ) {
            for narrow in [false, true] {
            let mut buf = LineBuf::default();
            let mut model: Vec<u8> = Vec::new();
            for op in ops.iter().cloned() {
                match op {
                    LineOp::Extend(bytes) => {
                        buf.extend_from_slice(&bytes);
                        model.extend_from_slice(&bytes);
                    }
                    LineOp::ExtendLine(bytes) => {
                        let n = if narrow {
                            crate::simd::narrow(|| buf.extend_line(&bytes))
                        } else {
                            buf.extend_line(&bytes)
                        };
                        proptest::prop_assert!(!narrow || n == 0);
                        proptest::prop_assert_eq!(n % 32, 0);
                        proptest::prop_assert!(!bytes[..n].iter().any(|b| matches!(b, b'\n' | b'\r')));
                        model.extend_from_slice(&bytes[..n]);
                    }
                    LineOp::ExtendChecked(bytes) => {
                        buf.extend_checked(&bytes);
                        model.extend_from_slice(&bytes);
                    }
                    LineOp::DrainFront(n) => {
                        buf.drain_front(n);
                        model.drain(..n.min(model.len()));
                    }
                    LineOp::Clear => {
                        buf.clear();
                        model.clear();
                    }
                }
                proptest::prop_assert_eq!(&*buf, &model[..]);
                for pair in points.chunks_exact(2) {
                    let (a, b) = (pair[0].min(pair[1]), pair[0].max(pair[1]));
                    let want = model.get(a..b).and_then(|s| core::str::from_utf8(s).ok());
                    proptest::prop_assert_eq!(buf.to_str(a, b), want);
                }
                let want = core::str::from_utf8(&model).ok();
                proptest::prop_assert_eq!(buf.to_str(0, model.len()), want);
            }
            }
        }
    }

    /// A long ASCII line copied in by `extend_line` is known ASCII where
    /// AVX2 is there: the stretch covers what was copied.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn extend_line_remembers_the_ascii_it_copied() {
        let mut buf = LineBuf::default();
        buf.extend_checked(b"data: ");
        let line = alloc::vec![b'Q'; 1460];
        let n = buf.extend_line(&line);
        if crate::simd::wide::available() {
            assert_eq!(n, 1440);
            assert_eq!(buf.ascii, (0, 6 + 1440));
            buf.extend_checked(&line[n..]);
            let more = buf.extend_line(&line);
            assert_eq!(buf.ascii, (0, 6 + 1460 + more));
            buf.drain_front(4);
            assert_eq!(buf.ascii, (0, 2 + 1460 + more));
            buf.extend_checked("é".as_bytes());
            assert_eq!(buf.ascii, (0, 2 + 1460 + more));
            buf.extend_line(&line);
            let len = buf.len();
            assert_eq!(buf.ascii, (len - 1440, len));
        } else {
            assert_eq!((n, buf.ascii), (0, (0, 6)));
        }
    }

    #[test]
    fn to_str_agrees_with_core() {
        let pieces: [&[u8]; 8] = [
            b"a",
            b"data: {\"x\":1}",
            "é".as_bytes(),
            "日本".as_bytes(),
            "🚀".as_bytes(),
            b"\xff",
            b"\xe6\x97",
            b"\xed\xa0\x80",
        ];
        let mut seed = 1u64;
        for _ in 0..3000 {
            let mut bytes = Vec::new();
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let ascii_run = (seed >> 40) as usize % 150;
            bytes.extend(core::iter::repeat_n(b'q', ascii_run));
            for k in 0..(seed >> 20) as usize % 4 {
                bytes.extend_from_slice(pieces[(seed as usize >> (8 * k)) % pieces.len()]);
                bytes.extend(core::iter::repeat_n(b'z', (seed >> (10 + k)) as usize % 40));
            }
            assert_eq!(
                to_str(&bytes),
                core::str::from_utf8(&bytes).ok(),
                "{bytes:?}"
            );
        }
    }

    proptest::proptest! {
        /// Random text of every script, cut anywhere: what `core` says,
        /// with AVX2 and without.
        #[test]
        fn random_text_agrees_with_core(
            parts in crate::utf8::text_parts(),
            cut in 0usize..2000,
        ) {
            let bytes: Vec<u8> = parts.concat();
            let bytes = &bytes[..cut.min(bytes.len())];
            proptest::prop_assert_eq!(to_str(bytes), core::str::from_utf8(bytes).ok());
            let narrow = crate::simd::narrow(|| to_str(bytes));
            proptest::prop_assert_eq!(narrow, core::str::from_utf8(bytes).ok());
        }
    }
}
