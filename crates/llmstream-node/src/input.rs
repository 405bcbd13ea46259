//! What `feed` takes: a `Uint8Array` (a `Buffer` is one), borrowed, or a
//! `string`, as its UTF-8.

use std::borrow::Cow;

use napi::bindgen_prelude::{Either, Uint8ArraySlice};

/// A piece of input as JavaScript gives it. Bytes first: they are what a
/// stream brings, and the first type an argument matches is the cheapest
/// to read.
pub type Piece<'a> = Either<Uint8ArraySlice<'a>, String>;

/// The bytes of a piece: a typed array's borrowed, a string's UTF-8.
pub fn bytes_of<'a>(piece: &'a Piece<'_>) -> Cow<'a, [u8]> {
    match piece {
        Either::A(bytes) => Cow::Borrowed(bytes.as_ref()),
        Either::B(text) => Cow::Borrowed(text.as_bytes()),
    }
}
