//! JSON text output: compact (`{value}`) and pretty (`{value:#}`).
//!
//! Written with an explicit stack rather than recursion, so a value of any
//! depth prints without risking the call stack. The output is byte-for-byte
//! what serde_json writes for the same tree (numbers aside, which keep their
//! source text).

use alloc::vec::Vec;
use core::fmt::{self, Write};

use super::key::Key;
use super::value::{Map, Value};

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pretty = f.alternate();
        write_value(f, self, pretty)
    }
}

impl fmt::Display for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pretty = f.alternate();
        write_container(f, Frame::Object(self.iter(), true), pretty)
    }
}

enum Frame<'a> {
    Array(core::slice::Iter<'a, Value>, bool),
    Object(core::slice::Iter<'a, (Key, Value)>, bool),
}

fn write_value(out: &mut dyn Write, value: &Value, pretty: bool) -> fmt::Result {
    match value {
        Value::Array(items) => write_container(out, Frame::Array(items.iter(), true), pretty),
        Value::Object(map) => write_container(out, Frame::Object(map.iter(), true), pretty),
        scalar => write_scalar(out, scalar),
    }
}

fn write_scalar(out: &mut dyn Write, value: &Value) -> fmt::Result {
    match value {
        Value::Null => out.write_str("null"),
        Value::Bool(true) => out.write_str("true"),
        Value::Bool(false) => out.write_str("false"),
        Value::Number(n) => out.write_str(n.as_str()),
        Value::String(s) => write_string(out, s),
        // Containers never reach here: write_container handles them.
        Value::Array(_) | Value::Object(_) => Ok(()),
    }
}

fn newline(out: &mut dyn Write, depth: usize) -> fmt::Result {
    out.write_char('\n')?;
    for _ in 0..depth {
        out.write_str("  ")?;
    }
    Ok(())
}

fn write_container(out: &mut dyn Write, root: Frame<'_>, pretty: bool) -> fmt::Result {
    let mut stack: Vec<Frame<'_>> = Vec::new();
    out.write_char(match root {
        Frame::Array(..) => '[',
        Frame::Object(..) => '{',
    })?;
    stack.push(root);
    loop {
        let depth = stack.len();
        let Some(frame) = stack.last_mut() else {
            break;
        };
        let (next, first): (Option<&Value>, bool) = match frame {
            Frame::Array(iter, first) => {
                let item = iter.next();
                let was_first = *first;
                if item.is_some() {
                    *first = false;
                }
                if let Some(item) = item {
                    if !was_first {
                        out.write_char(',')?;
                    }
                    if pretty {
                        newline(out, depth)?;
                    }
                    (Some(item), was_first)
                } else {
                    (None, was_first)
                }
            }
            Frame::Object(iter, first) => {
                let member = iter.next();
                let was_first = *first;
                if let Some((key, value)) = member {
                    *first = false;
                    if !was_first {
                        out.write_char(',')?;
                    }
                    if pretty {
                        newline(out, depth)?;
                    }
                    write_string(out, key)?;
                    out.write_str(if pretty { ": " } else { ":" })?;
                    (Some(value), was_first)
                } else {
                    (None, was_first)
                }
            }
        };
        match next {
            Some(Value::Array(items)) => {
                out.write_char('[')?;
                stack.push(Frame::Array(items.iter(), true));
            }
            Some(Value::Object(map)) => {
                out.write_char('{')?;
                stack.push(Frame::Object(map.iter(), true));
            }
            Some(scalar) => write_scalar(out, scalar)?,
            None => {
                let close = match stack.pop() {
                    Some(Frame::Array(..)) => ']',
                    _ => '}',
                };
                if pretty && !first {
                    newline(out, depth - 1)?;
                }
                out.write_char(close)?;
            }
        }
    }
    Ok(())
}

/// The lower-case hex digit of a nibble (0 to 15).
fn hex_digit(nibble: u8) -> u8 {
    match nibble {
        0..=9 => b'0' + nibble,
        _ => b'a' + (nibble & 0xf).saturating_sub(10),
    }
}

/// Writes `s` as a JSON string literal, escaping as serde_json does:
/// `"`, `\`, and the control characters below U+0020.
pub(crate) fn write_string(out: &mut dyn Write, s: &str) -> fmt::Result {
    out.write_char('"')?;
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: &str = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0x00..=0x1f => "",
            _ => continue,
        };
        out.write_str(s.get(start..i).unwrap_or(""))?;
        if escape.is_empty() {
            let hex = [
                b'\\',
                b'u',
                b'0',
                b'0',
                hex_digit(b >> 4),
                hex_digit(b & 0xf),
            ];
            out.write_str(core::str::from_utf8(&hex).unwrap_or(""))?;
        } else {
            out.write_str(escape)?;
        }
        start = i + 1;
    }
    out.write_str(s.get(start..).unwrap_or(""))?;
    out.write_char('"')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::value::Number;
    use alloc::string::ToString;
    use alloc::vec;

    fn sample() -> Value {
        let mut inner = Map::new();
        inner.push("k", Value::Array(vec![]));
        inner.push("o", Value::Object(Map::new()));
        let mut m = Map::new();
        m.push(
            "a",
            Value::Array(vec![Value::from(1u8), Value::Null, Value::Bool(true)]),
        );
        m.push("s", Value::from("q\"\\\n\u{1}é"));
        m.push("n", Value::Number(Number::from_text("1.5e3").unwrap()));
        m.push("in", Value::Object(inner));
        Value::Object(m)
    }

    #[test]
    fn compact() {
        assert_eq!(
            sample().to_string(),
            r#"{"a":[1,null,true],"s":"q\"\\\n\u0001é","n":1.5e3,"in":{"k":[],"o":{}}}"#
        );
        assert_eq!(Value::Array(vec![]).to_string(), "[]");
        assert_eq!(Value::from("x").to_string(), "\"x\"");
    }

    #[test]
    fn pretty_matches_serde_json_layout() {
        let expected = "{\n  \"a\": [\n    1,\n    null,\n    true\n  ],\n  \"s\": \"q\\\"\\\\\\n\\u0001é\",\n  \"n\": 1.5e3,\n  \"in\": {\n    \"k\": [],\n    \"o\": {}\n  }\n}";
        assert_eq!(sample().to_json_pretty(), expected);
    }

    #[test]
    fn deep_nesting_prints_without_recursion() {
        let mut v = Value::Null;
        for _ in 0..100_000 {
            v = Value::Array(vec![v]);
        }
        let text = v.to_string();
        assert_eq!(text.len(), 200_004);
        // Dropping a deep tree recurses in the compiler-generated Drop;
        // unwind it by hand so this test is about printing only.
        let mut cur = v;
        while let Value::Array(mut items) = cur {
            cur = items.pop().unwrap_or(Value::Null);
        }
    }
}
