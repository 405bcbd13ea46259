//! Parse errors: what went wrong, at which byte, at which path.

use core::fmt;

use super::path::PathBuf;

/// An error from the JSON parser.
///
/// It names what was expected and what was found, the byte offset in the
/// whole stream (not the current piece) and the path of the value being
/// parsed. Once a parser has failed it keeps returning the same error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    offset: u64,
    path: PathBuf,
    note: Note,
}

/// What the message says beyond the kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Note {
    None,
    /// Found inside an object key (the path is then the object's).
    InKey,
    /// The unexpected 0xEF where a document begins is how a UTF-8 byte
    /// order mark (EF BB BF) begins.
    ByteOrderMark,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, offset: u64, path: PathBuf) -> Self {
        Error {
            kind,
            offset,
            path,
            note: Note::None,
        }
    }

    /// What the message says beyond the kind.
    pub(crate) fn note(&self) -> Note {
        self.note
    }

    /// The same error with `note` said too.
    pub(crate) fn with_note(mut self, note: Note) -> Self {
        self.note = note;
        self
    }

    /// The same error at another offset (from the start of a larger
    /// stream the parsed text is part of).
    pub(crate) fn with_offset(&self, offset: u64) -> Self {
        let mut error = self.clone();
        error.offset = offset;
        error
    }

    /// Shows the error with its offset said to be within `within` (`at
    /// byte 1 of its data`), for an offset that is not the stream's.
    pub(crate) fn within<'a>(&'a self, within: &'a str) -> impl fmt::Display + 'a {
        Within(self, within)
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// The byte offset, from the start of the stream, where it went wrong.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The path of the value being parsed when it went wrong (in an object
    /// key: the object's path, see [`Error::in_key`]).
    pub fn path(&self) -> &PathBuf {
        &self.path
    }

    /// Whether it went wrong inside an object key (bad UTF-8, an escape, a
    /// control character in the key): [`Error::path`] is then the
    /// object's, and the message says "in object key" where a value's
    /// says "in string".
    pub fn in_key(&self) -> bool {
        self.note == Note::InKey
    }

    /// Whether more input could have made this input valid: the input ended
    /// too early, as opposed to containing a byte no continuation can fix.
    pub fn is_incomplete(&self) -> bool {
        matches!(self.kind, ErrorKind::UnexpectedEnd { .. })
    }
}

/// The kinds of [`Error`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A byte that cannot continue the document here.
    Unexpected {
        /// What the grammar allows at this point.
        expected: Expected,
        /// The byte found instead.
        found: u8,
    },
    /// The input ended while a value was still open.
    UnexpectedEnd {
        /// What the grammar still needed.
        expected: Expected,
    },
    /// A `\` followed by a byte that starts no escape.
    InvalidEscape {
        /// The byte after the backslash.
        found: u8,
    },
    /// A `\u` escape of a UTF-16 high surrogate (`\uD800`–`\uDBFF`) not
    /// followed by the escape of a low one: alone it has no Unicode scalar
    /// value and cannot be represented in text. Reported at the first byte
    /// that rules the partner out (`\uD83D\u00`: at the first `0`).
    LoneHighSurrogate {
        /// The high surrogate that has no partner.
        unit: u16,
    },
    /// A `\u` escape of a UTF-16 low surrogate (`\uDC00`–`\uDFFF`) with
    /// no high surrogate before it. Reported at the escape's second hex
    /// digit, where it becomes certain (`\uDC`), so that a document cut
    /// there is already an error and not merely incomplete.
    LoneLowSurrogate,
    /// A raw control character (below U+0020) inside a string; RFC 8259
    /// requires it to be escaped.
    ControlCharacter {
        /// The raw byte.
        found: u8,
    },
    /// Bytes that are not UTF-8 inside a string.
    InvalidUtf8,
    /// A `0` followed by a digit: RFC 8259 numbers have no leading zeros.
    LeadingZero,
    /// More nested arrays and objects than the limit allows.
    DepthLimit {
        /// The limit in force.
        limit: usize,
    },
    /// A string (or key) longer, in decoded bytes, than the limit allows.
    StringLimit {
        /// The limit in force.
        limit: usize,
    },
    /// A number written with more bytes than the limit allows.
    NumberLimit {
        /// The limit in force.
        limit: usize,
    },
    /// More input bytes in total than the limit allows.
    InputLimit {
        /// The limit in force.
        limit: u64,
    },
}

