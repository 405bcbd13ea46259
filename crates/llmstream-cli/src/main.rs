//! `llmstream`: every capability of the llmstream library over files or stdin.
//!
//! The subcommands and their output forms are the CLI contract of
//! docs/CLI.md; tests outside the project rely on them.

mod cmd;
mod gateway;
mod input;
mod live;
mod output;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Streams from LLM APIs: incremental JSON, Server-Sent Events, provider deltas.
#[derive(Parser, Debug)]
#[command(name = "llmstream", version, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Parse JSON incrementally: final value, live snapshots or path-aware events.
    Json(cmd::json::JsonArgs),
    /// Best-effort value of a truncated JSON text (`json --partial --lenient`).
    Repair(cmd::json::RepairArgs),
    /// Decode a text/event-stream body into events, one JSON line each.
    Sse(cmd::sse::SseArgs),
    /// Fold a provider's raw SSE body into the final message, or its events.
    Accumulate(cmd::accumulate::AccumulateArgs),
    /// Turn complete JSON snapshots (JSON Lines) back into streaming chunks.
    Chunk(cmd::chunk::ChunkArgs),
    /// Find JSON action objects (tool calls) in model text, as events.
    Actions(cmd::actions::ActionsArgs),
    /// Write a provider's raw SSE body as another provider's, as it streams.
    Translate(cmd::translate::TranslateArgs),
    /// Serve one provider's API over another's: requests and streams translated.
    Gateway(gateway::GatewayArgs),
    /// Replay two recorded provider streams (OpenAI, Anthropic) live: text, and tool-call arguments as growing JSON trees.
    Demo(cmd::demo::DemoArgs),
}

/// Why a subcommand failed: bad input (exit 1) or bad usage (exit 2).
#[derive(Debug)]
pub enum Failure {
    /// The input was rejected; the message says what and where.
    Input(String),
    /// The command line asked for something impossible.
    Usage(String),
    /// Whoever read the output stopped reading (`llmstream … | head`):
    /// nothing more to do, and nothing wrong (exit 0).
    OutputClosed,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Json(args) => cmd::json::run(args),
        Command::Repair(args) => cmd::json::repair(args),
        Command::Sse(args) => cmd::sse::run(args),
        Command::Accumulate(args) => cmd::accumulate::run(args),
        Command::Chunk(args) => cmd::chunk::run(args),
        Command::Actions(args) => cmd::actions::run(args),
        Command::Translate(args) => cmd::translate::run(args),
        Command::Gateway(args) => gateway::run(args),
        Command::Demo(args) => cmd::demo::run(args),
    };
    match result {
        Ok(()) | Err(Failure::OutputClosed) => ExitCode::SUCCESS,
        Err(Failure::Input(msg)) => report(&msg, 1),
        Err(Failure::Usage(msg)) => report(&msg, 2),
    }
}

/// Writes `error: msg` to stderr and gives the exit code. An unwritable
/// stderr (a full disk, a closed pipe) changes nothing but the message
/// (`eprintln!` would panic, exit 101).
fn report(msg: &str, code: u8) -> ExitCode {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "error: {msg}");
    ExitCode::from(code)
}
