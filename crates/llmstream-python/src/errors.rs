//! The package's exceptions. Each is a `ValueError` carrying `kind`,
//! `offset` and `path` (plus the library error's whole JSON form as
//! `details`), read from the library error, never from its message alone.

use llmstream::json::{self, Value};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(
    llmstream,
    JsonError,
    PyValueError,
    "Invalid JSON: `.kind`, `.offset` (byte), `.path`, `.details` (the error's JSON form)."
);
create_exception!(
    llmstream,
    SseError,
    PyValueError,
    "An SSE limit was exceeded: `.kind`, `.offset` (byte), `.path` (None)."
);
create_exception!(
    llmstream,
    ToolError,
    PyValueError,
    "A tool-call stream error: `.kind`, `.offset`, `.path` (None where not a JSON error)."
);
create_exception!(
    llmstream,
    ChunkError,
    PyValueError,
    "A snapshot that does not extend the last: `.kind`, `.offset`, `.path`, `.snapshot`."
);

/// A `JsonError` from the library error's JSON form.
pub fn json_error(py: Python<'_>, error: &json::Error) -> PyErr {
    let form = error.to_value();
    let err = JsonError::new_err(error.to_string());
    let _ = set_from_form(py, &err, &form);
    err
}

/// Sets `kind`, `offset`, `path` and `details` on `err` from a JSON error
/// form (`{"message","kind","offset","path",…}`).
pub fn set_from_form(py: Python<'_>, err: &PyErr, form: &Value) -> PyResult<()> {
    let exc = err.value(py);
    for name in ["kind", "offset", "path"] {
        let member = form
            .get(name)
            .map(|v| crate::value::to_py(py, v))
            .transpose()?;
        exc.setattr(name, member.unwrap_or_else(|| py.None()))?;
    }
    exc.setattr("details", crate::value::to_py(py, form)?)?;
    Ok(())
}

/// An error of `E` with these attributes, for errors the binding itself
/// finds (no value in the input, a partial mode the parser refuses).
pub fn plain_error<E: pyo3::PyTypeInfo>(
    py: Python<'_>,
    message: String,
    kind: &str,
    offset: Option<u64>,
) -> PyErr {
    let err = PyErr::new::<E, _>(message);
    let exc = err.value(py);
    let _ = exc.setattr("kind", kind);
    let _ = exc.setattr("offset", offset);
    let _ = exc.setattr("path", py.None());
    let _ = exc.setattr("details", py.None());
    err
}
