//! `ocgraph workload updates`: a seeded stream of updates for `ocgraph stream` (text lines
//! `+ u v [w]` and `- u v`, or with `--binary` a binary update file of the same items).
//!
//! Additions join two vertices chosen uniformly or, with `--dist power-law`, in proportion to
//! their degree (the ends of uniformly random arcs: preferential attachment; in plus out on a
//! directed graph). Removals take an
//! existing edge: half the time one the stream added earlier (when there is one), otherwise a
//! uniformly random arc of the graph; an edge is removed at most once. Weighted graphs get
//! integer weights from 1 to 9.

use std::collections::HashSet;
use std::fmt::Write;
use std::path::Path;

use ocgraph_core::format::OutputFile;
use ocgraph_core::update::{UpdateFileWriter, WalItem};
use ocgraph_core::{Adjacency, Error, Graph, Result, Vertex};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::workload::Dist;

/// Parses `A/R` (percentages summing to 100) into the share of additions.
fn parse_mix(mix: &str) -> Result<f64> {
    let bad =
        || Error::invalid(format!("--mix {mix:?}: expected additions/removals percentages, e.g. 90/10"));
    let (a, r) = mix.split_once('/').ok_or_else(bad)?;
    let (a, r): (f64, f64) = (a.trim().parse().map_err(|_| bad())?, r.trim().parse().map_err(|_| bad())?);
    // Written so that NaN fails it.
    if !(a >= 0.0 && r >= 0.0 && (a + r - 100.0).abs() <= 1e-9) {
        return Err(bad());
    }
    Ok(a / 100.0)
}

/// Where the updates go: text lines or a binary update file, each written whole or not at all
/// (an [`OutputFile`]: a failed run leaves no file, or the previous one).
enum Sink {
    Text(OutputFile, String),
    Binary(UpdateFileWriter),
}

impl Sink {
    fn create(out: &Path, binary: bool) -> Result<Sink> {
        if binary {
            return Ok(Sink::Binary(UpdateFileWriter::create(out)?));
        }
        Ok(Sink::Text(OutputFile::create(out)?, String::new()))
    }

    /// Writes an addition or a removal (text: the weight only when `weighted`).
    fn push(&mut self, item: WalItem, weighted: bool) -> Result<()> {
        let (f, line) = match self {
            Sink::Binary(w) => return w.push(&item),
            Sink::Text(f, line) => (f, line),
        };
        line.clear();
        match item {
            WalItem::AddEdge { src, dst, weight } if weighted => writeln!(line, "+ {src} {dst} {weight}"),
            WalItem::AddEdge { src, dst, .. } => writeln!(line, "+ {src} {dst}"),
            WalItem::RemoveEdge { src, dst } => writeln!(line, "- {src} {dst}"),
            _ => unreachable!("workload updates writes additions and removals only"),
        }
        .expect("write to a String");
        f.write_bytes(line.as_bytes())
    }

    /// Puts the file in place.
    fn finish(self) -> Result<()> {
        match self {
            Sink::Text(f, _) => f.commit(),
            Sink::Binary(w) => w.finish(),
        }
    }
}

/// Most updates one `workload updates` writes.
const MAX_UPDATES: usize = 1 << 32;

