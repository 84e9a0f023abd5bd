//! `ocgraph import`: build a graph from an edge-list file.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use ocgraph_core::ingest::{self, BuildOptions, Columns, ImportOptions, InputFormat, Progress, Relabel};
use ocgraph_core::Result;

use super::output_args::BuilderArgs;
use crate::progress::CliProgress;

/// Input formats (`auto` detects gzip, MatrixMarket headers and extensions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// Detect from the content and extension.
    Auto,
    /// `src dst [weight]` lines; `#`/`%` comments.
    Text,
    /// CSV with a header line.
    Csv,
    /// MatrixMarket coordinate.
    Mtx,
    /// Little-endian u32 pairs.
    Bin32,
    /// Little-endian u64 pairs.
    Bin64,
    /// A Parquet table (columns named by --source-col, --target-col, --weight-col).
    Parquet,
    /// Little-endian (u32, u32, f32 weight) records.
    Bin32w,
    /// Little-endian (u64, u64, f32 weight) records.
    Bin64w,
}

/// How to relabel ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RelabelArg {
    /// Compact ids in order of first appearance.
    FirstSeen,
    /// Compact ids in ascending original order (reads the input twice).
    Sorted,
}

/// Arguments of `ocgraph import`.
#[derive(Args)]
pub struct ImportArgs {
    /// Input edge list (may be gzip'd), or a Parquet file (`.parquet`).
    input: PathBuf,
    /// Output graph directory.
    out: PathBuf,
    /// Store each edge in both directions (an undirected graph).
    #[arg(long)]
    undirected: bool,
    /// Read a third column as f32 weights (CSV: the column named `weight` or `w`, else the
    /// third; Parquet: the column `weight`).
    #[arg(long)]
    weighted: bool,
    /// CSV or Parquet: the column of source ids, by its header name (Parquet default: src).
    #[arg(long, value_name = "NAME")]
    source_col: Option<String>,
    /// CSV or Parquet: the column of target ids, by its header name (Parquet default: dst).
    #[arg(long, value_name = "NAME")]
    target_col: Option<String>,
    /// CSV or Parquet: the column of weights, by its header name (makes the graph weighted).
    #[arg(long, value_name = "NAME")]
    weight_col: Option<String>,
    /// Remove duplicate edges.
    #[arg(long)]
    dedup: bool,
    /// Remove self-loops.
    #[arg(long)]
    drop_self_loops: bool,
    /// Compact ids to 0..n (default order: first-seen); the original ids are kept.
    #[arg(long, value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "first-seen")]
    relabel: Option<RelabelArg>,
    /// Input format.
    #[arg(long, value_enum, default_value_t = FormatArg::Auto)]
    format: FormatArg,
    /// Number of vertices when the ids are kept: ids must be below N (the rest are isolated).
    #[arg(long, allow_negative_numbers = true, value_name = "N", conflicts_with = "relabel")]
    num_vertices: Option<u64>,
    /// Keep the ids even when the largest id makes the graph mostly empty vertices (by default
    /// the import stops when the offsets would exceed 64 MiB and 16x the edges' bytes).
    #[arg(long, conflicts_with = "relabel")]
    allow_sparse_ids: bool,
    /// Vertex labels to store with the graph: a file of `vertex label` lines (ids as in the
    /// input, labels unsigned integers), for labelled patterns (`ocgraph mine pattern`).
    #[arg(long, value_name = "FILE")]
    labels: Option<PathBuf>,
    /// Worker threads (default: one per core).
    #[arg(long, allow_negative_numbers = true, default_value_t = 0)]
    pub(crate) threads: usize,
    #[command(flatten)]
    build: BuilderArgs,
}

/// Runs `ocgraph import`.
pub fn run(args: &ImportArgs) -> Result<()> {
    let parquet = args.format == FormatArg::Parquet
        || (args.format == FormatArg::Auto && super::parquet::is_parquet(&args.input));
    let opts = ImportOptions {
        format: match args.format {
            FormatArg::Auto => InputFormat::Auto,
            FormatArg::Text => InputFormat::Text,
            FormatArg::Csv => InputFormat::Csv,
            FormatArg::Mtx => InputFormat::MatrixMarket,
            FormatArg::Bin32 => InputFormat::Binary32,
            FormatArg::Bin64 => InputFormat::Binary64,
            FormatArg::Parquet => InputFormat::Auto,
            FormatArg::Bin32w => InputFormat::Binary32Weighted,
            FormatArg::Bin64w => InputFormat::Binary64Weighted,
        },
        relabel: match args.relabel {
            None => Relabel::None,
            Some(RelabelArg::FirstSeen) => Relabel::FirstSeen,
            Some(RelabelArg::Sorted) => Relabel::Sorted,
        },
        build: BuildOptions {
            directed: !args.undirected,
            weighted: args.weighted,
            dedup: args.dedup,
            drop_self_loops: args.drop_self_loops,
            memory: args.build.memory,
            overwrite: args.build.output.force,
            source: String::new(),
        },
        columns: Columns {
            source: args.source_col.clone(),
            target: args.target_col.clone(),
            weight: args.weight_col.clone(),
        },
        num_vertices: args.num_vertices,
        allow_sparse_ids: args.allow_sparse_ids,
        labels: args.labels.clone(),
    };
    let progress = CliProgress::new(args.build.output.quiet);
    let result = if parquet {
        let weight = args.weight_col.as_deref().or(args.weighted.then_some("weight"));
        let cols = super::parquet::ColumnNames {
            source: args.source_col.as_deref().unwrap_or("src"),
            target: args.target_col.as_deref().unwrap_or("dst"),
            weight,
        };
        super::parquet::import(&args.input, &args.out, &cols, &opts, &progress)
    } else {
        ingest::import(&args.input, &args.out, &opts, &progress)
    };
    progress.finish();
    let report = result?;
    for notice in &report.notices {
        eprintln!("note: {notice}");
    }
    progress.summary(
        "imported",
        report.num_edges,
        "edges",
        &format!(
            " ({} vertices, {} arcs, {} spilled runs, peak buffers {}) into {}",
            report.num_vertices,
            report.num_arcs,
            report.spilled_runs,
            ocgraph_core::size::format_size(report.peak_buffer_bytes),
            args.out.display()
        ),
    );
    Ok(())
}
