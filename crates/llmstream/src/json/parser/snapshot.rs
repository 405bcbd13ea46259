//! The live partial value: where a new value goes in it, found by walking
//! the open path from the root (cost: the depth, never the document).

use super::Parser;
use crate::json::value::Value;

impl Parser {
    /// Adds a value that has just started to the snapshot.
    pub(super) fn insert(&mut self, value: Value) {
        if !self.opts.snapshot {
            return;
        }
        let depth = self.frames.len();
        if depth == 0 {
            self.root = Some(value);
            return;
        }
        if let Some(container) = descend(&mut self.root, depth - 1) {
            attach(container, &self.key, value);
        }
    }

    /// Replaces the value being parsed (a growing number) in the snapshot.
    pub(super) fn replace_current(&mut self, value: Value) {
        if !self.opts.snapshot {
            return;
        }
        let depth = self.frames.len();
        if let Some(slot) = descend(&mut self.root, depth) {
            *slot = value;
        }
    }
}

/// Walks `levels` steps down the last children from the root: the open
/// value at that depth. Cost is the depth, never the document size.
pub(super) fn descend(root: &mut Option<Value>, levels: usize) -> Option<&mut Value> {
    let mut value = root.as_mut()?;
    for _ in 0..levels {
        value = match value {
            Value::Array(items) => items.last_mut()?,
            Value::Object(map) => &mut map.last_mut()?.1,
            _ => return None,
        };
    }
    Some(value)
}

/// Appends `value` to an open container (`key` names it in an object).
pub(super) fn attach(container: &mut Value, key: &str, value: Value) {
    match container {
        Value::Array(items) => items.push(value),
        Value::Object(map) => map.push(key, value),
        _ => {}
    }
}
