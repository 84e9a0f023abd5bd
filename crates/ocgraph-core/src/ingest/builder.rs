//! [`GraphBuilder`]: turns batches of edges into a graph directory within a memory budget.
//!
//! Edges are packed into records (8 B unweighted, 16 B weighted) in a buffer of at most `memory`
//! bytes; an undirected edge is stored once and stands for two arcs (a self-loop for one). If at
//! the end all arcs fit (with the CSR arrays, see `memory.rs`), the CSR is built in memory, both
//! arcs of an undirected edge being emitted by the partition pass. Otherwise every full buffer
//! was expanded to arcs, sorted (radix partition, then parallel bucket sorts) and spilled as a
//! run into a scratch directory inside the graph's temporary directory, and the runs are merged
//! in parallel batches straight into the output files. The in-direction of
//! a directed graph is sorted the same way from the written out-files.
//!
//! Per vertex, the builder allocates nothing in the external path (offsets are streamed); the
//! in-memory path holds 8 B per vertex per direction of offsets (plus 8 B per vertex of one
//! range's cursors per thread while scattering). Both are counted against the budget. Relabelling
//! (in `import`) adds its own per-vertex maps, see `relabel.rs`.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::csr::{CsrCounts, CsrSink, IN, OUT};
use super::memory::{in_memory_bytes, MemCsr};
use super::merge::merge_all;
use super::progress::{Progress, Unit};
use super::record::Record;
use super::runs::{sort_records, RunReader, RunSet};
use crate::error::{Error, Result};
use crate::format::{FileRole, GraphWriter, IdMapKind, Manifest};
use crate::ids::IdLookup;
use crate::labels::read_label_file;

/// The smallest builder budget the CLI and Python take: below it a sorted run holds a few
/// edges, and a build of 213K edges spilled a run per edge (31 s instead of 0.1 s).
pub const MIN_BUILD_MEMORY: u64 = 4 << 10;

/// How to build a graph.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Store a directed graph (out- and in-CSR); otherwise each edge is stored in both directions.
    pub directed: bool,
    /// Arcs carry `f32` weights.
    pub weighted: bool,
    /// Remove duplicate arcs (undirected: duplicate edges in either direction), keeping the
    /// smallest weight.
    pub dedup: bool,
    /// Remove self-loops `u -> u`.
    pub drop_self_loops: bool,
    /// Budget in bytes for edge buffers (sort buffers and in-memory CSR arrays). The builder
    /// takes any (its tests force many runs with budgets of bytes); the CLI and Python entry
    /// points take at least [`MIN_BUILD_MEMORY`].
    pub memory: u64,
    /// Replace an existing graph at the output path.
    pub overwrite: bool,
    /// Free text recorded in the manifest (what the graph was made from).
    pub source: String,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            directed: true,
            weighted: false,
            dedup: false,
            drop_self_loops: false,
            memory: 1 << 30,
            overwrite: false,
            source: String::new(),
        }
    }
}

/// Original ids of the vertices; the index is the new vertex id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdMap {
    /// Vertex ids are the input ids.
    Identity,
    /// Original integer ids (written to `ids.u64`).
    U64(Vec<u64>),
    /// Original string ids (written to `ids.offsets` + `ids.strings`).
    Strings(Vec<String>),
}

/// Where a build's vertex labels come from.
#[derive(Debug, Clone)]
pub enum LabelSource {
    /// A label file of `vertex label` lines over the input's ids
    /// ([`crate::labels::read_label_file`]).
    File(PathBuf),
    /// One label per vertex of the built graph.
    Values(Vec<u32>),
}

/// What a build produced.
#[derive(Debug, Clone)]
pub struct BuildReport {
    /// Vertices in the graph.
    pub num_vertices: u64,
    /// Edges as the user sees them (an undirected edge and a self-loop count once).
    pub num_edges: u64,
    /// Arcs stored in the out-CSR.
    pub num_arcs: u64,
    /// Sorted runs written to scratch files (0 for an in-memory build).
    pub spilled_runs: usize,
    /// Largest number of bytes held in edge buffers and CSR arrays at once.
    pub peak_buffer_bytes: u64,
    /// What an import took as what, where the input left room for doubt (a CSV header line, a
    /// MatrixMarket file without its banner, ignored columns); empty for other builds.
    pub notices: Vec<String>,
}

