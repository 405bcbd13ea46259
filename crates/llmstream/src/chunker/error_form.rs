//! The JSON form of a chunker error, as the bindings raise it and a caller
//! may log it: the snapshot's number, the path, the kind and its fields,
//! and the message. A snapshot that is not JSON carries the parse error's
//! own form in `json_error`.
//!
//! ```json
//! {"message": "snapshot 2, at a: a string became an array",
//!  "kind": "type_changed", "from": "string", "to": "array",
//!  "snapshot": 2, "path": "a"}
//! ```

use alloc::string::ToString;

use super::error::{ChunkError, ChunkErrorKind};
use crate::json::{Map, Value};

impl ChunkErrorKind {
    /// The kind's name in the JSON form: `invalid_json`,
    /// `root_not_container`, `disappeared`, `type_changed`,
    /// `string_not_extended`, `scalar_changed`, `changed_after_complete`,
    /// `placeholder_filled`, `too_deep`.
    pub fn name(&self) -> &'static str {
        match self {
            ChunkErrorKind::InvalidJson(_) => "invalid_json",
            ChunkErrorKind::RootNotContainer { .. } => "root_not_container",
            ChunkErrorKind::Disappeared => "disappeared",
            ChunkErrorKind::TypeChanged { .. } => "type_changed",
            ChunkErrorKind::StringNotExtended => "string_not_extended",
            ChunkErrorKind::ScalarChanged { .. } => "scalar_changed",
            ChunkErrorKind::ChangedAfterComplete => "changed_after_complete",
            ChunkErrorKind::PlaceholderFilled => "placeholder_filled",
            ChunkErrorKind::TooDeep => "too_deep",
        }
    }
}

impl ChunkError {
    /// The error's JSON form (see the module's documentation): `message`,
    /// `kind`, the kind's own fields (`json_error`, `found`, `from`, `to`),
    /// `snapshot` and `path` (its display form, `""` at the root).
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.push("message", Value::from(self.to_string()));
        m.push("kind", Value::from(self.kind().name()));
        match self.kind() {
            ChunkErrorKind::InvalidJson(error) => m.push("json_error", error.to_value()),
            ChunkErrorKind::RootNotContainer { found } => m.push("found", Value::from(*found)),
            ChunkErrorKind::TypeChanged { from, to } => {
                m.push("from", Value::from(*from));
                m.push("to", Value::from(*to));
            }
            ChunkErrorKind::ScalarChanged { from, to } => {
                m.push("from", Value::from(from.as_str()));
                m.push("to", Value::from(to.as_str()));
            }
            ChunkErrorKind::Disappeared
            | ChunkErrorKind::StringNotExtended
            | ChunkErrorKind::ChangedAfterComplete
            | ChunkErrorKind::PlaceholderFilled
            | ChunkErrorKind::TooDeep => {}
        }
        m.push("snapshot", Value::from(self.snapshot() as u64));
        m.push("path", Value::from(self.path().to_string()));
        Value::Object(m)
    }
}
