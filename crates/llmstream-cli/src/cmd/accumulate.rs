//! `llmstream accumulate` (not built yet).

use clap::Args;

use crate::input::InputArgs;
use crate::Failure;

/// The arguments of `llmstream accumulate`.
#[derive(Args, Debug)]
pub struct AccumulateArgs {
    #[command(flatten)]
    pub input: InputArgs,
}

pub fn run(_args: &AccumulateArgs) -> Result<(), Failure> {
    Err(Failure::Usage("the accumulate subcommand is not built yet".into()))
}
