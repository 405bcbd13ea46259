//! The package's errors: JavaScript `Error`s whose `name` says the stage
//! (`JsonError`, `SseError`, `ToolError`, `ChunkError`) and which carry
//! `kind`, `offset` (a byte offset, or `null`) and `path` (or `null`),
//! plus the library error's whole JSON form as `details` (and a
//! `ChunkError`'s `snapshot`, the snapshot's number): read from the
//! library error, never from its message alone.

use llmstream::json::{self, Map, Value};
use napi::bindgen_prelude::*;
use napi::{Env, JsValue};

use crate::value::{to_js, Integers};

/// The stage an error comes from, its `name` in JavaScript.
#[derive(Clone, Copy)]
pub enum Stage {
    Json,
    Sse,
    Tool,
    Chunk,
}

impl Stage {
    fn name(self) -> &'static str {
        match self {
            Stage::Json => "JsonError",
            Stage::Sse => "SseError",
            Stage::Tool => "ToolError",
            Stage::Chunk => "ChunkError",
        }
    }
}

/// The error to throw for a library error's JSON form
/// (`{"message","kind","offset","path",…}`).
pub fn from_form(env: &Env, stage: Stage, message: &str, form: &Value) -> Error {
    match error_object(env, stage, message, form) {
        Ok(object) => Error::from(object.to_unknown()),
        Err(e) => e,
    }
}

fn error_object<'env>(
    env: &'env Env,
    stage: Stage,
    message: &str,
    form: &Value,
) -> Result<Object<'env>> {
    let mut object = env.create_error(Error::new(Status::GenericFailure, message))?;
    object.set("name", stage.name())?;
    for name in ["kind", "offset", "path"] {
        let member = match form.get(name) {
            Some(v) => to_js(env, v, Integers::Doubles)?,
            None => Null.into_unknown(env)?,
        };
        object.set(name, member)?;
    }
    if let Some(snapshot) = form.get("snapshot") {
        object.set("snapshot", to_js(env, snapshot, Integers::Doubles)?)?;
    }
    object.set("details", to_js(env, form, Integers::Doubles)?)?;
    Ok(object)
}

/// A `JsonError` from the library error.
pub fn json_error(env: &Env, error: &json::Error) -> Error {
    from_form(env, Stage::Json, &error.to_string(), &error.to_value())
}

/// An error the binding itself finds (no value in the input), of the
/// library's error form with its kind and offset.
pub fn plain_error(env: &Env, stage: Stage, message: String, kind: &str, offset: u64) -> Error {
    let form: Map = [
        ("message", Value::from(message.as_str())),
        ("kind", Value::from(kind)),
        ("offset", Value::from(offset)),
        ("path", Value::Null),
    ]
    .into_iter()
    .collect();
    from_form(env, stage, &message, &Value::Object(form))
}

/// A `TypeError` for an argument of the wrong kind.
pub fn type_error(message: String) -> Error {
    Error::new(Status::InvalidArg, message)
}
