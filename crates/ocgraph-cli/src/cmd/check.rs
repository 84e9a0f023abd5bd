//! `ocgraph check`: verify every checksum and the CSR invariants of a graph, then its updates
//! (levels and write-ahead log) when it has any; first remove the temporary directories that
//! killed writers of it left beside it (where the file system allows).

use std::path::PathBuf;

use clap::Args;
use ocgraph_core::format::{check_graph, remove_stale_temp_dirs};
use ocgraph_core::size::format_size;
use ocgraph_core::update::{Durability, WritableGraph, WriteOptions};
use ocgraph_core::{has_updates, Result};

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
    // Opening reads every level whole (checksums) and replays the log (frame checksums, sequence
    // order, vertex ranges), as every open of the graph does.
    let updates = if has_updates(&args.graph)? {
        let opts =
            WriteOptions { durability: Durability::None, auto_compact_levels: None, ..Default::default() };
        let g = WritableGraph::open_for_reading(&args.graph, &opts)?;
        let snap = g.snapshot();
        let rec = g.recovery();
        let torn = rec.dropped_file.clone().zip(rec.dropped_at.clone()).map(|t| (t, rec.dropped_unsynced));
        g.close()?;
        Some((snap.num_levels(), snap.seq(), torn))
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
    if let Some((levels, seq, torn)) = updates {
        println!(
            "OK: {}: updates verified ({levels} level(s), log replayed up to batch {seq})",
            args.graph.display()
        );
        if let Some(((file, (offset, why)), unsynced)) = torn {
            // Not an error: a writer stopped mid-append leaves such a tail. But a whole frame
            // with a bad checksum may also be a damaged acknowledged batch, so say so.
            let cause = if unsynced {
                "a crash under durability none kept the batch but not its names"
            } else {
                "a batch being written when its writer stopped, or a damaged last batch"
            };
            eprintln!(
                "warning: {} ends at offset {offset} in a batch that is not replayed ({why}): \
                 {cause}; the next open for updates drops it",
                file.display()
            );
        }
    }
    Ok(())
}
