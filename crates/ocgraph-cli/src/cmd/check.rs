//! `ocgraph check`: verify every checksum and the CSR invariants of a graph, then its updates
//! (levels and write-ahead log) when it has any; first remove the temporary directories that
//! killed writers of it left beside it.

use std::path::PathBuf;

use clap::Args;
use ocgraph_core::format::{check_graph, remove_stale_temp_dirs};
use ocgraph_core::size::format_size;
use ocgraph_core::{has_updates, GraphView, Result};

/// Arguments of `ocgraph check`.
#[derive(Args)]
pub struct CheckArgs {
    /// Graph directory.
    graph: PathBuf,
}

/// Runs `ocgraph check`.
pub fn run(args: &CheckArgs) -> Result<()> {
    for stale in remove_stale_temp_dirs(&args.graph)? {
        eprintln!(
            "removed {} ({}): temporary directory of an interrupted write whose process is gone",
            stale.path.display(),
            format_size(stale.bytes)
        );
    }
    let report = check_graph(&args.graph)?;
    // Opening reads every level whole (checksums) and replays the log (frame checksums, sequence
    // order, vertex ranges), as every open of the graph does.
    let updates = if has_updates(&args.graph)? {
        let GraphView::Updated(snap) = GraphView::open(&args.graph, &Default::default())? else {
            unreachable!("a graph with updates opens as a snapshot")
        };
        Some((snap.num_levels(), snap.seq()))
    } else {
        None
    };
    println!(
        "OK: {}: {} files, {} bytes ({}) verified",
        args.graph.display(),
        report.files,
        report.bytes,
        format_size(report.bytes)
    );
    if let Some((levels, seq)) = updates {
        println!(
            "OK: {}: updates verified ({levels} level(s), log replayed up to batch {seq})",
            args.graph.display()
        );
    }
    Ok(())
}
