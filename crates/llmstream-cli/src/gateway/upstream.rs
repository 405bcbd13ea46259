//! The request to the upstream: its route, its key in the header its API
//! reads, the body in its form.

use llmstream::providers::Provider;
use serde_json::Value;

use super::Config;

/// The URL of the upstream's streaming route for `model`.
pub fn url(config: &Config, model: &str) -> String {
    let base = &config.upstream;
    match config.upstream_format {
        Provider::OpenAiChat => format!("{base}/chat/completions"),
        Provider::OpenAiResponses => format!("{base}/responses"),
        Provider::Anthropic => format!("{base}/messages"),
        Provider::Gemini => format!("{base}/models/{model}:streamGenerateContent?alt=sse"),
    }
}

/// The upstream request, ready to send.
pub fn build(
    client: &reqwest::Client,
    config: &Config,
    model: &str,
    body: &Value,
) -> reqwest::RequestBuilder {
    let mut request = client
        .post(url(config, model))
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(body.to_string());
    if config.upstream_format == Provider::Anthropic {
        request = request.header("anthropic-version", "2023-06-01");
    }
    if let Some(key) = &config.key {
        request = match config.upstream_format {
            Provider::Anthropic => request.header("x-api-key", key),
            Provider::Gemini => request.header("x-goog-api-key", key),
            _ => request.bearer_auth(key),
        };
    }
    request
}
