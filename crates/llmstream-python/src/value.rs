//! The library's `json::Value` as Python objects: `None`, `bool`, `int` of
//! any size, `float`, `str`, `list`, `dict` (members in document order).
//! Every dict the package returns (events, messages, errors) is one of the
//! library's own JSON forms converted here, never a mapping of its own.

use llmstream::json::{self, Number, Value};
use std::collections::HashMap;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyList, PyString};
use pyo3::IntoPyObjectExt;

/// Converts `value` to the Python object of the same JSON meaning.
pub fn to_py(py: Python<'_>, value: &Value) -> PyResult<PyObject> {
    Converter::default().convert(py, value)
}

/// A conversion that makes each distinct short object key one Python
/// string, reused (with its hash) wherever the key appears again: a
/// document's keys repeat, and a dict insertion with a known string skips
/// both the UTF-8 decoding and the hashing.
#[derive(Default)]
struct Converter {
    keys: HashMap<Box<str>, Py<PyString>>,
}

impl Converter {
    /// Keys longer than this are made afresh: they rarely repeat.
    const KEY_LEN: usize = 64;
    /// At most this many keys are kept, so that a document of distinct
    /// keys costs no more than the strings themselves.
    const KEYS: usize = 4096;

    fn convert(&mut self, py: Python<'_>, value: &Value) -> PyResult<PyObject> {
        match value {
            Value::Null => Ok(py.None()),
            Value::Bool(b) => b.into_py_any(py),
            Value::Number(n) => number(py, n),
            Value::String(s) => Ok(PyString::new(py, s).into_any().unbind()),
            Value::Array(items) => {
                let items = items
                    .iter()
                    .map(|item| self.convert(py, item))
                    .collect::<PyResult<Vec<_>>>()?;
                Ok(PyList::new(py, items)?.into_any().unbind())
            }
            Value::Object(map) => {
                let dict = PyDict::new(py);
                for (key, item) in map.iter() {
                    let key = self.key(py, key.as_str());
                    dict.set_item(key, self.convert(py, item)?)?;
                }
                Ok(dict.into_any().unbind())
            }
        }
    }

    fn key<'py>(&mut self, py: Python<'py>, key: &str) -> Bound<'py, PyString> {
        if key.len() > Self::KEY_LEN {
            return PyString::new(py, key);
        }
        if let Some(cached) = self.keys.get(key) {
            return cached.bind(py).clone();
        }
        let made = PyString::new(py, key);
        if self.keys.len() < Self::KEYS {
            self.keys.insert(key.into(), made.clone().unbind());
        }
        made
    }
}

/// An integer (no fraction, no exponent) as `int`, exact whatever its size
/// (the number keeps its text); any other number as the nearest `float`.
fn number(py: Python<'_>, n: &Number) -> PyResult<PyObject> {
    let text = n.as_str();
    let integer = !text.contains(['.', 'e', 'E']);
    if integer {
        if let Some(i) = n.as_i64() {
            return i.into_py_any(py);
        }
        let int = py.get_type::<pyo3::types::PyInt>();
        return Ok(int.call1((text,))?.unbind());
    }
    let f = n.as_f64().unwrap_or(f64::NAN);
    Ok(PyFloat::new(py, f).into_any().unbind())
}

/// A JSON form the library writes into a sink (`Event::write_json`,
/// `ItemRef::write_json`), read back into a value and converted.
pub fn form_to_py(py: Python<'_>, write: impl FnOnce(&mut dyn json::Sink)) -> PyResult<PyObject> {
    let mut text: Vec<u8> = Vec::new();
    write(&mut text);
    let value = json::parse(&text).map_err(|e| crate::errors::json_error(py, &e))?;
    to_py(py, &value)
}
