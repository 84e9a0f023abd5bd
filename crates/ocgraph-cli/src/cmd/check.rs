//! `ocgraph check`: verify every checksum and the CSR invariants of a graph, then its updates
//! (levels and write-ahead log) when it has any; first remove the temporary directories that
//! killed writers of it left beside it (where the file system allows).

use std::path::PathBuf;

use clap::Args;
use ocgraph_core::format::{check_graph, remove_stale_temp_dirs};
use ocgraph_core::size::format_size;
use ocgraph_core::update::check_updates;
use ocgraph_core::Result;

/// Arguments of `ocgraph check`.
#[derive(Args)]
pub struct CheckArgs {
    /// Graph directory.
    graph: PathBuf,
}

/// Runs `ocgraph check`.
pub fn run(args: &CheckArgs) -> Result<()> {
    // Clearing them is housekeeping: where it fails (a read-only file system), the graph is
    // still checked.
    match remove_stale_temp_dirs(&args.graph) {
        Ok(stale) => {
            for s in stale {
                eprintln!(
                    "removed {} ({}): temporary directory of an interrupted write whose process is gone",
                    s.path.display(),
                    format_size(s.bytes)
                );
            }
        }
        Err(e) => eprintln!("warning: temporary directories of interrupted writes left in place: {e}"),
    }
    let report = check_graph(&args.graph)?;
    let updates = check_updates(&args.graph)?;
    println!(
        "OK: {}: {} files, {} bytes ({}) verified",
        args.graph.display(),
        report.files,
        report.bytes,
        format_size(report.bytes)
    );
    if let Some(u) = updates {
        println!(
            "OK: {}: updates verified ({} level(s), log replayed up to batch {})",
            args.graph.display(),
            u.levels,
            u.seq
        );
        if let Some(tail) = u.torn_tail() {
            eprintln!("warning: {tail}");
        }
    }
    Ok(())
}
