//! `llmstream actions` (not built yet).

use clap::Args;

use crate::input::InputArgs;
use crate::Failure;

/// The arguments of `llmstream actions`.
#[derive(Args, Debug)]
pub struct ActionsArgs {
    #[command(flatten)]
    pub input: InputArgs,
}

pub fn run(_args: &ActionsArgs) -> Result<(), Failure> {
    Err(Failure::Usage("the actions subcommand is not built yet".into()))
}
