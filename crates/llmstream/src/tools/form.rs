//! The JSON forms of the tool stages' events: what `llmstream actions`
//! prints (docs/CLI.md) and what the Python and Node packages hand out, in
//! one place. An argument event carries its call's key: `call` (an
//! action's number) or `id` (an [`ArgumentStreams`](super::ArgumentStreams)
//! call id).

use alloc::string::ToString;

use super::{ActionEvent, ArgumentEvent, ToolError, ToolEvent};
use crate::json::{Map, Value};

impl ArgumentEvent {
    /// `{"type":"argument_delta", <call>, "path", "text"}` or
    /// `{"type":"argument", <call>, "path", "value"}`.
    fn to_value_of(&self, call: (&str, Value)) -> Value {
        let mut m = Map::new();
        match self {
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
        Value::Object(m)
    }
}

impl ToolError {
    /// The error's kind in snake case: `invalid_arguments`, `ended_early`,
    /// `too_many_calls`, `after_end`, `unknown_call`, `not_extending`.
    pub fn kind_name(&self) -> &'static str {
        match self {
            ToolError::InvalidArguments(_) => "invalid_arguments",
            ToolError::EndedEarly(_) => "ended_early",
            ToolError::TooManyCalls { .. } => "too_many_calls",
            ToolError::AfterEnd => "after_end",
            ToolError::UnknownCall => "unknown_call",
            ToolError::NotExtending { .. } => "not_extending",
        }
    }

    /// `{"message", "kind"}`, and for a JSON error `"error"`: the JSON
    /// error's own form, with its offset and path within the arguments.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.push("message", Value::from(self.to_string()));
        m.push("kind", Value::from(self.kind_name()));
        if let ToolError::InvalidArguments(e) | ToolError::EndedEarly(e) = self {
            m.push("error", e.to_value());
        }
        Value::Object(m)
    }
}

impl ToolEvent {
    /// The event's JSON form: the argument events with `id`,
    /// `{"type":"tool_call_end","id","arguments"}`, or
    /// `{"type":"error","id"}` with the error's members
    /// ([`ToolError::to_value`]).
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        match self {
            ToolEvent::Argument { id, event } => {
                return event.to_value_of(("id", Value::from(id.as_str())))
            }
            ToolEvent::End { id, arguments } => {
                m.push("type", Value::from("tool_call_end"));
                m.push("id", Value::from(id.as_str()));
                m.push("arguments", arguments.clone());
            }
            ToolEvent::Error { id, error } => {
                m.push("type", Value::from("error"));
                m.push("id", Value::from(id.as_str()));
                if let Value::Object(form) = error.to_value() {
                    for (key, value) in form {
                        m.push(key, value);
                    }
                }
            }
        }
        Value::Object(m)
    }
}

impl ActionEvent {
    /// The event's JSON form, as `llmstream actions` prints it: `text`,
    /// `tool_call_start` (call, name), the argument events with `call`,
    /// `tool_call_end` (call, name, arguments), `json` (value), `error`
    /// (call when it ends a call that had started, message, partial).
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        match self {
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
                return event.to_value_of(("call", Value::from(*call)))
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
}
