//! `from_json`: jiter's `from_json` signature (as the openai and anthropic
//! SDKs call it) on the library's strict parser and its partial-value
//! policy (`Parser::finish_partial`).

use std::collections::HashSet;

use llmstream::json::{self, Options, Parser, Value};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyString};

use crate::errors::{json_error, plain_error, JsonError};
use crate::input::{bytes_of, parse_without_gil};
use crate::value::to_py;

#[derive(Clone, Copy, PartialEq)]
enum Partial {
    Off,
    On,
    TrailingStrings,
}

fn partial_mode(mode: &Bound<'_, PyAny>) -> PyResult<Partial> {
    if let Ok(b) = mode.downcast::<PyBool>() {
        return Ok(if b.is_true() {
            Partial::On
        } else {
            Partial::Off
        });
    }
    if let Ok(s) = mode.downcast::<PyString>() {
        match s.to_cow()?.as_ref() {
            "off" => return Ok(Partial::Off),
            "on" => return Ok(Partial::On),
            "trailing-strings" => return Ok(Partial::TrailingStrings),
            _ => {}
        }
    }
    Err(PyValueError::new_err(
        "Invalid partial mode, should be `'off'`, `'on'`, `'trailing-strings'` or a `bool`",
    ))
}

/// Where the string the input ends inside opened (its `"`), if it ends
/// inside one. A scan of quotes and escapes only: the parse is the
/// library's.
fn open_string_start(data: &[u8]) -> Option<usize> {
    let mut start = None;
    let mut escape = false;
    for (at, &byte) in data.iter().enumerate() {
        match start {
            Some(_) if escape => escape = false,
            Some(_) if byte == b'\\' => escape = true,
            Some(_) if byte == b'"' => start = None,
            Some(_) => {}
            None if byte == b'"' => start = Some(at),
            None => {}
        }
    }
    start
}

fn first_duplicate(value: &Value) -> Option<String> {
    match value {
        Value::Array(items) => items.iter().find_map(first_duplicate),
        Value::Object(map) => {
            let mut seen = HashSet::new();
            for (key, item) in map.iter() {
                if !seen.insert(key.as_str()) {
                    return Some(key.as_str().to_string());
                }
                if let Some(dup) = first_duplicate(item) {
                    return Some(dup);
                }
            }
            None
        }
        _ => None,
    }
}

/// The value of `data` cut short, by the library's partial policy.
fn partial_value(data: &[u8]) -> Result<Option<Value>, json::Error> {
    let mut parser = Parser::with_options(Options::new().events(false));
    parser.feed(data)?;
    parser.finish_partial()
}

/// Why `read` gave no value.
enum Unread {
    Json(json::Error),
    /// Partial mode `on`: the input is one string cut short.
    OpenStringOnly,
}

/// The value of `bytes` in `mode` (None: no value began).
fn read(bytes: &[u8], mode: Partial) -> Result<Option<Value>, Unread> {
    if mode == Partial::Off {
        return json::parse(bytes).map(Some).map_err(Unread::Json);
    }
    let value = partial_value(bytes).map_err(Unread::Json)?;
    if mode == Partial::On {
        if let Some(start) = open_string_start(bytes) {
            return match partial_value(&bytes[..start]).map_err(Unread::Json)? {
                None => Err(Unread::OpenStringOnly),
                value => Ok(value),
            };
        }
    }
    Ok(value)
}

/// Parses JSON `bytes` (or `str`) like `jiter.from_json`, with its
/// signature. `partial_mode`: `False`/`"off"` a complete document only;
/// `True`/`"on"` a document cut short gives the value so far without a
/// string left open at the end; `"trailing-strings"` with it.
///
/// Differences from jiter (README): a number cut short in partial mode is
/// kept as its longest valid prefix (`[1.` gives `[1]`; jiter drops it); a
/// literal cut short is shown from its first byte (`[tr` gives `[True]`;
/// jiter drops it); `NaN`, `Infinity`, `-Infinity` are never accepted
/// (`allow_inf_nan` is ignored); `cache_mode` is ignored; `float_mode`
/// other than `"float"` raises `ValueError`; `str` input is accepted;
/// errors are `JsonError` (a `ValueError`) with the library's messages.
/// Repeated keys keep the last value, as jiter; `catch_duplicate_keys=True`
/// raises `JsonError`.
#[pyfunction]
#[pyo3(signature = (data, *, allow_inf_nan=true, cache_mode=None, partial_mode=None, catch_duplicate_keys=false, float_mode="float"))]
#[allow(unused_variables)]
pub fn from_json(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    allow_inf_nan: bool,
    cache_mode: Option<&Bound<'_, PyAny>>,
    partial_mode: Option<&Bound<'_, PyAny>>,
    catch_duplicate_keys: bool,
    float_mode: &str,
) -> PyResult<PyObject> {
    if float_mode != "float" {
        return Err(PyValueError::new_err(format!(
            "float_mode={float_mode:?} is not supported (only \"float\")"
        )));
    }
    let mode = match partial_mode {
        Some(m) => self::partial_mode(m)?,
        None => Partial::Off,
    };
    let bytes = bytes_of(data)?;
    let read = parse_without_gil(py, bytes.len(), || read(&bytes, mode));
    let value = match read {
        Ok(value) => value,
        Err(Unread::Json(e)) => return Err(json_error(py, &e)),
        Err(Unread::OpenStringOnly) => {
            return Err(plain_error::<JsonError>(
                py,
                format!("EOF while parsing a string at byte {}", bytes.len()),
                "incomplete",
                Some(bytes.len() as u64),
            ))
        }
    };
    let Some(value) = value else {
        return Err(plain_error::<JsonError>(
            py,
            format!("EOF while parsing a value at byte {}", bytes.len()),
            "no_value",
            Some(bytes.len() as u64),
        ));
    };
    if catch_duplicate_keys {
        if let Some(key) = first_duplicate(&value) {
            return Err(plain_error::<JsonError>(
                py,
                format!("Detected duplicate key {key:?}"),
                "duplicate_key",
                None,
            ));
        }
    }
    to_py(py, &value)
}
