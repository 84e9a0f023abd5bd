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

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use ocgraph_core::format::IdMapKind;
use ocgraph_core::ids::OriginalId;
use ocgraph_core::ingest::parse_weight;
use ocgraph_core::update::ids_log::new_id_problem;
use ocgraph_core::update::{Durability, WritableGraph, WriteOptions};
use ocgraph_core::{Error, Result, Vertex};

use super::text_lines::for_each_line;
use super::text_lines::parse_label;
use crate::backend_args::BackendArgs;
use ocgraph_core::ingest::Progress;

use crate::progress::CliProgress;

/// When a batch is durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DurabilityArg {
    /// fsync the log for every batch (group commit shares one fsync between concurrent batches).
    Batch,
    /// fsync the log every 100 ms, in the background (a crash may lose the last interval).
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
    #[arg(long, allow_negative_numbers = true)]
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
    #[arg(long, allow_negative_numbers = true, default_value_t = 10_000, value_parser = super::batch_size_arg)]
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
    /// a new id in `--add-edges` gets a new vertex, an edge with an unknown id in
    /// `--remove-edges` or `--set-weights` is skipped (as a missing edge), and an unknown id in
    /// `--remove-vertices` is an error naming its line.
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

/// The ids read from the lines of an update file, and their weights (one per line, or none).
type Columns<T> = (Vec<T>, Vec<f32>);

/// The `(vertex, label)` pairs of a labels file.
type Labels<T> = Vec<(T, u32)>;

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
/// name the file and line. Also returns the line number of each line read.
fn read_numbered_lines<T>(
    path: &Path,
    ids: usize,
    weight: WeightCol,
    parse: impl Fn(&str) -> std::result::Result<T, String>,
) -> Result<(Columns<T>, Vec<u64>)> {
    let (mut out, mut weights, mut lines) = (Vec::new(), Vec::new(), Vec::new());
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
                    format!("expected {max} column{}, found {}", if max == 1 { "" } else { "s" }, cols.len())
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
        lines.push(no);
        Ok(())
    })?;
    Ok(((out, weights), lines))
}

/// Reads the `L vertex label` lines of `path` (the `L` optional; label `-` for none), each
/// vertex read by `parse`; errors name the file and line.
fn read_label_lines<T>(
    path: &Path,
    parse: impl Fn(&str) -> std::result::Result<T, String>,
) -> Result<(Labels<T>, Vec<u64>)> {
    let (mut out, mut lines) = (Vec::new(), Vec::new());
    for_each_line(path, |no, text| {
        let cols: Vec<&str> = text.split_whitespace().collect();
        // `L 0` is a line missing its label, not vertex `L` (a vertex named `L` is `L L 5`).
        let [v, label] = match cols[..] {
            ["L", v, l] => [v, l],
            [v, l] if v != "L" => [v, l],
            _ => {
                return Err(Error::input_line(path, no, format!("expected 'L vertex label', found '{text}'")))
            }
        };
        let v = parse(v).map_err(|e| Error::input_line(path, no, e))?;
        let label = parse_label(label).map_err(|e| Error::input_line(path, no, e))?;
        out.push((v, label));
        lines.push(no);
        Ok(())
    })?;
    Ok((out, lines))
}

