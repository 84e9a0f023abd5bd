//! `ocgraph update`: apply durable updates to a graph (edges from text files, vertices by count
//! or id list), and `ocgraph compact`: merge a graph's levels into a new base.
//!
//! Edge files hold one `src dst [weight]` line per edge (internal vertex ids, or with
//! `--original-ids` the ids of the imported input, where a new id gets a new vertex; `#` or `%`
//! starts a comment). Each file is applied in batches of `--batch-size` edges; every batch is written to
//! the write-ahead log and is durable (per `--durability`) when the command moves on. Every
//! file is read and checked before the first batch (a bad line applies nothing); a batch that
//! then fails (a full disk) leaves the batches before it applied. The files
//! are applied in this order: `--add-vertices`, `--add-edges`, `--set-weights`, `--remove-edges`,
//! `--remove-vertices`, `--set-labels` (an edge both added and removed ends up removed).
//! `--set-weights FILE` changes the weights of existing edges from `src dst weight` lines (an
//! edge the graph lacks is left absent).
//! `--set-labels FILE` sets vertex labels the same way, from `L vertex label` lines (`-` for
//! the label removes it; the `L` may be left out).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use ocgraph_core::format::IdMapKind;
use ocgraph_core::ids::OriginalId;
use ocgraph_core::ingest::parse_weight;
use ocgraph_core::update::{Durability, WritableGraph, WriteOptions};
use ocgraph_core::{Error, Result, Vertex};

use super::stream::parse_label;
use super::text_lines::for_each_line;
use crate::backend_args::BackendArgs;
use ocgraph_core::ingest::Progress;

use crate::progress::CliProgress;

/// When a batch is durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DurabilityArg {
    /// fsync the log for every batch (group commit shares one fsync between concurrent batches).
    Batch,
    /// fsync the log at most every 100 ms (a crash may lose the last interval).
    Interval,
    /// Never fsync the log (the OS writes it back; a crash may lose recent batches).
    None,
}

impl DurabilityArg {
    pub(crate) fn durability(self) -> Durability {
        match self {
            DurabilityArg::Batch => Durability::PerBatch,
            DurabilityArg::Interval => Durability::Interval(Duration::from_millis(100)),
            DurabilityArg::None => Durability::None,
        }
    }
}

/// Arguments of `ocgraph update`.
#[derive(Args)]
pub struct UpdateArgs {
    /// Graph directory.
    pub(crate) graph: PathBuf,
    /// Add the edges listed in this file (`src dst [weight]` per line).
    #[arg(long)]
    add_edges: Option<PathBuf>,
    /// Set the weights of the edges listed in this file (`src dst weight` per line; missing
    /// edges are ignored), after the additions of --add-edges.
    #[arg(long)]
    set_weights: Option<PathBuf>,
    /// Remove the edges listed in this file (`src dst` per line; missing edges are ignored),
    /// after the additions of --add-edges.
    #[arg(long)]
    remove_edges: Option<PathBuf>,
    /// Add this many isolated vertices (applied first; their ids are printed).
    #[arg(long)]
    add_vertices: Option<u32>,
    /// Remove every edge of the vertices listed in this file (one id per line), after the
    /// edge files.
    #[arg(long)]
    remove_vertices: Option<PathBuf>,
    /// Set vertex labels from this file (applied last): `L vertex label` per line (the `L` is
    /// optional; label `-` removes the vertex's label).
    #[arg(long)]
    set_labels: Option<PathBuf>,
    /// Edges per batch.
    #[arg(long, default_value_t = 10_000, value_parser = super::positive)]
    batch_size: usize,
    /// When a batch is durable.
    #[arg(long, value_enum, default_value_t = DurabilityArg::Batch)]
    durability: DurabilityArg,
    /// Freeze the in-memory delta into a new level at the end.
    #[arg(long)]
    freeze: bool,
    /// Print `ack N` as soon as batch N is acknowledged (durable per `--durability`): after a
    /// failure, the batches acknowledged before it are the ones a reopen must show.
    #[arg(long)]
    ack: bool,
    /// The files hold original ids (as imported, e.g. with `--relabel`) instead of vertex ids:
    /// a new id in `--add-edges` gets a new vertex, an unknown id elsewhere is missing.
    #[arg(long)]
    original_ids: bool,
    #[command(flatten)]
    backend: BackendArgs,
}

