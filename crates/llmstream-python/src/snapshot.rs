//! The Python mirror of a parser's live snapshot, updated in place so that
//! a read costs what the document gained (plus the open string's length),
//! not its size.
//!
//! A snapshot only grows: every member of a container but the last is
//! complete and never changes. So the mirror keeps, per container, its
//! Python object and the mirrors of its members; an update walks only the
//! last member of each container (the open path), converts members that
//! are new, and re-makes the open scalar or string. Where a container's
//! type or the key of its last member changed, or it shrank (none of which
//! a growing snapshot does), that part is converted again from scratch.

use llmstream::json::Value;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::value::to_py;

/// The mirror of one value.
pub enum Mirror {
    /// A scalar or a string: re-made when it is the open member.
    Leaf(PyObject),
    Array {
        list: Py<PyList>,
        items: Vec<Mirror>,
    },
    Object {
        dict: Py<PyDict>,
        items: Vec<Mirror>,
        /// The key of the last member (the one that may still grow).
        last_key: String,
    },
}

impl Mirror {
    /// The mirror of `value`, converted whole.
    pub fn new(py: Python<'_>, value: &Value) -> PyResult<Mirror> {
        Ok(match value {
            Value::Array(values) => {
                let list = PyList::empty(py);
                let mut items = Vec::with_capacity(values.len());
                for value in values {
                    let item = Mirror::new(py, value)?;
                    list.append(item.object(py))?;
                    items.push(item);
                }
                Mirror::Array {
                    list: list.unbind(),
                    items,
                }
            }
            Value::Object(map) => {
                let dict = PyDict::new(py);
                let mut items = Vec::with_capacity(map.len());
                let mut last_key = String::new();
                for (key, value) in map.iter() {
                    let item = Mirror::new(py, value)?;
                    dict.set_item(key.as_str(), item.object(py))?;
                    items.push(item);
                    last_key = key.as_str().to_string();
                }
                Mirror::Object {
                    dict: dict.unbind(),
                    items,
                    last_key,
                }
            }
            scalar => Mirror::Leaf(to_py(py, scalar)?),
        })
    }

    /// The Python object.
    pub fn object(&self, py: Python<'_>) -> PyObject {
        match self {
            Mirror::Leaf(object) => object.clone_ref(py),
            Mirror::Array { list, .. } => list.clone_ref(py).into_any(),
            Mirror::Object { dict, .. } => dict.clone_ref(py).into_any(),
        }
    }

    /// Brings the mirror to `value`, a later snapshot of the same
    /// document. Returns whether its object was replaced (its parent then
    /// holds the new one).
    pub fn update(&mut self, py: Python<'_>, value: &Value) -> PyResult<bool> {
        match (&mut *self, value) {
            (Mirror::Array { list, items }, Value::Array(values))
                if values.len() >= items.len() =>
            {
                let list = list.bind(py);
                if let Some(last) = items.len().checked_sub(1) {
                    if let (Some(item), Some(value)) = (items.get_mut(last), values.get(last)) {
                        if item.update(py, value)? {
                            list.set_item(last, item.object(py))?;
                        }
                    }
                }
                for value in values.get(items.len()..).unwrap_or(&[]) {
                    let item = Mirror::new(py, value)?;
                    list.append(item.object(py))?;
                    items.push(item);
                }
                Ok(false)
            }
            (
                Mirror::Object {
                    dict,
                    items,
                    last_key,
                },
                Value::Object(map),
            ) if map.len() >= items.len() && last_member_kept(map, items.len(), last_key) => {
                let dict = dict.bind(py);
                let members = map.iter().as_slice();
                if let Some(last) = items.len().checked_sub(1) {
                    if let (Some(item), Some((key, value))) =
                        (items.get_mut(last), members.get(last))
                    {
                        if item.update(py, value)? {
                            dict.set_item(key.as_str(), item.object(py))?;
                        }
                    }
                }
                for (key, value) in members.get(items.len()..).unwrap_or(&[]) {
                    let item = Mirror::new(py, value)?;
                    dict.set_item(key.as_str(), item.object(py))?;
                    items.push(item);
                    *last_key = key.as_str().to_string();
                }
                Ok(false)
            }
            _ => {
                *self = Mirror::new(py, value)?;
                Ok(true)
            }
        }
    }
}

/// Whether the member at `count - 1` of `map` still has the key the mirror
/// saw there.
fn last_member_kept(map: &llmstream::json::Map, count: usize, last_key: &str) -> bool {
    match count.checked_sub(1) {
        None => true,
        Some(last) => map
            .iter()
            .as_slice()
            .get(last)
            .is_some_and(|(key, _)| key.as_str() == last_key),
    }
}
