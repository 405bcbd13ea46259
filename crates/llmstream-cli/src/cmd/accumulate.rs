//! `llmstream accumulate`: a provider's raw SSE body folded into the final
//! message, or its normalized events.

use clap::{Args, ValueEnum};
use llmstream::providers::{Pipeline, Provider};

use crate::input::InputArgs;
use crate::output::Lines;
use crate::Failure;

/// Which wire format the body is in.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProviderArg {
    /// Detect it from the first payload.
    Auto,
    /// OpenAI Chat Completions and compatible gateways.
    OpenaiChat,
    /// OpenAI Responses.
    OpenaiResponses,
    /// Anthropic Messages.
    Anthropic,
    /// Google Gemini (alt=sse).
    Gemini,
}

/// The arguments of `llmstream accumulate`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  llmstream accumulate recording.sse
  curl -N … | llmstream accumulate --provider anthropic --events")]
pub struct AccumulateArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// The wire format of the body.
    #[arg(long, value_enum, default_value_t = ProviderArg::Auto)]
    pub provider: ProviderArg,
    /// Print the normalized events, one per line, instead of the message.
    #[arg(long)]
    pub events: bool,
}

pub fn run(args: &AccumulateArgs) -> Result<(), Failure> {
    let data = args.input.read().map_err(Failure::Usage)?;
    let mut pipeline = match args.provider {
        ProviderArg::Auto => Pipeline::new(),
        ProviderArg::OpenaiChat => Pipeline::with_provider(Provider::OpenAiChat),
        ProviderArg::OpenaiResponses => Pipeline::with_provider(Provider::OpenAiResponses),
        ProviderArg::Anthropic => Pipeline::with_provider(Provider::Anthropic),
        ProviderArg::Gemini => Pipeline::with_provider(Provider::Gemini),
    };
    let mut out = Lines::new();
    let drain = |pipeline: &mut Pipeline, out: &mut Lines| {
        while let Some(event) = pipeline.next_event() {
            if args.events {
                out.line(&event.to_value().to_json());
            }
        }
    };
    for piece in args.input.pieces(&data) {
        pipeline
            .feed(piece)
            .map_err(|e| Failure::Input(e.to_string()))?;
        drain(&mut pipeline, &mut out);
    }
    let finished = pipeline.finish();
    drain(&mut pipeline, &mut out);
    finished.map_err(|e| Failure::Input(e.to_string()))?;
    if !args.events {
        match pipeline.message() {
            Some(message) => out.line(&message.to_value().to_json()),
            None => {
                return Err(Failure::Input(format!(
                    "no provider payload in {} bytes of input",
                    data.len()
                )))
            }
        }
    }
    Ok(())
}
