//! Options shared by the commands that write a new graph directory (`import`, `generate`,
//! `pack`, `reorder`).

use clap::Args;

use ocgraph_core::ingest::MIN_BUILD_MEMORY;

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

/// clap value parser for a builder's memory budget: a size of at least [`MIN_BUILD_MEMORY`].
pub(crate) fn build_memory_arg(s: &str) -> std::result::Result<u64, String> {
    let bytes = size_arg(s)?;
    if bytes < MIN_BUILD_MEMORY {
        return Err(format!("{s}: a build needs at least 4KiB"));
    }
    Ok(bytes)
}

/// [`OutputArgs`] and the memory budget of a graph builder.
#[derive(Args)]
pub(crate) struct BuilderArgs {
    /// Memory budget of the builder, e.g. 256MB, 1GiB (beyond it, sorted runs go to disk; at
    /// least 4KiB).
    #[arg(long, allow_negative_numbers = true, value_parser = build_memory_arg, default_value = "1GiB")]
    pub(crate) memory: u64,
    #[command(flatten)]
    pub(crate) output: OutputArgs,
}
