//! `Deserialize` for [`Value`], [`Number`] and [`Map`]: from any serde
//! format into the document model.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Unexpected, Visitor};
use serde::Deserialize;

use crate::json::value::{Map, Number, Value};

/// The key serde_json uses to pass a number's text through (its
/// `arbitrary_precision` feature); accepted so such numbers stay exact.
pub(super) const SERDE_JSON_NUMBER: &str = "$serde_json::private::Number";

/// The newtype name [`Value`]'s `Deserialize` asks for: other formats see
/// an ordinary newtype (and hand over what they have), while reading out of
/// one of our values, it says the target is a `Value` too, which then
/// gets every number's text exactly (`1.10`, `1e400`, 30-digit integers),
/// where `deserialize_any` can only offer an `f64` or a 64-bit integer.
pub(super) const VALUE_TOKEN: &str = "$llmstream::private::Value";

pub(super) fn number_from_f64<E: de::Error>(f: f64) -> Result<Number, E> {
    Number::from_f64(f).ok_or_else(|| {
        E::invalid_value(
            Unexpected::Float(f),
            &"a finite number (JSON has no NaN or infinity)",
        )
    })
}

pub(super) fn number_from_text<E: de::Error>(text: &str) -> Result<Number, E> {
    Number::from_text(text)
        .ok_or_else(|| E::invalid_value(Unexpected::Str(text), &"the text of a JSON number"))
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_i128<E: de::Error>(self, n: i128) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_u128<E: de::Error>(self, n: u128) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_f64<E: de::Error>(self, f: f64) -> Result<Value, E> {
        number_from_f64(f).map(Value::Number)
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(String::from(s)))
    }
    fn visit_string<E: de::Error>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        // Not `Value::deserialize`: it would ask for the newtype again.
        d.deserialize_any(ValueVisitor)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut map = Map::new();
        let Some(first) = access.next_key::<String>()? else {
            return Ok(Value::Object(map));
        };
        if first == SERDE_JSON_NUMBER {
            let text: String = access.next_value()?;
            return number_from_text(&text).map(Value::Number);
        }
        map.push(first, access.next_value()?);
        while let Some((key, value)) = access.next_entry::<String, Value>()? {
            map.push(key, value);
        }
        Ok(Value::Object(map))
    }
}

/// Accepts whatever a serde format produces: integers of any width, finite
/// floats (kept as their shortest round-trip text, `1.0` stays `1.0`),
/// and serde_json's `arbitrary_precision` numbers exactly as written.
///
/// It asks the format for a newtype (see `VALUE_TOKEN`), which self-
/// describing formats pass through (serde_json, CBOR, MessagePack, TOML,
/// serde's own buffering); RON, which spells a newtype out by name, needs
/// its `unwrap_newtypes` extension to read one.
impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_newtype_struct(VALUE_TOKEN, ValueVisitor)
    }
}

/// Accepts a number from any serde format (see [`Value`]'s `Deserialize`).
impl<'de> Deserialize<'de> for Number {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Number, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::Number(n) => Ok(n),
            other => Err(de::Error::invalid_type(unexpected(&other), &"a number")),
        }
    }
}

/// Accepts a map from any serde format; members keep their order.
impl<'de> Deserialize<'de> for Map {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Map, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::Object(map) => Ok(map),
            other => Err(de::Error::invalid_type(unexpected(&other), &"an object")),
        }
    }
}

pub(super) fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Unexpected::Unsigned(u),
            (_, Some(i)) => Unexpected::Signed(i),
            _ => Unexpected::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}