/// The record buffer of one record type, with its spilled runs. For an undirected graph
/// (`sym`) every record is an edge standing for both of its arcs: the buffer holds at most
/// `cap / 2` edges and expands them to arcs in place when it spills.
struct Buffer<R: Record> {
    recs: Vec<R>,
    /// Most arcs held at once.
    cap: usize,
    sym: bool,
    runs: RunSet,
}

impl<R: Record> Buffer<R> {
    fn new(memory: u64, sym: bool, scratch: PathBuf) -> Buffer<R> {
        let cap = (memory / std::mem::size_of::<R>() as u64).clamp(2, usize::MAX as u64) as usize;
        Buffer { recs: Vec::new(), cap, sym, runs: RunSet::new(scratch) }
    }

    /// Most records held before a spill.
    fn limit(&self) -> usize {
        if self.sym {
            self.cap / 2
        } else {
            self.cap
        }
    }

    /// Sorts the buffer (as arcs) into a new run.
    fn spill(&mut self, dedup: bool) -> Result<()> {
        if self.sym {
            expand_edges(&mut self.recs);
        }
        self.runs.spill(&mut self.recs, dedup)
    }

    /// Makes room (spilling or growing) and returns how many records can be appended without
    /// reallocating or passing the limit (at least one).
    fn room(&mut self, dedup: bool) -> Result<usize> {
        let limit = self.limit();
        if self.recs.len() >= limit {
            self.spill(dedup)?;
        }
        if self.recs.len() == self.recs.capacity() {
            let grow = (limit - self.recs.len()).min(self.recs.len().max(1 << 16));
            self.recs.reserve_exact(grow);
        }
        Ok(self.recs.capacity().min(limit) - self.recs.len())
    }

    fn peak_bytes(&self) -> u64 {
        (self.recs.capacity() * std::mem::size_of::<R>()) as u64
    }
}

/// Appends the reversed arc of every edge of `recs` that is not a self-loop.
fn expand_edges<R: Record>(recs: &mut Vec<R>) {
    let k = recs.len();
    recs.reserve_exact(k);
    for i in 0..k {
        let r = recs[i];
        if r.src() != r.dst() {
            recs.push(r.reversed());
        }
    }
}

enum Inner {
    Plain(Buffer<u64>),
    Weighted(Buffer<u128>),
}

/// Builds a graph directory from batches of edges; see the module docs for the algorithm.
pub struct GraphBuilder {
    writer: GraphWriter,
    opts: BuildOptions,
    reserved: u64,
    /// One past the largest vertex id pushed.
    seen: u64,
    inner: Inner,
    /// Labels to store with the graph.
    labels: Option<LabelSource>,
}

/// Largest vertex id (ids are u32 and `n` must fit in u32).
const MAX_ID: u32 = u32::MAX - 1;

impl GraphBuilder {
    /// Starts building the graph that will appear at `out` (fails now if `out` exists and
    /// `opts.overwrite` is not set). Nothing appears at `out` unless [`GraphBuilder::finish`]
    /// succeeds.
    pub fn new(out: &Path, opts: BuildOptions) -> Result<GraphBuilder> {
        let writer = GraphWriter::create(out, opts.overwrite)?;
        let scratch = writer.temp_dir().join("scratch");
        let inner = if opts.weighted {
            Inner::Weighted(Buffer::new(opts.memory, !opts.directed, scratch))
        } else {
            Inner::Plain(Buffer::new(opts.memory, !opts.directed, scratch))
        };
        Ok(GraphBuilder { writer, opts, reserved: 0, seen: 0, inner, labels: None })
    }

    /// Stores vertex labels with the graph (see [`crate::labels`]), resolved when the build
    /// finishes and the vertex ids are known.
    pub fn set_labels(&mut self, labels: LabelSource) {
        self.labels = Some(labels);
    }

    /// Declares that the graph has at least `n` vertices (isolated ones included).
    pub fn reserve_vertices(&mut self, n: u64) {
        self.reserved = self.reserved.max(n);
    }

