//! `llmstream translate`: a provider's raw SSE body written out as the SSE
//! body another provider would have sent for the same message, streamed as
//! the input arrives.

use std::io::Write;

use clap::{Args, ValueEnum};
use llmstream::providers::encode::{Output, WireEncoder};
use llmstream::providers::{Pipeline, Provider, StreamEvent};

use crate::cmd::accumulate::ProviderArg;
use crate::input::InputArgs;
use crate::output::Lines;
use crate::Failure;

/// The wire format to write.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetArg {
    /// OpenAI Chat Completions.
    OpenaiChat,
    /// OpenAI Responses.
    OpenaiResponses,
    /// Anthropic Messages.
    Anthropic,
    /// Google Gemini (alt=sse).
    Gemini,
}

impl TargetArg {
    pub fn provider(self) -> Provider {
        match self {
            TargetArg::OpenaiChat => Provider::OpenAiChat,
            TargetArg::OpenaiResponses => Provider::OpenAiResponses,
            TargetArg::Anthropic => Provider::Anthropic,
            TargetArg::Gemini => Provider::Gemini,
        }
    }
}

/// The arguments of `llmstream translate`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  llmstream translate anthropic.sse --to openai-chat
  curl -N … | llmstream translate --to anthropic
  llmstream translate n2.sse --to anthropic --choice 1

What the target cannot carry (a citation, a signature, a provider-run
tool…) is said on stderr, once per kind; docs/TRANSLATION.md has the
mapping tables.")]
pub struct TranslateArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// The wire format to write.
    #[arg(long, value_enum)]
    pub to: TargetArg,
    /// The wire format of the input.
    #[arg(long, value_enum, default_value_t = ProviderArg::Auto)]
    pub from: ProviderArg,
    /// Serve this choice (OpenAI `n`, Gemini candidates) as the only one:
    /// needed to write a stream of several choices as Anthropic or OpenAI
    /// Responses, which have one.
    #[arg(long)]
    pub choice: Option<u64>,
}

pub fn run(args: &TranslateArgs) -> Result<(), Failure> {
    let target = args.to.provider();
    let one_choice = matches!(target, Provider::Anthropic | Provider::OpenAiResponses);
    let mut pipeline = match args.from.provider() {
        Some(provider) => Pipeline::with_provider(provider),
        None => Pipeline::new(),
    };
    let mut encoder = WireEncoder::new(target);
    let mut out = Lines::new();
    let pass = |pipeline: &mut Pipeline,
                encoder: &mut WireEncoder,
                out: &mut Lines|
     -> Result<(), Failure> {
        while let Some(mut event) = pipeline.next_event() {
            if !select(&mut event, args.choice, one_choice)? {
                continue;
            }
            encoder.feed(&event);
        }
        write(encoder, out)
    };
    let bytes = args.input.each_piece(|piece| {
        pipeline
            .feed(piece.bytes)
            .map_err(|e| Failure::Input(e.to_string()))?;
        pass(&mut pipeline, &mut encoder, &mut out)?;
        match piece.caught_up {
            true => out.flush(),
            false => Ok(()),
        }
    })?;
    let finished = pipeline.finish();
    pass(&mut pipeline, &mut encoder, &mut out)?;
    finished.map_err(|e| Failure::Input(e.to_string()))?;
    if pipeline.message().is_none() {
        return Err(Failure::Input(format!(
            "no provider payload found at byte {bytes}, the end of the input"
        )));
    }
    let Ok(()) = encoder.finish();
    write(&mut encoder, &mut out)?;
    out.finish()
}

/// Whether `event` goes to the encoder, renumbered to the chosen choice;
/// a second choice into a one-choice wire without `--choice` is an error.
fn select(event: &mut StreamEvent, chosen: Option<u64>, one_choice: bool) -> Result<bool, Failure> {
    let Some(choice) = event.choice_mut() else {
        return Ok(true);
    };
    match chosen {
        Some(n) if *choice == n => {
            *choice = 0;
            Ok(true)
        }
        Some(_) => Ok(false),
        None if one_choice && *choice != 0 => Err(Failure::Input(format!(
            "the input has a choice {choice}, and the target has one choice per stream: \
             pick one with --choice N"
        ))),
        None => Ok(true),
    }
}

/// The encoder's outputs: SSE bytes to stdout, losses to stderr.
fn write(encoder: &mut WireEncoder, out: &mut Lines) -> Result<(), Failure> {
    while let Some(output) = encoder.next_event() {
        match output {
            Output::Sse(bytes) => out.bytes(&bytes)?,
            Output::Loss(loss) => {
                let _ = writeln!(std::io::stderr(), "llmstream translate: {loss}");
            }
        }
    }
    Ok(())
}
