//! A complete document straight into a tree of [`Value`]s: what
//! [`parse`](super::parse) does first.
//!
//! The incremental parser builds the same tree, but pays on every value
//! for being resumable: a state per grammar position, an event made for
//! every value, the value attached where the snapshot policy wants it. A
//! whole document needs none of that, so walking it here (see
//! [`walk`](super::walk)) costs clearly fewer instructions, most on
//! documents of many small values. Containers are built at their exact
//! size, as the parser builds them: the elements of the open containers
//! wait on two shared stacks and are moved into place when their
//! container closes.

use alloc::string::String;
use alloc::vec::Vec;

use super::key::Key;
use super::options::Limits;
use super::value::{Map, Number, Value};
use super::walk::{closed, decode, plain_end, walk, Literal, Sink};

/// The value of one complete document (strict RFC 8259, within `limits`),
/// or `None` for anything the walk refuses.
pub(super) fn build(input: &[u8], limits: &Limits) -> Option<Value> {
    let mut tree = Tree::default();
    walk(&mut tree, input, limits)?;
    tree.root
}

/// The tree being built.
#[derive(Default)]
struct Tree {
    /// The open containers, outermost first.
    open: Vec<Open>,
    /// The elements of the open arrays, innermost last.
    items: Vec<Value>,
    /// The members of the open objects, innermost last.
    members: Vec<(Key, Value)>,
    /// The keys whose values are being read, innermost last.
    keys: Vec<Key>,
    /// A string with escapes, decoded here, then copied at its exact size.
    decoded: String,
    /// The document's value, once complete.
    root: Option<Value>,
}

/// An open container, and where its elements start on their stack.
#[derive(Clone, Copy)]
struct Open {
    object: bool,
    from: usize,
}

impl Tree {
    /// A value is complete: it goes into the innermost container, or it is
    /// the document's.
    #[inline]
    fn attach(&mut self, value: Value) {
        match self.open.last() {
            None => self.root = Some(value),
            Some(Open { object: false, .. }) => self.items.push(value),
            Some(Open { object: true, .. }) => {
                // Each member's key was read before its value.
                let key = self.keys.pop().unwrap_or_default();
                self.members.push((key, value));
            }
        }
    }
}

impl Sink for Tree {
    #[inline]
    fn depth(&self) -> usize {
        self.open.len()
    }

    #[inline]
    fn innermost(&self) -> Option<bool> {
        self.open.last().map(|open| open.object)
    }

    #[inline]
    fn open(&mut self, object: bool, _source: &str) {
        let from = if object {
            self.members.len()
        } else {
            self.items.len()
        };
        self.open.push(Open { object, from });
    }

    #[inline]
    fn element(&mut self) {}

    fn close(&mut self) {
        let Some(Open { object, from }) = self.open.pop() else {
            return;
        };
        let value = if object {
            Value::Object(Map::from_members(self.members.drain(from..).collect()))
        } else {
            Value::Array(self.items.drain(from..).collect())
        };
        self.attach(value);
    }

    #[inline]
    fn string(&mut self, source: &str, start: usize, key: bool, limits: &Limits) -> Option<usize> {
        let input = source.as_bytes();
        let pos = plain_end(source, start)?;
        let (end, text) = if input.get(pos) == Some(&b'\\') {
            self.decoded.clear();
            let end = decode(&mut self.decoded, source, start, pos, |_, _, _| {})?;
            (end, self.decoded.as_str())
        } else {
            (pos, source.get(start..pos)?)
        };
        let after = closed(input, end, text.len(), limits)?;
        if key {
            self.keys.push(Key::from(text));
        } else {
            let value = Value::String(String::from(text));
            self.attach(value);
        }
        Some(after)
    }

    #[inline]
    fn number(&mut self, source: &str, at: usize, len: usize) {
        let text = source.get(at..at + len).unwrap_or("0");
        self.attach(Value::Number(Number::from_valid(text)));
    }

