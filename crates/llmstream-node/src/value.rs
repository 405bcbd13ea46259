//! The library's `json::Value` as JavaScript values, as `JSON.parse` gives
//! them: `null`, booleans, numbers (the nearest double), strings, arrays
//! and plain objects with their members in document order. With the
//! `bigint` option an integer beyond 2^53 is a `BigInt`, exact. Every
//! object the package returns (events, messages, errors) is one of the
//! library's own JSON forms converted here, never a mapping of its own.

use std::collections::HashMap;

use llmstream::json::{self, Node, Number, Value};
use napi::bindgen_prelude::*;
use napi::{Env, JsString, JsValue, Unknown};

/// How numbers become JavaScript values.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub enum Integers {
    /// Every number a double, as `JSON.parse` reads it.
    #[default]
    Doubles,
    /// An integer beyond `Number.MAX_SAFE_INTEGER` a `BigInt`, exact.
    BigInt,
}

/// Converts `value` to the JavaScript value of the same JSON meaning.
pub fn to_js<'env>(env: &'env Env, value: &Value, integers: Integers) -> Result<Unknown<'env>> {
    Converter::new(env, integers).convert(value)
}

/// A conversion that makes each distinct short object key one JavaScript
/// string, reused wherever the key appears again in the same conversion:
/// a document's keys repeat, and V8 then finds the key's property without
/// decoding and hashing a new string.
pub struct Converter<'env> {
    env: &'env Env,
    integers: Integers,
    keys: HashMap<Box<str>, JsString<'env>>,
    /// A string's UTF-16, reused from string to string.
    utf16: Vec<u16>,
}

impl<'env> Converter<'env> {
    /// Keys longer than this are made afresh: they rarely repeat.
    const KEY_LEN: usize = 64;
    /// At most this many keys are kept, so that a document of distinct
    /// keys costs no more than the strings themselves.
    const KEYS: usize = 4096;

    pub fn new(env: &'env Env, integers: Integers) -> Self {
        Converter {
            env,
            integers,
            keys: HashMap::new(),
            utf16: Vec::new(),
        }
    }

    /// The environment values are made in.
    pub fn env(&self) -> &'env Env {
        self.env
    }

    /// The JavaScript value of `value`.
    pub fn convert(&mut self, value: &Value) -> Result<Unknown<'env>> {
        let env = self.env;
        match value {
            Value::Null => Null.into_unknown(env),
            Value::Bool(b) => b.into_unknown(env),
            Value::Number(n) => self.number(n),
            Value::String(s) => Ok(self.string(s)?.to_unknown()),
            Value::Array(items) => {
                let mut array = env.create_array(index(items.len())?)?;
                for (at, item) in items.iter().enumerate() {
                    array.set(index(at)?, self.convert(item)?)?;
                }
                array.into_unknown(env)
            }
            Value::Object(map) => {
                let mut object = Object::new(env)?;
                for (key, item) in map.iter() {
                    let item = self.convert(item)?;
                    self.set_member(&mut object, key.as_str(), item)?;
                }
                Ok(object.to_unknown())
            }
        }
    }

    /// The JavaScript value of the value a strict parse read into a tape:
    /// as [`Converter::convert`] of the same value, without building it
    /// first.
    pub fn convert_node(&mut self, node: Node<'_>) -> Result<Unknown<'env>> {
        let env = self.env;
        if let Some(text) = node.as_str() {
            return Ok(self.string(text)?.to_unknown());
        }
        if let Some(text) = node.as_number() {
            return self.number_text(text);
        }
        if let Some(b) = node.as_bool() {
            return b.into_unknown(env);
        }
        if node.is_array() {
            let mut array = env.create_array(index(node.len().unwrap_or(0))?)?;
            for (at, item) in node.elements().enumerate() {
                array.set(index(at)?, self.convert_node(item)?)?;
            }
            return array.into_unknown(env);
        }
        if node.is_object() {
            let mut object = Object::new(env)?;
            for (key, item) in node.members() {
                let item = self.convert_node(item)?;
                self.set_member(&mut object, key, item)?;
            }
            return Ok(object.to_unknown());
        }
        Null.into_unknown(env)
    }

    /// Sets member `key` of `object` as `JSON.parse` does: an own data
    /// property, `__proto__` included (an assignment to that key would call
    /// the prototype's setter instead of making a member).
    pub fn set_member(
        &mut self,
        object: &mut impl JsObjectValue<'env>,
        key: &str,
        value: Unknown<'env>,
    ) -> Result<()> {
        if key == "__proto__" {
            let member = Property::new()
                .with_utf8_name(key)?
                .with_value(&value)
                .with_property_attributes(
                    PropertyAttributes::Writable
                        | PropertyAttributes::Enumerable
                        | PropertyAttributes::Configurable,
                );
            return object.define_properties(&[member]);
        }
        let key = self.key(key)?;
        object.set_property(key, value)
    }

    /// The JavaScript string of `text`. Not by `napi_create_string_utf8`:
    /// V8 decodes UTF-8 that is not all ASCII several times slower than it
    /// copies code units, so ASCII goes as Latin-1 bytes (copied as they
    /// are) and other text as its UTF-16, transcoded here.
    pub fn string(&mut self, text: &str) -> Result<JsString<'env>> {
        if text.is_ascii() {
            return self.env.create_string_latin1(text.as_bytes());
        }
        utf16_of(text, &mut self.utf16);
        self.env.create_string_utf16(&self.utf16)
    }

    /// The JavaScript string of an object key.
    pub fn key(&mut self, key: &str) -> Result<JsString<'env>> {
        if key.len() > Self::KEY_LEN {
            return self.string(key);
        }
        if let Some(cached) = self.keys.get(key) {
            return Ok(*cached);
        }
        let made = self.string(key)?;
        if self.keys.len() < Self::KEYS {
            self.keys.insert(key.into(), made);
        }
        Ok(made)
    }

    /// A number as `JSON.parse` reads it (the nearest double), or with
    /// [`Integers::BigInt`] an integer beyond 2^53 as an exact `BigInt`.
    fn number(&self, n: &Number) -> Result<Unknown<'env>> {
        self.number_text(n.as_str())
    }

    /// [`Converter::number`] of a number's JSON text.
    fn number_text(&self, text: &str) -> Result<Unknown<'env>> {
        let double = text.parse::<f64>().unwrap_or(f64::NAN);
        if self.integers == Integers::BigInt
            && double.abs() > MAX_SAFE_INTEGER
            && !text.contains(['.', 'e', 'E'])
        {
            return bigint(self.env, text);
        }
        double.into_unknown(self.env)
    }
}

