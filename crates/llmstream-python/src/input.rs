//! What `feed` takes: `bytes`, `bytearray`, `memoryview` or `str` (as its
//! UTF-8).

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
