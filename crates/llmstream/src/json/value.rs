//! The JSON value model: what the parser builds and what repair returns.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use super::inline::InlineText;
use super::key::Key;

/// A JSON value.
///
/// Objects keep their members in document order ([`Map`]); numbers keep their
/// exact source text ([`Number`]), so nothing is lost or rounded on the way
/// through.
///
/// Equality is of the document as written, not of what it means: numbers
/// compare by their text (`1e2` ≠ `1E2` ≠ `100`, `1.0` ≠ `1`), objects by
/// their members in order, duplicates included (`{"a":1,"b":2}` ≠
/// `{"b":2,"a":1}`). Where meaning is what counts, [`Value::same_meaning`]
/// compares numbers as exact decimals and objects as maps.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Value {
    /// `null`
    #[default]
    Null,
    /// `true` or `false`
    Bool(bool),
    /// A number, as written.
    Number(Number),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// An object, members in document order.
    Object(Map),
}

impl Value {
    /// The member `key` of an object (the last one if the key is repeated).
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(map) => map.get(key),
            _ => None,
        }
    }

    /// The element at `index` of an array.
    pub fn get_index(&self, index: usize) -> Option<&Value> {
        match self {
            Value::Array(items) => items.get(index),
            _ => None,
        }
    }

    /// The value at an RFC 6901 JSON pointer (`""` is the whole value).
    pub fn pointer(&self, pointer: &str) -> Option<&Value> {
        pointer_tokens(pointer)?.try_fold(self, |value, token| match value {
            Value::Object(map) => map.get(&token),
            Value::Array(items) => items.get(parse_pointer_index(&token)?),
            _ => None,
        })
    }

    /// The value at a path (object steps take the last duplicate key).
    pub fn at(&self, path: super::Path<'_>) -> Option<&Value> {
        let mut value = self;
        for segment in path.segments() {
            value = match (value, segment) {
                (Value::Object(map), super::Segment::Key(key)) => map.get(key)?,
                (Value::Array(items), super::Segment::Index(i)) => items.get(*i)?,
                _ => return None,
            };
        }
        Some(value)
    }

    /// The text of a string value.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The value of a boolean.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The number, if this is one.
    pub fn as_number(&self) -> Option<&Number> {
        match self {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    /// The number as an `f64` (see [`Number::as_f64`]).
    pub fn as_f64(&self) -> Option<f64> {
        self.as_number().and_then(Number::as_f64)
    }

    /// The number as an `i64`, if it is an integer in range.
    pub fn as_i64(&self) -> Option<i64> {
        self.as_number().and_then(Number::as_i64)
    }

    /// The number as a `u64`, if it is a non-negative integer in range.
    pub fn as_u64(&self) -> Option<u64> {
        self.as_number().and_then(Number::as_u64)
    }

    /// The elements of an array.
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The members of an object.
    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(map) => Some(map),
            _ => None,
        }
    }

    /// Whether this is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// Whether this is `true` or `false`.
    pub fn is_bool(&self) -> bool {
        matches!(self, Value::Bool(_))
    }

    /// Whether this is a number.
    pub fn is_number(&self) -> bool {
        matches!(self, Value::Number(_))
    }

    /// Whether this is a string.
    pub fn is_string(&self) -> bool {
        matches!(self, Value::String(_))
    }

    /// Whether this is an array.
    pub fn is_array(&self) -> bool {
        matches!(self, Value::Array(_))
    }

    /// Whether this is an object.
    pub fn is_object(&self) -> bool {
        matches!(self, Value::Object(_))
    }

    /// The member `key` of an object, mutably (the last one if repeated).
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        match self {
            Value::Object(map) => map.get_mut(key),
            _ => None,
        }
    }

    /// The element at `index` of an array, mutably.
    pub fn get_index_mut(&mut self, index: usize) -> Option<&mut Value> {
        match self {
            Value::Array(items) => items.get_mut(index),
            _ => None,
        }
    }

    /// The value at an RFC 6901 JSON pointer, mutably.
    pub fn pointer_mut(&mut self, pointer: &str) -> Option<&mut Value> {
        pointer_tokens(pointer)?.try_fold(self, |value, token| match value {
            Value::Object(map) => map.get_mut(&token),
            Value::Array(items) => items.get_mut(parse_pointer_index(&token)?),
            _ => None,
        })
    }

    /// The elements of an array, mutably.
    pub fn as_array_mut(&mut self) -> Option<&mut Vec<Value>> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The members of an object, mutably.
    pub fn as_object_mut(&mut self) -> Option<&mut Map> {
        match self {
            Value::Object(map) => Some(map),
            _ => None,
        }
    }

    /// Takes the value out, leaving `null`.
    pub fn take(&mut self) -> Value {
        core::mem::take(self)
    }

    /// The compact JSON text of this value (as `format!("{value}")`).
    pub fn to_json(&self) -> String {
        alloc::format!("{self}")
    }

    /// The JSON text indented by two spaces (as `format!("{value:#}")`).
    pub fn to_json_pretty(&self) -> String {
        alloc::format!("{self:#}")
    }

    /// A short name of the type, for messages: `"object"`, `"string"`, …
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }
}

