//! Programs that stream from real LLM endpoints with llmstream; they live
//! in `examples/` (`cargo run -p llmstream-examples --example openai_chat`).
//! This package has no code of its own and is never published.
