//! `ocgraph info`: a graph's size, layout and degree statistics.

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::Args;
use ocgraph_core::format::compressed::BlockIndex;
use ocgraph_core::format::{FileRole, IdMapKind, MANIFEST_FILE};
use ocgraph_core::labels::NO_LABEL;
use ocgraph_core::size::format_size;
use ocgraph_core::{Adjacency, Direction, Graph, Result, Vertex};
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

/// Vertices per chunk when scanning offsets.
const CHUNK: Vertex = 1 << 16;

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

/// Degrees of every vertex in `dir`, chunk by chunk: `f(first_vertex, degrees)`.
fn for_each_degree_chunk(dir: &Direction<'_>, n: Vertex, mut f: impl FnMut(Vertex, &[u64])) {
    let mut degs = Vec::with_capacity(CHUNK as usize);
    let mut lo = 0;
    while lo < n {
        let hi = lo.saturating_add(CHUNK).min(n);
        let offs = dir.offsets(lo, hi);
        degs.clear();
        degs.extend(offs.windows(2).map(|w| w[1] - w[0]));
        f(lo, &degs);
        lo = hi;
    }
}

/// Runs `ocgraph info`.
pub fn run(args: &InfoArgs) -> Result<()> {
    let g = args.backend.open(&args.graph)?;
    let m = g.manifest();
    let n = g.num_vertices() as Vertex;
    let (mut min, mut max, mut hist) = (u64::MAX, 0u64, Histogram::default());
    let mut isolated = 0u64;
    let (out, inn) = (g.out(), g.in_());
    for_each_degree_chunk(&out, n, |lo, degs| {
        let in_offs = g.is_directed().then(|| inn.offsets(lo, lo + degs.len() as Vertex));
        for (i, &d) in degs.iter().enumerate() {
            min = min.min(d);
            max = max.max(d);
            hist.add(d);
            if d == 0 && in_offs.as_ref().is_none_or(|o| o[i] == o[i + 1]) {
                isolated += 1;
            }
        }
    });
    let mut self_loops = 0u64;
    g.out().for_each_in_range(0..n, |v, nbrs| {
        if nbrs.binary_search(&v).is_ok() {
            self_loops += 1;
        }
    });
    let mean = if n == 0 { 0.0 } else { g.num_arcs() as f64 / n as f64 };
    let median = hist.median(n as u64);
    let manifest_len = std::fs::metadata(args.graph.join(MANIFEST_FILE)).map(|m| m.len()).unwrap_or(0);
    let files: BTreeMap<&str, u64> = m.files.iter().map(|(k, e)| (k.as_str(), e.padded_len())).collect();
    let total: u64 = files.values().sum::<u64>() + manifest_len;
    let id_map = match m.id_map {
        IdMapKind::Identity => "identity",
        IdMapKind::U64 => "u64",
        IdMapKind::Strings => "strings",
    };
    // Labelled vertices and distinct labels.
    let labels = g.labels()?.map(|mut l| {
        l.retain(|&x| x != NO_LABEL);
        let labelled = l.len();
        l.sort_unstable();
        l.dedup();
        (labelled, l.len())
    });
    let compressed = compressed_summary(&g)?;
    if args.json {
        let v = json!({
            "path": args.graph.display().to_string(),
            "vertices": g.num_vertices(),
            "edges": g.num_edges(),
            "arcs": g.num_arcs(),
            "directed": g.is_directed(),
            "weighted": g.is_weighted(),
            "id_map": id_map,
            "packed": m.is_packed(),
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
        println!("vertices   {}", g.num_vertices());
        println!("edges      {}", g.num_edges());
        println!("arcs       {}", g.num_arcs());
        println!("directed   {}", g.is_directed());
        println!("weighted   {}", g.is_weighted());
        println!("id map     {id_map}");
        println!("lists      {}", if m.is_packed() { "packed (read-only)" } else { "plain" });
        match m.grid {
            Some(grid) => println!(
                "grid       {p} x {p} cells of {} vertices, compression {}",
                1u64 << grid.block_bits,
                grid.codec.name(),
                p = grid.cells_per_side
            ),
            None => println!("grid       none (`ocgraph layout grid` builds one)"),
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
    args.backend.report_stats(&g)?;
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
