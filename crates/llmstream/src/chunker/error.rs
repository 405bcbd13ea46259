//! What the chunker refuses, and why.

use alloc::string::String;
use core::fmt;

use crate::json::{self, PathBuf};

/// A snapshot the chunker cannot accept: which one, where, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkError {
    pub(super) snapshot: usize,
    pub(super) path: PathBuf,
    pub(super) kind: ChunkErrorKind,
}

impl ChunkError {
    /// The snapshot's number, counting accepted snapshots from 1 (a rejected
    /// snapshot is not counted, so one after it gets the same number).
    pub fn snapshot(&self) -> usize {
        self.snapshot
    }

    /// Where in the snapshot the problem is.
    pub fn path(&self) -> &PathBuf {
        &self.path
    }

    /// What the problem is.
    pub fn kind(&self) -> &ChunkErrorKind {
        &self.kind
    }
}

/// The kinds of [`ChunkError`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChunkErrorKind {
    /// The snapshot text is not one valid JSON document.
    InvalidJson(json::Error),
    /// The first snapshot is not an object or an array.
    RootNotContainer {
        /// The type found.
        found: &'static str,
    },
    /// A member or item of the previous snapshot is missing.
    Disappeared,
    /// A value changed type.
    TypeChanged {
        /// The previous type.
        from: &'static str,
        /// The type now.
        to: &'static str,
    },
    /// A string no longer starts with its previous text.
    StringNotExtended,
    /// A number, boolean or null changed.
    ScalarChanged {
        /// The previous value, as JSON.
        from: String,
        /// The value now, as JSON.
        to: String,
    },
    /// Something already closed in the output changed: a string grew after
    /// its closing quote was sent, or a closed array or object gained
    /// content.
    ChangedAfterComplete,
    /// A member that was held and then emitted complete while hollow (an
    /// empty string, or an array or object of only hollow values, left
    /// behind while a sibling grew) is being filled: the producer declares
    /// fields up front, which [`SnapshotChunker::hold_placeholders`](super::SnapshotChunker::hold_placeholders) is
    /// for. Never reported when placeholders are held.
    PlaceholderFilled,
    /// The snapshot nests deeper than [`MAX_DEPTH`] (the JSON parser's
    /// default limit): the chunker walks values by recursion.
    TooDeep,
}

/// How deep a snapshot may nest: the JSON parser's default depth limit, so
/// that every text [`SnapshotChunker::feed_text`](super::SnapshotChunker::feed_text) parses is accepted.
pub const MAX_DEPTH: usize = json::Limits::new().max_depth;

/// A JSON type's name with its article: "an array", "a string"; `null`
/// has none ("null became a string").
struct Article<'a>(&'a str);

impl fmt::Display for Article<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            "null" => f.write_str("null"),
            name if name.starts_with(['a', 'e', 'i', 'o', 'u']) => write!(f, "an {name}"),
            name => write!(f, "a {name}"),
        }
    }
}

impl fmt::Display for ChunkErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChunkErrorKind::InvalidJson(error) => write!(f, "not valid JSON: {error}"),
            ChunkErrorKind::RootNotContainer { found } => {
                write!(
                    f,
                    "the root is {}, not an object or an array",
                    Article(found)
                )
            }
            ChunkErrorKind::Disappeared => {
                f.write_str("a value of the previous snapshot is missing")
            }
            ChunkErrorKind::TypeChanged { from, to } => {
                write!(f, "{} became {}", Article(from), Article(to))
            }
            ChunkErrorKind::StringNotExtended => {
                f.write_str("the string no longer extends its previous text")
            }
            ChunkErrorKind::ScalarChanged { from, to } => {
                write!(f, "{from} changed to {to}")
            }
            ChunkErrorKind::TooDeep => {
                write!(f, "nested deeper than {MAX_DEPTH} levels")
            }
            ChunkErrorKind::ChangedAfterComplete => {
                f.write_str("changed after it was emitted complete")
            }
            ChunkErrorKind::PlaceholderFilled => f.write_str(
                "a member emitted complete while still empty is being filled: \
                 the producer declares fields up front",
            ),
        }
    }
}

impl fmt::Display for ChunkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "snapshot {}, at ", self.snapshot)?;
        if self.path.segments().is_empty() {
            f.write_str("the root")?;
        } else {
            write!(f, "{}", self.path)?;
        }
        write!(f, ": {}", self.kind)
    }
}

impl core::error::Error for ChunkError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match &self.kind {
            ChunkErrorKind::InvalidJson(error) => Some(error),
            _ => None,
        }
    }
}