/// The unescaped tokens of an RFC 6901 pointer (none for `""`, the whole
/// value); `None` if it is not a pointer (it does not start with `/`).
fn pointer_tokens(pointer: &str) -> Option<impl Iterator<Item = String> + '_> {
    let rest = match pointer {
        "" => None,
        _ => Some(pointer.strip_prefix('/')?),
    };
    Some(
        rest.into_iter()
            .flat_map(|rest| rest.split('/'))
            .map(unescape_pointer_token),
    )
}

fn unescape_pointer_token(token: &str) -> String {
    if token.contains('~') {
        token.replace("~1", "/").replace("~0", "~")
    } else {
        String::from(token)
    }
}

fn parse_pointer_index(token: &str) -> Option<usize> {
    // RFC 6901: no leading zeros, digits only.
    if token.is_empty() || (token.len() > 1 && token.starts_with('0')) {
        return None;
    }
    if !token.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    token.parse().ok()
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(String::from(s))
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s)
    }
}

impl From<Number> for Value {
    fn from(n: Number) -> Self {
        Value::Number(n)
    }
}

impl<T: Into<Value>> From<Vec<T>> for Value {
    fn from(items: Vec<T>) -> Self {
        Value::Array(items.into_iter().map(Into::into).collect())
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    /// `None` is `null`.
    fn from(value: Option<T>) -> Self {
        value.map_or(Value::Null, Into::into)
    }
}

impl From<()> for Value {
    fn from((): ()) -> Self {
        Value::Null
    }
}

impl From<f64> for Value {
    /// The shortest text that reads back as `f` (`1.0` stays `1.0`); NaN
    /// and the infinities, which JSON cannot write, are `null` (as in
    /// serde_json).
    fn from(f: f64) -> Self {
        Number::from_f64(f).map_or(Value::Null, Value::Number)
    }
}

impl From<f32> for Value {
    /// As [`From<f64>`](#impl-From%3Cf64%3E-for-Value), with the shortest
    /// text of the `f32` (`0.1f32` is `0.1`).
    fn from(f: f32) -> Self {
        Number::from_f32(f).map_or(Value::Null, Value::Number)
    }
}

impl<T: Into<Value>> FromIterator<T> for Value {
    /// An array of the items.
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Self {
        Value::Array(items.into_iter().map(Into::into).collect())
    }
}

/// `null`, for the indexing below to return when nothing is there.
static NULL: Value = Value::Null;

impl core::ops::Index<&str> for Value {
    type Output = Value;
    /// The member `key` (the last if repeated), or `null` if this is not an
    /// object or has no such member (as serde_json's `value["key"]`).
    fn index(&self, key: &str) -> &Value {
        self.get(key).unwrap_or(&NULL)
    }
}

impl core::ops::Index<usize> for Value {
    type Output = Value;
    /// The element at `index`, or `null` if this is not an array or is
    /// shorter (as serde_json's `value[0]`).
    fn index(&self, index: usize) -> &Value {
        self.get_index(index).unwrap_or(&NULL)
    }
}

impl From<Map> for Value {
    fn from(map: Map) -> Self {
        Value::Object(map)
    }
}

macro_rules! from_integer {
    ($($t:ty),*) => {$(
        impl From<$t> for Value {
            fn from(n: $t) -> Self {
                Value::Number(Number::from(n))
            }
        }
        impl From<$t> for Number {
            fn from(n: $t) -> Self {
                let mut buf = NumberBuf::new();
                // Writing an integer into an inline buffer cannot fail: the
                // longest (i128::MIN) is 40 bytes, which spills to the heap.
                let _ = fmt::write(&mut buf, format_args!("{n}"));
                buf.finish()
            }
        }
    )*};
}
from_integer!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

/// A JSON number, kept as its exact source text.
///
/// Numbers in LLM output are identifiers, prices and coordinates as often as
/// they are quantities; rounding them through `f64` on the way in would be
/// silent damage. The text is kept and converted on request. Texts of up to
/// 22 bytes (every `i64`, `u64` and shortest `f64`) are stored inline, so
/// number-heavy documents do not allocate per number.
#[derive(Clone)]
pub struct Number(InlineText);

impl PartialEq for Number {
    fn eq(&self, other: &Number) -> bool {
        self.0.as_bytes() == other.0.as_bytes()
    }
}

impl Eq for Number {}

impl core::hash::Hash for Number {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl Number {
    /// The number if `text` is a JSON number (RFC 8259 grammar), else `None`.
    pub fn from_text(text: &str) -> Option<Number> {
        if is_json_number(text.as_bytes()) {
            Some(Number::from_valid(text))
        } else {
            None
        }
    }

