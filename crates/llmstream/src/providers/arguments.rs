//! Tool-call arguments: the stream that parses them lives in
//! [`crate::tools`] (re-exported here because every accumulator uses it);
//! what can be wrong with them is here.

use alloc::boxed::Box;
use core::fmt;

use crate::json::{self, Map, Value};

pub use crate::tools::{ArgumentEvent, ArgumentStream};

/// Why a tool call's arguments are not valid JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgumentsError {
    /// The argument text is not JSON, or was cut short by the end of the
    /// stream: the parser's error, its offset within the argument text and
    /// its path within the arguments (boxed: events that may carry one
    /// stay small).
    Json(Box<json::Error>),
    /// The argument text is not JSON (this error says where), and the
    /// arguments are lenient mode's reading of it
    /// ([`Pipeline::lenient_arguments`](super::Pipeline::lenient_arguments)):
    /// usable, but not what the model was asked to write.
    Repaired(Box<json::Error>),
    /// Text came after the arguments ended (two calls' objects run
    /// together, a gateway repeating the text), and was left out.
    TextAfterEnd,
}

impl ArgumentsError {
    /// The JSON form: a JSON error's (see [`json::Error::to_value`]),
    /// `{"kind": "repaired", "message": …, "error": <a JSON error's>}`, or
    /// `{"kind": "text_after_end", "message": …}`.
    pub fn to_value(&self) -> Value {
        match self {
            ArgumentsError::Json(error) => error.to_value(),
            ArgumentsError::Repaired(error) => {
                let mut m = Map::new();
                m.push("message", Value::from(alloc::format!("{self}")));
                m.push("kind", Value::from("repaired"));
                m.push("error", error.to_value());
                Value::Object(m)
            }
            ArgumentsError::TextAfterEnd => {
                let mut m = Map::new();
                m.push("message", Value::from(alloc::format!("{self}")));
                m.push("kind", Value::from("text_after_end"));
                Value::Object(m)
            }
        }
    }

    /// Reads back the form [`ArgumentsError::to_value`] gives.
    pub fn from_value(value: &Value) -> Option<ArgumentsError> {
        match value.get("kind")?.as_str()? {
            "text_after_end" => Some(ArgumentsError::TextAfterEnd),
            "repaired" => json::Error::from_value(value.get("error")?)
                .map(|e| ArgumentsError::Repaired(Box::new(e))),
            _ => json::Error::from_value(value).map(|e| ArgumentsError::Json(Box::new(e))),
        }
    }

    /// The JSON error, when the argument text is not JSON.
    pub fn json(&self) -> Option<&json::Error> {
        match self {
            ArgumentsError::Json(error) | ArgumentsError::Repaired(error) => Some(error),
            ArgumentsError::TextAfterEnd => None,
        }
    }
}

impl fmt::Display for ArgumentsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgumentsError::Json(error) => error.within("the arguments").fmt(f),
            ArgumentsError::Repaired(error) => {
                error.within("the arguments").fmt(f)?;
                f.write_str("; read in lenient mode")
            }
            ArgumentsError::TextAfterEnd => {
                f.write_str("text after the arguments ended was left out")
            }
        }
    }
}

impl ArgumentsError {
    /// The error of a stream's arguments, once ended: a repair when
    /// lenient mode read them.
    pub(crate) fn of(stream: &ArgumentStream) -> Option<ArgumentsError> {
        let error = Box::new(stream.error()?.clone());
        Some(if stream.is_repaired() {
            ArgumentsError::Repaired(error)
        } else {
            ArgumentsError::Json(error)
        })
    }
}

impl core::error::Error for ArgumentsError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        self.json().map(|e| e as _)
    }
}
