//! llmstream: the bytes an LLM API streams back, parsed as they arrive.
//!
//! - [`json`]: an incremental, path-aware JSON parser with a live partial
//!   value, and best-effort repair of truncated JSON text.
//! - [`sse`]: a WHATWG-exact Server-Sent Events decoder and encoder.
//!
//! Every stage is a push state machine: feed bytes in pieces split anywhere,
//! pull out what became certain. Total work is linear in the bytes fed,
//! whatever the chunking. The crate is `no_std` + `alloc` with no
//! dependencies.
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

extern crate alloc;

pub mod chunker;
pub mod json;
pub mod providers;
pub mod sse;
pub mod tools;
