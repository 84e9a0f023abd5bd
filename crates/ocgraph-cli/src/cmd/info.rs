//! `ocgraph info`: a graph's size, layout and degree statistics.

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::Args;
use ocgraph_core::format::compressed::BlockIndex;
use ocgraph_core::format::{FileRole, IdMapKind, MANIFEST_FILE};
use ocgraph_core::labels::NO_LABEL;
use ocgraph_core::size::format_size;
use ocgraph_core::{with_adjacency, Adjacency, Graph, GraphView, Result, Vertex};
use serde_json::json;

use crate::backend_args::BackendArgs;

/// Arguments of `ocgraph info`.
#[derive(Args)]
pub struct InfoArgs {
    /// Graph directory.
    graph: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    backend: BackendArgs,
}

/// An exact degree histogram: dense for small degrees, sparse above.
#[derive(Default)]
struct Histogram {
    small: Vec<u64>,
    large: BTreeMap<u64, u64>,
}

impl Histogram {
    fn add(&mut self, d: u64) {
        if d < 1 << 16 {
            if self.small.len() <= d as usize {
                self.small.resize(d as usize + 1, 0);
            }
            self.small[d as usize] += 1;
        } else {
            *self.large.entry(d).or_default() += 1;
        }
    }

    /// The lower median of `n` recorded degrees.
    fn median(&self, n: u64) -> u64 {
        let target = n.saturating_sub(1) / 2;
        let mut seen = 0;
        let small = self.small.iter().enumerate().map(|(d, &c)| (d as u64, c));
        for (d, c) in small.chain(self.large.iter().map(|(&d, &c)| (d, c))) {
            seen += c;
            if seen > target {
                return d;
            }
        }
        0
    }
}

/// Runs `ocgraph info` (a corrupted file it panics on is reported, see
/// [`super::reporting_corruption`]).
pub fn run(args: &InfoArgs) -> Result<()> {
    super::reporting_corruption(&args.graph, || run_info(args))
}

