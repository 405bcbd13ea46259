//! The live value, and the way to its open containers.
//!
//! Every value a streamed document adds goes into the innermost open
//! container, and every piece that continues a string appends to the last
//! child of it. The open containers are always the chain of last children
//! down from the root, so the parser finds the one at depth `d` by taking
//! the last child `d` times: no addresses or indices are kept, and the
//! tree is only ever reached through `root`, so it is always whole for a
//! reader of the snapshot.

use alloc::string::String;

use super::snapshot::attach;
use crate::json::value::Value;

/// The partial value.
#[derive(Clone, Default)]
pub(super) struct LiveValue {
    root: Option<Value>,
}

impl core::fmt::Debug for LiveValue {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.root.fmt(f)
    }
}

impl LiveValue {
    #[inline]
    pub(super) fn get(&self) -> Option<&Value> {
        self.root.as_ref()
    }

    #[inline]
    pub(super) fn set(&mut self, value: Value) {
        self.root = Some(value);
    }

    #[inline]
    pub(super) fn take(&mut self) -> Option<Value> {
        self.root.take()
    }

    pub(super) fn into_inner(self) -> Option<Value> {
        self.root
    }

    /// Appends `value` to the container at `depth` on the open path (0:
    /// the root; `key` names it in an object).
    #[inline]
    pub(super) fn attach(&mut self, depth: usize, key: &str, value: Value) {
        if let Some(container) = self.at_mut(depth) {
            attach(container, key, value);
        }
    }

    /// The value at `depth` (0: the root), if it is a string.
    #[inline(always)]
    pub(super) fn string_mut(&mut self, depth: usize) -> Option<&mut String> {
        match self.at_mut(depth)? {
            Value::String(text) => Some(text),
            _ => None,
        }
    }

    /// Replaces the value at `depth` (0: the root) with `value`.
    #[inline]
    pub(super) fn replace(&mut self, depth: usize, value: Value) {
        if depth == 0 {
            self.set(value);
        } else if let Some(slot) = self.at_mut(depth) {
            *slot = value;
        }
    }

    /// The value at `depth` on the open path: the last child, `depth`
    /// times, down from the root.
    #[inline(always)]
    fn at_mut(&mut self, depth: usize) -> Option<&mut Value> {
        let mut value = self.root.as_mut()?;
        for _ in 0..depth {
            value = last_child(value)?;
        }
        Some(value)
    }
}

/// The last child of a container.
#[inline(always)]
fn last_child(container: &mut Value) -> Option<&mut Value> {
    match container {
        Value::Array(items) => items.last_mut(),
        Value::Object(map) => map.last_mut().map(|(_, v)| v),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::value::Map;

    #[test]
    fn values_go_to_the_end_of_the_open_path() {
        let mut live = LiveValue::default();
        live.replace(0, Value::Object(Map::new()));
        live.attach(0, "a", Value::Array(alloc::vec::Vec::new()));
        live.attach(1, "", Value::Bool(true));
        live.attach(1, "", Value::String(String::from("x")));
        live.string_mut(2).expect("the open string").push('y');
        live.attach(0, "b", Value::Null);
        live.replace(
            1,
            Value::Number(crate::json::value::Number::from_f64(1.5).unwrap()),
        );
        // Past the open path, or into a scalar: nothing changes.
        live.attach(3, "", Value::Null);
        live.attach(1, "", Value::Null);
        assert!(live.string_mut(1).is_none());
        assert_eq!(
            live.get().map(Value::to_json).as_deref(),
            Some(r#"{"a":[true,"xy"],"b":1.5}"#)
        );
        assert_eq!(
            live.take().map(|v| v.to_json()).as_deref(),
            Some(r#"{"a":[true,"xy"],"b":1.5}"#)
        );
        assert!(live.get().is_none());
    }

    #[test]
    fn parser_is_send_and_sync() {
        fn both<T: Send + Sync>() {}
        both::<super::super::Parser>();
        both::<LiveValue>();
    }
}
