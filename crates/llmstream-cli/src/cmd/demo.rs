//! `llmstream demo`: recorded provider streams replayed live in the
//! terminal, no network and no files needed.
//!
//! Two streams written for this repository in the exact shapes of real
//! responses are embedded in the binary: an OpenAI Chat Completions answer
//! with text and two parallel tool calls, and an Anthropic Messages answer
//! with thinking, text and a `tool_use` block. They are cut at SSE event
//! boundaries and fed at a realistic pace; the terminal shows text as it
//! streams and each tool call's arguments filling in as a live JSON tree.

use std::time::{Duration, Instant};

use clap::Args;
use llmstream::providers::Pipeline;

use crate::live::{fancy_output, LiveView};
use crate::Failure;

/// The arguments of `llmstream demo`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  llmstream demo                 # live, at a model's pace
  llmstream demo --speed 4       # four times faster
  llmstream demo --no-pace | cat # plain output, as fast as possible")]
pub struct DemoArgs {
    /// Replay speed: 2 is twice as fast as the recorded pace.
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,
    /// Replay without pauses (the default when stdout is not a terminal).
    #[arg(long)]
    pub no_pace: bool,
}

/// The embedded recordings: (title, SSE body).
pub const RECORDINGS: [(&str, &str); 2] = [
    (
        "OpenAI Chat Completions · text + two parallel tool calls",
        include_str!("../../demo/openai-parallel-tools.sse"),
    ),
    (
        "Anthropic Messages · thinking, text, tool_use",
        include_str!("../../demo/anthropic-thinking-tool.sse"),
    ),
];

/// The pause between two SSE events at speed 1: about what a fast model's
/// token stream looks like.
const EVENT_PAUSE: Duration = Duration::from_millis(35);

pub fn run(args: &DemoArgs) -> Result<(), Failure> {
    if !(args.speed.is_finite() && args.speed > 0.0) {
        return Err(Failure::Usage(format!(
            "--speed must be a positive number, not {}",
            args.speed
        )));
    }
    let fancy = fancy_output();
    let pace = !args.no_pace && fancy;
    // A speed so small that the pause overflows a `Duration` is bad usage.
    let pause = Duration::try_from_secs_f64(EVENT_PAUSE.as_secs_f64() / args.speed)
        .map_err(|_| Failure::Usage(format!("--speed {:?} is too small", args.speed)))?;
    let mut view = LiveView::new(fancy);
    let started = Instant::now();
    let mut bytes = 0usize;
    for (title, body) in RECORDINGS {
        view.heading(title);
        let mut pipeline = Pipeline::new();
        for piece in body.split_inclusive("\n\n") {
            pipeline
                .feed(piece.as_bytes())
                .map_err(|e| Failure::Input(e.to_string()))?;
            bytes += piece.len();
            while let Some(event) = pipeline.next_event() {
                view.event(&event, pipeline.builder());
            }
            view.render(pipeline.builder())?;
            if pace {
                std::thread::sleep(pause);
            }
        }
        pipeline
            .finish()
            .map_err(|e| Failure::Input(e.to_string()))?;
        while let Some(event) = pipeline.next_event() {
            view.event(&event, pipeline.builder());
        }
        view.close(pipeline.builder())?;
    }
    let elapsed = started.elapsed();
    let library = library_time()?;
    let tally = view.tally;
    view.note(&format!(
        "{bytes} bytes · {} events · {} tool calls · {:.2} s on screen · library {:.0} µs unpaced ({:.0} MB/s)",
        tally.events,
        tally.tool_calls,
        elapsed.as_secs_f64(),
        library.as_secs_f64() * 1e6,
        bytes as f64 / library.as_secs_f64().max(1e-9) / 1e6,
    ));
    view.close(None)
}

/// The time the library takes over both recordings, fed the same pieces
/// with no pauses and nothing drawn: the best of a few runs. Timing the
/// pieces of the paced replay would measure caches gone cold during each
/// pause and the drawing between pieces, not the parser.
fn library_time() -> Result<Duration, Failure> {
    let mut best = Duration::MAX;
    for _ in 0..10 {
        let started = Instant::now();
        for (_, body) in RECORDINGS {
            let mut pipeline = Pipeline::new();
            for piece in body.split_inclusive("\n\n") {
                pipeline
                    .feed(piece.as_bytes())
                    .map_err(|e| Failure::Input(e.to_string()))?;
                while let Some(event) = pipeline.next_event() {
                    std::hint::black_box(event);
                }
            }
            pipeline
                .finish()
                .map_err(|e| Failure::Input(e.to_string()))?;
            while let Some(event) = pipeline.next_event() {
                std::hint::black_box(event);
            }
        }
        best = best.min(started.elapsed());
    }
    Ok(best)
}