/// Applies `f` to `items` in batches of `size`, the graph's last batch being `last` before the
/// first (printing `ack N` after each batch that the log took, when `ack`: a batch that changes
/// nothing takes no number); prints the count and rate.
fn batched<T>(
    what: &str,
    items: &[T],
    size: usize,
    ack: bool,
    mut last: u64,
    mut f: impl FnMut(&[T], usize) -> Result<u64>,
) -> Result<()> {
    let start = Instant::now();
    for (i, chunk) in items.chunks(size).enumerate() {
        let seq = f(chunk, i * size)?;
        if ack && seq > last {
            println!("ack {seq}");
        }
        last = last.max(seq);
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

fn write_options(backend: &BackendArgs, command: &str, durability: Durability) -> Result<WriteOptions> {
    Ok(WriteOptions { backend: backend.writer_backend(command)?, durability, ..WriteOptions::default() })
}

/// `--stats`: the backend's I/O statistics as JSON on stderr.
fn report_stats(backend: &BackendArgs, g: &WritableGraph) {
    if backend.stats {
        eprintln!("{}", g.snapshot().base().io_stats().to_json());
    }
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
    set_labels: Option<Labels<I>>,
    /// The line of each edge of `add_edges`, vertex of `remove_vertices` and label of
    /// `set_labels` (to name it when a check of its ids fails).
    add_edge_lines: Vec<u64>,
    remove_vertex_lines: Vec<u64>,
    label_lines: Vec<u64>,
}

/// The contents of an optional file and their line numbers (none without the file).
fn with_lines<T>(read: Option<(T, Vec<u64>)>) -> (Option<T>, Vec<u64>) {
    read.map_or((None, Vec::new()), |(t, lines)| (Some(t), lines))
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
        let edges = |path: &Path, weight| -> Result<(Edges<I>, Vec<u64>)> {
            let ((ids, weights), lines) = read_numbered_lines(path, 2, weight, id)?;
            Ok(((pairs(ids), weights), lines))
        };
        let (add_edges, add_edge_lines) =
            with_lines(args.add_edges.as_deref().map(|p| edges(p, add_weight)).transpose()?);
        let vertices = |path: &Path| -> Result<(Vec<I>, Vec<u64>)> {
            let ((ids, _), lines) = read_numbered_lines(path, 1, WeightCol::No, id)?;
            Ok((ids, lines))
        };
        let (remove_vertices, remove_vertex_lines) =
            with_lines(args.remove_vertices.as_deref().map(vertices).transpose()?);
        let (set_labels, label_lines) =
            with_lines(args.set_labels.as_deref().map(|p| read_label_lines(p, id)).transpose()?);
        Ok(Files {
            add_edges,
            set_weights: args
                .set_weights
                .as_deref()
                .map(|p| Ok(edges(p, WeightCol::Required)?.0))
                .transpose()?,
            remove_edges: args
                .remove_edges
                .as_deref()
                .map(|p| Ok(edges(p, WeightCol::No)?.0 .0))
                .transpose()?,
            remove_vertices,
            set_labels,
            add_edge_lines,
            remove_vertex_lines,
            label_lines,
        })
    }
}

impl Files<OriginalId> {
    /// Checks the original ids against the graph `g` before anything is applied: on a graph
    /// whose ids are vertex numbers, `--add-edges` may not name one past 32 bits, nor grow the
    /// graph to mostly empty vertices ([`WritableGraph::growth_problem`]); a new string id may
    /// not be too long; the vertices of `--remove-vertices` and `--set-labels` must be the
    /// graph's or added by `--add-edges`. Returns the vertex count the edges need (on a graph
    /// of numbered ids), which the run grows the graph to before their first batch, so that
    /// no batch of them can be refused for its growth after earlier ones were applied.
    fn check(&self, args: &UpdateArgs, g: &WritableGraph) -> Result<u64> {
        let numbered = g.id_kind() == IdMapKind::Identity;
        let mut added: HashSet<&OriginalId> = HashSet::new();
        // `--add-vertices` runs first: its vertices are known to the files.
        let start = g.num_vertices() as u64 + u64::from(args.add_vertices.unwrap_or(0));
        let mut end = start;
        if let (Some((edges, _)), Some(path)) = (&self.add_edges, &args.add_edges) {
            let mut end_line = 0;
            for ((u, v), &no) in edges.iter().zip(&self.add_edge_lines) {
                for id in [u, v] {
                    match id {
                        OriginalId::Int(i) if numbered && *i >= u32::MAX as u64 => {
                            return Err(Error::input_line(
                                path,
                                no,
                                format!("vertex id {i} is past the largest vertex id, 4294967294 (2^32 - 2)"),
                            ));
                        }
                        OriginalId::Int(i) if numbered && *i >= end => (end, end_line) = (i + 1, no),
                        OriginalId::Int(_) if numbered => {}
                        _ => {
                            if added.insert(id) {
                                if let Some(why) = new_id_problem(id) {
                                    if g.vertex_of(id)?.is_none() {
                                        return Err(Error::input_line(path, no, why));
                                    }
                                }
                            }
                        }
                    }
                }
            }
            if end > start {
                if let Some(why) = g.growth_problem(start, end, edges.len() as u64) {
                    return Err(Error::input_line(path, end_line, why));
                }
            }
        }
        let known = |id: &OriginalId| -> Result<bool> {
            Ok(match id {
                OriginalId::Int(i) if numbered => *i < end,
                _ => added.contains(id) || g.vertex_of(id)?.is_some(),
            })
        };
        if let (Some(ids), Some(path)) = (&self.remove_vertices, &args.remove_vertices) {
            for (id, &no) in ids.iter().zip(&self.remove_vertex_lines) {
                if !known(id)? {
                    return Err(Error::input_line(path, no, format!("no vertex has the id {id}")));
                }
            }
        }
        if let (Some(labels), Some(path)) = (&self.set_labels, &args.set_labels) {
            for ((id, _), &no) in labels.iter().zip(&self.label_lines) {
                if !known(id)? {
                    return Err(Error::input_line(path, no, format!("no vertex has the id {id}")));
                }
            }
        }
        Ok(if numbered { end } else { 0 })
    }
}

/// Runs `ocgraph update`. Every file is read and checked before the first batch: a file that
/// does not parse, or names a vertex the graph will not have, applies nothing.
pub fn run(args: &UpdateArgs) -> Result<()> {
    let g = WritableGraph::open(
        &args.graph,
        &write_options(&args.backend, "update", args.durability.durability())?,
    )?;
    let rec = g.recovery();
    if rec.replayed > 0 {
        println!("replayed {} batch(es) from the write-ahead log", rec.replayed);
    }
    if let Some(line) = rec.dropped_tail() {
        println!("{line}");
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
        let end = files.check(args, &g)?;
        add_vertices(args, &g)?;
        let grow = end.saturating_sub(g.num_vertices() as u64);
        if grow > 0 {
            // The vertices the edges name past the end, as one batch before theirs.
            g.add_vertices(grow as u32)?;
            if args.ack {
                println!("ack {}", g.last_seq());
            }
        }
        return apply(args, g, files, grow as usize);
    }
    // A vertex the graph will not have (after --add-vertices) is named by its file and line,
    // as in `stream`.
    let n = g.num_vertices() + args.add_vertices.unwrap_or(0) as usize;
    let hint = if g.id_kind() == IdMapKind::Identity {
        ""
    } else {
        " (the graph keeps original ids: --original-ids names vertices by them)"
    };
    // Read as u64 first, so that an id past 32 bits is not in the graph, not malformed.
    let vertex = |c: &str| match c.parse::<u64>() {
        Ok(v) if v < n as u64 => Ok(v as Vertex),
        Ok(v) => Err(format!("vertex {v} is not in the graph ({n} vertices){hint}")),
        Err(_) => Err(format!("bad vertex id '{c}'{hint}")),
    };
    let files = Files::read(args, optional_weight(&g), vertex)?;
    add_vertices(args, &g)?;
    apply(args, g, files, 0)
}

/// `--add-vertices` (the first batch, acknowledged as the others).
fn add_vertices(args: &UpdateArgs, g: &WritableGraph) -> Result<()> {
    let Some(n) = args.add_vertices.filter(|&n| n > 0) else {
        if args.add_vertices.is_some() {
            println!("added no vertices");
        }
        return Ok(());
    };
    let before = g.last_seq();
    let ids = g.add_vertices(n)?;
    if args.ack && g.last_seq() > before {
        println!("ack {}", g.last_seq());
    }
    println!("added {} vertices: {} to {}", ids.len(), ids.start, ids.end - 1);
    Ok(())
}

/// How the files of an `ocgraph update` name vertices: by vertex id, or by original id
/// (`--original-ids`, where `--add-edges` may add vertices).
trait UpdateIds: Sized {
    fn add_edges(g: &WritableGraph, edges: &[(Self, Self)], weights: Option<&[f32]>) -> Result<u64>;
    fn set_edge_weights(g: &WritableGraph, edges: &[(Self, Self)], weights: &[f32]) -> Result<u64>;
    fn remove_edges(g: &WritableGraph, edges: &[(Self, Self)]) -> Result<u64>;
    fn remove_vertices(g: &WritableGraph, ids: &[Self]) -> Result<u64>;
    fn set_labels(g: &WritableGraph, labels: &[(Self, u32)]) -> Result<u64>;
}

impl UpdateIds for Vertex {
    fn add_edges(g: &WritableGraph, edges: &[(Self, Self)], weights: Option<&[f32]>) -> Result<u64> {
        g.add_edges(edges, weights)
    }
    fn set_edge_weights(g: &WritableGraph, edges: &[(Self, Self)], weights: &[f32]) -> Result<u64> {
        g.set_edge_weights(edges, weights)
    }
    fn remove_edges(g: &WritableGraph, edges: &[(Self, Self)]) -> Result<u64> {
        g.remove_edges(edges)
    }
    fn remove_vertices(g: &WritableGraph, ids: &[Self]) -> Result<u64> {
        g.remove_vertices(ids)
    }
    fn set_labels(g: &WritableGraph, labels: &[(Self, u32)]) -> Result<u64> {
        g.set_labels(labels)
    }
}

impl UpdateIds for OriginalId {
    fn add_edges(g: &WritableGraph, edges: &[(Self, Self)], weights: Option<&[f32]>) -> Result<u64> {
        g.add_edges_by_id(edges, weights)
    }
    fn set_edge_weights(g: &WritableGraph, edges: &[(Self, Self)], weights: &[f32]) -> Result<u64> {
        g.set_edge_weights_by_id(edges, weights)
    }
    fn remove_edges(g: &WritableGraph, edges: &[(Self, Self)]) -> Result<u64> {
        g.remove_edges_by_id(edges)
    }
    fn remove_vertices(g: &WritableGraph, ids: &[Self]) -> Result<u64> {
        g.remove_vertices_by_id(ids)
    }
    fn set_labels(g: &WritableGraph, labels: &[(Self, u32)]) -> Result<u64> {
        g.set_labels_by_id(labels)
    }
}

/// Applies the checked `files` in their order, in batches; `grown` vertices were added for the
/// edges of `--add-edges` in a batch before theirs (counted as theirs).
fn apply<I: UpdateIds>(args: &UpdateArgs, g: WritableGraph, files: Files<I>, grown: usize) -> Result<()> {
    let (size, ack) = (args.batch_size, args.ack);
    if let Some((edges, weights)) = &files.add_edges {
        // The vertices grown for these edges in a batch before theirs are theirs too.
        let before = g.num_vertices() - grown;
        batched("added edges", edges, size, ack, g.last_seq(), |chunk, at| {
            let w = g.is_weighted().then(|| &weights[at..at + chunk.len()]);
            I::add_edges(&g, chunk, w)
        })?;
        if args.original_ids {
            println!("new vertices {}", g.num_vertices() - before);
        }
    }
    if let Some((edges, weights)) = &files.set_weights {
        batched("set weights", edges, size, ack, g.last_seq(), |chunk, at| {
            I::set_edge_weights(&g, chunk, &weights[at..at + chunk.len()])
        })?;
    }
    if let Some(edges) = &files.remove_edges {
        batched("removed edges", edges, size, ack, g.last_seq(), |chunk, _| I::remove_edges(&g, chunk))?;
    }
    if let Some(ids) = &files.remove_vertices {
        batched("removed vertices", ids, size, ack, g.last_seq(), |chunk, _| I::remove_vertices(&g, chunk))?;
    }
    if let Some(labels) = &files.set_labels {
        batched("set labels", labels, size, ack, g.last_seq(), |chunk, _| I::set_labels(&g, chunk))?;
    }
    finish(args, g)
}

/// Freezes when asked, prints the state and closes the graph.
fn finish(args: &UpdateArgs, g: WritableGraph) -> Result<()> {
    if args.freeze {
        g.freeze()?;
    }
    println!("levels {}, vertices {}, last batch {}", g.num_levels(), g.num_vertices(), g.last_seq());
    report_stats(&args.backend, &g);
    g.close()
}

/// Runs `ocgraph compact`.
pub fn compact(args: &CompactArgs) -> Result<()> {
    if args.backend.stats {
        // The compaction reads the levels and the base in passes of its own: the statistics of
        // the handle would describe the new base, not what the command read.
        return Err(Error::invalid(
            "--stats: `ocgraph compact` reads the graph in passes of its own; it has no statistics to show",
        ));
    }
    let g =
        WritableGraph::open(&args.graph, &write_options(&args.backend, "compact", Durability::PerBatch)?)?;
    if let Some(line) = g.recovery().dropped_tail() {
        println!("{line}");
    }
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
