//! The library's integration tests: tools.

#[path = "../common/mod.rs"]
mod common;

mod chunker;
mod chunker_fixtures;
mod chunker_props;
mod tools_actions;
mod tools_arguments;
mod tools_detect;