/// [`run`] without the check after a panic.
fn run_info(args: &InfoArgs) -> Result<()> {
    // A graph with updates is described as it is now (base, levels and log); its files and
    // layouts are the base's.
    let view = args.backend.open_view(&args.graph)?;
    let g = view.base();
    let m = g.manifest();
    let n = view.num_vertices() as Vertex;
    let (mut min, mut max, mut hist) = (u64::MAX, 0u64, Histogram::default());
    let (mut isolated, mut self_loops) = (0u64, 0u64);
    let directed = view.is_directed();
    // A directed graph's isolated vertices are those without in-arcs too: the in-degrees are
    // read a range of vertices at a time, beside their out-lists.
    const RANGE: u64 = 1 << 16;
    let mut in_deg = vec![0u32; if directed { RANGE as usize } else { 0 }];
    with_adjacency!(&view, |out, inn| {
        for lo in (0..n as u64).step_by(RANGE as usize) {
            let range = lo as Vertex..(lo + RANGE).min(n as u64) as Vertex;
            if directed {
                inn.for_each_degree_in_range(range.clone(), |v, d| {
                    in_deg[(v - range.start) as usize] = d as u32
                });
            }
            out.for_each_in_range(range.clone(), |v, nbrs| {
                let d = nbrs.len() as u64;
                min = min.min(d);
                max = max.max(d);
                hist.add(d);
                if d == 0 && (!directed || in_deg[(v - range.start) as usize] == 0) {
                    isolated += 1;
                }
                // Every self-loop arc (a list is sorted; a graph without --dedup may repeat it).
                let first = nbrs.partition_point(|&x| x < v);
                self_loops += nbrs[first..].iter().take_while(|&&x| x == v).count() as u64;
            })
        }
    });
    let mean = if n == 0 { 0.0 } else { view.num_arcs() as f64 / n as f64 };
    let levels = match &view {
        GraphView::Stored(_) => None,
        GraphView::Updated(s) => Some(s.num_levels()),
    };
    // The grid is built from the base: with updates over it, kernels read the lists instead.
    let stored_unused = matches!(&view, GraphView::Updated(s) if s.has_updates());
    let median = hist.median(n as u64);
    let manifest_len = std::fs::metadata(args.graph.join(MANIFEST_FILE)).map(|m| m.len()).unwrap_or(0);
    let files: BTreeMap<&str, u64> = m.files.iter().map(|(k, e)| (k.as_str(), e.padded_len())).collect();
    let total: u64 = files.values().sum::<u64>() + manifest_len;
    let id_map = match m.id_map {
        IdMapKind::Identity => "identity",
        IdMapKind::U64 => "u64",
        IdMapKind::Strings => "strings",
    };
    // Labelled vertices and distinct labels, as they are now (label updates included).
    let labels = view.labels()?.map(|mut l| {
        l.retain(|&x| x != NO_LABEL);
        let labelled = l.len();
        l.sort_unstable();
        l.dedup();
        (labelled, l.len())
    });
    let compressed = compressed_summary(g)?;
    // The range the base's writer recorded; pending updates may have changed the weights.
    let weight_range = m.weight_range.filter(|_| levels.is_none());
    if args.json {
        let v = json!({
            "path": args.graph.display().to_string(),
            "vertices": view.num_vertices(),
            "edges": view.num_edges(),
            "arcs": view.num_arcs(),
            "updates": levels.map(|l| json!({ "levels": l })),
            "directed": g.is_directed(),
            "weighted": g.is_weighted(),
            "weight_range": weight_range,
            "id_map": id_map,
            "packed": m.is_packed(),
            "packed_copy": m.has_packed_copy(),
            "hub_index": m.file(FileRole::Hubs).is_some(),
            "grid": m.grid,
            "compressed": compressed,
            "labels": labels.map(|(labelled, distinct)| json!({ "labelled": labelled, "distinct": distinct })),
            "source": m.source,
            "created_by": m.created_by,
            "files": files,
            "total_bytes": total,
            "out_degree": { "min": if n == 0 { 0 } else { min }, "max": max, "mean": mean, "median": median },
            "isolated_vertices": isolated,
            "self_loops": self_loops,
        });
        println!("{}", serde_json::to_string_pretty(&v).expect("json serialises"));
    } else {
        println!("graph      {}", args.graph.display());
        println!("vertices   {}", view.num_vertices());
        println!("edges      {}", view.num_edges());
        println!("arcs       {}", view.num_arcs());
        if let Some(l) = levels {
            println!("updates    {l} level(s) and a log over the base, included above (`ocgraph compact` merges them)");
        }
        println!("directed   {}", g.is_directed());
        println!("weighted   {}", g.is_weighted());
        match (weight_range, levels) {
            (Some(r), _) => {
                let smallest = r.min_positive.map_or("none".to_string(), |w| w.to_string());
                let whole = if r.whole { ", all whole" } else { "" };
                println!(
                    "weights    non-negative{whole}, largest {}, smallest positive {smallest} (recorded when written)",
                    r.max
                );
            }
            // The range is recorded for a base whose weights are all finite and non-negative.
            (None, Some(_)) if g.is_weighted() => {
                println!(
                    "weights    range not known while updates are pending (`ocgraph compact` records it)"
                )
            }
            (None, None) if g.is_weighted() => {
                println!(
                    "weights    no range recorded: some weight is negative (shortest paths refuse the graph)"
                )
            }
            _ => {}
        }
        println!("id map     {id_map}");
        let lists = match (m.is_packed(), m.has_packed_copy()) {
            (true, _) => "packed (read-only)",
            (false, true) => "plain, with packed copies (`ocgraph layout pack`)",
            (false, false) => "plain",
        };
        println!("lists      {lists}");
        match m.grid {
            Some(grid) => println!(
                "grid       {p} x {p} cells of {} vertices, compression {}{}",
                1u64 << grid.block_bits,
                grid.codec.name(),
                if stored_unused {
                    "; not used while the graph has updates (`ocgraph compact` rebuilds it)"
                } else {
                    ""
                },
                p = grid.cells_per_side
            ),
            None => println!("grid       none (`ocgraph layout grid` builds one)"),
        }
        match m.file(FileRole::Hubs) {
            Some(_) => println!(
                "hubs       three per vertex (`ocgraph layout hubs`; read by bfs and wcc{})",
                if stored_unused { "; not used while the graph has updates" } else { "" }
            ),
            None => println!("hubs       none (`ocgraph layout hubs` indexes them)"),
        }
        match &compressed {
            Some(c) => println!(
                "compressed LZ4 blocks of {}, {} of {} plain ({:.2}x; read by the pool)",
                format_size(c["block_size"].as_u64().unwrap_or(0)),
                format_size(c["stored_bytes"].as_u64().unwrap_or(0)),
                format_size(c["plain_bytes"].as_u64().unwrap_or(0)),
                c["ratio"].as_f64().unwrap_or(0.0)
            ),
            None => println!("compressed none (`ocgraph layout compress` writes copies)"),
        }
        match labels {
            Some((labelled, distinct)) => {
                println!("labels     {labelled} vertices labelled, {distinct} distinct labels")
            }
            None => println!("labels     none"),
        }
        println!("source     {}", m.source);
        println!(
            "out-degree min {} / max {max} / mean {mean:.3} / median {median}",
            if n == 0 { 0 } else { min }
        );
        println!("isolated   {isolated}");
        println!("self-loops {self_loops}");
        println!("size       {} ({total} bytes)", format_size(total));
        for (name, len) in &files {
            println!("  {name:<16} {}", format_size(*len));
        }
    }
    args.backend.report_stats(g)?;
    Ok(())
}

/// The compressed copies of the graph's adjacency files (block size, plain and stored bytes,
/// ratio), or `None` when it has none.
fn compressed_summary(g: &Graph) -> Result<Option<serde_json::Value>> {
    let m = g.manifest();
    let data = g.data_path();
    let (mut plain, mut stored, mut block) = (0u64, 0u64, 0u32);
    for (p, c) in FileRole::COMPRESSIBLE {
        if let (Some(pe), Some(ce)) = (m.file(p), m.file(c)) {
            let index = BlockIndex::read(&data.join(c.file_name()), ce.len, pe.padded_len())?;
            block = index.block_size;
            plain += pe.padded_len();
            stored += ce.len;
        }
    }
    Ok((stored > 0).then(|| {
        json!({"codec": "lz4", "block_size": block, "plain_bytes": plain, "stored_bytes": stored,
               "ratio": plain as f64 / stored as f64})
    }))
}

#[cfg(test)]
mod tests {
    use super::Histogram;

    #[test]
    fn median_matches_sorting() {
        let degs = [5u64, 0, 70_000, 3, 3, 9, 1 << 20, 2];
        let mut h = Histogram::default();
        degs.iter().for_each(|&d| h.add(d));
        let mut s = degs.to_vec();
        s.sort();
        assert_eq!(h.median(degs.len() as u64), s[(s.len() - 1) / 2]);
        let mut h2 = Histogram::default();
        [70_000u64, 80_000, 1].iter().for_each(|&d| h2.add(d));
        assert_eq!(h2.median(3), 70_000);
    }
}
