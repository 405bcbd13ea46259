//! `llmstream gateway`: an HTTP server that speaks one provider's API to
//! its clients and another's to the upstream. A request in the served
//! form is translated to the upstream's ([`request`]), sent with the
//! upstream's key, and the upstream's stream comes back translated as it
//! arrives (the library's `Pipeline` into a `WireEncoder`); a request
//! without `stream: true` gets the whole response, folded from the same
//! translated stream ([`whole`]).

mod request;
mod server;
mod upstream;
mod whole;

use std::net::SocketAddr;
use std::time::Duration;

use clap::Args;

use crate::cmd::translate::TargetArg;
use crate::Failure;

/// The arguments of `llmstream gateway`.
#[derive(Args, Debug, Clone)]
#[command(
    after_help = "Example: serve Anthropic's API over an OpenAI-compatible upstream:
  OPENAI_API_KEY=… llmstream gateway --listen 127.0.0.1:8080 \\
      --upstream https://api.openai.com/v1 --upstream-format openai-chat --serve anthropic
  then point the Anthropic SDK at http://127.0.0.1:8080 (base URL).

Routes of the served API: POST …/chat/completions (openai-chat), …/responses
(openai-responses), …/messages (anthropic), …/models/{model}:streamGenerateContent
and :generateContent (gemini). The upstream URL is its API base: the route
of its format is appended (/chat/completions, /responses, /messages,
/models/{model}:streamGenerateContent?alt=sse). docs/TRANSLATION.md has the
request subset and the mapping tables."
)]
pub struct GatewayArgs {
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// The upstream API's base URL (e.g. https://api.openai.com/v1).
    #[arg(long)]
    pub upstream: String,
    /// The upstream's API.
    #[arg(long, value_enum)]
    pub upstream_format: TargetArg,
    /// The API served to clients.
    #[arg(long, value_enum)]
    pub serve: TargetArg,
    /// The environment variable holding the upstream's key (default:
    /// OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY by format).
    #[arg(long)]
    pub upstream_key_env: Option<String>,
    /// Seconds the upstream may stay silent (before its headers, or
    /// between two pieces of its body) before the request fails.
    #[arg(long, default_value_t = 120)]
    pub timeout: u64,
}

/// What the server needs to know of its configuration.
#[derive(Debug, Clone)]
pub struct Config {
    pub served: llmstream::providers::Provider,
    pub upstream_format: llmstream::providers::Provider,
    pub upstream: String,
    pub key: Option<String>,
    pub timeout: Duration,
}

pub fn run(args: &GatewayArgs) -> Result<(), Failure> {
    let upstream_format = args.upstream_format.provider();
    let key_env = args.upstream_key_env.clone().unwrap_or_else(|| {
        match upstream_format {
            llmstream::providers::Provider::Anthropic => "ANTHROPIC_API_KEY",
            llmstream::providers::Provider::Gemini => "GEMINI_API_KEY",
            _ => "OPENAI_API_KEY",
        }
        .to_string()
    });
    let config = Config {
        served: args.serve.provider(),
        upstream_format,
        upstream: args.upstream.trim_end_matches('/').to_string(),
        key: std::env::var(&key_env).ok().filter(|k| !k.is_empty()),
        timeout: Duration::from_secs(args.timeout.max(1)),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::Input(format!("cannot start the runtime: {e}")))?;
    runtime.block_on(server::serve(args.listen, config))
}
