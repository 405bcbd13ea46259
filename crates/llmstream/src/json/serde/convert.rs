//! Conversions between [`Value`] and `serde_json::Value` (feature
//! `serde_json`).

use alloc::string::ToString;

use crate::json::value::{Map, Number, Value};

/// Numbers keep their text (serde_json's `Display`, which is exact).
///
/// ```
/// use llmstream::json::Value;
///
/// let ours = Value::from(serde_json::json!({"a": [1, 2.5, "x", null]}));
/// assert_eq!(ours.to_json(), r#"{"a":[1,2.5,"x",null]}"#);
/// ```
impl From<serde_json::Value> for Value {
    fn from(value: serde_json::Value) -> Value {
        match value {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(b),
            serde_json::Value::Number(n) => from_number(&n),
            serde_json::Value::String(s) => Value::String(s),
            serde_json::Value::Array(items) => {
                Value::Array(items.into_iter().map(Value::from).collect())
            }
            serde_json::Value::Object(map) => Value::Object(
                map.into_iter()
                    .map(|(k, v)| (k, Value::from(v)))
                    .collect::<Map>(),
            ),
        }
    }
}

impl From<&serde_json::Value> for Value {
    fn from(value: &serde_json::Value) -> Value {
        match value {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => from_number(n),
            serde_json::Value::String(s) => Value::String(s.clone()),
            serde_json::Value::Array(items) => {
                Value::Array(items.iter().map(Value::from).collect())
            }
            serde_json::Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), Value::from(v)))
                    .collect::<Map>(),
            ),
        }
    }
}

fn from_number(n: &serde_json::Number) -> Value {
    // serde_json writes every Number it holds as valid JSON text.
    Number::from_text(&n.to_string()).map_or(Value::Null, Value::Number)
}

/// Numbers go through `serde_json::Number`'s parser: exact with
/// serde_json's `arbitrary_precision` feature, otherwise the
/// best-fitting `u64`/`i64`/`f64`. A number beyond `f64`'s range
/// (`1e400`), which serde_json cannot hold, becomes `null`. Objects keep
/// the last of duplicate keys, as [`Map::get`] does.
///
/// ```
/// let ours = llmstream::json::parse(br#"{"a":[1,2.5,"x",null]}"#)?;
/// let theirs = serde_json::Value::from(&ours);
/// assert_eq!(theirs, serde_json::json!({"a": [1, 2.5, "x", null]}));
/// # Ok::<(), llmstream::json::Error>(())
/// ```
impl From<&Value> for serde_json::Value {
    fn from(value: &Value) -> serde_json::Value {
        match value {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Number(n) => n
                .as_str()
                .parse::<serde_json::Number>()
                .map_or(serde_json::Value::Null, serde_json::Value::Number),
            Value::String(s) => serde_json::Value::String(s.clone()),
            Value::Array(items) => {
                serde_json::Value::Array(items.iter().map(serde_json::Value::from).collect())
            }
            Value::Object(map) => {
                let mut out = serde_json::Map::new();
                for (k, v) in map {
                    out.insert(k.as_str().into(), serde_json::Value::from(v));
                }
                serde_json::Value::Object(out)
            }
        }
    }
}

/// As `From<&Value>`.
impl From<Value> for serde_json::Value {
    fn from(value: Value) -> serde_json::Value {
        serde_json::Value::from(&value)
    }
}
