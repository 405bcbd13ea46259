//! The JSON form of a parse error, for the events and messages that carry
//! one: every field of [`Error`] by name, so that reading the form back
//! gives the same error, and its message for a reader who only shows it.
//!
//! ```json
//! {"message": "expected ':' after object key, found '}' at byte 6 (path a)",
//!  "kind": "unexpected", "expected": "colon", "found": 125,
//!  "offset": 6, "path": "a"}
//! ```

use alloc::string::{String, ToString};

use super::error::{Error, ErrorKind, Expected, Note};
use super::path::PathBuf;
use super::value::{Map, Value};

impl Error {
    /// The error's JSON form (see the module's documentation): `message`,
    /// `kind`, `offset`, `path` (as [`PathBuf`]'s display form, `""` at
    /// the top), the kind's own fields (`expected`, `found` as a byte
    /// value, `unit`, `limit`) and `note` (`in_key`, `byte_order_mark`)
    /// when there is one.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.push("message", Value::from(self.to_string()));
        m.push("kind", Value::from(kind_name(self.kind())));
        match self.kind() {
            ErrorKind::Unexpected { expected, found } => {
                m.push("expected", Value::from(expected_name(expected)));
                m.push("found", Value::from(u64::from(*found)));
            }
            ErrorKind::UnexpectedEnd { expected } => {
                m.push("expected", Value::from(expected_name(expected)));
            }
            ErrorKind::InvalidEscape { found } | ErrorKind::ControlCharacter { found } => {
                m.push("found", Value::from(u64::from(*found)));
            }
            ErrorKind::LoneHighSurrogate { unit } => {
                m.push("unit", Value::from(u64::from(*unit)));
            }
            ErrorKind::DepthLimit { limit }
            | ErrorKind::StringLimit { limit }
            | ErrorKind::NumberLimit { limit } => {
                m.push("limit", Value::from(*limit as u64));
            }
            ErrorKind::InputLimit { limit } => m.push("limit", Value::from(*limit)),
            ErrorKind::LoneLowSurrogate | ErrorKind::InvalidUtf8 | ErrorKind::LeadingZero => {}
        }
        m.push("offset", Value::from(self.offset()));
        m.push("path", Value::from(self.path().to_string()));
        match self.note() {
            Note::None => {}
            Note::InKey => m.push("note", Value::from("in_key")),
            Note::ByteOrderMark => m.push("note", Value::from("byte_order_mark")),
        }
        Value::Object(m)
    }

    /// Reads back the form [`Error::to_value`] gives (its `message` is
    /// not read: it follows from the rest). `None` when a member is
    /// missing or not one the form can hold.
    pub fn from_value(value: &Value) -> Option<Error> {
        let byte = |key: &str| u8::try_from(value.get(key)?.as_u64()?).ok();
        let limit = || value.get("limit")?.as_u64();
        let expected = || expected_from_name(value.get("expected")?.as_str()?);
        let kind = match value.get("kind")?.as_str()? {
            "unexpected" => ErrorKind::Unexpected {
                expected: expected()?,
                found: byte("found")?,
            },
            "unexpected_end" => ErrorKind::UnexpectedEnd {
                expected: expected()?,
            },
            "invalid_escape" => ErrorKind::InvalidEscape {
                found: byte("found")?,
            },
            "lone_high_surrogate" => ErrorKind::LoneHighSurrogate {
                unit: u16::try_from(value.get("unit")?.as_u64()?).ok()?,
            },
            "lone_low_surrogate" => ErrorKind::LoneLowSurrogate,
            "control_character" => ErrorKind::ControlCharacter {
                found: byte("found")?,
            },
            "invalid_utf8" => ErrorKind::InvalidUtf8,
            "leading_zero" => ErrorKind::LeadingZero,
            "depth_limit" => ErrorKind::DepthLimit {
                limit: usize::try_from(limit()?).ok()?,
            },
            "string_limit" => ErrorKind::StringLimit {
                limit: usize::try_from(limit()?).ok()?,
            },
            "number_limit" => ErrorKind::NumberLimit {
                limit: usize::try_from(limit()?).ok()?,
            },
            "input_limit" => ErrorKind::InputLimit { limit: limit()? },
            _ => return None,
        };
        let offset = value.get("offset")?.as_u64()?;
        let path = match value.get("path")?.as_str()? {
            "" => PathBuf::new(),
            text => PathBuf::parse(text)?,
        };
        let note = match value.get("note").map(Value::as_str) {
            None => Note::None,
            Some(Some("in_key")) => Note::InKey,
            Some(Some("byte_order_mark")) => Note::ByteOrderMark,
            Some(_) => return None,
        };
        Some(Error::new(kind, offset, path).with_note(note))
    }
}

