//! How a response body is framed, told from its first byte that is not
//! whitespace: a `text/event-stream` (the streaming APIs' own), or JSON
//! values one after another (JSON Lines recordings, a whole completion
//! when `stream: true` was forgotten), or one JSON array of payloads
//! (Gemini's `streamGenerateContent` without `alt=sse`).

use alloc::vec::Vec;

use crate::json::scan::is_whitespace;

/// The framing of a body, once its first meaningful byte is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Framing {
    /// Server-sent events.
    Sse,
    /// JSON values one after another (each line one, or a document
    /// written over several lines).
    Values,
    /// One JSON array whose elements are the payloads.
    Array,
}

impl Framing {
    /// The framing a body starting with `byte` (its first byte that is
    /// not whitespace nor a byte order mark) has.
    pub(crate) fn of(byte: u8) -> Framing {
        match byte {
            b'{' => Framing::Values,
            b'[' => Framing::Array,
            _ => Framing::Sse,
        }
    }
}

/// The first byte of `bytes` that is not whitespace, past a UTF-8 byte
/// order mark at `bytes`' start when `at_start`.
pub(crate) fn first_meaningful(bytes: &[u8], at_start: bool) -> Option<u8> {
    let bytes = match at_start {
        true => bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes),
        false => bytes,
    };
    bytes.iter().copied().find(|&b| !is_whitespace(b))
}

/// The most bytes one JSON payload may take: past it the payload is left
/// out (and said to be), so that a body that never closes its value
/// cannot grow the buffer without bound.
pub(crate) const MAX_PAYLOAD: usize = 64 << 20;

/// Splits JSON text fed in pieces into its payloads: the top-level values
/// (or, for [`Framing::Array`], the outer array's elements), each handed
/// out whole as soon as its last byte arrives. Only the value in progress
/// is buffered. It finds where values end and does not check them:
/// each is parsed when handed out, and an error is said then.
#[derive(Clone, Debug)]
pub(crate) struct JsonValues {
    /// The value in progress, from its first byte.
    buf: Vec<u8>,
    /// Nesting depth, the outer array's included.
    depth: u32,
    /// The depth values are found at: 1 in an array body, 0 otherwise.
    base: u32,
    in_string: bool,
    escaped: bool,
    /// A value is in progress (its bytes are in `buf`).
    in_value: bool,
    /// The value in progress outgrew [`MAX_PAYLOAD`]: its bytes are
    /// dropped until it ends.
    dropping: bool,
}

/// What [`JsonValues::feed`] found, one at a time.
pub(crate) enum Found<'a> {
    /// A whole payload.
    Value(&'a [u8]),
    /// A payload over [`MAX_PAYLOAD`] bytes, left out.
    TooLarge,
}

impl JsonValues {
    pub(crate) fn new(framing: Framing) -> Self {
        JsonValues {
            buf: Vec::new(),
            depth: 0,
            base: u32::from(framing == Framing::Array),
            in_string: false,
            escaped: false,
            in_value: false,
            dropping: false,
        }
    }

