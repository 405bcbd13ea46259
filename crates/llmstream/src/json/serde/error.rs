//! The error of reading a [`Value`] as a type.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use serde::de::{self};

use crate::json::path::{Path, Segment};

/// Why a [`Value`](crate::json::Value) could not be read as the requested type, and where.
///
/// Displays as serde's message followed by the path, like
/// `invalid type: string "x", expected u32 at days[1].budget`.
///
/// ```
/// use llmstream::json::{from_value, parse};
///
/// #[derive(serde::Deserialize, Debug)]
/// struct Day { budget: u32 }
///
/// let value = parse(br#"[{"budget":10},{"budget":"x"}]"#)?;
/// let error = from_value::<Vec<Day>>(value).unwrap_err();
/// assert_eq!(error.path().to_string(), "[1].budget");
/// assert_eq!(error.to_string(), r#"invalid type: string "x", expected u32 at [1].budget"#);
/// # Ok::<(), llmstream::json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeError {
    message: String,
    path: Vec<Segment>,
}

impl DeError {
    /// serde's message, without the path.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Where in the value the error is (the root is the empty path).
    pub fn path(&self) -> Path<'_> {
        Path::new(&self.path)
    }

    pub(super) fn at(mut self, segment: Segment) -> Self {
        self.path.insert(0, segment);
        self
    }
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if !self.path.is_empty() {
            write!(f, " at {}", self.path())?;
        }
        Ok(())
    }
}

impl core::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        DeError {
            message: msg.to_string(),
            path: Vec::new(),
        }
    }
}