/// The UTF-16 of `text` into `out`: runs of ASCII a byte at a time (the
/// bulk of most text), other characters decoded.
fn utf16_of(text: &str, out: &mut Vec<u16>) {
    out.clear();
    out.reserve(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let ascii = rest.bytes().take_while(u8::is_ascii).count();
        out.extend(rest.as_bytes().iter().take(ascii).map(|&b| u16::from(b)));
        rest = rest.get(ascii..).unwrap_or("");
        let mut chars = rest.chars();
        if let Some(c) = chars.next() {
            let mut units = [0u16; 2];
            out.extend_from_slice(c.encode_utf16(&mut units));
            rest = chars.as_str();
        }
    }
}

/// `Number.MAX_SAFE_INTEGER`.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// An array index or length: JavaScript arrays hold fewer than 2^32 items.
pub fn index(at: usize) -> Result<u32> {
    u32::try_from(at)
        .map_err(|_| Error::from_reason("an array longer than JavaScript arrays can be"))
}

/// The `BigInt` of a decimal integer's text, exact whatever its size: its
/// digits folded into 64-bit words, least significant first.
fn bigint<'env>(env: &'env Env, text: &str) -> Result<Unknown<'env>> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let mut words: Vec<u64> = vec![0];
    for digit in digits.bytes() {
        let mut carry = u128::from(digit.wrapping_sub(b'0') % 10);
        for word in words.iter_mut() {
            let wide = u128::from(*word) * 10 + carry;
            *word = wide as u64;
            carry = wide >> 64;
        }
        if carry > 0 {
            words.push(carry as u64);
        }
    }
    BigInt {
        sign_bit: negative,
        words,
    }
    .into_unknown(env)
}

/// A JSON form the library writes into a sink (`Event::write_json`,
/// `ItemRef::write_json`), read back into a value and converted.
pub fn form_to_js<'env>(
    env: &'env Env,
    write: impl FnOnce(&mut dyn json::Sink),
) -> Result<Unknown<'env>> {
    let mut text: Vec<u8> = Vec::new();
    write(&mut text);
    let value = json::parse(&text).map_err(|e| Error::from_reason(e.to_string()))?;
    to_js(env, &value, Integers::Doubles)
}
