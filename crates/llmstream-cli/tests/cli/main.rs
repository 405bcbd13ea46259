//! The `llmstream` command line, run as a process and checked against the
//! CLI contract (docs/CLI.md): one test binary for every subcommand.

#[cfg(unix)]
mod pty;

mod actions;
mod chunk;
mod common;
mod demo;
mod gateway;
mod json;
#[cfg(unix)]
mod live_terminal;
#[cfg(unix)]
mod progress;
mod readme;
mod sse;
mod streaming;
mod translate;
