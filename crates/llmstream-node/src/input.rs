//! What `feed` takes: a `Uint8Array` (a `Buffer` is one), borrowed, or a
//! `string`, as its UTF-8; and the hold of a code point cut between two
//! byte pieces, for the stages that take text.

use std::borrow::Cow;

use napi::bindgen_prelude::{Either, Uint8ArraySlice};

/// A piece of input as JavaScript gives it.
pub type Piece<'a> = Either<String, Uint8ArraySlice<'a>>;

/// The bytes of a piece: a typed array's borrowed, a string's UTF-8.
pub fn bytes_of<'a>(piece: &'a Piece<'_>) -> Cow<'a, [u8]> {
    match piece {
        Either::A(text) => Cow::Borrowed(text.as_bytes()),
        Either::B(bytes) => Cow::Borrowed(bytes.as_ref()),
    }
}

/// Text out of byte pieces: a UTF-8 sequence cut at the end of a piece
/// waits for the next; invalid bytes become U+FFFD.
#[derive(Default)]
pub struct Utf8Hold {
    tail: Vec<u8>,
}

impl Utf8Hold {
    /// The text `bytes` completes (after what was held).
    pub fn text(&mut self, bytes: &[u8]) -> String {
        let mut buf = std::mem::take(&mut self.tail);
        buf.extend_from_slice(bytes);
        let mut out = String::new();
        let mut rest: &[u8] = &buf;
        loop {
            match std::str::from_utf8(rest) {
                Ok(text) => {
                    out.push_str(text);
                    return out;
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    out.push_str(std::str::from_utf8(valid).unwrap_or(""));
                    match e.error_len() {
                        Some(n) => {
                            out.push('\u{FFFD}');
                            rest = after.get(n..).unwrap_or(&[]);
                        }
                        None => {
                            self.tail = after.to_vec();
                            return out;
                        }
                    }
                }
            }
        }
    }

    /// The end: a sequence still cut is U+FFFD.
    pub fn finish(&mut self) -> String {
        match std::mem::take(&mut self.tail).is_empty() {
            true => String::new(),
            false => String::from('\u{FFFD}'),
        }
    }
}
