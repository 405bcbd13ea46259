//! The native addon of the `llmstream` Node.js package. Each class wraps
//! one stage of the Rust library and gives its items as the library's own
//! JSON forms converted to JavaScript values, directly or packed for
//! `index.js` to build (`packed.rs`, `sse.rs`); the behaviour lives in
//! the library. `index.js` adds what is JavaScript's own: building the
//! packed objects, `events()` over an async iterable or a
//! `ReadableStream`, the live snapshot object of `JsonParser`, and
//! `SnapshotChunker` taking values.

#![deny(clippy::all)]

mod chunker;
mod errors;
mod input;
mod json;
mod packed;
mod pipeline;
mod snapshot;
mod sse;
mod tools;
mod value;

use napi_derive::napi;

/// The package's version, the Rust library's.
#[napi(catch_unwind)]
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}
