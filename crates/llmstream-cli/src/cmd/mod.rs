//! One module per subcommand.

pub mod demo;
pub mod json;
pub mod sse;
