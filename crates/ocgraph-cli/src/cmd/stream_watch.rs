//! `ocgraph stream --watch PATTERN`: after every batch, the matches of a watched pattern that
//! the batch made appear and disappear, and for a labelled pattern those whose labels it
//! changed ([`ocgraph_algo::mine::Watch`], explored only around the pairs and the relabelled
//! vertices of the batch), on the watch's own copy of the changed vertices' lists
//! ([`WatchStore`]) over the graph as it was when the stream started, and its own copy of the
//! labels (the graph's, or `--watch-labels`, edited by the stream's `L` lines).
//!
//! What a batch sets: on an undirected graph, `+ u v` makes `u - v` an edge and `- u v` not,
//! `-v u` removes every edge of `u` (those it had before the batch and those the batch gave it
//! earlier), in batch order (the update path's semantics). On a directed graph the undirected
//! view of a pair depends on both arcs: the same pairs are looked up in the snapshot after the
//! batch.
//!
//! `--watch-out FILE` writes one line per change: `B + v0 v1 ...` for a match that appeared in
//! batch `B` (0-based), `B - v0 v1 ...` for one that disappeared, `B ~ v0 v1 ...` for one whose
//! data vertices' labels changed, the data vertices in pattern-vertex order. Totals and the
//! watch's own time go to the summary.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use ocgraph_algo::mine::{Changes, Pattern, Watch, WatchStore};
use ocgraph_core::format::OutputFile;
use ocgraph_core::labels::NO_LABEL;
use ocgraph_core::update::{Snapshot, WalItem, WritableGraph};
use ocgraph_core::{Adjacency, Error, Result, Vertex};

/// A watched pattern kept across the batches of one stream.
pub(crate) struct Watcher {
    watch: Watch,
    labels: Option<Vec<u32>>,
    /// The graph when the watch started (read for the lists the store does not hold).
    start: Snapshot,
    store: WatchStore,
    /// The pairs the current batch sets (reused across batches).
    updates: Vec<(Vertex, Vertex, bool)>,
    /// The label changes of the current batch (reused across batches).
    relabels: Vec<(Vertex, u32)>,
    out: Option<OutputFile>,
    /// Matches added and removed so far.
    pub(crate) added: u64,
    pub(crate) removed: u64,
    /// Matches whose labels changed so far.
    pub(crate) modified: u64,
    /// Seconds spent finding the changes.
    pub(crate) secs: f64,
}

/// The pairs the batch `items` sets, in batch order, each with whether it is an edge after the
/// item (`-v u` lists `u`'s pairs in `store` and those earlier items set). For a directed
/// graph (`after` given: the snapshot after the batch) the state is read there instead.
fn batch_updates(
    items: &[WalItem],
    store: &WatchStore,
    start: &Snapshot,
    after: Option<&Snapshot>,
    updates: &mut Vec<(Vertex, Vertex, bool)>,
) {
    updates.clear();
    for item in items {
        match *item {
            WalItem::AddEdge { src, dst, .. } => updates.push((src, dst, true)),
            WalItem::RemoveEdge { src, dst } => updates.push((src, dst, false)),
            WalItem::RemoveVertex { v } => {
                let mut nb = store.neighbors((&start.out(), &start.in_()), v);
                nb.extend(updates.iter().filter(|p| p.0 == v).map(|p| p.1));
                nb.extend(updates.iter().filter(|p| p.1 == v).map(|p| p.0));
                updates.extend(nb.into_iter().map(|x| (v, x, false)));
            }
            WalItem::SetWeight { .. } | WalItem::AddVertices { .. } | WalItem::SetLabel { .. } => {}
        }
    }
    if let Some(a) = after {
        let (out, in_) = (a.out(), a.in_());
        let arc = |u: Vertex, v: Vertex| out.neighbors(u).binary_search(&v).is_ok();
        let n = out.num_vertices() as Vertex;
        for p in updates.iter_mut() {
            p.2 = p.0 < n && p.1 < n && (arc(p.0, p.1) || in_.neighbors(p.0).binary_search(&p.1).is_ok());
        }
    }
}

impl Watcher {
    /// Starts watching `pattern` (edge- or vertex-induced) on `w` as it is now; `labels` gives
    /// each data vertex its label (labelled patterns; `None`: every vertex unlabelled); changes
    /// go to `out` when given.
    pub(crate) fn start(
        w: &WritableGraph,
        pattern: Pattern,
        induced: bool,
        labels: Option<Vec<u32>>,
        out: Option<&Path>,
    ) -> Result<Watcher> {
        let labels = match labels {
            None if pattern.is_labelled() => Some(vec![NO_LABEL; w.num_vertices()]),
            l => l,
        };
        let out = out.map(OutputFile::create).transpose()?;
        Ok(Watcher {
            watch: Watch::new(pattern, induced),
            labels,
            start: w.snapshot(),
            store: WatchStore::new(w.num_vertices()),
            updates: Vec::new(),
            relabels: Vec::new(),
            out,
            added: 0,
            removed: 0,
            modified: 0,
            secs: 0.0,
        })
    }

    /// Finds the matches batch number `batch` (its operations `items`, just applied to `w`)
    /// made appear and disappear; counts them and writes them to the `--watch-out` file.
    pub(crate) fn after_batch(&mut self, w: &WritableGraph, items: &[WalItem], batch: usize) -> Result<()> {
        let t = Instant::now();
        self.store.set_num_vertices(w.num_vertices());
        if let Some(l) = &mut self.labels {
            // Vertices the stream added have no label.
            l.resize(l.len().max(w.num_vertices()), NO_LABEL);
        }
        let after = w.is_directed().then(|| w.snapshot());
        batch_updates(items, &self.store, &self.start, after.as_ref(), &mut self.updates);
        self.relabels.clear();
        self.relabels.extend(items.iter().filter_map(|it| match *it {
            WalItem::SetLabel { v, label } => Some((v, label)),
            _ => None,
        }));
        let s = &self.start;
        let ch = self.store.apply(
            &self.watch,
            (&s.out(), &s.in_()),
            self.labels.as_deref(),
            &self.updates,
            &self.relabels,
        )?;
        if let Some(l) = &mut self.labels {
            for &(v, label) in &self.relabels {
                l[v as usize] = label;
            }
        }
        let k = self.watch.pattern().num_vertices();
        self.added += (ch.added.len() / k) as u64;
        self.removed += (ch.removed.len() / k) as u64;
        self.modified += (ch.modified.len() / k) as u64;
        if let Some(f) = &mut self.out {
            let path = f.path().to_path_buf();
            write_changes(f, batch, &ch, k).map_err(|e| Error::io(path, "write", e))?;
        }
        self.secs += t.elapsed().as_secs_f64();
        Ok(())
    }

    /// Puts the `--watch-out` file in place (whole: a stream that fails leaves none).
    pub(crate) fn finish(&mut self) -> Result<()> {
        self.out.take().map_or(Ok(()), OutputFile::commit)
    }
}

/// Writes the changes `ch` (flattened matches, `k` vertices each) of batch `batch`.
fn write_changes(f: &mut impl Write, batch: usize, ch: &Changes, k: usize) -> std::io::Result<()> {
    for (sign, flat) in [('+', &ch.added), ('-', &ch.removed), ('~', &ch.modified)] {
        for m in flat.chunks(k) {
            write!(f, "{batch} {sign}")?;
            for v in m {
                write!(f, " {v}")?;
            }
            writeln!(f)?;
        }
    }
    Ok(())
}
