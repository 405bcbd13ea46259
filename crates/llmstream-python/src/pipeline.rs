//! `Pipeline`: a provider's raw streaming body to normalized events and the
//! message, in the forms of `llmstream accumulate` (`StreamEvent::to_value`,
//! `Message::to_value`).

use llmstream::providers::{Pipeline as Inner, Provider};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::input::bytes_of;
use crate::sse::sse_error;
use crate::value::to_py;

/// Normalizes a provider's streaming body (SSE, JSON Lines or a JSON array
/// of payloads) fed in pieces cut anywhere.
#[pyclass(module = "llmstream")]
pub struct Pipeline {
    inner: Inner,
}

#[pymethods]
impl Pipeline {
    /// `provider`: `"auto"` (detected from the first payload),
    /// `"openai-chat"`, `"openai-responses"`, `"anthropic"` or `"gemini"`.
    /// `lenient_arguments=True`: tool-call arguments that are not JSON are
    /// read in lenient mode (their `arguments_error` kind is `repaired`).
    /// `strict_sse_end=True`: an SSE event the body ends inside (no closing
    /// blank line) is discarded, as the standard says, even when its data
    /// is a whole payload.
    #[new]
    #[pyo3(signature = (provider="auto", lenient_arguments=false, strict_sse_end=false))]
    fn new(provider: &str, lenient_arguments: bool, strict_sse_end: bool) -> PyResult<Self> {
        let inner = match provider.replace('_', "-").as_str() {
            "auto" => Inner::new(),
            name => match Provider::ALL.iter().find(|p| p.name() == name) {
                Some(p) => Inner::with_provider(*p),
                None => {
                    return Err(PyValueError::new_err(format!(
                        "unknown provider {provider:?}: auto, openai-chat, openai-responses, anthropic or gemini"
                    )))
                }
            },
        };
        Ok(Pipeline {
            inner: inner
                .lenient_arguments(lenient_arguments)
                .read_unterminated_event(!strict_sse_end),
        })
    }

    /// Feeds a piece of the body (`bytes` or `str`); returns the normalized
    /// events it completed (`accumulate --events` forms). Raises
    /// `SseError` past an SSE limit.
    fn feed<'py>(
        &mut self,
        py: Python<'py>,
        piece: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let bytes = bytes_of(piece)?;
        let fed = self.inner.feed(&bytes);
        let events = self.drain(py)?;
        fed.map_err(|e| sse_error(py, &e.0))?;
        Ok(events)
    }

    /// The end of the body: the last events.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let finished = self.inner.finish();
        let events = self.drain(py)?;
        finished.map_err(|e| sse_error(py, &e.0))?;
        Ok(events)
    }

    /// The message so far (`accumulate` form), or None before the first
    /// provider payload.
    #[getter]
    fn message(&self, py: Python<'_>) -> PyResult<PyObject> {
        match self.inner.message() {
            Some(message) => to_py(py, &message.to_value()),
            None => Ok(py.None()),
        }
    }

    fn __repr__(&self) -> String {
        let provider = self.inner.provider().map_or("auto", |p| p.name());
        format!("Pipeline(provider={provider:?})")
    }
}

impl Pipeline {
    fn drain<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        while let Some(event) = self.inner.next_event() {
            out.append(to_py(py, &event.to_value())?)?;
        }
        Ok(out)
    }
}
