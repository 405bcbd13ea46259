//! What `feed` takes: a `Uint8Array` (a `Buffer` is one), borrowed, or a
//! `string`, as its UTF-8.

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