/// Writes `count` updates for `g` to `out` (a binary update file when `binary`).
pub fn write(
    g: &Graph,
    mix: &str,
    dist: Dist,
    count: usize,
    seed: u64,
    out: &Path,
    binary: bool,
) -> Result<()> {
    let add_share = parse_mix(mix)?;
    if count > MAX_UPDATES {
        // The stream keeps 8 bytes per addition to pick removals from (and writes ~20 per line).
        return Err(Error::invalid(format!(
            "workload updates --count {count}: at most {MAX_UPDATES} updates"
        )));
    }
    let adj = g.out();
    let n = adj.num_vertices();
    if n == 0 {
        return Err(Error::invalid("workload updates: the graph has no vertices"));
    }
    // Cumulative degrees: a uniformly random arc is one binary search away.
    let mut cum = Vec::with_capacity(n + 1);
    cum.push(0u64);
    adj.for_each_degree_in_range(0..n as Vertex, |_, d| {
        cum.push(cum.last().copied().unwrap_or(0) + d as u64)
    });
    let arcs = *cum.last().unwrap_or(&0);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let random_arc = |rng: &mut Xoshiro256PlusPlus| -> Option<(Vertex, Vertex)> {
        if arcs == 0 {
            return None;
        }
        let k = rng.gen_range(0..arcs);
        let u = cum.partition_point(|&c| c <= k) - 1;
        Some((u as Vertex, adj.neighbors(u as Vertex)[(k - cum[u]) as usize]))
    };
    let key = |(u, v): (Vertex, Vertex)| if g.is_directed() { (u, v) } else { (u.min(v), u.max(v)) };
    let mut sink = Sink::create(out, binary)?;
    let mut added: Vec<(Vertex, Vertex)> = Vec::new();
    let mut removed: HashSet<(Vertex, Vertex)> = HashSet::new();
    // The graph's arcs not yet drawn by a removal that missed at random (see below).
    let mut base_left: Option<Vec<(Vertex, Vertex)>> = None;
    let (mut adds, mut dels) = (0usize, 0usize);
    while adds + dels < count {
        let item = if rng.gen_bool(add_share) {
            let end = |rng: &mut Xoshiro256PlusPlus| match dist {
                // Either end of a uniformly random arc: on a directed graph, in proportion to in-
                // plus out-degree (an undirected graph stores each edge both ways already).
                Dist::PowerLaw => match random_arc(rng) {
                    Some((a, b)) => {
                        if g.is_directed() && rng.gen_bool(0.5) {
                            a
                        } else {
                            b
                        }
                    }
                    None => rng.gen_range(0..n as Vertex),
                },
                Dist::Uniform => rng.gen_range(0..n as Vertex),
            };
            let (u, v) = (end(&mut rng), end(&mut rng));
            added.push((u, v));
            removed.remove(&key((u, v)));
            let weight = if g.is_weighted() { rng.gen_range(1..10) as f32 } else { 1.0 };
            adds += 1;
            WalItem::AddEdge { src: u, dst: v, weight }
        } else {
            let mut pick = None;
            for _ in 0..16 {
                let e = if !added.is_empty() && rng.gen_bool(0.5) {
                    Some(added.swap_remove(rng.gen_range(0..added.len())))
                } else {
                    random_arc(&mut rng)
                };
                if let Some(e) = e.filter(|&e| removed.insert(key(e))) {
                    pick = Some(e);
                    break;
                }
            }
            // Random picks miss once most edges are gone: then take one of those left, if any,
            // uniformly from the added arcs and the graph's arcs (listed once, at the first
            // miss); an arc drawn that is already removed is dropped for good (if added again
            // it is in `added`), so the misses cost one pass over the arcs in all.
            let pick = pick.or_else(|| {
                let base = base_left.get_or_insert_with(|| {
                    let mut all = Vec::with_capacity(arcs as usize);
                    adj.for_each_in_range(0..n as Vertex, |u, ns| all.extend(ns.iter().map(|&v| (u, v))));
                    all
                });
                while added.len() + base.len() > 0 {
                    let i = rng.gen_range(0..added.len() + base.len());
                    let e = if i < added.len() {
                        added.swap_remove(i)
                    } else {
                        base.swap_remove(i - added.len())
                    };
                    if removed.insert(key(e)) {
                        return Some(e);
                    }
                }
                None
            });
            let Some((u, v)) = pick else {
                return Err(Error::invalid("workload updates: no edge left to remove"));
            };
            dels += 1;
            WalItem::RemoveEdge { src: u, dst: v }
        };
        sink.push(item, g.is_weighted())?;
    }
    sink.finish()?;
    super::workload::summary(
        out,
        &format!(
            "updates workload: {adds} additions ({dist:?}), {dels} removals for a graph of {n} vertices, seed {seed}, written to {}",
            out.display()
        ),
    );
    Ok(())
}
