//! One module per subcommand.

pub mod accumulate;
pub mod actions;
pub mod chunk;
pub mod demo;
pub mod json;
pub mod sse;
pub mod translate;
