//! Lists of values packed for JavaScript to build (`unpackList` in
//! index.js): the events of a `Pipeline`, `ArgumentStreams` or
//! `ActionStream` feed.
//!
//! Made through N-API one member at a time, a small event costs a dozen
//! calls, each several thousand instructions of V8's generic property
//! store. Packed, a feed's events are three parts: the strings and new
//! keys that are ASCII one after another, as one JavaScript string (made
//! from Latin-1, a copy), the others as UTF-8 (read by `TextDecoder`), and
//! a list of numbers saying what to build, which a JavaScript loop turns
//! into the objects by slicing those two strings. The objects are the
//! same.

use std::collections::HashMap;

use llmstream::json::Value;
use napi::bindgen_prelude::*;
use napi::Env;

/// The codes of the list, each followed by its operands.
mod op {
    pub const NULL: f64 = 0.0;
    pub const FALSE: f64 = 1.0;
    pub const TRUE: f64 = 2.0;
    /// The number follows.
    pub const NUMBER: f64 = 3.0;
    /// An ASCII string: where it ends in the ASCII text follows.
    pub const STRING: f64 = 4.0;
    /// The number of items follows, then the items.
    pub const ARRAY: f64 = 5.0;
    /// The number of members follows, then per member its key and value.
    pub const OBJECT: f64 = 6.0;
    /// An ASCII key not seen before: where it ends in the ASCII text
    /// follows (it takes the next key number).
    pub const NEW_KEY: f64 = 8.0;
    /// A key seen before: its number follows.
    pub const KEY: f64 = 9.0;
    /// A string that is not ASCII: where it ends in the other text follows
    /// (in UTF-16 code units, as JavaScript counts).
    pub const TEXT: f64 = 10.0;
    /// A key not seen before that is not ASCII: where it ends in the other
    /// text follows.
    pub const NEW_TEXT_KEY: f64 = 11.0;
}

/// A packed list of values, built one value at a time.
#[derive(Default)]
pub struct Packer {
    /// The ASCII strings and keys.
    ascii: Vec<u8>,
    /// The other strings and keys.
    text: String,
    /// The length of `text` in UTF-16 code units.
    units: usize,
    ops: Vec<f64>,
    /// The number of each short key sent, so that a repeated key is one
    /// JavaScript string.
    keys: HashMap<String, u32>,
    /// The keys sent whole so far (each takes the next number in
    /// JavaScript).
    new_keys: u32,
    /// The values added.
    len: usize,
}

impl Packer {
    /// Keys longer than this are sent again each time: they rarely repeat.
    const KEY_LEN: usize = 64;
    /// At most this many keys are numbered.
    const KEYS: usize = 4096;

    /// Adds `value` to the list.
    pub fn push(&mut self, value: &Value) {
        self.len += 1;
        self.value(value);
    }

    fn value(&mut self, value: &Value) {
        match value {
            Value::Null => self.ops.push(op::NULL),
            Value::Bool(false) => self.ops.push(op::FALSE),
            Value::Bool(true) => self.ops.push(op::TRUE),
            // As `JSON.parse` reads it: the nearest double.
            Value::Number(n) => {
                let double = n.as_f64().unwrap_or(f64::NAN);
                self.ops.extend([op::NUMBER, double]);
            }
            Value::String(s) => self.text(s, op::STRING, op::TEXT),
            Value::Array(items) => {
                self.ops.extend([op::ARRAY, items.len() as f64]);
                for item in items {
                    self.value(item);
                }
            }
            Value::Object(map) => {
                self.ops.extend([op::OBJECT, map.len() as f64]);
                for (key, item) in map.iter() {
                    self.key(key.as_str());
                    self.value(item);
                }
            }
        }
    }

    fn key(&mut self, key: &str) {
        if let Some(&number) = self.keys.get(key) {
            self.ops.extend([op::KEY, f64::from(number)]);
            return;
        }
        self.text(key, op::NEW_KEY, op::NEW_TEXT_KEY);
        let number = self.new_keys;
        self.new_keys += 1;
        if key.len() <= Self::KEY_LEN && self.keys.len() < Self::KEYS {
            self.keys.insert(key.to_string(), number);
        }
    }

    /// Appends `s` to the ASCII text or, where it is not ASCII, to the
    /// other, with its code and where it ends there.
    fn text(&mut self, s: &str, ascii: f64, other: f64) {
        if s.is_ascii() {
            self.ascii.extend_from_slice(s.as_bytes());
            self.ops.extend([ascii, self.ascii.len() as f64]);
        } else {
            self.text.push_str(s);
            self.units += utf16_len(s);
            self.ops.extend([other, self.units as f64]);
        }
    }

    /// The packed list, `[ascii, text, ops, count]` (`ascii` a string,
    /// `text` UTF-8 bytes), for `unpackList` in index.js.
    pub fn to_js<'env>(&self, env: &'env Env) -> Result<Array<'env>> {
        let mut packed = env.create_array(4)?;
        packed.set(0, env.create_string_latin1(&self.ascii)?)?;
        packed.set(1, BufferSlice::copy_from(env, self.text.as_bytes())?)?;
        packed.set(2, Float64ArraySlice::copy_from(env, &self.ops)?)?;
        packed.set(3, self.len as f64)?;
        Ok(packed)
    }
}

/// `values` packed, for `unpackList` in index.js.
pub fn pack_all<'env>(env: &'env Env, values: impl Iterator<Item = Value>) -> Result<Array<'env>> {
    let mut packer = Packer::default();
    for value in values {
        packer.push(&value);
    }
    packer.to_js(env)
}

/// The length of `text` in UTF-16 code units: one per character, two for
/// a character beyond U+FFFF. Counted eight bytes at a time: the bytes
/// less the continuation bytes (`10xxxxxx`), plus the lead bytes of
/// four-byte sequences (`11110xxx`).
pub fn utf16_len(text: &str) -> usize {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let bytes = text.as_bytes();
    let mut units = bytes.len();
    let mut words = bytes.chunks_exact(8);
    for chunk in &mut words {
        let w = chunk.try_into().map_or(0, u64::from_le_bytes);
        let continuation = w & !(w << 1) & HIGH;
        let four_byte_lead = w & (w << 1) & (w << 2) & (w << 3) & HIGH;
        units -= continuation.count_ones() as usize;
        units += four_byte_lead.count_ones() as usize;
    }
    for &b in words.remainder() {
        units -= usize::from(b & 0xC0 == 0x80);
        units += usize::from(b >= 0xF0);
    }
    units
}

#[cfg(test)]
mod tests {
    use super::utf16_len;

    #[test]
    fn utf16_len_counts_what_javascript_counts() {
        let long = "aé漢😀 b".repeat(9);
        let texts = [
            "",
            "a",
            "héllo wörld, ça va?",
            "漢字とかな",
            "😀 and 🎉!",
            &long,
        ];
        for text in texts {
            let expected = text.encode_utf16().count();
            assert_eq!(utf16_len(text), expected, "{text}");
            for (cut, _) in text.char_indices() {
                let (head, tail) = text.split_at(cut);
                assert_eq!(
                    utf16_len(head) + utf16_len(tail),
                    expected,
                    "{text} at {cut}"
                );
            }
        }
    }
}
