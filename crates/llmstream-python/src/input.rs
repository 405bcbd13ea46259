//! What `feed` takes: `bytes`, `bytearray`, `memoryview` or `str` (as its
//! UTF-8), and the hold of a code point cut between two bytes pieces for
//! the library stages that take text.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};

/// The bytes of a piece.
pub fn bytes_of(piece: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(b) = piece.downcast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if let Ok(s) = piece.downcast::<PyString>() {
        return Ok(s.to_cow()?.as_bytes().to_vec());
    }
    if let Ok(b) = piece.downcast::<PyByteArray>() {
        return Ok(b.to_vec());
    }
    if let Ok(b) = piece.extract::<Vec<u8>>() {
        return Ok(b);
    }
    Err(PyTypeError::new_err(format!(
        "expected bytes or str, got {}",
        piece.get_type().name()?
    )))
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
