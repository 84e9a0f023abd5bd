//! Options shared by the commands that write a new graph directory (`import`, `generate`,
//! `pack`, `reorder`).

use clap::Args;

use super::size_arg;

/// Whether to replace the output, and whether to show progress.
#[derive(Args)]
pub(crate) struct OutputArgs {
    /// Replace OUT if it exists.
    #[arg(long)]
    pub(crate) force: bool,
    /// No progress bar (a summary line is still printed).
    #[arg(long)]
    pub(crate) quiet: bool,
}

/// [`OutputArgs`] and the memory budget of a graph builder.
#[derive(Args)]
pub(crate) struct BuilderArgs {
    /// Memory budget of the builder, e.g. 256MB, 1GiB (beyond it, sorted runs go to disk).
    #[arg(long, value_parser = size_arg, default_value = "1GiB")]
    pub(crate) memory: u64,
    #[command(flatten)]
    pub(crate) output: OutputArgs,
}
