//! `SseDecoder`: the library's WHATWG event-stream decoder, in the forms of
//! `llmstream sse`.

use llmstream::sse::{self, Decoder, ItemRef};
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::errors::{set_from_form, SseError};
use crate::input::bytes_of;
use crate::value::form_to_py;

/// Decodes a `text/event-stream` body fed in pieces cut anywhere.
#[pyclass(module = "llmstream")]
pub struct SseDecoder {
    decoder: Decoder,
}

#[pymethods]
impl SseDecoder {
    #[new]
    fn new() -> Self {
        SseDecoder {
            decoder: Decoder::new(),
        }
    }

    fn __repr__(&self) -> String {
        format!("SseDecoder(offset={})", self.decoder.offset())
    }

    /// Feeds a piece (`bytes` or `str`); returns the items it completed:
    /// `{"event","data","id"}` per dispatched event, `{"retry"}` per valid
    /// retry field, in stream order. Raises `SseError` past a limit.
    fn feed<'py>(
        &mut self,
        py: Python<'py>,
        piece: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let bytes = bytes_of(piece)?;
        let out = PyList::empty(py);
        let mut items = self.decoder.feed_borrowed(&bytes);
        while let Some(item) = items.next_event() {
            let item = item.map_err(|e| sse_error(py, &e))?;
            if !matches!(item, ItemRef::Comment(_)) {
                out.append(form_to_py(py, |sink| item.write_json(sink))?)?;
            }
        }
        Ok(out)
    }

    /// The end of the body: an event not closed by a blank line is
    /// discarded, as the standard says. Returns `[]`; raises `SseError` if
    /// a limit was exceeded.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.decoder.finish().map_err(|e| sse_error(py, &e))?;
        let out = PyList::empty(py);
        while let Some(item) = self.decoder.next_event() {
            let item = item.map_err(|e| sse_error(py, &e))?;
            if !matches!(item, ItemRef::Comment(_)) {
                out.append(form_to_py(py, |sink| item.write_json(sink))?)?;
            }
        }
        Ok(out)
    }
}

/// An `SseError` from the library error's JSON form.
pub fn sse_error(py: Python<'_>, error: &sse::Error) -> PyErr {
    let err = SseError::new_err(error.to_string());
    let _ = set_from_form(py, &err, &error.to_value());
    err
}
