//! `llmstream accumulate`: a provider's raw SSE body folded into the final
//! message, or its normalized events, or rendered live.

use clap::{Args, ValueEnum};
use llmstream::providers::{Pipeline, Provider, StreamEvent};

use crate::input::InputArgs;
use crate::live::{fancy_output, LiveView};
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
  llmstream accumulate recording.sse --events --random-chunks 7
  curl -N https://api.openai.com/v1/chat/completions … | llmstream accumulate --live")]
pub struct AccumulateArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// The wire format of the body.
    #[arg(long, value_enum, default_value_t = ProviderArg::Auto)]
    pub provider: ProviderArg,
    /// Print the normalized events, one per line, instead of the message.
    #[arg(long, conflicts_with = "live")]
    pub events: bool,
    /// Render the stream live as it arrives: text, and each tool call's
    /// arguments as a growing JSON tree.
    #[arg(long)]
    pub live: bool,
    /// Discard an SSE event the body ends inside (no closing blank line),
    /// as the standard says, even when its data is a whole payload (by
    /// default such a payload is read, and an `unterminated_event` detail
    /// says so).
    #[arg(long)]
    pub strict_sse_end: bool,
    /// Read tool-call arguments that are not JSON (single quotes, Python
    /// literals, missing commas…) in lenient mode, as `repair` does; the
    /// call's `arguments_error` then has kind `repaired`.
    #[arg(long)]
    pub lenient_arguments: bool,
}

impl ProviderArg {
    /// The provider named, or `None` for detection.
    pub fn provider(self) -> Option<Provider> {
        match self {
            ProviderArg::Auto => None,
            ProviderArg::OpenaiChat => Some(Provider::OpenAiChat),
            ProviderArg::OpenaiResponses => Some(Provider::OpenAiResponses),
            ProviderArg::Anthropic => Some(Provider::Anthropic),
            ProviderArg::Gemini => Some(Provider::Gemini),
        }
    }
}

fn pipeline_for(args: &AccumulateArgs) -> Pipeline {
    let pipeline = match args.provider.provider() {
        Some(provider) => Pipeline::with_provider(provider),
        None => Pipeline::new(),
    };
    pipeline
        .read_unterminated_event(!args.strict_sse_end)
        .lenient_arguments(args.lenient_arguments)
}

pub fn run(args: &AccumulateArgs) -> Result<(), Failure> {
    if args.live {
        return live(args);
    }
    let mut pipeline = pipeline_for(args);
    let mut out = Lines::new();
    // The first error event, to say why no payload was found, if none is.
    let mut first_error: Option<String> = None;
    let mut drain = |pipeline: &mut Pipeline, out: &mut Lines| -> Result<(), Failure> {
        while let Some(event) = pipeline.next_event() {
            if let (StreamEvent::Error(error), None) = (&event, &first_error) {
                first_error = Some(error.message.clone());
            }
            if args.events {
                out.value_line(&event.to_value())?;
            }
        }
        Ok(())
    };
    let bytes = args.input.each_piece(|piece| {
        pipeline
            .feed(piece.bytes)
            .map_err(|e| Failure::Input(e.to_string()))?;
        drain(&mut pipeline, &mut out)?;
        match piece.caught_up {
            true => out.flush(),
            false => Ok(()),
        }
    })?;
    let finished = pipeline.finish();
    drain(&mut pipeline, &mut out)?;
    finished.map_err(|e| Failure::Input(e.to_string()))?;
    // With or without `--events`, a body with no provider payload at all is
    // bad input (the events printed before this say what was found).
    let Some(message) = pipeline.message() else {
        let why = first_error.map_or(String::new(), |e| format!(" (first: {e})"));
        return Err(Failure::Input(format!(
            "no provider payload found at byte {bytes}, the end of the input{why}"
        )));
    };
    if !args.events {
        out.value_line(&message.to_value())?;
    }
    out.finish()
}

/// Reads the input as it arrives and renders each piece at once.
fn live(args: &AccumulateArgs) -> Result<(), Failure> {
    let mut pipeline = pipeline_for(args);
    let mut view = LiveView::new(fancy_output());
    let read = args.input.each_piece(|piece| {
        pipeline
            .feed(piece.bytes)
            .map_err(|e| Failure::Input(e.to_string()))?;
        while let Some(event) = pipeline.next_event() {
            view.event(&event, pipeline.builder());
        }
        view.render(pipeline.builder())
    });
    let finished = pipeline.finish();
    while let Some(event) = pipeline.next_event() {
        view.event(&event, pipeline.builder());
    }
    // The screen is left clean (colours reset, the call being drawn
    // finished) before any error is reported.
    let closed = view.close(pipeline.builder());
    let bytes = read?;
    closed?;
    finished.map_err(|e| Failure::Input(e.to_string()))?;
    if pipeline.message().is_none() {
        return Err(Failure::Input(format!(
            "no provider payload found at byte {bytes}, the end of the input"
        )));
    }
    Ok(())
}
