//! llmstream: the bytes an LLM API streams back, parsed as they arrive.
//!
//! ```text
//! HTTP body bytes ──► sse::Decoder ──► providers::{openai_chat, openai_responses, anthropic, gemini}
//!                                         │  (each SSE data payload read from a json::Tape)
//!                                         ▼
//!                                normalized StreamEvent ──► your application
//!                                         │
//!                      tool-call argument fragments (per call)
//!                                         ▼
//!                       json::Parser (incremental) ──► path-aware events + live partial Value
//! ```
//!
//! - [`providers`]: [`Pipeline`](providers::Pipeline) does the whole job:
//!   raw body bytes in, normalized events and the final message out.
//! - [`json`]: an incremental, path-aware JSON parser with a live partial
//!   value, best-effort repair of truncated JSON text, and a reusable
//!   [`Tape`](json::Tape) that reads complete documents in place.
//! - [`sse`]: a WHATWG-exact Server-Sent Events decoder and encoder.
//! - [`tools`]: per-call argument streams, JSON action objects in model
//!   text, early tool-call detection.
//! - [`chunker`]: complete JSON snapshots back into streaming text chunks.
//!
//! Every stage is a push state machine: feed bytes in pieces split anywhere,
//! pull out what became certain. Total work is linear in the bytes fed,
//! whatever the chunking. The crate is `no_std` + `alloc` with no required
//! dependencies. Optional features, each pulling in one ecosystem crate:
//!
//! - `serde`: [`json::Value`] implements `Serialize`/`Deserialize`;
//!   `json::from_value` reads your types from a value, and
//!   `json::from_partial` from the live snapshot while it streams; the
//!   providers' `StreamEvent` and `Message` serialize to and from their
//!   JSON forms of the CLI contract;
//! - `serde_json`: conversions between [`json::Value`] and
//!   `serde_json::Value`;
//! - `futures`: `stream` adapters from an HTTP body stream (reqwest's
//!   `bytes_stream`, hyper bodies) to SSE items and provider events.
//!
//! The whole pipeline, on an Anthropic stream cut into 7-byte pieces:
//!
//! ```
//! use llmstream::providers::{ArgumentEvent, Pipeline, StreamEvent};
//!
//! let body = concat!(
//!     "event: message_start\n",
//!     r#"data: {"type":"message_start","message":{"id":"msg_1","model":"claude","role":"assistant","usage":{"input_tokens":9,"output_tokens":1}}}"#, "\n\n",
//!     r#"data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"write_file","input":{}}}"#, "\n\n",
//!     r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"blocks\":[{\"content\":\"Hel"}}"#, "\n\n",
//!     r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"lo\"}]}"}}"#, "\n\n",
//!     r#"data: {"type":"content_block_stop","index":0}"#, "\n\n",
//!     r#"data: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":12}}"#, "\n\n",
//!     r#"data: {"type":"message_stop"}"#, "\n\n",
//! );
//!
//! let mut pipeline = Pipeline::new(); // the provider is detected
//! let mut seen = Vec::new();
//! let mut show = |event| match event {
//!     StreamEvent::ToolCallStart { name, .. } => seen.push(format!("calling {name}")),
//!     StreamEvent::Argument { event: ArgumentEvent::Delta { path, text }, .. } => {
//!         seen.push(format!("{path} += {text}"))
//!     }
//!     StreamEvent::ToolCallEnd { arguments, .. } => seen.push(format!("args {arguments}")),
//!     _ => {}
//! };
//! for piece in body.as_bytes().chunks(7) {
//!     pipeline.feed(piece)?;
//!     while let Some(event) = pipeline.next_event() {
//!         show(event);
//!     }
//! }
//! pipeline.finish()?; // the body ended: it may queue events too (calls still open end)
//! while let Some(event) = pipeline.next_event() {
//!     show(event);
//! }
//! assert_eq!(seen, [
//!     "calling write_file",
//!     "blocks[0].content += Hel",
//!     "blocks[0].content += lo",
//!     r#"args {"blocks":[{"content":"Hello"}]}"#,
//! ]);
//! let message = pipeline.message().unwrap();
//! assert!(message.complete);
//! assert_eq!(message.usage.as_ref().unwrap().output_tokens, Some(12));
//! # Ok::<(), llmstream::providers::PipelineError>(())
//! ```
#![no_std]
// `unsafe` is denied but in the modules named `simd` and `utf8` (here and in
// `sse`): SIMD intrinsics, and the unchecked UTF-8 conversions they
// justify. Each `unsafe` block there says why it is sound.
#![deny(unsafe_code)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![warn(missing_docs)]
// Bytes from the network reach nearly every function: nothing that input
// can reach may panic. Tests may.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]

extern crate alloc;

pub mod chunker;
pub mod json;
pub mod providers;
#[allow(unsafe_code)]
mod simd;
pub mod sse;
#[cfg(feature = "futures")]
pub mod stream;
pub mod tools;
#[allow(unsafe_code)]
mod utf8;

/// Entry points for the fuzz targets in `fuzz/`: not part of the API, and
/// not covered by semver.
#[doc(hidden)]
pub mod __fuzz {
    use crate::utf8::End;

    /// What a validator says of a slice, in `core::str::from_utf8`'s
    /// terms: `Ok(())` if all of it is valid UTF-8, else how many bytes at
    /// the start are (`valid_up_to`) and whether the rest is the start of
    /// a character that more bytes could complete (`error_len() == None`).
    pub type Utf8Verdict = Result<(), (usize, bool)>;

    fn verdict(bytes: &[u8], (text, end): (&str, End)) -> Utf8Verdict {
        match end {
            End::Valid if text.len() == bytes.len() => Ok(()),
            End::Valid | End::Invalid => Err((text.len(), false)),
            End::Cut => Err((text.len(), true)),
        }
    }

    /// The validator every parser uses: ASCII words for short slices, AVX2
    /// for long ones where the CPU has it, else the automaton.
    pub fn validate_utf8(bytes: &[u8]) -> Utf8Verdict {
        verdict(bytes, crate::utf8::valid_prefix(bytes))
    }

    /// The automaton alone, whatever the length (what a CPU without AVX2
    /// runs).
    pub fn validate_utf8_automaton(bytes: &[u8]) -> Utf8Verdict {
        verdict(bytes, crate::utf8::automaton_valid_prefix(bytes))
    }

    /// The AVX2 check of a whole slice; `None` where the CPU has no AVX2.
    pub fn validate_utf8_simd(bytes: &[u8]) -> Option<bool> {
        #[cfg(target_arch = "x86_64")]
        return crate::simd::wide::utf8_valid_if_available(bytes);
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = bytes;
            None
        }
    }

    /// The SSE decoder's check of a line: its ASCII start skipped with
    /// SIMD, the rest validated.
    pub fn validate_sse_line(bytes: &[u8]) -> bool {
        crate::sse::utf8::to_str(bytes).is_some()
    }
}
