//! The JSON forms of the tool stages' events. The library gives
//! `ToolEvent` and `ActionEvent` no `to_value` of their own; these follow
//! the forms of `llmstream actions` (docs/CLI.md), `id` naming the call of
//! an `ArgumentStreams` event where an action has its number `call`.

use llmstream::json::{Map, Value};
use llmstream::tools::{ActionEvent, ArgumentEvent, ToolError, ToolEvent};

use crate::errors::variant_name;

/// An argument event's members after `type` and the call's member.
fn argument(m: &mut Map, call: (&str, Value), event: &ArgumentEvent) -> Value {
    match event {
        ArgumentEvent::Delta { path, text } => {
            m.push("type", Value::from("argument_delta"));
            m.push(call.0, call.1);
            m.push("path", Value::from(path.to_string()));
            m.push("text", Value::from(text.as_str()));
        }
        ArgumentEvent::Value { path, value } => {
            m.push("type", Value::from("argument"));
            m.push(call.0, call.1);
            m.push("path", Value::from(path.to_string()));
            m.push("value", value.clone());
        }
    }
    Value::Object(core::mem::take(m))
}

/// A `ToolError`'s form: `message`, `kind` and, for a JSON error, `error`
/// (the JSON error's own form, with offset and path).
pub fn tool_error(error: &ToolError) -> Value {
    let mut m = Map::new();
    m.push("message", Value::from(error.to_string()));
    m.push("kind", Value::from(variant_name(&format!("{error:?}"))));
    if let ToolError::InvalidArguments(e) | ToolError::EndedEarly(e) = error {
        m.push("error", e.to_value());
    }
    Value::Object(m)
}

/// An `ArgumentStreams` event: `argument_delta` / `argument` (id, path,
/// text or value), `tool_call_end` (id, arguments), `error` (id, message,
/// kind, error?).
pub fn tool_event(event: &ToolEvent) -> Value {
    let mut m = Map::new();
    match event {
        ToolEvent::Argument { id, event } => {
            return argument(&mut m, ("id", Value::from(id.as_str())), event)
        }
        ToolEvent::End { id, arguments } => {
            m.push("type", Value::from("tool_call_end"));
            m.push("id", Value::from(id.as_str()));
            m.push("arguments", arguments.clone());
        }
        ToolEvent::Error { id, error } => {
            m.push("type", Value::from("error"));
            m.push("id", Value::from(id.as_str()));
            if let Value::Object(form) = tool_error(error) {
                for (key, value) in form {
                    m.push(key.as_str(), value);
                }
            }
        }
    }
    Value::Object(m)
}

/// An `ActionStream` event in the form `llmstream actions` prints.
pub fn action_event(event: &ActionEvent) -> Value {
    let mut m = Map::new();
    match event {
        ActionEvent::Text(text) => {
            m.push("type", Value::from("text"));
            m.push("text", Value::from(text.as_str()));
        }
        ActionEvent::ToolCallStart { call, name } => {
            m.push("type", Value::from("tool_call_start"));
            m.push("call", Value::from(*call));
            m.push("name", Value::from(name.as_str()));
        }
        ActionEvent::Argument { call, event } => {
            return argument(&mut m, ("call", Value::from(*call)), event)
        }
        ActionEvent::ToolCallEnd {
            call,
            name,
            arguments,
        } => {
            m.push("type", Value::from("tool_call_end"));
            m.push("call", Value::from(*call));
            m.push("name", Value::from(name.as_str()));
            m.push("arguments", arguments.clone());
        }
        ActionEvent::Json(value) => {
            m.push("type", Value::from("json"));
            m.push("value", value.clone());
        }
        ActionEvent::Error {
            call,
            error,
            partial,
        } => {
            m.push("type", Value::from("error"));
            if let Some(call) = call {
                m.push("call", Value::from(*call));
            }
            m.push("message", Value::from(error.to_string()));
            if let Some(partial) = partial {
                m.push("partial", partial.clone());
            }
        }
    }
    Value::Object(m)
}
