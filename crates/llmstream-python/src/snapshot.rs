//! The Python mirror of a parser's live snapshot, updated in place so that
//! a read costs what the document gained (plus the open string's length),
//! not its size.
//!
//! A snapshot only grows: every member of a container but the last is
//! complete and never changes. So the mirror keeps, per container, its
//! Python object, its length and the mirror of its last member only; an
//! update walks the last members (the open path), converts members that
//! are new, re-makes an open scalar, and extends an open string by what it
//! gained (a concatenation: copying a string is far cheaper than decoding
//! its UTF-8 again). That a string only grows at its end is the snapshot
//! contract of strict mode (DESIGN.md, "Monotonic"), so there the mirror
//! keeps only its length in bytes ([`Growth::AtEnd`]); lenient mode's
//! snapshots may re-read a text, so there it keeps the text and checks
//! ([`Growth::Checked`]). Where a container's type or the key of its
//! last member changed, or it or a string shrank (none of which a growing
//! snapshot does), that part is converted again from scratch.

use llmstream::json::{Map, Value};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use crate::value::to_py;

/// How far the mirror trusts a string to grow only at its end.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Growth {
    /// Strict mode: a snapshot's strings only grow at their end.
    AtEnd,
    /// Lenient mode: a string is checked against its text before.
    Checked,
}

/// What the mirror knows of a string it made.
pub enum Seen {
    /// Its length in bytes ([`Growth::AtEnd`]).
    Len(usize),
    /// Its text ([`Growth::Checked`]).
    Text(String),
}

impl Seen {
    fn new(growth: Growth, text: &str) -> Seen {
        match growth {
            Growth::AtEnd => Seen::Len(text.len()),
            Growth::Checked => Seen::Text(text.to_string()),
        }
    }

    /// The string seen, extended by `added`.
    fn extend(&mut self, added: &str) {
        match self {
            Seen::Len(len) => *len += added.len(),
            Seen::Text(text) => text.push_str(added),
        }
    }

    /// What `grown` added to the string seen, or None when it is not that
    /// string extended.
    fn added<'a>(&self, grown: &'a str) -> Option<&'a str> {
        match self {
            Seen::Len(len) => grown.get(*len..),
            Seen::Text(text) => grown.strip_prefix(text.as_str()),
        }
    }
}

/// The mirror of one value.
pub enum Mirror {
    /// A scalar (re-made when it is the open member and changed), or a
    /// value that can no longer change.
    Leaf(PyObject),
    /// A string that may still grow at its end, with what the mirror
    /// knows of it, so that a later snapshot adds only the new text.
    Text { string: Py<PyString>, seen: Seen },
    Array {
        list: Py<PyList>,
        len: usize,
        /// The mirror of the last item (the one that may still grow).
        last: Option<Box<Mirror>>,
    },
    Object {
        dict: Py<PyDict>,
        len: usize,
        /// The key and mirror of the last member.
        last: Option<Box<LastMember>>,
    },
}

/// The last member of an object: its key (as text, to compare with the
/// next snapshot's, and as the Python string the dict holds, to set it
/// again without hashing a new one) and its mirror.
pub struct LastMember {
    key: String,
    py_key: Py<PyString>,
    mirror: Mirror,
}

impl Mirror {
    /// The mirror of `value`, converted whole.
    pub fn new(py: Python<'_>, value: &Value, growth: Growth) -> PyResult<Mirror> {
        Ok(match value {
            Value::Array(values) => {
                let list = PyList::empty(py);
                let last = append_items(py, &list, values, growth)?;
                Mirror::Array {
                    list: list.unbind(),
                    len: values.len(),
                    last,
                }
            }
            Value::Object(map) => {
                let dict = PyDict::new(py);
                let members = map.iter().as_slice();
                let last = insert_members(py, &dict, members, growth)?;
                Mirror::Object {
                    dict: dict.unbind(),
                    len: members.len(),
                    last,
                }
            }
            Value::String(text) => Mirror::Text {
                string: PyString::new(py, text).unbind(),
                seen: Seen::new(growth, text),
            },
            scalar => Mirror::Leaf(to_py(py, scalar)?),
        })
    }

