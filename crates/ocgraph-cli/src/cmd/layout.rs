//! `ocgraph layout`: build (or remove) a graph's grid layout, stored beside its CSR in the
//! same directory, for the edge-centric kernels (`ocgraph run pagerank|wcc|spmv --layout grid`),
//! the block-compressed copies of its adjacency files that the buffer pool reads instead of
//! the plain ones, packed copies of its lists (`--layout packed`, and `auto` under a small
//! buffer pool), or the hub index that bfs and wcc read before the lists.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use ocgraph_core::format::compressed::DEFAULT_BLOCK_SIZE;
use ocgraph_core::format::grid::Codec;
use ocgraph_core::ingest::{
    build_grid, compress_adjacency, index_hubs, pack_copy, remove_compressed, remove_grid, remove_hubs,
    remove_packed_copy, GridOptions,
};
use ocgraph_core::size::format_size;
use ocgraph_core::Result;

use super::output_args::build_memory_arg;
use super::size_arg;
use crate::progress::CliProgress;

/// Arguments of `ocgraph layout`.
#[derive(Args)]
pub struct LayoutArgs {
    #[command(subcommand)]
    what: LayoutCommand,
}

/// The layouts `ocgraph layout` builds.
#[derive(Subcommand)]
enum LayoutCommand {
    /// Build the grid: the arcs cut into P x P cells by source and destination block
    /// (replaces a grid the graph had). The graph must have no unmerged updates.
    Grid(GridArgs),
    /// Remove the grid of a graph.
    RemoveGrid {
        /// Graph directory.
        graph: PathBuf,
    },
    /// Write block-compressed copies of the neighbour and weight files (replacing copies the
    /// graph had), which the buffer pool (`--backend pool`) then reads instead of the plain
    /// files; mmap keeps reading the plain files. The graph must have no unmerged updates.
    Compress(CompressArgs),
    /// Remove the compressed copies of a graph.
    RemoveCompress {
        /// Graph directory.
        graph: PathBuf,
    },
    /// Write packed copies of the neighbour lists beside the plain ones (replacing copies the
    /// graph had): `--layout auto` reads them through a buffer pool smaller than the plain
    /// lists, `--layout packed` always. The graph must have no unmerged updates.
    Pack {
        /// Graph directory.
        graph: PathBuf,
        /// No progress bar (a summary line is still printed).
        #[arg(long)]
        quiet: bool,
    },
    /// Remove the packed copies of a graph's lists.
    RemovePack {
        /// Graph directory.
        graph: PathBuf,
    },
    /// Write the hub index (replacing the one the graph had): each vertex's three
    /// in-neighbours of highest out-degree, which bfs and wcc read before the lists (`--layout
    /// auto` when the graph has one, `--layout hubs` always). The graph must have no unmerged
    /// updates.
    Hubs {
        /// Graph directory.
        graph: PathBuf,
        /// No progress bar (a summary line is still printed).
        #[arg(long)]
        quiet: bool,
    },
    /// Remove the hub index of a graph.
    RemoveHubs {
        /// Graph directory.
        graph: PathBuf,
    },
}

/// Arguments of `ocgraph layout compress`.
#[derive(Args)]
struct CompressArgs {
    /// Graph directory.
    graph: PathBuf,
    /// Codec: lz4 (the only one).
    #[arg(long, default_value = "lz4", value_parser = ["lz4"])]
    codec: String,
    /// Logical block size: a multiple of 4KiB up to 1MiB, each block compressed on its own.
    #[arg(long, allow_negative_numbers = true, value_parser = size_arg, default_value_t = DEFAULT_BLOCK_SIZE as u64)]
    block_size: u64,
    /// Threads (0 = one per core).
    #[arg(long, allow_negative_numbers = true, default_value_t = 0)]
    threads: usize,
    /// No progress bar (a summary line is still printed).
    #[arg(long)]
    quiet: bool,
}

/// Arguments of `ocgraph layout grid`.
#[derive(Args)]
struct GridArgs {
    /// Graph directory.
    graph: PathBuf,
    /// Cells per side, at most 1,024 (default: the fewest blocks of at most 65,536 vertices;
    /// rounded so that blocks are powers of two).
    #[arg(long, allow_negative_numbers = true)]
    cells_per_side: Option<u32>,
    /// Memory for the build's buffers (at least 4KiB).
    #[arg(long, allow_negative_numbers = true, value_parser = build_memory_arg, default_value = "256MiB")]
    memory: u64,
    /// Compress each cell: none, lz4 (deltas and byte planes, then LZ4) or runs (runs of one
    /// source, then the destinations as they are).
    #[arg(long, default_value = "none")]
    compress: Codec,
    /// Threads (0 = one per core).
    #[arg(long, allow_negative_numbers = true, default_value_t = 0)]
    threads: usize,
    /// No progress bar (a summary line is still printed).
    #[arg(long)]
    quiet: bool,
}

