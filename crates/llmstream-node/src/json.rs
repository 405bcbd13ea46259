//! `parse`, `repair` and `JsonParser`: the library's JSON parser, as the
//! CLI's `json` and `repair` commands use it.

use llmstream::json::{self, Options, Parser, Tape, Value};
use napi::bindgen_prelude::*;
use napi::{Env, Unknown};
use napi_derive::napi;

use crate::errors::{json_error, plain_error, Stage};
use crate::input::{bytes_of, Piece};
use crate::snapshot::{Growth, Mirror};
use crate::value::{form_to_js, to_js, Converter, Integers};

fn options(lenient: bool) -> Options {
    match lenient {
        true => Options::lenient(),
        false => Options::new(),
    }
}

/// The options of `parse`.
#[napi(object)]
#[derive(Default)]
pub struct ParseOptions {
    /// A document cut short is not an error: the value at the end is
    /// returned (`null` where no value began), as `llmstream json
    /// --partial`.
    pub partial: Option<bool>,
    /// Read what models write (docs/LENIENT.md).
    pub lenient: Option<bool>,
    /// Integers beyond 2^53 as exact `BigInt`s.
    pub bigint: Option<bool>,
}

fn integers(bigint: Option<bool>) -> Integers {
    match bigint.unwrap_or(false) {
        true => Integers::BigInt,
        false => Integers::Doubles,
    }
}

/// Parses a whole JSON document (`Uint8Array` or `string`).
#[napi(ts_return_type = "unknown", catch_unwind)]
pub fn parse<'env>(
    env: &'env Env,
    data: Piece,
    options: Option<ParseOptions>,
) -> Result<Unknown<'env>> {
    let options = options.unwrap_or_default();
    let (partial, lenient) = (
        options.partial.unwrap_or(false),
        options.lenient.unwrap_or(false),
    );
    let bytes = bytes_of(&data);
    let integers = integers(options.bigint);
    if !partial && !lenient {
        // A whole strict document: converted straight from the tape.
        let mut tape = Tape::new();
        let root = tape.parse(&bytes).map_err(|e| json_error(env, &e))?;
        return Converter::new(env, integers).convert_node(root);
    }
    let read = (|| -> std::result::Result<Option<Value>, json::Error> {
        let mut parser = Parser::with_options(self::options(lenient).events(false));
        parser.feed(&bytes)?;
        match parser.finish() {
            Ok(()) => Ok(parser.into_value()),
            Err(e) if partial && e.is_incomplete() => Ok(parser.partial_value()),
            Err(e) => Err(e),
        }
    })();
    match read.map_err(|e| json_error(env, &e))? {
        Some(value) => to_js(env, &value, integers),
        None if partial => Null.into_unknown(env),
        None => Err(no_value(env, bytes.len())),
    }
}

/// The value a person reads in a text cut short or not quite JSON, as
/// `llmstream repair`.
#[napi(ts_return_type = "unknown", catch_unwind)]
pub fn repair<'env>(env: &'env Env, text: Piece) -> Result<Unknown<'env>> {
    let bytes = bytes_of(&text);
    match json::repair_bytes(&bytes).map_err(|e| json_error(env, &e))? {
        Some(value) => to_js(env, &value, Integers::Doubles),
        None => Err(no_value(env, bytes.len())),
    }
}

/// No value at all in `len` bytes (empty or white space).
fn no_value(env: &Env, len: usize) -> Error {
    plain_error(
        env,
        Stage::Json,
        format!("no JSON value in the input at byte {len}"),
        "no_value",
        len as u64,
    )
}

/// The options of `JsonParser`.
#[napi(object)]
#[derive(Default)]
pub struct JsonParserOptions {
    /// Lenient mode (no events then; the snapshot shows the lenient value).
    pub lenient: Option<bool>,
    /// `false`: `feed` and `finish` return no events, for a reader that
    /// only wants the snapshot; the parser then skips making them.
    pub events: Option<bool>,
    /// Integers beyond 2^53 in the snapshot as exact `BigInt`s.
    pub bigint: Option<bool>,
}

/// The native incremental JSON parser; the package's `JsonParser` wraps it
/// and keeps the live snapshot object.
#[napi(js_name = "NativeJsonParser")]
pub struct NativeJsonParser {
    parser: Parser,
    /// What the live snapshot object holds, to update it in place.
    mirror: Option<Mirror>,
    growth: Growth,
    integers: Integers,
    /// Whether `feed` and `finish` return the events.
    events: bool,
    /// Whether the mirror was made of the array of several top-level
    /// values (lenient mode).
    several: bool,
}