/// Arguments of `ocgraph compact`.
#[derive(Args)]
pub struct CompactArgs {
    /// Graph directory.
    pub(crate) graph: PathBuf,
    #[command(flatten)]
    backend: BackendArgs,
}

/// Whether the lines of an update file end with a weight.
#[derive(Clone, Copy, PartialEq)]
enum WeightCol {
    /// No weight column.
    No,
    /// A weight may follow the ids (1 when it does not).
    Optional,
    /// Every line ends with a weight.
    Required,
}

/// Reads `path`'s lines as whitespace-separated columns: ids (`ids` of them, each read by
/// `parse`, which says what is wrong with one it refuses) and a weight per `weight`; errors
/// name the file and line.
fn read_lines<T>(
    path: &Path,
    ids: usize,
    weight: WeightCol,
    parse: impl Fn(&str) -> std::result::Result<T, String>,
) -> Result<(Vec<T>, Vec<f32>)> {
    let (mut out, mut weights) = (Vec::new(), Vec::new());
    let weighted = weight != WeightCol::No;
    for_each_line(path, |no, text| {
        let cols: Vec<&str> = text.split_whitespace().collect();
        let max = ids + usize::from(weighted);
        let min = ids + usize::from(weight == WeightCol::Required);
        if cols.len() < min || cols.len() > max {
            return Err(Error::input_line(
                path,
                no,
                if min == max {
                    format!("expected {max} columns, found {}", cols.len())
                } else {
                    format!("expected {min} to {max} columns, found {}", cols.len())
                },
            ));
        }
        for c in &cols[..ids] {
            out.push(parse(c).map_err(|e| Error::input_line(path, no, e))?);
        }
        if weighted {
            let w = match cols.get(ids) {
                Some(c) => parse_weight(c.as_bytes()).map_err(|e| Error::input_line(path, no, e))?,
                None => 1.0,
            };
            weights.push(w);
        }
        Ok(())
    })?;
    Ok((out, weights))
}

/// Reads the `L vertex label` lines of `path` (the `L` optional; label `-` for none), each
/// vertex read by `parse`; errors name the file and line.
fn read_label_lines<T>(
    path: &Path,
    parse: impl Fn(&str) -> std::result::Result<T, String>,
) -> Result<Vec<(T, u32)>> {
    let mut out = Vec::new();
    for_each_line(path, |no, text| {
        let cols: Vec<&str> = text.split_whitespace().collect();
        let [v, label] = match cols[..] {
            ["L", v, l] | [v, l] => [v, l],
            _ => {
                return Err(Error::input_line(path, no, format!("expected 'L vertex label', found '{text}'")))
            }
        };
        let v = parse(v).map_err(|e| Error::input_line(path, no, e))?;
        let label =
            parse_label(label).ok_or_else(|| Error::input_line(path, no, format!("bad label '{label}'")))?;
        out.push((v, label));
        Ok(())
    })?;
    Ok(out)
}

