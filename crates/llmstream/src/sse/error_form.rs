//! The JSON form of a decoder error, as the bindings raise it and a caller
//! may log it: every field of [`Error`] by name, and its message.
//!
//! ```json
//! {"message": "line longer than the limit of 8 bytes at byte 8 (reading field \"data\")",
//!  "kind": "line_too_long", "limit": 8, "offset": 8,
//!  "reading": "field", "field": "data"}
//! ```

use alloc::string::ToString;

use super::error::{Error, ErrorKind, Reading};
use crate::json::{Map, Value};

impl ErrorKind {
    /// The kind's name in the JSON form: `line_too_long`,
    /// `event_data_too_long`.
    pub fn name(&self) -> &'static str {
        match self {
            ErrorKind::LineTooLong { .. } => "line_too_long",
            ErrorKind::EventDataTooLong { .. } => "event_data_too_long",
        }
    }
}

impl Error {
    /// The error's JSON form (see the module's documentation): `message`,
    /// `kind`, `limit`, `offset`, `reading` (`field_name`, `field` with the
    /// field's name in `field`, or `comment`).
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.push("message", Value::from(self.to_string()));
        m.push("kind", Value::from(self.kind().name()));
        let (ErrorKind::LineTooLong { limit } | ErrorKind::EventDataTooLong { limit }) =
            self.kind();
        m.push("limit", Value::from(limit as u64));
        m.push("offset", Value::from(self.offset()));
        match self.reading() {
            Reading::FieldName => m.push("reading", Value::from("field_name")),
            Reading::Field(name) => {
                m.push("reading", Value::from("field"));
                m.push("field", Value::from(name.as_str()));
            }
            Reading::Comment => m.push("reading", Value::from("comment")),
        }
        Value::Object(m)
    }
}
