//! Streams a chat completion from an OpenAI-compatible endpoint and prints
//! the answer text and the tool-call arguments live, as they arrive.
//!
//! ```text
//! OPENAI_BASE_URL=http://127.0.0.1:8000/v1 OPENAI_API_KEY=… OPENAI_MODEL=… \
//!     cargo run -p llmstream-examples --example openai_chat -- "Weather in Oslo?"
//! ```
//!
//! `OPENAI_BASE_URL` defaults to `https://api.openai.com/v1`, `OPENAI_MODEL`
//! to `gpt-4o-mini`; `OPENAI_API_KEY` may be empty for a local server. Any
//! OpenAI-compatible server works (vLLM, llama.cpp, Ollama, LiteLLM, …).
//!
//! HTTPS goes through rustls (its `ring` backend), so the real endpoints
//! work as they are; a local `http://` server works too.

use std::io::Write;

use futures::StreamExt;
use llmstream::providers::{ArgumentEvent, StreamEvent};
use llmstream::stream::BodyStreamExt;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let base =
        std::env::var("OPENAI_BASE_URL").unwrap_or_else(|_| "https://api.openai.com/v1".into());
    let key = std::env::var("OPENAI_API_KEY").unwrap_or_default();
    let model = std::env::var("OPENAI_MODEL").unwrap_or_else(|_| "gpt-4o-mini".into());
    let prompt = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "What is the weather in Oslo and in Lisbon? Use the tool.".into());

    let request = serde_json::json!({
        "model": model,
        "stream": true,
        "stream_options": {"include_usage": true},
        "messages": [{"role": "user", "content": prompt}],
        "tools": [{
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "The current weather in a city.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "city": {"type": "string"},
                        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}
                    },
                    "required": ["city"]
                }
            }
        }]
    });

    let url = format!("{}/chat/completions", base.trim_end_matches('/'));
    let response = reqwest::Client::new()
        .post(&url)
        .bearer_auth(&key)
        .header("content-type", "application/json")
        .body(request.to_string())
        .send()
        .await
        .map_err(|e| format!("{url}: {e}"))?;
    if !response.status().is_success() {
        let status = response.status();
        return Err(format!("{url}: {status}: {}", response.text().await?).into());
    }

    // One line from the HTTP body to normalized events.
    let mut events = response.bytes_stream().provider_events();
    let mut out = std::io::stdout();
    while let Some(event) = events.next().await {
        match event? {
            StreamEvent::TextDelta { text, .. } => write!(out, "{text}")?,
            StreamEvent::ToolCallStart { name, id, .. } => writeln!(out, "\n[{name} {id}]")?,
            StreamEvent::Argument { event, .. } => match event {
                ArgumentEvent::Delta { path, text } => writeln!(out, "  {path} += {text:?}")?,
                ArgumentEvent::Value { path, value } => writeln!(out, "  {path} = {value}")?,
            },
            StreamEvent::ToolCallEnd {
                name, arguments, ..
            } => writeln!(out, "[{name} done] {arguments}")?,
            StreamEvent::Usage(usage) => writeln!(out, "\n[usage] {}", usage.to_value())?,
            StreamEvent::Finish { reason, .. } => writeln!(out, "\n[finish] {reason}")?,
            StreamEvent::Error(e) => writeln!(out, "\n[error] {}", e.message)?,
            _ => {}
        }
        out.flush()?;
    }
    if let Some(message) = events.message() {
        writeln!(out, "\nfinal message: {}", message.to_value())?;
    }
    Ok(())
}