/// What the grammar allowed where an error was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Expected {
    /// Any JSON value, at the top level.
    Value,
    /// A value or `]` right after `[`.
    ValueOrArrayEnd,
    /// A value after `,` in an array.
    ValueAfterComma,
    /// `,` or `]` after an array element.
    CommaOrArrayEnd,
    /// A key or `}` right after `{`.
    KeyOrObjectEnd,
    /// A key after `,` in an object.
    KeyAfterComma,
    /// `:` after an object key.
    Colon,
    /// A value after `:`.
    ValueAfterColon,
    /// `,` or `}` after an object member.
    CommaOrObjectEnd,
    /// The rest of a string and its closing quote.
    StringEnd,
    /// A hexadecimal digit of a `\u` escape.
    HexDigit,
    /// A `\u` escape of a low surrogate after a high one.
    LowSurrogate,
    /// A digit (after `-`, `.`, or an exponent mark).
    Digit,
    /// The rest of `true`, `false` or `null`.
    Literal(&'static str),
    /// Nothing but whitespace after the value.
    EndOfInput,
    /// Whitespace between values in a sequence of values.
    ValueSeparator,
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Expected::Value => "a JSON value",
            Expected::ValueOrArrayEnd => "a value or ']' after '['",
            Expected::ValueAfterComma => "a value after ',' in array",
            Expected::CommaOrArrayEnd => "',' or ']' after array element",
            Expected::KeyOrObjectEnd => "a string key or '}' after '{'",
            Expected::KeyAfterComma => "a string key after ',' in object",
            Expected::Colon => "':' after object key",
            Expected::ValueAfterColon => "a value after ':'",
            Expected::CommaOrObjectEnd => "',' or '}' after object member",
            Expected::StringEnd => "the rest of the string and its closing '\"'",
            Expected::HexDigit => "a hexadecimal digit in '\\u' escape",
            Expected::LowSurrogate => "a '\\u' escape of a low surrogate after a high surrogate",
            Expected::Digit => "a digit",
            Expected::Literal(word) => return write!(f, "'{word}'"),
            Expected::EndOfInput => "end of input after the JSON value",
            Expected::ValueSeparator => "whitespace between values",
        })
    }
}

/// Shows a byte readably: `'x'`, `'\n'`, or `byte 0xff`.
struct Found(u8);

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            b'\n' => f.write_str("'\\n'"),
            b'\r' => f.write_str("'\\r'"),
            b'\t' => f.write_str("'\\t'"),
            b'\'' => f.write_str("\"'\""),
            b @ 0x20..=0x7e => write!(f, "'{}'", char::from(b)),
            b => write!(f, "byte 0x{b:02x}"),
        }
    }
}

impl fmt::Display for ErrorKind {
    /// The message, for an error in a string; [`Error`]'s says "in object
    /// key" instead of "in string" for one in a key.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.describe(f, "string")
    }
}

impl ErrorKind {
    /// The message, `text` naming the string it is in ("string", "object
    /// key") where it names one.
    fn describe(&self, f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
        match self {
            ErrorKind::Unexpected { expected, found } => {
                write!(f, "expected {expected}, found {}", Found(*found))
            }
            ErrorKind::UnexpectedEnd { expected } => {
                write!(f, "input ended early: expected {expected}")
            }
            ErrorKind::InvalidEscape { found } => {
                write!(f, "invalid escape: '\\' followed by {}", Found(*found))
            }
            ErrorKind::LoneHighSurrogate { unit } => write!(
                f,
                "UTF-16 high surrogate \\u{unit:04x} not followed by a low surrogate in {text}"
            ),
            ErrorKind::LoneLowSurrogate => write!(
                f,
                "UTF-16 low surrogate with no high surrogate before it in {text}"
            ),
            ErrorKind::ControlCharacter { found } => {
                write!(f, "unescaped control character {} in {text}", Found(*found))
            }
            ErrorKind::InvalidUtf8 => write!(f, "invalid UTF-8 in {text}"),
            ErrorKind::LeadingZero => f.write_str("leading zero in number"),
            ErrorKind::DepthLimit { limit } => {
                write!(f, "nesting deeper than the limit of {limit}")
            }
            ErrorKind::StringLimit { limit } => {
                write!(f, "string longer than the limit of {limit} bytes")
            }
            ErrorKind::NumberLimit { limit } => {
                write!(f, "number longer than the limit of {limit} bytes")
            }
            ErrorKind::InputLimit { limit } => {
                write!(f, "input longer than the limit of {limit} bytes")
            }
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Within(self, "").fmt(f)
    }
}

/// An error shown with its offset within something (see [`Error::within`]).
struct Within<'a>(&'a Error, &'a str);

impl fmt::Display for Within<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Within(error, within) = *self;
        match (error.note, &error.kind) {
            (Note::ByteOrderMark, ErrorKind::Unexpected { expected, .. }) => {
                write!(
                    f,
                    "expected {expected}, found byte 0xef, \
                     which may start a UTF-8 byte order mark (strip any)"
                )?;
            }
            (Note::InKey, kind) => kind.describe(f, "object key")?,
            (_, kind) => kind.describe(f, "string")?,
        }
        write!(f, " at byte {}", error.offset)?;
        if !within.is_empty() {
            write!(f, " of {within}")?;
        }
        if !error.path.segments().is_empty() {
            write!(f, " (path {})", error.path)?;
        }
        Ok(())
    }
}

impl core::error::Error for Error {}
