//! `ArgumentStreams` and `ActionStream`: tool-call arguments and JSON
//! actions in model text, streamed.

use llmstream::tools::{self, ToolError as Error};
use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;

use crate::errors::{from_form, Stage};
use crate::input::{bytes_of, Piece};
use crate::packed::pack_all;

/// The native argument streams; the package's `ArgumentStreams` wraps them
/// and unpacks the events.
#[napi(js_name = "NativeArgumentStreams")]
pub struct NativeArgumentStreams {
    inner: tools::ArgumentStreams,
}

#[napi]
impl NativeArgumentStreams {
    #[napi(constructor, catch_unwind)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        NativeArgumentStreams {
            inner: tools::ArgumentStreams::new(),
        }
    }

    /// Feeds a fragment of call `toolId`'s arguments; returns its events
    /// (`argument_delta`, `argument`, `error`).
    #[napi(catch_unwind)]
    pub fn feed<'env>(
        &mut self,
        env: &'env Env,
        tool_id: String,
        fragment: Piece,
    ) -> Result<Array<'env>> {
        self.inner.feed_bytes(&tool_id, &bytes_of(&fragment));
        self.drain(env)
    }

    /// Feeds the accumulated arguments text of call `toolId` so far (as
    /// some providers give it): only what extends the text before is fed.
    /// A text that does not extend it is an `error` event and is ignored.
    #[napi(catch_unwind)]
    pub fn feed_accumulated<'env>(
        &mut self,
        env: &'env Env,
        tool_id: String,
        text: Piece,
    ) -> Result<Array<'env>> {
        let text = String::from_utf8_lossy(&bytes_of(&text)).into_owned();
        self.inner.feed_accumulated(&tool_id, &text);
        self.drain(env)
    }

    /// Ends call `toolId`: its last events, `tool_call_end` with the final
    /// arguments among them (invalid or cut-short arguments are an `error`
    /// event, the best-effort value still in `tool_call_end`). Throws a
    /// `ToolError` for a call that is not open.
    #[napi(catch_unwind)]
    pub fn finish<'env>(&mut self, env: &'env Env, tool_id: String) -> Result<Array<'env>> {
        match self.inner.finish(&tool_id) {
            Err(error @ Error::UnknownCall) => Err(from_form(
                env,
                Stage::Tool,
                &error.to_string(),
                &error.to_value(),
            )),
            _ => self.drain(env),
        }
    }

    /// The call ids seen so far, sorted.
    #[napi(getter, catch_unwind)]
    pub fn ids(&self) -> Vec<String> {
        self.inner.ids().map(String::from).collect()
    }
}

impl NativeArgumentStreams {
    fn drain<'env>(&mut self, env: &'env Env) -> Result<Array<'env>> {
        let events = std::iter::from_fn(|| self.inner.next_event());
        pack_all(env, events.map(|event| event.to_value()))
    }
}

/// The native action stream; the package's `ActionStream` wraps it and
/// unpacks the events.
#[napi(js_name = "NativeActionStream")]
pub struct NativeActionStream {
    inner: tools::ActionStream,
}

#[napi]
impl NativeActionStream {
    #[napi(constructor, catch_unwind)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        NativeActionStream {
            inner: tools::ActionStream::new(),
        }
    }

    /// Feeds model text (a `string`, or bytes: a cut code point is held);
    /// returns the events it completed.
    #[napi(catch_unwind)]
    pub fn feed<'env>(&mut self, env: &'env Env, text: Piece) -> Result<Array<'env>> {
        self.inner.feed_bytes(&bytes_of(&text));
        self.drain(env)
    }

    /// The end of the text: the last events (an unclosed fence or object
    /// is an `error` event).
    #[napi(catch_unwind)]
    pub fn finish<'env>(&mut self, env: &'env Env) -> Result<Array<'env>> {
        let _ = self.inner.finish();
        self.drain(env)
    }
}

impl NativeActionStream {
    fn drain<'env>(&mut self, env: &'env Env) -> Result<Array<'env>> {
        let events = std::iter::from_fn(|| self.inner.next_event());
        pack_all(env, events.map(|event| event.to_value()))
    }
}