    #[inline]
    fn literal(&mut self, literal: Literal, _source: &str) {
        self.attach(match literal {
            Literal::Null => Value::Null,
            Literal::False => Value::Bool(false),
            Literal::True => Value::Bool(true),
        });
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::json::{Error, Options};
    use alloc::vec;

    /// What the incremental parser alone makes of `input`.
    fn parsed(input: &[u8], limits: Limits) -> Result<Value, Error> {
        crate::json::parse_incrementally(input, Options::new().limits(limits))
    }

    /// The walk accepts exactly what the parser accepts, with its value.
    fn agrees(input: &[u8], limits: Limits) {
        let expected = parsed(input, limits);
        let built = build(input, &limits);
        assert_eq!(built, expected.ok(), "{:?}", String::from_utf8_lossy(input));
    }

    #[test]
    fn the_walk_agrees_with_the_parser_on_every_one_byte_change() {
        let docs: [&[u8]; 3] = [
            br#"{"id":"c1","n":[0,-1.5e+3,true,false,null],"o":{"":{}},"k\n":"v"}"#,
            " [\"a\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00 é😀\", 10 ] ".as_bytes(),
            br#"{"a" : [ {} , [ ] , "x" ] , "b" : 0.5 , "a" : {"a\u0062":[[]]} }"#,
        ];
        let bytes: Vec<u8> = vec![
            0, b'\t', b'\n', b' ', b'"', b',', b'-', b'.', b'0', b'1', b':', b'E', b'[', b'\\',
            b']', b'e', b'f', b'n', b't', b'u', b'{', b'}', 0x7f, 0x80, 0xc3, 0xed, 0xff,
        ];
        for doc in docs {
            agrees(doc, Limits::new());
            for i in 0..doc.len() {
                for &b in &bytes {
                    let mut changed = doc.to_vec();
                    changed[i] = b;
                    agrees(&changed, Limits::new());
                }
                let mut dropped = doc.to_vec();
                dropped.remove(i);
                agrees(&dropped, Limits::new());
                agrees(&doc[..i], Limits::new());
            }
        }
    }

    #[test]
    fn the_walk_keeps_every_limit_as_the_parser_does() {
        let doc = br#"{"ab":[1,{"cd":"ef\ng"},-12.5],"h":"\u00e9\u00e9","ij":[[[]]]}"#;
        for depth in 0..5 {
            for string in [0, 1, 2, 3, 4, 5] {
                for number in [0, 1, 2, 4, 5] {
                    for input in [0, 10, 63, 64, 100] {
                        let limits = Limits {
                            max_depth: depth,
                            max_string_bytes: string,
                            max_number_bytes: number,
                            max_input_bytes: input,
                        };
                        agrees(doc, limits);
                    }
                }
            }
        }
    }

    /// Whatever the options, `parse_with` gives what the parser alone
    /// gives: the walk accepts only strict single documents, which every
    /// option reads alike, and leaves the rest to the parser.
    #[test]
    fn parse_with_is_the_parser_s_under_every_option() {
        let inputs: [&[u8]; 12] = [
            br#"{"a":[1,2],"a":{"b":null}}"#,
            b"[1,2,]",
            br#"{"a":1,}"#,
            b"1 2",
            b"{} x",
            b"[] []",
            b"\xEF\xBB\xBF{}",
            b" 12 ",
            b"12",
            br#""\ud800""#,
            b"",
            b"[1e5, -0.0, 123456789012345678901234567890]",
        ];
        for input in inputs {
            for bits in 0..32u8 {
                let options = Options::new()
                    .trailing_commas(bits & 1 != 0)
                    .growing_numbers(bits & 2 != 0)
                    .multiple_values(bits & 4 != 0)
                    .snapshot(bits & 8 != 0)
                    .stop_after_value(bits & 16 != 0);
                assert_eq!(
                    crate::json::parse_with(input, options),
                    crate::json::parse_incrementally(input, options),
                    "{:?} with {options:?}",
                    String::from_utf8_lossy(input)
                );
            }
        }
    }

    #[test]
    fn containers_are_built_at_their_exact_size() {
        let doc = br#"[[1,2,3],{"a":[4],"b":{"c":[5,6]}},[],{}]"#;
        let capacity = |value: &Value| match value {
            Value::Array(items) => items.capacity(),
            _ => usize::MAX,
        };
        let value = build(doc, &Limits::new()).unwrap();
        assert_eq!(capacity(&value), 4);
        let items = value.as_array().unwrap();
        assert_eq!(capacity(&items[0]), 3);
        let b = items[1].get("b").unwrap();
        assert_eq!(capacity(b.get("c").unwrap()), 2);
        assert_eq!(value, parsed(doc, Limits::new()).unwrap());
    }
}