/// The name of a kind in the JSON form.
fn kind_name(kind: &ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Unexpected { .. } => "unexpected",
        ErrorKind::UnexpectedEnd { .. } => "unexpected_end",
        ErrorKind::InvalidEscape { .. } => "invalid_escape",
        ErrorKind::LoneHighSurrogate { .. } => "lone_high_surrogate",
        ErrorKind::LoneLowSurrogate => "lone_low_surrogate",
        ErrorKind::ControlCharacter { .. } => "control_character",
        ErrorKind::InvalidUtf8 => "invalid_utf8",
        ErrorKind::LeadingZero => "leading_zero",
        ErrorKind::DepthLimit { .. } => "depth_limit",
        ErrorKind::StringLimit { .. } => "string_limit",
        ErrorKind::NumberLimit { .. } => "number_limit",
        ErrorKind::InputLimit { .. } => "input_limit",
    }
}

/// Every [`Expected`] with its name in the JSON form.
const EXPECTED: [(Expected, &str); 18] = [
    (Expected::Value, "value"),
    (Expected::ValueOrArrayEnd, "value_or_array_end"),
    (Expected::ValueAfterComma, "value_after_comma"),
    (Expected::CommaOrArrayEnd, "comma_or_array_end"),
    (Expected::KeyOrObjectEnd, "key_or_object_end"),
    (Expected::KeyAfterComma, "key_after_comma"),
    (Expected::Colon, "colon"),
    (Expected::ValueAfterColon, "value_after_colon"),
    (Expected::CommaOrObjectEnd, "comma_or_object_end"),
    (Expected::StringEnd, "string_end"),
    (Expected::HexDigit, "hex_digit"),
    (Expected::LowSurrogate, "low_surrogate"),
    (Expected::Digit, "digit"),
    (Expected::Literal("true"), "literal_true"),
    (Expected::Literal("false"), "literal_false"),
    (Expected::Literal("null"), "literal_null"),
    (Expected::EndOfInput, "end_of_input"),
    (Expected::ValueSeparator, "value_separator"),
];

fn expected_name(expected: &Expected) -> String {
    match EXPECTED.iter().find(|(e, _)| e == expected) {
        Some((_, name)) => String::from(*name),
        // A literal the parser does not write: named by its word.
        None => match expected {
            Expected::Literal(word) => alloc::format!("literal_{word}"),
            _ => String::from("unknown"),
        },
    }
}

fn expected_from_name(name: &str) -> Option<Expected> {
    EXPECTED.iter().find(|(_, n)| *n == name).map(|(e, _)| *e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Parser;

    /// Errors of every kind the parser reports on small inputs.
    fn errors() -> alloc::vec::Vec<Error> {
        let inputs: [&[u8]; 12] = [
            b"{\"a\" }",
            b"[1, ",
            b"\"\\x\"",
            b"\"\\ud83d\\u0041\"",
            b"\"\\udc00\"",
            b"\"a\x01\"",
            b"\"\xff\"",
            b"01",
            b"{\"k\\q\": 1}",
            b"\xef\xbb\xbf{}",
            b"tru ",
            b"{\"a\": [nul]}",
        ];
        inputs
            .iter()
            .map(|input| {
                let mut parser = Parser::new();
                let result = parser.feed(input).and_then(|()| parser.finish());
                result.expect_err("every input is invalid")
            })
            .collect()
    }

    #[test]
    fn the_form_reads_back_as_the_same_error() {
        for error in errors() {
            let value = error.to_value();
            assert_eq!(
                Error::from_value(&value).as_ref(),
                Some(&error),
                "{value:?}"
            );
            assert_eq!(
                value.get("message").and_then(Value::as_str),
                Some(error.to_string().as_str())
            );
        }
    }

    #[test]
    fn the_limits_read_back() {
        let path = PathBuf::parse("a[2]").unwrap();
        for kind in [
            ErrorKind::DepthLimit { limit: 7 },
            ErrorKind::StringLimit { limit: 8 },
            ErrorKind::NumberLimit { limit: 9 },
            ErrorKind::InputLimit { limit: 10 },
        ] {
            let error = Error::new(kind, 3, path.clone());
            assert_eq!(Error::from_value(&error.to_value()), Some(error));
        }
    }

    #[test]
    fn a_form_of_no_known_kind_is_refused() {
        let mut value = errors()[0].to_value();
        if let Value::Object(m) = &mut value {
            m.insert("kind", Value::from("unheard_of"));
        }
        assert_eq!(Error::from_value(&value), None);
        assert_eq!(Error::from_value(&Value::Null), None);
    }
}