    /// Vertices the graph would have now: one past the largest id pushed, or the reserved count
    /// if larger.
    pub fn num_vertices(&self) -> u64 {
        self.reserved.max(self.seen)
    }

    /// Adds a batch of edges `src[i] -> dst[i]` (weights required when building a weighted
    /// graph, ignored otherwise). Ids must be at most `u32::MAX - 1`.
    pub fn push(&mut self, src: &[u32], dst: &[u32], weights: Option<&[f32]>) -> Result<()> {
        if src.len() != dst.len() {
            return Err(Error::invalid(format!(
                "push: {} sources but {} destinations",
                src.len(),
                dst.len()
            )));
        }
        let w = match (self.opts.weighted, weights) {
            (true, Some(w)) if w.len() == src.len() => Some(w),
            (true, Some(w)) => {
                return Err(Error::invalid(format!("push: {} edges but {} weights", src.len(), w.len())))
            }
            (true, None) => return Err(Error::invalid("push: weights are required for a weighted graph")),
            (false, _) => None,
        };
        if let Some(i) = w.and_then(|w| w.iter().position(|x| !x.is_finite())) {
            let (u, v, x) = (src[i], dst[i], w.expect("weights")[i]);
            return Err(Error::invalid(format!(
                "push: edge {i} ({u} -> {v}) has weight {x}; weights must be finite numbers"
            )));
        }
        let max = src.iter().chain(dst).copied().max();
        if let Some(m) = max {
            if m > MAX_ID {
                return Err(Error::invalid(format!("vertex id {m} is too large (ids are at most {MAX_ID})")));
            }
            self.seen = self.seen.max(m as u64 + 1);
        }
        let o = &self.opts;
        match &mut self.inner {
            Inner::Plain(b) => push_into(b, o, src, dst, None),
            Inner::Weighted(b) => push_into(b, o, src, dst, w),
        }
    }

    /// Adds `count` unweighted edges `edge(i)` (weight 1 in a weighted graph), converted in
    /// parallel straight into the record buffer. Ids must be at most `u32::MAX - 1`.
    pub(crate) fn push_with(
        &mut self,
        count: usize,
        edge: impl Fn(usize) -> (u32, u32) + Sync,
    ) -> Result<()> {
        let o = &self.opts;
        let max = match &mut self.inner {
            Inner::Plain(b) => fill_with(b, o, count, &edge)?,
            Inner::Weighted(b) => fill_with(b, o, count, &edge)?,
        };
        if let Some(m) = max {
            if m > MAX_ID {
                return Err(Error::invalid(format!("vertex id {m} is too large (ids are at most {MAX_ID})")));
            }
            self.seen = self.seen.max(m as u64 + 1);
        }
        Ok(())
    }

    /// Sorts, writes and publishes the graph with the original ids `id_map`.
    pub fn finish(mut self, id_map: IdMap, progress: &dyn Progress) -> Result<BuildReport> {
        let map_len = match &id_map {
            IdMap::Identity => None,
            IdMap::U64(v) => Some(v.len() as u64),
            IdMap::Strings(v) => Some(v.len() as u64),
        };
        let n = self.reserved.max(self.seen).max(map_len.unwrap_or(0));
        if n == 0 {
            return Err(Error::invalid("no edges and no vertices: nothing to build"));
        }
        if n > MAX_ID as u64 + 1 {
            return Err(Error::invalid(format!("{n} vertices exceed the 32-bit id space")));
        }
        if map_len.is_some_and(|l| l != n) {
            return Err(Error::invalid(format!(
                "the id map has {} entries but the graph has {n} vertices",
                map_len.unwrap_or(0)
            )));
        }
        let opts = self.opts.clone();
        let (out, inn, spilled, peak) = match &mut self.inner {
            Inner::Plain(b) => build(b, &mut self.writer, &opts, n, progress)?,
            Inner::Weighted(b) => build(b, &mut self.writer, &opts, n, progress)?,
        };
        let scratch = self.writer.temp_dir().join("scratch");
        if scratch.exists() {
            std::fs::remove_dir_all(&scratch).map_err(|e| Error::io(&scratch, "remove", e))?;
        }
        let kind = write_ids(&mut self.writer, &id_map)?;
        if let Some(src) = self.labels.take() {
            let labels = match src {
                LabelSource::File(path) => read_label_file(&path, &IdLookup::of_build(n, &id_map))?,
                LabelSource::Values(v) => v,
            };
            if labels.len() as u64 != n {
                return Err(Error::invalid(format!("{} labels for a graph of {n} vertices", labels.len())));
            }
            self.writer.write_slice(FileRole::Labels, &labels)?;
        }
        let num_edges = if opts.directed { out.arcs } else { (out.arcs - out.loops) / 2 + out.loops };
        debug_assert!(!opts.directed || inn.arcs == out.arcs);
        let manifest = Manifest {
            num_vertices: n,
            num_edges,
            num_arcs: out.arcs,
            directed: opts.directed,
            weighted: opts.weighted,
            id_width: 4,
            id_map: kind,
            files: Default::default(),
            created_by: format!("ocgraph {}", env!("CARGO_PKG_VERSION")),
            source: opts.source.clone(),
            data_dir: None,
            updates: None,
            grid: None,
            // Filled in at commit, from the weights written.
            weight_range: None,
        };
        self.writer.commit(manifest)?;
        progress.finish();
        Ok(BuildReport {
            num_vertices: n,
            num_edges,
            num_arcs: out.arcs,
            spilled_runs: spilled,
            peak_buffer_bytes: peak,
            notices: Vec::new(),
        })
    }
}

