//! `SseDecoder`: the library's WHATWG event-stream decoder, in the forms of
//! `llmstream sse`.
//!
//! A feed's items cross into JavaScript packed, not as objects made one
//! property at a time: the fields' text one after another in two parts
//! (the ASCII fields as a string, the rest as UTF-8), and per field where
//! it ends, which the package's
//! `SseDecoder` (index.js) turns into `{event, data, id}` and `{retry}`
//! objects by slicing the two strings. A stream of small events
//! would otherwise cost a dozen N-API calls an event.

use llmstream::sse::{self, Decoder, ItemRef};
use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;

use crate::errors::{from_form, Stage};
use crate::input::{bytes_of, Piece};
use crate::packed::utf16_len;

/// The native decoder; the package's `SseDecoder` wraps it.
#[napi(js_name = "NativeSseDecoder")]
pub struct NativeSseDecoder {
    decoder: Decoder,
    /// The packing buffers, kept from feed to feed (their contents are
    /// copied into JavaScript's own at the end of each).
    packer: Packer,
}

#[napi]
impl NativeSseDecoder {
    #[napi(constructor, catch_unwind)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        NativeSseDecoder {
            decoder: Decoder::new(),
            packer: Packer::default(),
        }
    }

    /// Feeds a piece; returns the items it completed, packed. Throws an
    /// `SseError` past a limit.
    #[napi(ts_return_type = "[string, Buffer, Float64Array]", catch_unwind)]
    pub fn feed<'env>(&mut self, env: &'env Env, piece: Piece) -> Result<Array<'env>> {
        let bytes = bytes_of(&piece);
        let packer = &mut self.packer;
        packer.clear();
        let mut items = self.decoder.feed_borrowed(&bytes);
        while let Some(item) = items.next_event() {
            packer.push(&item.map_err(|e| sse_error(env, &e))?);
        }
        packer.to_js(env)
    }

    /// The end of the body: an event not closed by a blank line is
    /// discarded, as the standard says.
    #[napi(ts_return_type = "[string, Buffer, Float64Array]", catch_unwind)]
    pub fn finish<'env>(&mut self, env: &'env Env) -> Result<Array<'env>> {
        self.decoder.finish().map_err(|e| sse_error(env, &e))?;
        let packer = &mut self.packer;
        packer.clear();
        while let Some(item) = self.decoder.next_event() {
            packer.push(&item.map_err(|e| sse_error(env, &e))?);
        }
        packer.to_js(env)
    }
}

/// The items of a feed, packed: each field's text goes to one of two
/// buffers, `ascii` where it is all ASCII (most are: event types, ids,
/// JSON payloads) and `text` where it is not, because JavaScript makes a
/// string of ASCII bytes by copying them (`latin1`) several times faster
/// than it decodes UTF-8.
#[derive(Default)]
struct Packer {
    ascii: Vec<u8>,
    text: String,
    /// The length of `text` in UTF-16 code units.
    units: usize,
    marks: Vec<f64>,
    /// The last event's type and ID in this feed: most events repeat them.
    last: Option<(String, String)>,
}

impl Packer {
    fn clear(&mut self) {
        self.ascii.clear();
        self.text.clear();
        self.units = 0;
        self.marks.clear();
        self.last = None;
    }

    fn push(&mut self, item: &ItemRef<'_>) {
        match item {
            ItemRef::Event(event) => {
                let (same_type, same_id) = match &self.last {
                    Some((kind, id)) => (kind == event.event_type, id == event.last_event_id),
                    None => (false, false),
                };
                self.field(event.event_type, same_type);
                self.field(event.data, false);
                self.field(event.last_event_id, same_id);
                if !(same_type && same_id) {
                    self.last = Some((event.event_type.into(), event.last_event_id.into()));
                }
            }
            ItemRef::Retry(ms) => self.marks.extend([2.0, *ms as f64]),
            ItemRef::Comment(_) => {}
        }
    }

    /// A field: `0` and where it ends in `ascii`, or `1` and where it ends
    /// in `text` decoded (in UTF-16 code units, JavaScript's string
    /// indices), or `3` (and `0`) for the same text as this field of the
    /// event before (`same`), which JavaScript then reuses.
    fn field(&mut self, field: &str, same: bool) {
        if same {
            self.marks.extend([3.0, 0.0]);
        } else if field.is_ascii() {
            self.ascii.extend_from_slice(field.as_bytes());
            self.marks.extend([0.0, self.ascii.len() as f64]);
        } else {
            self.text.push_str(field);
            self.units += utf16_len(field);
            self.marks.extend([1.0, self.units as f64]);
        }
    }

    /// The packed items, `[ascii, text, marks]`: `marks` holds two numbers
    /// per field (`0` or `1` for the buffer, and where the field ends in
    /// it; or `3` for the event before's), three fields per event (its
    /// type, data and last event ID), and `2` and the value for a retry
    /// field.
    ///
    /// The ASCII text becomes a JavaScript string by one copy (Latin-1);
    /// the other text is read by `TextDecoder` in JavaScript.
    fn to_js<'env>(&self, env: &'env Env) -> Result<Array<'env>> {
        let mut packed = env.create_array(3)?;
        packed.set(0, env.create_string_latin1(&self.ascii)?)?;
        packed.set(1, BufferSlice::copy_from(env, self.text.as_bytes())?)?;
        packed.set(2, Float64ArraySlice::copy_from(env, &self.marks)?)?;
        Ok(packed)
    }
}

/// An `SseError` from the library error's JSON form.
pub fn sse_error(env: &Env, error: &sse::Error) -> Error {
    from_form(env, Stage::Sse, &error.to_string(), &error.to_value())
}