    /// Stores bytes the caller has already checked against the grammar
    /// (so all ASCII: the check below is a few word reads).
    pub(crate) fn from_valid_bytes(text: &[u8]) -> Number {
        Number::from_valid(crate::utf8::valid_prefix(text).0)
    }

    /// Stores text the caller has already checked against the grammar.
    pub(crate) fn from_valid(text: &str) -> Number {
        Number(InlineText::new(text))
    }

    /// The number exactly as written in the document.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The shortest text that reads back as `f`, keeping a fraction or an
    /// exponent (`1.0`, `1e300`) so that a float stays one; `None` for NaN
    /// and the infinities, which JSON cannot write.
    pub fn from_f64(f: f64) -> Option<Number> {
        f.is_finite().then(|| Number::from_float(&f))
    }

    /// As [`Number::from_f64`], with the shortest text of the `f32`.
    pub fn from_f32(f: f32) -> Option<Number> {
        f.is_finite().then(|| Number::from_float(&f))
    }

    /// A finite float's `Debug` text: the shortest that reads back as it.
    fn from_float(f: &dyn fmt::Debug) -> Number {
        let mut buf = NumberBuf::new();
        let _ = fmt::write(&mut buf, format_args!("{f:?}"));
        buf.finish()
    }

    /// The value as an `i128` if the text is an integer in range.
    pub fn as_i128(&self) -> Option<i128> {
        self.as_str().parse().ok()
    }

    /// The value as a `u128` if the text is a non-negative integer in range
    /// (`-0` is zero).
    pub fn as_u128(&self) -> Option<u128> {
        self.unsigned_text().parse().ok()
    }

    /// The nearest `f64` (as Rust's `str::parse`); huge magnitudes give ±∞.
    pub fn as_f64(&self) -> Option<f64> {
        self.as_str().parse().ok()
    }

    /// The value as an `i64` if the text is an integer (no fraction, no
    /// exponent) in range.
    pub fn as_i64(&self) -> Option<i64> {
        self.as_str().parse().ok()
    }

    /// The value as a `u64` if the text is a non-negative integer in range
    /// (`-0` is zero, as [`Number::as_i64`] and `from_value` have it).
    pub fn as_u64(&self) -> Option<u64> {
        self.unsigned_text().parse().ok()
    }

    /// The text for an unsigned parse: `-0` is zero.
    fn unsigned_text(&self) -> &str {
        match self.as_str() {
            "-0" => "0",
            text => text,
        }
    }

