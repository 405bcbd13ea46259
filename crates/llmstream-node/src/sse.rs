//! `SseDecoder`: the library's WHATWG event-stream decoder, in the forms of
//! `llmstream sse`.

use llmstream::sse::{self, Decoder, ItemRef};
use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;

use crate::errors::{from_form, Stage};
use crate::input::{bytes_of, Piece};
use crate::value::form_to_js;

/// Decodes a `text/event-stream` body fed in pieces cut anywhere.
#[napi]
pub struct SseDecoder {
    decoder: Decoder,
}

#[napi]
impl SseDecoder {
    #[napi(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        SseDecoder {
            decoder: Decoder::new(),
        }
    }

    /// Feeds a piece; returns the items it completed: `{event, data, id}`
    /// per dispatched event, `{retry}` per valid retry field, in stream
    /// order. Throws an `SseError` past a limit.
    #[napi(ts_return_type = "SseItem[]")]
    pub fn feed<'env>(&mut self, env: &'env Env, piece: Piece) -> Result<Array<'env>> {
        let bytes = bytes_of(&piece);
        let mut out = env.create_array(0)?;
        let mut items = self.decoder.feed_borrowed(&bytes);
        while let Some(item) = items.next_event() {
            let item = item.map_err(|e| sse_error(env, &e))?;
            if !matches!(item, ItemRef::Comment(_)) {
                out.insert(form_to_js(env, |sink| item.write_json(sink))?)?;
            }
        }
        Ok(out)
    }

    /// The end of the body: an event not closed by a blank line is
    /// discarded, as the standard says.
    #[napi(ts_return_type = "SseItem[]")]
    pub fn finish<'env>(&mut self, env: &'env Env) -> Result<Array<'env>> {
        self.decoder.finish().map_err(|e| sse_error(env, &e))?;
        let mut out = env.create_array(0)?;
        while let Some(item) = self.decoder.next_event() {
            let item = item.map_err(|e| sse_error(env, &e))?;
            if !matches!(item, ItemRef::Comment(_)) {
                out.insert(form_to_js(env, |sink| item.write_json(sink))?)?;
            }
        }
        Ok(out)
    }
}

/// An `SseError` from the library error's JSON form.
pub fn sse_error(env: &Env, error: &sse::Error) -> Error {
    from_form(env, Stage::Sse, &error.to_string(), &error.to_value())
}
