//! `SnapshotChunker`: complete snapshots of a growing JSON document to the
//! streaming chunks between them, as `llmstream chunk`.

use llmstream::chunker::{ChunkError as Error, ChunkErrorKind, SnapshotChunker as Inner};
use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;

use crate::errors::{from_form, json_error, Stage};
use crate::input::{bytes_of, Piece};

/// Turns complete snapshots into chunks whose concatenation is the final
/// JSON text. The package's `SnapshotChunker` also takes values (written
/// with `JSON.stringify`).
#[napi(js_name = "NativeSnapshotChunker")]
pub struct NativeSnapshotChunker {
    inner: Inner,
}

#[napi]
impl NativeSnapshotChunker {
    #[napi(constructor, catch_unwind)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        NativeSnapshotChunker {
            inner: Inner::new(),
        }
    }

    /// Takes the next complete snapshot as JSON text; returns the chunks
    /// that became certain. Throws a `JsonError` for text that is not
    /// JSON, a `ChunkError` for a snapshot that does not extend the last.
    #[napi(catch_unwind)]
    pub fn feed(&mut self, env: &Env, snapshot: Piece) -> Result<Vec<String>> {
        let text = String::from_utf8_lossy(&bytes_of(&snapshot)).into_owned();
        self.inner
            .feed_text(&text)
            .map_err(|e| chunk_error(env, &e))?;
        Ok(self.drain())
    }

    /// The end: the last chunks.
    #[napi(catch_unwind)]
    pub fn finish(&mut self, env: &Env) -> Result<Vec<String>> {
        self.inner.finish().map_err(|e| chunk_error(env, &e))?;
        Ok(self.drain())
    }

    /// The snapshots taken so far.
    #[napi(getter, catch_unwind)]
    pub fn snapshots(&self) -> f64 {
        self.inner.snapshots() as f64
    }
}

impl NativeSnapshotChunker {
    fn drain(&mut self) -> Vec<String> {
        std::iter::from_fn(|| self.inner.next_event()).collect()
    }
}

/// A `JsonError` for a snapshot that is not JSON, else a `ChunkError`, from
/// the library error's JSON form (its `details.snapshot` the snapshot's
/// number).
fn chunk_error(env: &Env, error: &Error) -> napi::Error {
    if let ChunkErrorKind::InvalidJson(e) = error.kind() {
        return json_error(env, e);
    }
    from_form(env, Stage::Chunk, &error.to_string(), &error.to_value())
}
