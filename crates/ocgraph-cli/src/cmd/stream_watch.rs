//! `ocgraph stream --watch PATTERN`: after every batch, the matches of a watched pattern that
//! the batch made appear and disappear ([`ocgraph_algo::mine::Watch`], explored only around the
//! pairs the batch changed, between the snapshot before the batch and the one after).
//!
//! `--watch-out FILE` writes one line per change: `B + v0 v1 ...` for a match that appeared in
//! batch `B` (0-based), `B - v0 v1 ...` for one that disappeared, the data vertices in
//! pattern-vertex order. Totals and the watch's own time go to the summary.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use ocgraph_algo::mine::{Pattern, Watch};
use ocgraph_core::labels::NO_LABEL;
use ocgraph_core::update::{Snapshot, WalItem, WritableGraph};
use ocgraph_core::{Adjacency, Error, Result, Vertex};

/// A watched pattern kept across the batches of one stream.
pub(crate) struct Watcher {
    watch: Watch,
    labels: Option<Vec<u32>>,
    /// The graph as the last batch left it (the "before" of the next batch).
    before: Snapshot,
    out: Option<(PathBuf, BufWriter<File>)>,
    /// Matches added and removed so far.
    pub(crate) added: u64,
    pub(crate) removed: u64,
    /// Seconds spent finding the changes (snapshots included).
    pub(crate) secs: f64,
}

/// The vertex pairs whose adjacency the batch `items` may change, given the graph `before` it
/// (a vertex removal changes every pair it had an edge in).
fn touched_pairs(items: &[WalItem], before: &Snapshot) -> Vec<(Vertex, Vertex)> {
    let mut pairs = Vec::with_capacity(items.len());
    for item in items {
        match *item {
            WalItem::AddEdge { src, dst, .. } | WalItem::RemoveEdge { src, dst } => pairs.push((src, dst)),
            WalItem::RemoveVertex { v } if (v as usize) < before.out().num_vertices() => {
                for nb in [before.out().neighbors(v), before.in_().neighbors(v)] {
                    pairs.extend(nb.iter().map(|&x| (v, x)));
                }
            }
            WalItem::RemoveVertex { .. } | WalItem::SetWeight { .. } | WalItem::AddVertices { .. } => {}
        }
    }
    pairs
}

impl Watcher {
    /// Starts watching `pattern` (edge- or vertex-induced) on `w` as it is now; `labels` gives
    /// each data vertex its label (labelled patterns); changes go to `out` when given.
    pub(crate) fn start(
        w: &WritableGraph,
        pattern: Pattern,
        induced: bool,
        labels: Option<Vec<u32>>,
        out: Option<&Path>,
    ) -> Result<Watcher> {
        if pattern.is_labelled() && labels.is_none() {
            return Err(Error::invalid(
                "the watched pattern is labelled and the graph has no labels: pass --watch-labels FILE",
            ));
        }
        let out = match out {
            Some(p) => {
                let f = File::create(p).map_err(|e| Error::io(p, "create", e))?;
                Some((p.to_path_buf(), BufWriter::new(f)))
            }
            None => None,
        };
        Ok(Watcher {
            watch: Watch::new(pattern, induced),
            labels,
            before: w.snapshot(),
            out,
            added: 0,
            removed: 0,
            secs: 0.0,
        })
    }

    /// Finds the matches batch number `batch` (its operations `items`, just applied to `w`)
    /// made appear and disappear; counts them and writes them to the `--watch-out` file.
    pub(crate) fn after_batch(&mut self, w: &WritableGraph, items: &[WalItem], batch: usize) -> Result<()> {
        let t = Instant::now();
        let after = w.snapshot();
        let pairs = touched_pairs(items, &self.before);
        let (b, a) = (&self.before, &after);
        if let Some(l) = &mut self.labels {
            // Vertices the stream added have no label.
            l.resize(l.len().max(a.out().num_vertices()), NO_LABEL);
        }
        let ch =
            self.watch.apply((&b.out(), &b.in_()), (&a.out(), &a.in_()), self.labels.as_deref(), &pairs)?;
        let k = self.watch.pattern().num_vertices();
        self.added += (ch.added.len() / k) as u64;
        self.removed += (ch.removed.len() / k) as u64;
        if let Some((path, f)) = &mut self.out {
            write_changes(f, batch, &ch.added, &ch.removed, k).map_err(|e| Error::io(&*path, "write", e))?;
        }
        self.before = after;
        self.secs += t.elapsed().as_secs_f64();
        Ok(())
    }

    /// Flushes the `--watch-out` file.
    pub(crate) fn finish(&mut self) -> Result<()> {
        match &mut self.out {
            Some((path, f)) => f.flush().map_err(|e| Error::io(&*path, "write", e)),
            None => Ok(()),
        }
    }
}

/// Writes the flattened matches `added` and `removed` (`k` vertices each) of batch `batch`.
fn write_changes(
    f: &mut impl Write,
    batch: usize,
    added: &[Vertex],
    removed: &[Vertex],
    k: usize,
) -> std::io::Result<()> {
    for (sign, flat) in [('+', added), ('-', removed)] {
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
