//! JSON text output: compact (`{value}`) and pretty (`{value:#}`).
//!
//! Written with an explicit stack rather than recursion, so a value of any
//! depth prints without risking the call stack. The output is byte-for-byte
//! what serde_json writes for the same tree (numbers aside, which keep their
//! source text).

use alloc::vec::Vec;
use core::fmt::{self, Write};

use super::key::Key;
use super::scan::{run_end_bits, string_run_end};
use super::value::{Map, Value};

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let layout = if f.alternate() {
            Layout::Pretty
        } else {
            Layout::Compact
        };
        write_value(f, self, layout)
    }
}

impl fmt::Display for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let layout = if f.alternate() {
            Layout::Pretty
        } else {
            Layout::Compact
        };
        write_container(f, Frame::Object(Members::All(self.iter()), true), layout)
    }
}

/// Writes `value` as compact JSON with each object key once, at its first
/// position with its last value (see [`super::unique`]): what a JSON
/// parser reads from the value as written, for output that must say
/// nothing twice (the snapshot chunker's).
pub(crate) fn write_unique(out: &mut dyn Write, value: &Value) -> fmt::Result {
    write_value(out, value, Layout::UniqueKeys)
}

/// How a value is laid out.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// No whitespace, every member as it is.
    Compact,
    /// Two-space indents, as serde_json's pretty printer.
    Pretty,
    /// Compact, each object key once ([`write_unique`]).
    UniqueKeys,
}

/// The members of an object, as they are or with each key once.
enum Members<'a> {
    All(core::slice::Iter<'a, (Key, Value)>),
    Unique(alloc::vec::IntoIter<(&'a str, &'a Value)>),
}

impl<'a> Members<'a> {
    fn of(map: &'a Map, layout: Layout) -> Self {
        match layout {
            Layout::UniqueKeys => Members::Unique(super::unique::unique(map).into_iter()),
            Layout::Compact | Layout::Pretty => Members::All(map.iter()),
        }
    }
}

impl<'a> Iterator for Members<'a> {
    type Item = (&'a str, &'a Value);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Members::All(iter) => iter.next().map(|(key, value)| (key.as_str(), value)),
            Members::Unique(iter) => iter.next(),
        }
    }
}

