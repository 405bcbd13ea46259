//! `llmstream sse` (placeholder until the SSE decoder lands).

use clap::Args;

use crate::input::InputArgs;
use crate::Failure;

#[derive(Args, Debug)]
pub struct SseArgs {
    #[command(flatten)]
    pub input: InputArgs,
}

pub fn run(_args: &SseArgs) -> Result<(), Failure> {
    Err(Failure::Usage("the sse subcommand is not built yet".into()))
}
