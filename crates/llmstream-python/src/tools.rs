//! `ArgumentStreams` and `ActionStream`: tool-call arguments and JSON
//! actions in model text, streamed.

use llmstream::tools::{self, ToolError as Error};
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::errors::{set_from_form, ToolError};
use crate::input::bytes_of;
use crate::value::to_py;

/// Per-call streams of tool-call arguments, keyed by call id.
#[pyclass(module = "llmstream")]
pub struct ArgumentStreams {
    inner: tools::ArgumentStreams,
}

#[pymethods]
impl ArgumentStreams {
    #[new]
    fn new() -> Self {
        ArgumentStreams {
            inner: tools::ArgumentStreams::new(),
        }
    }

    fn __repr__(&self) -> String {
        let ids: Vec<String> = self.inner.ids().map(|id| format!("{id:?}")).collect();
        format!("ArgumentStreams(ids=[{}])", ids.join(", "))
    }

    /// Feeds a fragment (`bytes` or `str`) of call `tool_id`'s arguments;
    /// returns its events (`argument_delta`, `argument`, `error`).
    fn feed<'py>(
        &mut self,
        py: Python<'py>,
        tool_id: &str,
        fragment: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        self.inner.feed_bytes(tool_id, &bytes_of(fragment)?);
        self.drain(py)
    }

    /// Feeds the accumulated arguments text of call `tool_id` so far (as
    /// some providers, and vibe's `accumulated_json`, give it): only what
    /// extends the text before is fed. A text that does not extend it is an
    /// `error` event and is ignored. `str` or `bytes` (whole UTF-8).
    fn feed_accumulated<'py>(
        &mut self,
        py: Python<'py>,
        tool_id: &str,
        text: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let bytes = bytes_of(text)?;
        let text = String::from_utf8_lossy(&bytes);
        self.inner.feed_accumulated(tool_id, &text);
        self.drain(py)
    }

    /// Ends call `tool_id`: its last events, `tool_call_end` with the final
    /// arguments among them (invalid or cut-short arguments are an `error`
    /// event, the best-effort value still in `tool_call_end`). Raises
    /// `ToolError` for a call that is not open.
    fn finish<'py>(&mut self, py: Python<'py>, tool_id: &str) -> PyResult<Bound<'py, PyList>> {
        match self.inner.finish(tool_id) {
            Err(error @ Error::UnknownCall) => {
                let err = ToolError::new_err(error.to_string());
                set_from_form(py, &err, &error.to_value())?;
                Err(err)
            }
            _ => self.drain(py),
        }
    }
}

impl ArgumentStreams {
    fn drain<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        while let Some(event) = self.inner.next_event() {
            out.append(to_py(py, &event.to_value())?)?;
        }
        Ok(out)
    }
}

/// JSON action objects (tool calls) found in model text, possibly inside
/// ```json fences, as `llmstream actions` events.
#[pyclass(module = "llmstream")]
pub struct ActionStream {
    inner: tools::ActionStream,
}

#[pymethods]
impl ActionStream {
    #[new]
    fn new() -> Self {
        ActionStream {
            inner: tools::ActionStream::new(),
        }
    }

    fn __repr__(&self) -> &'static str {
        "ActionStream()"
    }

    /// Feeds model text (`str`, or `bytes`: a cut code point is held);
    /// returns the events it completed.
    fn feed<'py>(
        &mut self,
        py: Python<'py>,
        text: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let bytes = bytes_of(text)?;
        self.inner.feed_bytes(&bytes);
        self.drain(py)
    }

    /// The end of the text: the last events (an unclosed fence or object
    /// is an `error` event).
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let _ = self.inner.finish();
        self.drain(py)
    }
}

impl ActionStream {
    fn drain<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        while let Some(event) = self.inner.next_event() {
            out.append(to_py(py, &event.to_value())?)?;
        }
        Ok(out)
    }
}
