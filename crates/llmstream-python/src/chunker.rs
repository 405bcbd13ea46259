//! `SnapshotChunker`: complete snapshots of a growing JSON document to the
//! streaming chunks between them, as `llmstream chunk`.

use llmstream::chunker::{ChunkError as Error, ChunkErrorKind, SnapshotChunker as Inner};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyList, PyString};

use crate::errors::{json_error, set_from_form, ChunkError};
use crate::input::bytes_of;

/// Turns complete snapshots into chunks whose concatenation is the final
/// JSON text.
#[pyclass(module = "llmstream")]
pub struct SnapshotChunker {
    inner: Inner,
}

#[pymethods]
impl SnapshotChunker {
    #[new]
    fn new() -> Self {
        SnapshotChunker {
            inner: Inner::new(),
        }
    }

    fn __repr__(&self) -> String {
        format!("SnapshotChunker(snapshots={})", self.inner.snapshots())
    }

    /// Takes the next complete snapshot, as JSON text (`str` or `bytes`)
    /// or a Python value (written with `json.dumps`); returns the chunks
    /// that became certain. Raises `JsonError` for text that is not JSON,
    /// `ChunkError` for a snapshot that does not extend the last.
    fn feed<'py>(
        &mut self,
        py: Python<'py>,
        snapshot: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let text = match snapshot.is_instance_of::<PyString>()
            || snapshot.is_instance_of::<PyBytes>()
            || snapshot.is_instance_of::<PyByteArray>()
        {
            true => String::from_utf8_lossy(&bytes_of(snapshot)?).into_owned(),
            false => {
                let dumps = py.import("json")?.getattr("dumps")?;
                dumps.call1((snapshot,))?.extract::<String>()?
            }
        };
        self.inner
            .feed_text(&text)
            .map_err(|e| chunk_error(py, &e))?;
        self.drain(py)
    }

    /// The end: the last chunks.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.inner.finish().map_err(|e| chunk_error(py, &e))?;
        self.drain(py)
    }
}

impl SnapshotChunker {
    fn drain<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        while let Some(chunk) = self.inner.next_event() {
            out.append(chunk)?;
        }
        Ok(out)
    }
}

/// A `JsonError` for a snapshot that is not JSON, else a `ChunkError`, from
/// the library error's JSON form (with `.snapshot`, the snapshot's number).
fn chunk_error(py: Python<'_>, error: &Error) -> PyErr {
    if let ChunkErrorKind::InvalidJson(e) = error.kind() {
        return json_error(py, e);
    }
    let err = ChunkError::new_err(error.to_string());
    let _ = set_from_form(py, &err, &error.to_value());
    let _ = err.value(py).setattr("snapshot", error.snapshot());
    err
}
