//! `Serialize` for [`Value`], [`Number`] and [`Map`].

use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::json::key::Key as MemberKey;
use crate::json::value::{Map, Number, Value};

/// Numbers serialize as the best-fitting of `u64`, `i64` and `f64`, from
/// their exact text: an integer in the range of `u64` or `i64` as that
/// integer, anything else (fractions, exponents, larger integers) as the
/// nearest `f64`. Every serde format understands these three; the exact text
/// stays available from [`Number::as_str`], and the `serde_json` feature's
/// conversion keeps it exact when serde_json's `arbitrary_precision` is on.
impl Serialize for Number {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let text = self.as_str();
        if self.is_integer() {
            if let Ok(n) = text.parse::<u64>() {
                return serializer.serialize_u64(n);
            }
            if let Ok(n) = text.parse::<i64>() {
                return serializer.serialize_i64(n);
            }
            // Not `serialize_u128`: serde_json writes it as text, but
            // `serde_json::to_value` (and `json!`) refuse it.
        }
        // A valid JSON number always parses as an f64 (huge ones as ±∞,
        // which serde_json writes as `null`).
        serializer.serialize_f64(text.parse::<f64>().unwrap_or(f64::NAN))
    }
}

impl Serialize for MemberKey {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// Members serialize in document order, duplicates included.
impl Serialize for Map {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.len()))?;
        for (key, value) in self {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// ```
/// use llmstream::json::{parse, Value};
///
/// let value = parse(br#"{"city":"Oslo","days":3,"rain":0.25,"tags":[]}"#)?;
/// let text = serde_json::to_string(&value).unwrap();
/// assert_eq!(text, r#"{"city":"Oslo","days":3,"rain":0.25,"tags":[]}"#);
/// let back: Value = serde_json::from_str(&text).unwrap();
/// assert_eq!(back, value);
/// # Ok::<(), llmstream::json::Error>(())
/// ```
impl Serialize for Value {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Number(n) => n.serialize(serializer),
            Value::String(s) => serializer.serialize_str(s),
            Value::Array(items) => serializer.collect_seq(items),
            Value::Object(map) => map.serialize(serializer),
        }
    }
}