/// Applies `f` to `items` in batches of `size` (printing `ack N` after each batch when `ack`);
/// prints the count and rate.
fn batched<T>(
    what: &str,
    items: &[T],
    size: usize,
    ack: bool,
    mut f: impl FnMut(&[T], usize) -> Result<u64>,
) -> Result<()> {
    let start = Instant::now();
    let mut last = 0;
    for (i, chunk) in items.chunks(size).enumerate() {
        last = f(chunk, i * size)?;
        if ack {
            println!("ack {last}");
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{what}: {} in {secs:.3} s ({:.0}/s), last batch {last}",
        items.len(),
        items.len() as f64 / secs.max(1e-9)
    );
    Ok(())
}

/// The weight column of an edge file to add: optional on a weighted graph, none otherwise.
fn optional_weight(g: &WritableGraph) -> WeightCol {
    if g.is_weighted() {
        WeightCol::Optional
    } else {
        WeightCol::No
    }
}

fn write_options(backend: &BackendArgs, durability: Durability) -> Result<WriteOptions> {
    Ok(WriteOptions { backend: backend.options()?.backend, durability, ..WriteOptions::default() })
}

/// The edges of an update file and their weights (one per edge, or none).
type Edges<I> = (Vec<(I, I)>, Vec<f32>);

/// Every file of an `ocgraph update`, read and checked before its first batch is applied (ids
/// of type `I`: vertex ids, or original ids).
struct Files<I> {
    add_edges: Option<Edges<I>>,
    set_weights: Option<Edges<I>>,
    remove_edges: Option<Vec<(I, I)>>,
    remove_vertices: Option<Vec<I>>,
    set_labels: Option<Vec<(I, u32)>>,
}

impl<I: Clone> Files<I> {
    /// Reads the files `args` names, each id read by `id` (which says what is wrong with one
    /// it refuses); `add_weight` is the weight column of `--add-edges`.
    fn read(
        args: &UpdateArgs,
        add_weight: WeightCol,
        id: impl Fn(&str) -> std::result::Result<I, String> + Copy,
    ) -> Result<Files<I>> {
        let pairs = |ids: Vec<I>| -> Vec<(I, I)> {
            ids.chunks_exact(2).map(|p| (p[0].clone(), p[1].clone())).collect()
        };
        let edges = |path: &Path, weight| -> Result<Edges<I>> {
            let (ids, weights) = read_lines(path, 2, weight, id)?;
            Ok((pairs(ids), weights))
        };
        Ok(Files {
            add_edges: args.add_edges.as_deref().map(|p| edges(p, add_weight)).transpose()?,
            set_weights: args.set_weights.as_deref().map(|p| edges(p, WeightCol::Required)).transpose()?,
            remove_edges: args.remove_edges.as_deref().map(|p| Ok(edges(p, WeightCol::No)?.0)).transpose()?,
            remove_vertices: args
                .remove_vertices
                .as_deref()
                .map(|p| Ok(read_lines(p, 1, WeightCol::No, id)?.0))
                .transpose()?,
            set_labels: args.set_labels.as_deref().map(|p| read_label_lines(p, id)).transpose()?,
        })
    }
}

/// Runs `ocgraph update`. Every file is read and checked before the first batch: a file that
/// does not parse, or names a vertex the graph will not have, applies nothing.
pub fn run(args: &UpdateArgs) -> Result<()> {
    let g = WritableGraph::open(&args.graph, &write_options(&args.backend, args.durability.durability())?)?;
    let rec = g.recovery();
    if rec.replayed > 0 {
        println!("replayed {} batch(es) from the write-ahead log", rec.replayed);
    }
    if let (Some(file), Some((offset, why))) = (&rec.dropped_file, &rec.dropped_at) {
        println!(
            "dropped a torn tail of {} bytes from {} at offset {offset} ({why})",
            rec.dropped_bytes,
            file.display()
        );
    }
    if args.set_weights.is_some() && !g.is_weighted() {
        return Err(Error::invalid("--set-weights: the graph is unweighted"));
    }
    if args.original_ids {
        let strings = g.id_kind() == IdMapKind::Strings;
        let id = |c: &str| {
            if strings {
                Ok(OriginalId::Str(c.to_string()))
            } else {
                c.parse::<u64>().map(OriginalId::Int).map_err(|_| format!("bad vertex id '{c}'"))
            }
        };
        let files = Files::read(args, optional_weight(&g), id)?;
        add_vertices(args, &g)?;
        return apply_by_original_id(args, g, files);
    }
    // A vertex the graph will not have (after --add-vertices) is named by its file and line,
    // as in `stream`.
    let n = g.num_vertices() + args.add_vertices.unwrap_or(0) as usize;
    let vertex = |c: &str| match c.parse::<Vertex>() {
        Ok(v) if (v as usize) < n => Ok(v),
        Ok(v) => Err(format!("vertex {v} is not in the graph ({n} vertices)")),
        Err(_) => Err(format!("bad vertex id '{c}'")),
    };
    let files = Files::read(args, optional_weight(&g), vertex)?;
    add_vertices(args, &g)?;
    if let Some((edges, weights)) = &files.add_edges {
        batched("added edges", edges, args.batch_size, args.ack, |chunk, at| {
            let w = g.is_weighted().then(|| &weights[at..at + chunk.len()]);
            g.add_edges(chunk, w)
        })?;
    }
    if let Some((edges, weights)) = &files.set_weights {
        batched("set weights", edges, args.batch_size, args.ack, |chunk, at| {
            g.set_edge_weights(chunk, &weights[at..at + chunk.len()])
        })?;
    }
    if let Some(edges) = &files.remove_edges {
        batched("removed edges", edges, args.batch_size, args.ack, |chunk, _| g.remove_edges(chunk))?;
    }
    if let Some(ids) = &files.remove_vertices {
        batched("removed vertices", ids, args.batch_size, args.ack, |chunk, _| g.remove_vertices(chunk))?;
    }
    if let Some(labels) = &files.set_labels {
        batched("set labels", labels, args.batch_size, args.ack, |chunk, _| g.set_labels(chunk))?;
    }
    finish(args, g)
}

/// `--add-vertices` (the first batch, acknowledged as the others).
fn add_vertices(args: &UpdateArgs, g: &WritableGraph) -> Result<()> {
    let Some(n) = args.add_vertices else { return Ok(()) };
    let before = g.last_seq();
    let ids = g.add_vertices(n)?;
    if args.ack && g.last_seq() > before {
        println!("ack {}", g.last_seq());
    }
    match ids.len() {
        0 => println!("added no vertices"),
        k => println!("added {k} vertices: {} to {}", ids.start, ids.end - 1),
    }
    Ok(())
}

/// The batches of `ocgraph update --original-ids`: the files hold ids as imported.
fn apply_by_original_id(args: &UpdateArgs, g: WritableGraph, files: Files<OriginalId>) -> Result<()> {
    if let Some((edges, weights)) = &files.add_edges {
        let before = g.num_vertices();
        batched("added edges", edges, args.batch_size, args.ack, |chunk, at| {
            let w = g.is_weighted().then(|| &weights[at..at + chunk.len()]);
            g.add_edges_by_id(chunk, w)
        })?;
        println!("new vertices {}", g.num_vertices() - before);
    }
    if let Some((edges, weights)) = &files.set_weights {
        batched("set weights", edges, args.batch_size, args.ack, |chunk, at| {
            g.set_edge_weights_by_id(chunk, &weights[at..at + chunk.len()])
        })?;
    }
    if let Some(edges) = &files.remove_edges {
        batched("removed edges", edges, args.batch_size, args.ack, |chunk, _| g.remove_edges_by_id(chunk))?;
    }
    if let Some(ids) = &files.remove_vertices {
        batched("removed vertices", ids, args.batch_size, args.ack, |chunk, _| {
            g.remove_vertices_by_id(chunk)
        })?;
    }
    if let Some(labels) = &files.set_labels {
        batched("set labels", labels, args.batch_size, args.ack, |chunk, _| g.set_labels_by_id(chunk))?;
    }
    finish(args, g)
}

/// Freezes when asked, prints the state and closes the graph.
fn finish(args: &UpdateArgs, g: WritableGraph) -> Result<()> {
    if args.freeze {
        g.freeze()?;
    }
    println!("levels {}, vertices {}, last batch {}", g.num_levels(), g.num_vertices(), g.last_seq());
    g.close()
}

/// Runs `ocgraph compact`.
pub fn compact(args: &CompactArgs) -> Result<()> {
    let g = WritableGraph::open(&args.graph, &write_options(&args.backend, Durability::PerBatch)?)?;
    let (levels, start) = (g.num_levels(), Instant::now());
    let progress = CliProgress::new(false);
    progress.spinner(&format!("compacting {levels} level(s) of {}", args.graph.display()));
    let result = g.compact();
    progress.finish();
    result?;
    println!(
        "compacted {levels} level(s) and the delta into a new base in {:.3} s",
        start.elapsed().as_secs_f64()
    );
    g.close()
}
