//! The crate's UTF-8 validators against `core::str::from_utf8` on
//! arbitrary bytes: the one the parsers use (ASCII words, AVX2 for long
//! slices, the automaton), the automaton alone, the AVX2 check of a whole
//! slice and the SSE decoder's line check all say what `core` says,
//! including where the valid prefix ends and whether the rest is a
//! character cut short. The input is also read from each of its first 32
//! offsets, so the SIMD blocks meet every sequence at every alignment.
#![no_main]

use libfuzzer_sys::fuzz_target;
use llmstream::__fuzz::{
    validate_sse_line, validate_utf8, validate_utf8_automaton, validate_utf8_simd, Utf8Verdict,
};

fn core_verdict(bytes: &[u8]) -> Utf8Verdict {
    std::str::from_utf8(bytes)
        .map(|_| ())
        .map_err(|e| (e.valid_up_to(), e.error_len().is_none()))
}

fuzz_target!(|data: &[u8]| {
    for offset in 0..32.min(data.len() + 1) {
        let bytes = &data[offset..];
        let want = core_verdict(bytes);
        assert_eq!(validate_utf8(bytes), want, "offset {offset}");
        assert_eq!(validate_utf8_automaton(bytes), want, "offset {offset}");
        assert_eq!(validate_sse_line(bytes), want.is_ok(), "offset {offset}");
        if let Some(valid) = validate_utf8_simd(bytes) {
            assert_eq!(valid, want.is_ok(), "offset {offset}");
        }
    }
});
