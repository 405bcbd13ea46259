//! One reading interface over owned values and tape nodes.

use alloc::string::String;

use super::tape::Node;
use super::value::Value;

/// A JSON value to read: a `&Value` or a [`Node`] of a tape.
///
/// The provider accumulators read their payloads through it, so one code
/// path serves both a payload the caller parsed into a [`Value`] and the
/// tape that [`Pipeline`](crate::providers::Pipeline) parses each SSE event
/// into (no allocation per payload).
pub(crate) trait View<'v>: Copy {
    /// The member `key` of an object (the last of duplicates).
    fn get(self, key: &str) -> Option<Self>;
    /// The members `keys` of an object (each the last of duplicates).
    fn get_many<const N: usize>(self, keys: &[&str; N]) -> [Option<Self>; N] {
        keys.map(|key| self.get(key))
    }
    fn as_str(self) -> Option<&'v str>;
    /// A number's text as written.
    fn as_number(self) -> Option<&'v str>;
    fn as_bool(self) -> Option<bool>;
    fn is_null(self) -> bool;
    fn is_array(self) -> bool;
    fn is_object(self) -> bool;
    /// An array's elements (none for anything else).
    fn elements(self) -> impl Iterator<Item = Self>;
    /// An object's members (none for anything else).
    fn members(self) -> impl Iterator<Item = (&'v str, Self)>;
    fn to_value(self) -> Value;

    fn as_u64(self) -> Option<u64> {
        self.as_number()?.parse().ok()
    }

    /// Compact JSON text.
    fn to_json(self) -> String {
        self.to_value().to_json()
    }
}

impl<'v> View<'v> for &'v Value {
    fn get(self, key: &str) -> Option<Self> {
        Value::get(self, key)
    }
    fn as_str(self) -> Option<&'v str> {
        Value::as_str(self)
    }
    fn as_number(self) -> Option<&'v str> {
        match self {
            Value::Number(n) => Some(n.as_str()),
            _ => None,
        }
    }
    fn as_bool(self) -> Option<bool> {
        Value::as_bool(self)
    }
    fn is_null(self) -> bool {
        matches!(self, Value::Null)
    }
    fn is_array(self) -> bool {
        matches!(self, Value::Array(_))
    }
    fn is_object(self) -> bool {
        matches!(self, Value::Object(_))
    }
    fn elements(self) -> impl Iterator<Item = Self> {
        self.as_array().unwrap_or(&[]).iter()
    }
    fn members(self) -> impl Iterator<Item = (&'v str, Self)> {
        let members = self.as_object().map_or(&[][..], |map| map.as_slice());
        members.iter().map(|(k, v)| (k.as_str(), v))
    }
    fn to_value(self) -> Value {
        self.clone()
    }
    fn to_json(self) -> String {
        Value::to_json(self)
    }
}

impl<'t> View<'t> for Node<'t> {
    #[inline]
    fn get(self, key: &str) -> Option<Self> {
        Node::get(self, key)
    }
    #[inline]
    fn get_many<const N: usize>(self, keys: &[&str; N]) -> [Option<Self>; N] {
        Node::get_many(self, keys)
    }
    fn as_str(self) -> Option<&'t str> {
        Node::as_str(self)
    }
    fn as_number(self) -> Option<&'t str> {
        Node::as_number(self)
    }
    fn as_bool(self) -> Option<bool> {
        Node::as_bool(self)
    }
    fn is_null(self) -> bool {
        Node::is_null(self)
    }
    fn is_array(self) -> bool {
        Node::is_array(self)
    }
    fn is_object(self) -> bool {
        Node::is_object(self)
    }
    fn elements(self) -> impl Iterator<Item = Self> {
        Node::elements(self)
    }
    fn members(self) -> impl Iterator<Item = (&'t str, Self)> {
        Node::members(self)
    }
    fn to_value(self) -> Value {
        Node::to_value(self)
    }
}