fn push_into<R: Record>(
    b: &mut Buffer<R>,
    o: &BuildOptions,
    src: &[u32],
    dst: &[u32],
    w: Option<&[f32]>,
) -> Result<()> {
    let mut i = 0;
    while i < src.len() {
        let end = (i + b.room(o.dedup)?).min(src.len());
        for j in i..end {
            let (s, d) = (src[j], dst[j]);
            if s == d && o.drop_self_loops {
                continue;
            }
            b.recs.push(R::new(s, d, w.map_or(1.0, |w| w[j])));
        }
        i = end;
    }
    Ok(())
}

/// Appends `count` edges `edge(i)` to `b` in parallel chunks; returns the largest id.
fn fill_with<R: Record>(
    b: &mut Buffer<R>,
    o: &BuildOptions,
    count: usize,
    edge: &(impl Fn(usize) -> (u32, u32) + Sync),
) -> Result<Option<u32>> {
    const CHUNK: usize = 1 << 16;
    let (mut i, mut max) = (0, None);
    while i < count {
        let k = b.room(o.dedup)?.min(count - i);
        let base = b.recs.len();
        // Writes into the reserved capacity in parallel (first touch of fresh pages included).
        b.recs.par_extend((i..i + k).into_par_iter().with_min_len(CHUNK).map(|j| {
            let (s, d) = edge(j);
            R::new(s, d, 1.0)
        }));
        let m = b.recs[base..].par_iter().with_min_len(CHUNK).map(|r| r.src().max(r.dst())).max();
        max = max.max(m);
        if o.drop_self_loops {
            let mut w = base;
            for j in base..b.recs.len() {
                let r = b.recs[j];
                if r.src() != r.dst() {
                    b.recs[w] = r;
                    w += 1;
                }
            }
            b.recs.truncate(w);
        }
        i += k;
    }
    Ok(max)
}