    /// Reads `bytes`, handing `found` each payload they complete.
    pub(crate) fn feed(&mut self, bytes: &[u8], found: &mut dyn FnMut(Found<'_>)) {
        let mut start = 0;
        for (i, &b) in bytes.iter().enumerate() {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
                continue;
            }
            let at_base = self.depth == self.base;
            match b {
                b'{' | b'[' => {
                    if at_base && !self.in_value {
                        self.begin(&mut start, i);
                    }
                    self.depth = self.depth.saturating_add(1);
                }
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.in_value && self.depth == self.base {
                        self.end(bytes, &mut start, i + 1, found);
                    }
                }
                b'"' => {
                    if at_base && !self.in_value {
                        self.begin(&mut start, i);
                    }
                    self.in_string = true;
                }
                b',' => {
                    if at_base && self.in_value {
                        self.end(bytes, &mut start, i, found);
                    }
                }
                _ if is_whitespace(b) => {
                    if at_base && self.in_value && !self.buf_is_container(bytes, start) {
                        self.end(bytes, &mut start, i, found);
                    }
                }
                _ => {
                    if at_base && !self.in_value && self.depth >= self.base {
                        self.begin(&mut start, i);
                    }
                }
            }
        }
        if self.in_value {
            self.keep(bytes.get(start..).unwrap_or(&[]));
        }
    }

    /// What was left of a value the input ended inside (`None` when the
    /// input ended between values).
    pub(crate) fn finish(&mut self) -> Option<usize> {
        let cut = self.in_value.then_some(self.buf.len());
        *self = JsonValues {
            base: self.base,
            ..JsonValues::new(Framing::Values)
        };
        cut
    }

    /// Whether the value in progress is an object or array (one that ends
    /// at its closing bracket, not at whitespace).
    fn buf_is_container(&self, bytes: &[u8], start: usize) -> bool {
        let first = self.buf.first().or_else(|| bytes.get(start));
        matches!(first, Some(b'{' | b'[' | b'"'))
    }

    fn begin(&mut self, start: &mut usize, i: usize) {
        self.in_value = true;
        self.dropping = false;
        self.buf.clear();
        *start = i;
    }

    /// Ends the value in progress at `end` in `bytes`.
    fn end(
        &mut self,
        bytes: &[u8],
        start: &mut usize,
        end: usize,
        found: &mut dyn FnMut(Found<'_>),
    ) {
        self.in_value = false;
        let piece = bytes.get(*start..end).unwrap_or(&[]);
        if self.dropping {
            self.dropping = false;
            found(Found::TooLarge);
        } else if self.buf.is_empty() {
            found(Found::Value(piece));
        } else {
            self.keep(piece);
            if self.dropping {
                self.dropping = false;
                found(Found::TooLarge);
            } else {
                found(Found::Value(&self.buf));
            }
            self.buf.clear();
        }
        *start = end;
    }

    /// Buffers `piece` of the value in progress, within [`MAX_PAYLOAD`].
    fn keep(&mut self, piece: &[u8]) {
        if self.dropping {
            return;
        }
        if self.buf.len() + piece.len() > MAX_PAYLOAD {
            self.dropping = true;
            self.buf = Vec::new();
            return;
        }
        self.buf.extend_from_slice(piece);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::String;
    use alloc::vec;

    fn split(framing: Framing, body: &str, piece: usize) -> (Vec<String>, Option<usize>) {
        let mut values = JsonValues::new(framing);
        let mut out = Vec::new();
        for chunk in body.as_bytes().chunks(piece.max(1)) {
            values.feed(chunk, &mut |found| match found {
                Found::Value(v) => out.push(String::from_utf8(v.to_vec()).unwrap()),
                Found::TooLarge => out.push(String::from("<too large>")),
            });
        }
        (out, values.finish())
    }

    #[test]
    fn lines_pretty_documents_and_array_elements_at_any_cut() {
        let lines = "{\"a\":1}\n{\"b\":\"x}\\\"]\"}\n\n{\"c\":[1,{\"d\":2}]}\n";
        let pretty = "{\n  \"a\": [\n    1\n  ]\n}\n";
        let array = "[{\"a\":1}\r\n,\r\n{\"b\":[2]}\r\n]";
        for piece in [1, 2, 3, 7, 100] {
            assert_eq!(
                split(Framing::Values, lines, piece),
                (
                    vec![
                        String::from("{\"a\":1}"),
                        String::from("{\"b\":\"x}\\\"]\"}"),
                        String::from("{\"c\":[1,{\"d\":2}]}")
                    ],
                    None
                ),
                "piece {piece}"
            );
            assert_eq!(
                split(Framing::Values, pretty, piece),
                (vec![String::from(pretty.trim_end())], None)
            );
            assert_eq!(
                split(Framing::Array, array, piece),
                (
                    vec![String::from("{\"a\":1}"), String::from("{\"b\":[2]}")],
                    None
                )
            );
        }
    }

    #[test]
    fn a_value_cut_by_the_end_is_said() {
        assert_eq!(
            split(Framing::Values, "{\"a\":1}\n{\"b\":", 3),
            (vec![String::from("{\"a\":1}")], Some(5))
        );
        assert_eq!(split(Framing::Array, "[{\"a\":1}", 2).1, None);
    }

    #[test]
    fn the_framing_is_told_by_the_first_byte() {
        assert_eq!(first_meaningful(b"\xEF\xBB\xBF \n{", true), Some(b'{'));
        assert_eq!(first_meaningful(b"  \r\n", true), None);
        assert_eq!(Framing::of(b'{'), Framing::Values);
        assert_eq!(Framing::of(b'['), Framing::Array);
        assert_eq!(Framing::of(b'd'), Framing::Sse);
        assert_eq!(Framing::of(b':'), Framing::Sse);
    }
}
