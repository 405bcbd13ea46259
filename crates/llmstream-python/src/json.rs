//! `parse`, `repair` and `JsonParser`: the library's JSON parser, as the
//! CLI's `json` and `repair` commands use it.

use llmstream::json::{self, Options, Parser, Value};
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::errors::{json_error, JsonError};
use crate::input::{bytes_of, parse_without_gil};
use crate::snapshot::{Growth, Mirror};
use crate::value::{form_to_py, to_py};

fn options(lenient: bool) -> Options {
    match lenient {
        true => Options::lenient(),
        false => Options::new(),
    }
}

/// Parses a whole JSON document (`bytes` or `str`) into Python values.
///
/// `partial=True`: a document cut short is not an error; the value at the
/// end is returned (None where no value began), as `llmstream json
/// --partial`. `lenient=True`: reads what models write (docs/LENIENT.md).
/// Raises `JsonError` (a `ValueError` with `.kind`, `.offset`, `.path`).
#[pyfunction]
#[pyo3(signature = (data, partial=false, lenient=false))]
pub fn parse(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    partial: bool,
    lenient: bool,
) -> PyResult<PyObject> {
    let bytes = bytes_of(data)?;
    let read = parse_without_gil(py, bytes.len(), || -> Result<Option<Value>, json::Error> {
        if !partial && !lenient {
            return json::parse(&bytes).map(Some);
        }
        let mut parser = Parser::with_options(options(lenient).events(false));
        parser.feed(&bytes)?;
        match parser.finish() {
            Ok(()) => Ok(parser.into_value()),
            Err(e) if partial && e.is_incomplete() => Ok(parser.partial_value()),
            Err(e) => Err(e),
        }
    });
    match read.map_err(|e| json_error(py, &e))? {
        Some(value) => to_py(py, &value),
        None if partial => Ok(py.None()),
        None => Err(no_value(py, bytes.len())),
    }
}

/// The value a person reads in a text cut short or not quite JSON, as
/// `llmstream repair`. Raises `JsonError` where the text holds no value.
#[pyfunction]
pub fn repair(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<PyObject> {
    let bytes = bytes_of(text)?;
    let read = parse_without_gil(py, bytes.len(), || json::repair_bytes(&bytes));
    match read.map_err(|e| json_error(py, &e))? {
        Some(value) => to_py(py, &value),
        None => Err(no_value(py, bytes.len())),
    }
}

/// No value at all in `len` bytes (empty or white space).
fn no_value(py: Python<'_>, len: usize) -> PyErr {
    crate::errors::plain_error::<JsonError>(
        py,
        format!("no JSON value in the input at byte {len}"),
        "no_value",
        Some(len as u64),
    )
}

/// An incremental JSON parser: feed pieces cut anywhere, get events
/// (`llmstream json --emit events` forms) and a live snapshot.
#[pyclass(module = "llmstream")]
pub struct JsonParser {
    parser: Parser,
    /// The Python objects of the live snapshot, updated on each read.
    mirror: Option<Mirror>,
    /// Lenient mode: several top-level values become an array of them, so
    /// an earlier snapshot is not always a part of a later one there.
    lenient: bool,
    /// Whether `feed` and `finish` return the events.
    events: bool,
    /// Whether the mirror was made of the array of several top-level
    /// values (lenient mode).
    several: bool,
}

#[pymethods]
impl JsonParser {
    /// `lenient=True`: lenient mode (no events then; the snapshot shows the
    /// lenient value). `events=False`: `feed` and `finish` return no
    /// events (an empty list), for a reader that only wants `.snapshot`:
    /// the parser then skips making them.
    #[new]
    #[pyo3(signature = (lenient=false, events=true))]
    fn new(lenient: bool, events: bool) -> Self {
        JsonParser {
            parser: Parser::with_options(options(lenient).events(events && !lenient)),
            mirror: None,
            lenient,
            events,
            several: false,
        }
    }

    /// Feeds a piece (`bytes` or `str`); returns the events it completed,
    /// each `{"type","path","pointer",…}`. Raises `JsonError`.
    fn feed<'py>(
        &mut self,
        py: Python<'py>,
        piece: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let bytes = bytes_of(piece)?;
        if !self.events {
            self.parser.feed(&bytes).map_err(|e| json_error(py, &e))?;
            return Ok(PyList::empty(py));
        }
        let mut feed = self.parser.feed_borrowed(&bytes);
        drain(py, &mut feed)
    }

    /// The end of input: the last events. Raises `JsonError` when the
    /// document is incomplete or invalid.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        if !self.events {
            self.parser.finish().map_err(|e| json_error(py, &e))?;
            return Ok(PyList::empty(py));
        }
        let mut feed = self.parser.finish_borrowed();
        drain(py, &mut feed)
    }

    /// The live partial value, or None before any value began. The same
    /// objects are returned from read to read and updated in place: a read
    /// converts only what the document gained (plus the open string); do
    /// not modify them (`snapshot_copy()` gives a copy). In lenient mode a
    /// part that a later byte re-read (the top value becoming the array of
    /// several, a group `(x)` becoming `x`) is converted again, and the
    /// snapshot is then a new object.
    #[getter]
    fn snapshot(&mut self, py: Python<'_>) -> PyResult<PyObject> {
        let Some(value) = self.parser.snapshot() else {
            self.mirror = None;
            return Ok(py.None());
        };
        let growth = match self.lenient {
            true => Growth::Checked,
            false => Growth::AtEnd,
        };
        if self.parser.several_values() != self.several {
            // The top value just became the array of several: start again.
            self.several = true;
            self.mirror = None;
        }
        match &mut self.mirror {
            Some(mirror) => {
                mirror.update(py, value, growth)?;
            }
            None => self.mirror = Some(Mirror::new(py, value, growth)?),
        }
        Ok(self
            .mirror
            .as_ref()
            .map_or_else(|| py.None(), |m| m.object(py)))
    }

    /// The live partial value converted afresh (objects of its own), or
    /// None before any value began.
    fn snapshot_copy(&self, py: Python<'_>) -> PyResult<PyObject> {
        match self.parser.snapshot() {
            Some(value) => to_py(py, value),
            None => Ok(py.None()),
        }
    }

    /// The bytes fed so far.
    #[getter]
    fn bytes_fed(&self) -> u64 {
        self.parser.bytes_fed()
    }

    fn __repr__(&self) -> String {
        format!(
            "JsonParser(lenient={}, events={}, bytes_fed={})",
            py_bool(self.lenient),
            py_bool(self.events),
            self.parser.bytes_fed()
        )
    }
}

/// The events of a feed as dicts, or its first error.
fn drain<'py>(py: Python<'py>, feed: &mut json::Feed<'_, '_>) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    while let Some(event) = feed.next_event() {
        let event = event.map_err(|e| json_error(py, &e))?;
        out.append(form_to_py(py, |sink| event.write_json(sink))?)?;
    }
    Ok(out)
}

/// `True` or `False`, as Python writes them.
pub fn py_bool(yes: bool) -> &'static str {
    match yes {
        true => "True",
        false => "False",
    }
}
