//! The library's integration tests: streams.

#[path = "../common/mod.rs"]
mod common;

mod fold;
mod http_e2e;
mod more_expected;
mod more_recordings;
mod pipeline;
mod provider_anthropic;
mod provider_gemini;
mod provider_openai_chat;
mod provider_openai_responses;
mod sse_fixtures;
mod sse_peers;
mod sse_props;
mod stream_adapters;
mod translate;
