//! The library's `json::Value` as Python objects: `None`, `bool`, `int` of
//! any size, `float`, `str`, `list`, `dict` (members in document order).
//! Every dict the package returns (events, messages, errors) is one of the
//! library's own JSON forms converted here, never a mapping of its own.

use llmstream::json::{self, Number, Value};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyList, PyString};
use pyo3::IntoPyObjectExt;

/// Converts `value` to the Python object of the same JSON meaning.
pub fn to_py(py: Python<'_>, value: &Value) -> PyResult<PyObject> {
    match value {
        Value::Null => Ok(py.None()),
        Value::Bool(b) => b.into_py_any(py),
        Value::Number(n) => number(py, n),
        Value::String(s) => Ok(PyString::new(py, s).into_any().unbind()),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            Ok(list.into_any().unbind())
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (key, item) in map.iter() {
                dict.set_item(key.as_str(), to_py(py, item)?)?;
            }
            Ok(dict.into_any().unbind())
        }
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