impl LayoutArgs {
    /// The `--threads` of the builds that take it (0, one per core, for the others).
    pub(crate) fn threads(&self) -> usize {
        match &self.what {
            LayoutCommand::Grid(a) => a.threads,
            LayoutCommand::Compress(a) => a.threads,
            _ => 0,
        }
    }
}

/// Runs `ocgraph layout`.
pub fn run(args: &LayoutArgs) -> Result<()> {
    match &args.what {
        LayoutCommand::Grid(a) => grid(a),
        LayoutCommand::RemoveGrid { graph } => {
            let removed = remove_grid(graph)?;
            eprintln!("{}: {}", graph.display(), if removed { "grid removed" } else { "no grid to remove" });
            Ok(())
        }
        LayoutCommand::Compress(a) => compress(a),
        LayoutCommand::Pack { graph, quiet } => {
            let (progress, start) = (CliProgress::new(*quiet), std::time::Instant::now());
            let r = pack_copy(graph, &progress)?;
            eprintln!(
                "packed {} arcs: {} of plain lists and offsets into {} of packed lists and index ({}), beside them in {}, in {:.2} s",
                r.arcs,
                format_size(r.plain_bytes),
                format_size(r.packed_bytes),
                size_change(r.plain_bytes, r.packed_bytes),
                graph.display(),
                start.elapsed().as_secs_f64()
            );
            Ok(())
        }
        LayoutCommand::RemovePack { graph } => {
            let removed = remove_packed_copy(graph)?;
            let what = if removed { "packed copies removed" } else { "no packed copies to remove" };
            eprintln!("{}: {what}", graph.display());
            Ok(())
        }
        LayoutCommand::Hubs { graph, quiet } => {
            let (progress, start) = (CliProgress::new(*quiet), std::time::Instant::now());
            let r = index_hubs(graph, &progress)?;
            eprintln!(
                "indexed the hubs of {}: {} ({} vertices with more in-neighbours than hubs), in {:.2} s",
                graph.display(),
                format_size(r.bytes),
                r.more,
                start.elapsed().as_secs_f64()
            );
            Ok(())
        }
        LayoutCommand::RemoveHubs { graph } => {
            let removed = remove_hubs(graph)?;
            let what = if removed { "hub index removed" } else { "no hub index to remove" };
            eprintln!("{}: {what}", graph.display());
            Ok(())
        }
        LayoutCommand::RemoveCompress { graph } => {
            let removed = remove_compressed(graph)?;
            let what = if removed { "compressed copies removed" } else { "no compressed copies to remove" };
            eprintln!("{}: {what}", graph.display());
            Ok(())
        }
    }
}

fn compress(args: &CompressArgs) -> Result<()> {
    let progress = CliProgress::new(args.quiet);
    let block_size = u32::try_from(args.block_size)
        .map_err(|_| ocgraph_core::Error::invalid(format!("block size {} is too large", args.block_size)))?;
    let r = compress_adjacency(&args.graph, block_size, &progress)?;
    eprintln!(
        "compressed {} of lists and weights into {} ({}) in blocks of {}, {} in {:.2} s",
        format_size(r.plain_bytes),
        format_size(r.stored_bytes),
        size_change(r.plain_bytes, r.stored_bytes),
        format_size(r.block_size as u64),
        args.graph.display(),
        r.secs
    );
    Ok(())
}

fn grid(args: &GridArgs) -> Result<()> {
    let progress = CliProgress::new(args.quiet);
    let opts = GridOptions { cells_per_side: args.cells_per_side, memory: args.memory, codec: args.compress };
    let r = build_grid(&args.graph, &opts, &progress)?;
    let p = r.info.cells_per_side;
    let detail = format!(
        " into {p} x {p} cells of {} vertices, {} ({}; {} uncompressed), {}",
        1u64 << r.info.block_bits,
        format_size(r.stored_bytes),
        size_change(r.raw_bytes, r.stored_bytes),
        format_size(r.raw_bytes),
        args.graph.display()
    );
    progress.summary("grid of", r.arcs, "arcs", &detail);
    Ok(())
}

/// How `after` bytes compare with `before`: "1.61x smaller", "1.14x larger" or "the same size".
fn size_change(before: u64, after: u64) -> String {
    match before.cmp(&after) {
        std::cmp::Ordering::Greater => format!("{:.2}x smaller", before as f64 / after.max(1) as f64),
        std::cmp::Ordering::Less => format!("{:.2}x larger", after as f64 / before.max(1) as f64),
        std::cmp::Ordering::Equal => "the same size".to_string(),
    }
}
