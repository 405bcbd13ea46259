//! Tool-call arguments live in [`crate::tools`]; re-exported here because
//! every accumulator uses them.

pub use crate::tools::{ArgumentEvent, ArgumentStream};
