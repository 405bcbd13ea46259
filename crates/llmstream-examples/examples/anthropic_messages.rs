//! Streams an Anthropic Messages response and prints the text and a tool
//! call's arguments live — both as path-aware deltas and as the user's own
//! struct, read from the live partial value as it fills in.
//!
//! ```text
//! ANTHROPIC_BASE_URL=http://127.0.0.1:8080 ANTHROPIC_API_KEY=… \
//!     cargo run -p llmstream-examples --example anthropic_messages -- "Plan 2 days in Lisbon"
//! ```
//!
//! `ANTHROPIC_BASE_URL` defaults to `https://api.anthropic.com`,
//! `ANTHROPIC_MODEL` to `claude-sonnet-4-5`.
//!
//! HTTPS goes through rustls (its `ring` backend), so the real endpoints
//! work as they are; a local `http://` server works too.

use std::io::Write;

use futures::StreamExt;
use llmstream::json::from_partial;
use llmstream::providers::{ArgumentEvent, StreamEvent};
use llmstream::stream::BodyStreamExt;
use serde::Deserialize;

/// The tool's arguments, as the application models them.
#[derive(Debug, Deserialize)]
struct Itinerary {
    city: String,
    days: Vec<Day>,
}

#[derive(Debug, Deserialize)]
struct Day {
    title: String,
    activities: Vec<String>,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let base =
        std::env::var("ANTHROPIC_BASE_URL").unwrap_or_else(|_| "https://api.anthropic.com".into());
    let key = std::env::var("ANTHROPIC_API_KEY").unwrap_or_default();
    let model = std::env::var("ANTHROPIC_MODEL").unwrap_or_else(|_| "claude-sonnet-4-5".into());
    let prompt = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "Plan two days in Lisbon with the save_itinerary tool.".into());

    let request = serde_json::json!({
        "model": model,
        "max_tokens": 2048,
        "stream": true,
        "messages": [{"role": "user", "content": prompt}],
        "tools": [{
            "name": "save_itinerary",
            "description": "Saves a day-by-day travel plan.",
            "input_schema": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "days": {"type": "array", "items": {
                        "type": "object",
                        "properties": {
                            "title": {"type": "string"},
                            "activities": {"type": "array", "items": {"type": "string"}}
                        },
                        "required": ["title", "activities"]
                    }}
                },
                "required": ["city", "days"]
            }
        }]
    });

    let url = format!("{}/v1/messages", base.trim_end_matches('/'));
    let response = reqwest::Client::new()
        .post(&url)
        .header("x-api-key", &key)
        .header("anthropic-version", "2023-06-01")
        .header("content-type", "application/json")
        .body(request.to_string())
        .send()
        .await
        .map_err(|e| format!("{url}: {e}"))?;
    if !response.status().is_success() {
        let status = response.status();
        return Err(format!("{url}: {status}: {}", response.text().await?).into());
    }

    let mut events = response.bytes_stream().provider_events();
    let mut out = std::io::stdout();
    while let Some(event) = events.next().await {
        match event? {
            StreamEvent::TextDelta { text, .. } => write!(out, "{text}")?,
            StreamEvent::ReasoningDelta { text, .. } => write!(out, "\x1b[2m{text}\x1b[0m")?,
            StreamEvent::ToolCallStart { name, .. } => writeln!(out, "\n[{name}]")?,
            StreamEvent::Argument {
                choice,
                call,
                event: ArgumentEvent::Delta { path, .. },
            } => {
                // The live arguments as the application's own type.
                let builder = events.pipeline().builder();
                if let Some(args) = builder.and_then(|b| b.arguments(choice, call)) {
                    if let Ok(plan) = from_partial::<Itinerary>(args) {
                        let day = plan.days.last();
                        writeln!(
                            out,
                            "  ({path}) {}: {} day(s), last: {:?} {:?}",
                            plan.city,
                            plan.days.len(),
                            day.map(|d| d.title.as_str()),
                            day.map(|d| &d.activities)
                        )?;
                    }
                }
            }
            StreamEvent::ToolCallEnd {
                name, arguments, ..
            } => writeln!(out, "[{name} done] {arguments}")?,
            StreamEvent::Finish { reason, .. } => writeln!(out, "\n[finish] {reason}")?,
            StreamEvent::Error(e) => writeln!(out, "\n[error] {}", e.message)?,
            _ => {}
        }
        out.flush()?;
    }
    if let Some(usage) = events.message().and_then(|m| m.usage.as_ref()) {
        writeln!(out, "[usage] {}", usage.to_value())?;
    }
    Ok(())
}