#[napi]
impl NativeJsonParser {
    #[napi(constructor, catch_unwind)]
    pub fn new(options: Option<JsonParserOptions>) -> Self {
        let options = options.unwrap_or_default();
        let lenient = options.lenient.unwrap_or(false);
        let events = options.events.unwrap_or(true);
        NativeJsonParser {
            parser: Parser::with_options(self::options(lenient).events(events && !lenient)),
            mirror: None,
            growth: match lenient {
                true => Growth::Checked,
                false => Growth::AtEnd,
            },
            integers: integers(options.bigint),
            events,
            several: false,
        }
    }

    /// Feeds a piece; returns the events it completed (`undefined` when
    /// the parser makes none: the package gives `[]` then).
    #[napi(ts_return_type = "JsonEvent[] | undefined", catch_unwind)]
    pub fn feed<'env>(&mut self, env: &'env Env, piece: Piece) -> Result<Option<Array<'env>>> {
        let bytes = bytes_of(&piece);
        if !self.events {
            self.parser.feed(&bytes).map_err(|e| json_error(env, &e))?;
            return Ok(None);
        }
        let mut feed = self.parser.feed_borrowed(&bytes);
        drain(env, &mut feed).map(Some)
    }

    /// The end of input: the last events.
    #[napi(ts_return_type = "JsonEvent[]", catch_unwind)]
    pub fn finish<'env>(&mut self, env: &'env Env) -> Result<Array<'env>> {
        if !self.events {
            self.parser.finish().map_err(|e| json_error(env, &e))?;
            return env.create_array(0);
        }
        let mut feed = self.parser.finish_borrowed();
        drain(env, &mut feed)
    }

    /// The live snapshot: `live` is the object the last call returned
    /// (`undefined` the first time); it is updated in place and returned,
    /// or a new value is returned where the snapshot is not an extension
    /// of it. A string that grew inside it is listed in `appends` (its
    /// container, key and added text) for the caller to extend; and when
    /// the open path then ends in a string inside a container, that
    /// container and the string's key follow, two more items.
    #[napi(ts_return_type = "unknown", catch_unwind)]
    pub fn snapshot_into<'env>(
        &mut self,
        env: &'env Env,
        live: Unknown<'env>,
        mut appends: Array<'env>,
    ) -> Result<Unknown<'env>> {
        let Some(value) = self.parser.snapshot() else {
            self.mirror = None;
            return Null.into_unknown(env);
        };
        if self.parser.several_values() != self.several {
            // The top value just became the array of several: start again.
            self.several = true;
            self.mirror = None;
        }
        let root = match &mut self.mirror {
            Some(mirror) => {
                let replaced =
                    mirror.update(env, live, value, self.growth, self.integers, &mut appends)?;
                replaced.unwrap_or(live)
            }
            None => {
                let (mirror, made) = Mirror::new(env, value, self.growth, self.integers)?;
                self.mirror = Some(mirror);
                made
            }
        };
        if let Some(mirror) = &self.mirror {
            if let Some((holder, key)) = mirror.open_end(env, root)? {
                appends.insert(holder)?;
                appends.insert(key)?;
            }
        }
        Ok(root)
    }

    /// What the string at the end of the live snapshot's open path gained
    /// since the last read, when nothing else changed (`""` for nothing at
    /// all), or `null` when the package must call `snapshotInto`: the
    /// cheap read of a piece inside a long string.
    #[napi(ts_return_type = "string | null", catch_unwind)]
    pub fn open_text_added<'env>(&mut self, env: &'env Env) -> Result<Unknown<'env>> {
        let added = match (self.parser.snapshot(), self.mirror.as_mut()) {
            (Some(value), Some(mirror)) if self.parser.several_values() == self.several => {
                mirror.open_text_added(value)
            }
            _ => None,
        };
        match added {
            Some(text) => Ok(Converter::new(env, self.integers)
                .string(text)?
                .to_unknown()),
            None => Null.into_unknown(env),
        }
    }

    /// The live snapshot converted afresh (objects of its own), or `null`.
    #[napi(ts_return_type = "unknown", catch_unwind)]
    pub fn snapshot_copy<'env>(&self, env: &'env Env) -> Result<Unknown<'env>> {
        match self.parser.snapshot() {
            Some(value) => to_js(env, value, self.integers),
            None => Null.into_unknown(env),
        }
    }

    /// The bytes fed so far.
    #[napi(getter, catch_unwind)]
    pub fn bytes_fed(&self) -> f64 {
        self.parser.bytes_fed() as f64
    }
}

/// The events of a feed as objects, or its first error.
fn drain<'env>(env: &'env Env, feed: &mut json::Feed<'_, '_>) -> Result<Array<'env>> {
    let mut out = env.create_array(0)?;
    while let Some(event) = feed.next_event() {
        let event = event.map_err(|e| json_error(env, &e))?;
        out.insert(form_to_js(env, |sink| event.write_json(sink))?)?;
    }
    Ok(out)
}
