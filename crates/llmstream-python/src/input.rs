//! What `feed` takes: `bytes`, `bytearray`, `memoryview` or `str` (as its
//! UTF-8), and the hold of a code point cut between two bytes pieces for
//! the library stages that take text.

use std::borrow::Cow;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};

/// The bytes of a piece: those of a `bytes` object borrowed (it is
/// immutable), any other kind copied (a `bytearray` may change under a
/// parse that released the GIL).
pub fn bytes_of<'a>(piece: &'a Bound<'_, PyAny>) -> PyResult<Cow<'a, [u8]>> {
    if let Ok(b) = piece.downcast::<PyBytes>() {
        return Ok(Cow::Borrowed(b.as_bytes()));
    }
    if let Ok(s) = piece.downcast::<PyString>() {
        return Ok(Cow::Owned(s.to_cow()?.as_bytes().to_vec()));
    }
    if let Ok(b) = piece.downcast::<PyByteArray>() {
        return Ok(Cow::Owned(b.to_vec()));
    }
    if let Ok(b) = piece.extract::<Vec<u8>>() {
        return Ok(Cow::Owned(b));
    }
    Err(PyTypeError::new_err(format!(
        "expected bytes or str, got {}",
        piece.get_type().name()?
    )))
}

/// Inputs at least this long are parsed with the GIL released: other
/// Python threads run meanwhile, at a cost (a few microseconds) that only
/// small inputs would notice.
const GIL_FREE_LEN: usize = 64 * 1024;

/// Runs `work`, a parse of `len` bytes that touches no Python object,
/// with the GIL released when the input is large. The conversion of its
/// result to Python objects needs the GIL and happens after.
pub fn parse_without_gil<T: Send>(
    py: Python<'_>,
    len: usize,
    work: impl FnOnce() -> T + Send,
) -> T {
    match len >= GIL_FREE_LEN {
        true => py.allow_threads(work),
        false => work(),
    }
}

/// Text out of bytes pieces: a UTF-8 sequence cut at the end of a piece
/// waits for the next; invalid bytes become U+FFFD.
#[derive(Default)]
pub struct Utf8Hold {
    tail: Vec<u8>,
}

impl Utf8Hold {
    /// The text `bytes` completes (after what was held).
    pub fn text(&mut self, bytes: &[u8]) -> String {
        let mut buf = std::mem::take(&mut self.tail);
        buf.extend_from_slice(bytes);
        let mut out = String::new();
        let mut rest: &[u8] = &buf;
        loop {
            match std::str::from_utf8(rest) {
                Ok(text) => {
                    out.push_str(text);
                    return out;
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    out.push_str(std::str::from_utf8(valid).unwrap_or(""));
                    match e.error_len() {
                        Some(n) => {
                            out.push('\u{FFFD}');
                            rest = after.get(n..).unwrap_or(&[]);
                        }
                        None => {
                            self.tail = after.to_vec();
                            return out;
                        }
                    }
                }
            }
        }
    }

    /// The end: a sequence still cut is U+FFFD.
    pub fn finish(&mut self) -> String {
        match std::mem::take(&mut self.tail).is_empty() {
            true => String::new(),
            false => String::from('\u{FFFD}'),
        }
    }
}
