//! `llmstream chunk` (not built yet).

use clap::Args;

use crate::input::InputArgs;
use crate::Failure;

/// The arguments of `llmstream chunk`.
#[derive(Args, Debug)]
pub struct ChunkArgs {
    #[command(flatten)]
    pub input: InputArgs,
}

pub fn run(_args: &ChunkArgs) -> Result<(), Failure> {
    Err(Failure::Usage("the chunk subcommand is not built yet".into()))
}