    /// Whether the text is an integer (no `.`, no exponent).
    pub fn is_integer(&self) -> bool {
        !self
            .as_str()
            .bytes()
            .any(|b| matches!(b, b'.' | b'e' | b'E'))
    }
}

impl fmt::Debug for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Number({})", self.as_str())
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Builds a number text without allocating for short ones.
struct NumberBuf {
    text: String,
}

impl NumberBuf {
    fn new() -> Self {
        NumberBuf {
            text: String::new(),
        }
    }
    fn finish(self) -> Number {
        Number::from_valid(&self.text)
    }
}

impl fmt::Write for NumberBuf {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.text.push_str(s);
        Ok(())
    }
}

/// Whether `text` matches RFC 8259's `number` production exactly.
pub(crate) fn is_json_number(text: &[u8]) -> bool {
    number_len(text) == Some(text.len())
}

/// The length of the number the grammar reads at the start of `text`
/// (greedily: every digit it can take), or `None` if `text` does not start
/// with a whole number.
pub(crate) fn number_len(text: &[u8]) -> Option<usize> {
    let digits = |from: usize| text.get(from..).map_or(0, digit_run);
    let mut i = usize::from(text.first() == Some(&b'-'));
    match text.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i += 1 + digits(i + 1),
        _ => return None,
    }
    if text.get(i) == Some(&b'.') {
        let fraction = digits(i + 1);
        if fraction == 0 {
            return None;
        }
        i += 1 + fraction;
    }
    if matches!(text.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(text.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exponent = digits(i);
        if exponent == 0 {
            return None;
        }
        i += exponent;
    }
    Some(i)
}

/// How many ASCII digits `text` starts with: eight bytes at a time, as
/// coordinates and ids are mostly digits.
fn digit_run(text: &[u8]) -> usize {
    let mut n = 0;
    while let Some(word) = text.get(n..).and_then(<[u8]>::first_chunk::<8>) {
        let w = u64::from_le_bytes(*word);
        // A byte's top bit is set here if it is above '9' or below '0'.
        // Carries and borrows only move upward, so the lowest flag is
        // exact: the first byte that is not a digit.
        let not_digit = (w.wrapping_add(0x4646_4646_4646_4646)
            | w.wrapping_sub(0x3030_3030_3030_3030))
            & 0x8080_8080_8080_8080;
        if not_digit != 0 {
            return n + (not_digit.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    let rest = text.get(n..).unwrap_or(&[]);
    n + rest.iter().take_while(|b| b.is_ascii_digit()).count()
}

/// The members of a JSON object, in document order.
///
/// A vector, not a hash map: LLM objects are small, order matters to people
/// reading them, and duplicate keys are kept rather than silently merged.
/// [`Map::get`] returns the last member with the key, as most JSON parsers
/// (serde_json, JavaScript's `JSON.parse`) resolve duplicates.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Map {
    members: Vec<(Key, Value)>,
}

impl Map {
    /// An empty object.
    pub fn new() -> Self {
        Map {
            members: Vec::new(),
        }
    }

    /// Takes the last member out.
    pub(crate) fn pop(&mut self) -> Option<(Key, Value)> {
        self.members.pop()
    }

    /// An object of these members, in this order.
    pub(crate) fn from_members(members: Vec<(Key, Value)>) -> Self {
        Map { members }
    }

    /// The value of the last member named `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.members
            .iter()
            .rev()
            .find(|(k, _)| k.as_bytes() == key.as_bytes())
            .map(|(_, v)| v)
    }

    /// The value of the last member named `key`, mutably.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.members
            .iter_mut()
            .rev()
            .find(|(k, _)| k.as_bytes() == key.as_bytes())
            .map(|(_, v)| v)
    }

    /// Whether a member named `key` exists.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Appends a member (keeping any earlier member with the same key).
    pub fn push(&mut self, key: impl Into<Key>, value: Value) {
        self.members.push((key.into(), value));
    }

    /// Sets `key`: replaces the last member with that key (returning its
    /// value), or appends.
    pub fn insert(&mut self, key: impl Into<Key>, value: Value) -> Option<Value> {
        let key = key.into();
        match self.get_mut(&key) {
            Some(slot) => Some(core::mem::replace(slot, value)),
            None => {
                self.members.push((key, value));
                None
            }
        }
    }

    /// The member names in document order (duplicates included).
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &str> + ExactSizeIterator {
        self.members.iter().map(|(k, _)| k.as_str())
    }

    /// The member values in document order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator {
        self.members.iter().map(|(_, v)| v)
    }

    /// The member values in document order, mutably.
    pub fn values_mut(
        &mut self,
    ) -> impl DoubleEndedIterator<Item = &mut Value> + ExactSizeIterator {
        self.members.iter_mut().map(|(_, v)| v)
    }

    /// The members in document order, their values mutably (a name is not
    /// changed in place: remove the member and push another).
    pub fn iter_mut(
        &mut self,
    ) -> impl DoubleEndedIterator<Item = (&Key, &mut Value)> + ExactSizeIterator {
        self.members.iter_mut().map(|(k, v)| (&*k, v))
    }

    /// The member at `index` in document order, its value mutably: with
    /// positions kept aside, an update of a large object costs no search
    /// by name.
    pub fn get_index_mut(&mut self, index: usize) -> Option<(&Key, &mut Value)> {
        self.members.get_mut(index).map(|(k, v)| (&*k, v))
    }