/// Writes both directions; returns (out counts, in counts, runs spilled, peak bytes).
fn build<R: Record>(
    b: &mut Buffer<R>,
    w: &mut GraphWriter,
    o: &BuildOptions,
    n: u64,
    progress: &dyn Progress,
) -> Result<(CsrCounts, CsrCounts, usize, u64)> {
    let mut peak = b.peak_bytes();
    let m = b.recs.len() as u64;
    let arcs = if b.sym { 2 * m } else { m };
    let need = in_memory_bytes::<R>(b.recs.capacity() as u64, arcs, n, o.directed);
    if b.runs.created() == 0 && need <= o.memory {
        progress.phase("sort", Some(m), Unit::Edges);
        let csr = MemCsr::from_records(std::mem::take(&mut b.recs), n as usize, o.dedup, b.sym);
        progress.advance(m);
        peak = peak.max(need);
        progress.phase("write", Some(m), Unit::Edges);
        let out = csr.write(w, OUT)?;
        let inn = if o.directed {
            let t = csr.transpose();
            drop(csr);
            t.write(w, IN)?
        } else {
            out
        };
        progress.advance(m);
        return Ok((out, inn, 0, peak));
    }
    if !b.recs.is_empty() {
        b.spill(o.dedup)?;
    }
    let spilled = b.runs.created();
    progress.phase("merge", None, Unit::Edges);
    b.recs = Vec::new();
    let mut sink = CsrSink::<R>::new(w, OUT, n, o.dedup)?;
    merge_all::<R>(&mut b.runs, o.memory, o.dedup, |batch| {
        progress.advance(batch.len() as u64);
        batch.iter().try_for_each(|&r| sink.push(r))
    })?;
    let out = sink.finish(w)?;
    if !o.directed {
        return Ok((out, out, spilled, peak));
    }
    // In-direction: re-sort the written out-arcs by destination.
    progress.phase("transpose", Some(out.arcs), Unit::Edges);
    let mut buf = Buffer::<R> {
        recs: Vec::new(),
        cap: b.cap,
        sym: false,
        runs: RunSet::new(w.temp_dir().join("scratch-in")),
    };
    let dir = w.temp_dir().to_path_buf();
    let block = 1 << 16;
    let mut offs = RunReader::<u64>::open(&dir.join(FileRole::OutOffsets.file_name()), Some(n + 1), block)?;
    let mut nbrs =
        RunReader::<u32>::open(&dir.join(FileRole::OutNeighbors.file_name()), Some(out.arcs), block)?;
    let mut wts = if R::WEIGHTED {
        Some(RunReader::<f32>::open(&dir.join(FileRole::OutWeights.file_name()), Some(out.arcs), block)?)
    } else {
        None
    };
    let mut start = offs.next_record()?.unwrap_or(0);
    for v in 0..n as u32 {
        let end = offs.next_record()?.unwrap_or(start);
        for _ in start..end {
            let d = nbrs.next_record()?.unwrap_or(0);
            let wt = match &mut wts {
                Some(r) => r.next_record()?.unwrap_or(1.0),
                None => 1.0,
            };
            buf.room(false)?;
            buf.recs.push(R::new(d, v, wt));
        }
        start = end;
    }
    peak = peak.max(buf.peak_bytes());
    let spilled = spilled + buf.runs.created();
    let mut sink = CsrSink::<R>::new(w, IN, n, false)?;
    if buf.runs.created() == 0 {
        sort_records(&mut buf.recs, false);
        for &r in &buf.recs {
            sink.push(r)?;
        }
        buf.recs = Vec::new();
    } else {
        if !buf.recs.is_empty() {
            buf.runs.spill(&mut buf.recs, false)?;
        }
        buf.recs = Vec::new();
        merge_all::<R>(&mut buf.runs, o.memory, false, |batch| batch.iter().try_for_each(|&r| sink.push(r)))?;
    }
    let inn = sink.finish(w)?;
    let scratch = w.temp_dir().join("scratch-in");
    if scratch.exists() {
        std::fs::remove_dir_all(&scratch).map_err(|e| Error::io(&scratch, "remove", e))?;
    }
    Ok((out, inn, spilled, peak))
}

/// Writes the id-map files; returns the manifest kind.
fn write_ids(w: &mut GraphWriter, id_map: &IdMap) -> Result<IdMapKind> {
    match id_map {
        IdMap::Identity => Ok(IdMapKind::Identity),
        IdMap::U64(ids) => {
            w.write_slice(FileRole::IdsU64, ids)?;
            Ok(IdMapKind::U64)
        }
        IdMap::Strings(ids) => {
            let mut offsets = Vec::with_capacity(ids.len() + 1);
            let mut bytes = w.file(FileRole::IdsStrings)?;
            offsets.push(0u64);
            for s in ids {
                bytes.write_bytes(s.as_bytes())?;
                offsets.push(bytes.len());
            }
            w.add(FileRole::IdsStrings, bytes)?;
            w.write_slice(FileRole::IdsOffsets, &offsets)?;
            Ok(IdMapKind::Strings)
        }
    }
}