enum Frame<'a> {
    Array(core::slice::Iter<'a, Value>, bool),
    Object(Members<'a>, bool),
}

fn write_value(out: &mut dyn Write, value: &Value, layout: Layout) -> fmt::Result {
    match value {
        Value::Array(items) => write_container(out, Frame::Array(items.iter(), true), layout),
        Value::Object(map) => {
            write_container(out, Frame::Object(Members::of(map, layout), true), layout)
        }
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

fn write_container(out: &mut dyn Write, root: Frame<'_>, layout: Layout) -> fmt::Result {
    let pretty = layout == Layout::Pretty;
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
                stack.push(Frame::Object(Members::of(map, layout), true));
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

/// The escape of a byte that needs one in a JSON string: `"`, `\` and
/// the control characters below U+0020, spelled as serde_json spells them
/// (short forms where JSON has one, else `\u00XX`); `None` for the rest.
fn escape(b: u8) -> Option<&'static str> {
    const CONTROL: [&str; 32] = [
        "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007",
        "\\b", "\\t", "\\n", "\\u000b", "\\f", "\\r", "\\u000e", "\\u000f", "\\u0010", "\\u0011",
        "\\u0012", "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017", "\\u0018", "\\u0019",
        "\\u001a", "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f",
    ];
    match b {
        b'"' => Some("\\\""),
        b'\\' => Some("\\\\"),
        _ => CONTROL.get(usize::from(b)).copied(),
    }
}

/// The index of the first byte of `bytes` at or after `from` that needs an
/// escape (those that end a plain run in the parser's string scan, sixteen
/// bytes at a time), or `bytes.len()`.
fn next_escape(bytes: &[u8], from: usize) -> usize {
    from + string_run_end(bytes.get(from..).unwrap_or(&[]))
}

/// Writes `s` as a JSON string literal, escaping as serde_json does:
/// `"`, `\`, and the control characters below U+0020.
pub(crate) fn write_string(out: &mut dyn Write, s: &str) -> fmt::Result {
    out.write_char('"')?;
    write_string_contents(out, s)?;
    out.write_char('"')
}

/// Writes `s` escaped for the inside of a JSON string literal, without the
/// quotes. Escaping goes character by character, so a string written in
/// pieces reads the same as written whole.
pub(crate) fn write_string_contents(out: &mut dyn Write, s: &str) -> fmt::Result {
    let bytes = s.as_bytes();
    let mut start = 0;
    loop {
        let at = next_escape(bytes, start);
        // `at` is at an ASCII byte or the end: a character boundary.
        out.write_str(s.get(start..at).unwrap_or(""))?;
        match bytes.get(at).copied().and_then(escape) {
            Some(escaped) => out.write_str(escaped)?,
            None => break,
        }
        start = at + 1;
    }
    Ok(())
}

/// Appends `s` to `out` as a JSON string literal, quotes included, escaped
/// as serde_json escapes it (and as [`Value`]'s `Display` writes strings):
/// `"` and `\` with a backslash, the control characters below U+0020 as
/// `\n`, `\t`, … or `\u00XX`, everything else as it is. The bytes appended
/// are UTF-8, as `s` is.
///
/// For output built in a byte buffer (a line of JSON Lines, an I/O
/// buffer). Sixteen bytes are tested at once, by the parser's own string
/// scan; a run without escapes is copied whole, and one shorter than
/// sixteen bytes (an escape every few bytes: JSON inside JSON) as its
/// whole block, cut back at the escape.
///
/// ```
/// let mut line = b"{\"text\":".to_vec();
/// llmstream::json::write_json_string(&mut line, "say \"hi\"\n");
/// line.push(b'}');
/// assert_eq!(line, br#"{"text":"say \"hi\"\n"}"#);
/// ```
pub fn write_json_string(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    // The run not yet copied starts at `start`; the bytes from there to
    // `base` need no escape.
    let mut start = 0;
    let mut base = 0;
    while base < bytes.len() {
        let bits = run_end_bits(bytes, base);
        if bits == 0 {
            base += 16;
            continue;
        }
        let at = base + bits.trailing_zeros() as usize;
        match bytes.get(start..).and_then(<[u8]>::first_chunk::<16>) {
            Some(block) if at - start < 16 => {
                out.extend_from_slice(block);
                out.truncate(out.len() - (16 - (at - start)));
            }
            _ => out.extend_from_slice(bytes.get(start..at).unwrap_or(&[])),
        }
        push_escape(out, bytes.get(at).copied().unwrap_or(b'"'));
        start = at + 1;
        base = start;
    }
    out.extend_from_slice(bytes.get(start..).unwrap_or(&[]));
    out.push(b'"');
}

/// Appends the escape of `b`, a byte that needs one: the two bytes of
/// `\"` and `\\` (the common ones, in JSON inside JSON) without a copy of
/// unknown length.
fn push_escape(out: &mut Vec<u8>, b: u8) {
    match b {
        b'"' | b'\\' => out.extend_from_slice(&[b'\\', b]),
        _ => out.extend_from_slice(escape(b).unwrap_or("").as_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::value::Number;
    use alloc::string::{String, ToString};
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
    fn unique_keys_keep_the_first_position_and_the_last_value() {
        let v =
            crate::json::parse(br#"{"a":1,"b":{"x":1,"x":[2,{"y":1,"y":"z"}]},"a":3,"c":"\n"}"#)
                .unwrap();
        let mut out = String::new();
        write_unique(&mut out, &v).unwrap();
        assert_eq!(out, r#"{"a":3,"b":{"x":[2,{"y":"z"}]},"c":"\n"}"#);
        // Without repeats, the compact form.
        let v = sample();
        out.clear();
        write_unique(&mut out, &v).unwrap();
        assert_eq!(out, v.to_string());
        // Deep values, without recursion.
        let mut deep = Value::Null;
        for _ in 0..100_000 {
            let mut m = Map::new();
            m.push("k", deep);
            deep = Value::Object(m);
        }
        out.clear();
        write_unique(&mut out, &deep).unwrap();
        assert_eq!(out.len(), 100_000 * 6 + 4);
        let mut cur = deep;
        while let Value::Object(mut m) = cur {
            cur = m.remove("k").unwrap_or(Value::Null);
        }
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

    /// Every escape, at every position of a sixteen-byte block and in the
    /// tail after the last whole block, as serde_json writes it.
    #[test]
    fn strings_escape_as_serde_json() {
        let mut texts: Vec<String> = Vec::new();
        for c in (0u8..0x80)
            .map(char::from)
            .chain(['é', '東', '🙂', '\u{7f}'])
        {
            for before in 0..40 {
                let mut text: String = "ab".repeat(before).chars().take(before).collect();
                text.push(c);
                text.push_str("tail\"x");
                texts.push(text);
            }
        }
        texts.push(String::new());
        texts.push("\"\\\n\u{0}\u{1f}".repeat(9));
        for text in texts {
            let expected = serde_json::to_string(&text).unwrap();
            let mut out = b"x".to_vec();
            write_json_string(&mut out, &text);
            assert_eq!(out.get(1..), Some(expected.as_bytes()), "{text:?}");
            assert_eq!(Value::from(text.as_str()).to_string(), expected, "{text:?}");
        }
    }
}