    /// The Python object.
    pub fn object(&self, py: Python<'_>) -> PyObject {
        match self {
            Mirror::Leaf(object) => object.clone_ref(py),
            Mirror::Text { string, .. } => string.clone_ref(py).into_any(),
            Mirror::Array { list, .. } => list.clone_ref(py).into_any(),
            Mirror::Object { dict, .. } => dict.clone_ref(py).into_any(),
        }
    }

    /// Brings the mirror to `value`, a later snapshot of the same
    /// document. Returns whether its object was replaced (its parent then
    /// holds the new one).
    pub fn update(&mut self, py: Python<'_>, value: &Value, growth: Growth) -> PyResult<bool> {
        match (&mut *self, value) {
            (Mirror::Array { list, len, last }, Value::Array(values)) if values.len() >= *len => {
                let list = list.bind(py);
                if let (Some(item), Some(at)) = (last.as_deref_mut(), len.checked_sub(1)) {
                    if let Some(value) = values.get(at) {
                        if item.update(py, value, growth)? {
                            list.set_item(at, item.object(py))?;
                        }
                    }
                }
                let new = values.get(*len..).unwrap_or(&[]);
                if !new.is_empty() {
                    *last = append_items(py, list, new, growth)?;
                    *len = values.len();
                }
                Ok(false)
            }
            (Mirror::Object { dict, len, last }, Value::Object(map))
                if map.len() >= *len && last_key_kept(map, *len, last.as_deref()) =>
            {
                let dict = dict.bind(py);
                let members = map.iter().as_slice();
                if let (Some(member), Some(at)) = (last.as_deref_mut(), len.checked_sub(1)) {
                    if let Some((_, value)) = members.get(at) {
                        if member.mirror.update(py, value, growth)? {
                            dict.set_item(member.py_key.bind(py), member.mirror.object(py))?;
                        }
                    }
                }
                let new = members.get(*len..).unwrap_or(&[]);
                if !new.is_empty() {
                    *last = insert_members(py, dict, new, growth)?;
                    *len = members.len();
                }
                Ok(false)
            }
            (Mirror::Text { string, seen }, Value::String(grown))
                if seen.added(grown).is_some() =>
            {
                let added = seen.added(grown).unwrap_or("");
                if added.is_empty() {
                    return Ok(false);
                }
                let joined = string.bind(py).add(PyString::new(py, added))?;
                *string = joined.downcast_into::<PyString>()?.unbind();
                seen.extend(added);
                Ok(true)
            }
            _ => {
                *self = Mirror::new(py, value, growth)?;
                Ok(true)
            }
        }
    }
}

/// Appends `values` to `list`, all but the last converted once for good;
/// returns the mirror of the last.
fn append_items(
    py: Python<'_>,
    list: &Bound<'_, PyList>,
    values: &[Value],
    growth: Growth,
) -> PyResult<Option<Box<Mirror>>> {
    let Some((last, done)) = values.split_last() else {
        return Ok(None);
    };
    for value in done {
        list.append(to_py(py, value)?)?;
    }
    let mirror = Mirror::new(py, last, growth)?;
    list.append(mirror.object(py))?;
    Ok(Some(Box::new(mirror)))
}

/// Inserts `members` into `dict`, all but the last converted once for
/// good; returns the key and mirror of the last.
fn insert_members(
    py: Python<'_>,
    dict: &Bound<'_, PyDict>,
    members: &[(llmstream::json::Key, Value)],
    growth: Growth,
) -> PyResult<Option<Box<LastMember>>> {
    let Some(((key, last), done)) = members.split_last() else {
        return Ok(None);
    };
    for (key, value) in done {
        dict.set_item(key.as_str(), to_py(py, value)?)?;
    }
    let mirror = Mirror::new(py, last, growth)?;
    let py_key = PyString::new(py, key.as_str());
    dict.set_item(&py_key, mirror.object(py))?;
    Ok(Some(Box::new(LastMember {
        key: key.as_str().to_string(),
        py_key: py_key.unbind(),
        mirror,
    })))
}

/// Whether the member at `len - 1` of `map` still has the key the mirror
/// saw there.
fn last_key_kept(map: &Map, len: usize, last: Option<&LastMember>) -> bool {
    match (len.checked_sub(1), last) {
        (None, _) => true,
        (Some(at), Some(member)) => map
            .iter()
            .as_slice()
            .get(at)
            .is_some_and(|(k, _)| k.as_str() == member.key),
        (Some(_), None) => false,
    }
}