    /// Removes and returns the last member named `key`.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let index = self
            .members
            .iter()
            .rposition(|(k, _)| k.as_bytes() == key.as_bytes())?;
        Some(self.members.remove(index).1)
    }

    /// The number of members (duplicates counted).
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether there are no members.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The members in document order.
    pub fn iter(&self) -> core::slice::Iter<'_, (Key, Value)> {
        self.members.iter()
    }

    /// The members as a slice.
    pub fn as_slice(&self) -> &[(Key, Value)] {
        &self.members
    }

    /// The last member, mutably (where an incremental parser appends).
    pub(crate) fn last_mut(&mut self) -> Option<&mut (Key, Value)> {
        self.members.last_mut()
    }
}

impl<'a> IntoIterator for &'a Map {
    type Item = &'a (Key, Value);
    type IntoIter = core::slice::Iter<'a, (Key, Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.members.iter()
    }
}

impl IntoIterator for Map {
    type Item = (Key, Value);
    type IntoIter = alloc::vec::IntoIter<(Key, Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.members.into_iter()
    }
}

impl<K: Into<Key>> FromIterator<(K, Value)> for Map {
    fn from_iter<I: IntoIterator<Item = (K, Value)>>(iter: I) -> Self {
        Map {
            members: iter.into_iter().map(|(k, v)| (k.into(), v)).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digit_run_stops_at_the_first_byte_that_is_not_a_digit() {
        for len in 0..20 {
            for at in 0..=len {
                for b in 0..=255u8 {
                    let mut text = alloc::vec![b'7'; len];
                    if at < len {
                        text[at] = b;
                        // A byte above the stop must not matter.
                        if at + 1 < len {
                            text[at + 1] = b'/';
                        }
                    }
                    let expected = if at < len && !b.is_ascii_digit() {
                        at
                    } else if at < len {
                        text.iter().take_while(|c| c.is_ascii_digit()).count()
                    } else {
                        len
                    };
                    assert_eq!(digit_run(&text), expected, "len {len} at {at} byte {b}");
                }
            }
        }
    }
    use alloc::vec;

    #[test]
    fn number_keeps_text_and_converts() {
        let n = Number::from_text("-12").unwrap();
        assert_eq!(n.as_str(), "-12");
        assert_eq!(n.as_i64(), Some(-12));
        assert_eq!(n.as_u64(), None);
        assert_eq!(n.as_f64(), Some(-12.0));
        let big = Number::from_text("123456789012345678901234567890.5e-3").unwrap();
        assert_eq!(big.as_str(), "123456789012345678901234567890.5e-3");
        assert_eq!(big.as_i64(), None);
        assert!(!big.is_integer());
        assert_eq!(Number::from(u64::MAX).as_u64(), Some(u64::MAX));
        assert_eq!(
            Number::from(i128::MIN).as_str(),
            "-170141183460469231731687303715884105728"
        );
    }

    #[test]
    fn number_grammar() {
        for ok in ["0", "-0", "1", "-1.5", "1e5", "1E+5", "1.0e-05", "10"] {
            assert!(Number::from_text(ok).is_some(), "{ok}");
        }
        for bad in [
            "", "-", "01", "1.", ".5", "1e", "1e+", "+1", "0x1", "1 ", "NaN",
        ] {
            assert!(Number::from_text(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn map_get_returns_last_duplicate_and_keeps_order() {
        let mut m = Map::new();
        m.push("a", Value::from(1u8));
        m.push("b", Value::from(2u8));
        m.push("a", Value::from(3u8));
        assert_eq!(m.get("a"), Some(&Value::from(3u8)));
        assert_eq!(m.len(), 3);
        let keys: Vec<&str> = m.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, vec!["a", "b", "a"]);
        m.insert("b", Value::Null);
        assert_eq!(m.get("b"), Some(&Value::Null));
        assert_eq!(m.remove("a"), Some(Value::from(3u8)));
        assert_eq!(m.get("a"), Some(&Value::from(1u8)));
    }

    #[test]
    fn pointer_lookup() {
        let mut inner = Map::new();
        inner.push("a/b", Value::from("slash"));
        inner.push("m~n", Value::from("tilde"));
        let v = Value::Array(vec![Value::Null, Value::Object(inner)]);
        assert_eq!(v.pointer(""), Some(&v));
        assert_eq!(v.pointer("/1/a~1b").and_then(Value::as_str), Some("slash"));
        assert_eq!(v.pointer("/1/m~0n").and_then(Value::as_str), Some("tilde"));
        assert_eq!(v.pointer("/01"), None);
        assert_eq!(v.pointer("/2"), None);
        assert_eq!(v.pointer("x"), None);
    }
}
