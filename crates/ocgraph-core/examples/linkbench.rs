//! A LinkBench-like mixed workload over a base graph and a [`PagedDelta`], run for each
//! write-back mode (batch and single-page) on the same seeded operation sequence, the two
//! interleaved operation by operation, alternating which goes first (the second finds the CPU
//! caches warmed by the first), each with its own pools and delta file; prints one
//! JSON line per (mode, operation) with latencies, and one per mode with the delta pool's write
//! statistics.
//!
//! ```text
//! linkbench GRAPH [--ops N] [--seed S] [--zipf THETA] [--memory-fraction F] [--policy NAME]
//!                 [--page-size BYTES] [--delta-dir DIR]
//! ```
//!
//! Operations (LinkBench's mix, shifted towards writes as in seed 004's update-intensive runs):
//! neighbour query 40% (the merged out-neighbour list), point read of an edge 15%, edge insert
//! 20%, edge update 10% (new weight of an existing arc), edge delete 8%, node insert 5% (a new
//! vertex id with one arc to an existing vertex), node delete 2% (removes every out-arc of the
//! vertex). Vertices are drawn from a Zipf distribution of exponent THETA (default 0.9) over
//! the base vertices (a fixed permutation spreads the popular ones over the id space), except
//! node deletes, drawn uniformly. Each write operation is one batch (its own sequence number).
//!
//! Memory: the base graph is opened with a pool of F (default 5%) of its file bytes; the delta
//! pool gets F of the delta file's size as built by an untimed sizing pass with a 1 GiB pool
//! (where no tail block is ever copied: see [`PagedDelta`]). So the total pool memory is F of
//! the data, and the delta, like the graph, is mostly on disk. The mode record reports the
//! delta's final size in each mode (`delta_final_bytes`, dead blocks included).

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Instant;

use ocgraph_core::page::pool::WriteBack;
use ocgraph_core::page::{BackendKind, IoStats};
use ocgraph_core::size::parse_size;
use ocgraph_core::update::{fold_ops, ArcOp, DeltaLog, PagedDelta, PagedDeltaOptions};
use ocgraph_core::{Adjacency, Graph, OpenOptions, Vertex};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

struct Args {
    graph: PathBuf,
    ops: usize,
    seed: u64,
    zipf: f64,
    fraction: f64,
    policy: String,
    page_size: usize,
    delta_dir: PathBuf,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        graph: PathBuf::new(),
        ops: 200_000,
        seed: 1,
        zipf: 0.9,
        fraction: 0.05,
        policy: "clock".into(),
        page_size: 4096,
        delta_dir: std::env::temp_dir(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut val = || it.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--ops" => a.ops = val()?.parse().map_err(|e| format!("--ops: {e}"))?,
            "--seed" => a.seed = val()?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--zipf" => a.zipf = val()?.parse().map_err(|e| format!("--zipf: {e}"))?,
            "--memory-fraction" => {
                a.fraction = val()?.parse().map_err(|e| format!("--memory-fraction: {e}"))?
            }
            "--policy" => a.policy = val()?,
            "--page-size" => a.page_size = parse_size(&val()?).map_err(|e| e.to_string())? as usize,
            "--delta-dir" => a.delta_dir = val()?.into(),
            s if !s.starts_with("--") && a.graph.as_os_str().is_empty() => a.graph = s.into(),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if a.graph.as_os_str().is_empty() {
        return Err("usage: linkbench GRAPH [--ops N] [--seed S] [--zipf THETA] ...".into());
    }
    Ok(a)
}

/// The operation kinds, in report order.
const KINDS: [&str; 7] =
    ["neighbors", "point_read", "edge_insert", "edge_update", "edge_delete", "node_insert", "node_delete"];
/// Their shares of the mix, in percent.
const SHARES: [u32; 7] = [40, 15, 20, 10, 8, 5, 2];

/// One generated operation: its kind (index into [`KINDS`]), a source vertex, a destination
/// (or a random number that picks an existing neighbour at run time), and a weight.
#[derive(Clone, Copy)]
struct Op {
    kind: usize,
    src: Vertex,
    dst: Vertex,
    pick: u32,
    weight: f32,
}

/// Zipf over `0..n` by inverse CDF, mapped through a fixed permutation of the ids.
struct Zipf {
    cdf: Vec<f64>,
    mult: u64,
}

impl Zipf {
    fn new(n: usize, theta: f64) -> Zipf {
        let mut cdf = Vec::with_capacity(n);
        let mut sum = 0.0;
        for r in 0..n {
            sum += 1.0 / ((r + 1) as f64).powf(theta);
            cdf.push(sum);
        }
        for c in &mut cdf {
            *c /= sum;
        }
        // An odd multiplier coprime with n permutes 0..n.
        let mut mult = (0x9E37_79B9_7F4A_7C15u64 % n as u64) | 1;
        while gcd(mult, n as u64) != 1 {
            mult += 2;
        }
        Zipf { cdf, mult }
    }

    fn sample(&self, rng: &mut impl Rng) -> Vertex {
        let u: f64 = rng.gen();
        let rank = self.cdf.partition_point(|&c| c < u).min(self.cdf.len() - 1) as u64;
        (rank * self.mult % self.cdf.len() as u64) as Vertex
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The kind whose slice of `0..100` (by [`SHARES`]) contains `r`.
fn kind_of(r: u32) -> usize {
    let mut end = 0;
    for (k, s) in SHARES.iter().enumerate() {
        end += s;
        if r < end {
            return k;
        }
    }
    unreachable!("shares sum to 100")
}

fn generate(n: usize, ops: usize, seed: u64, theta: f64) -> Vec<Op> {
    let zipf = Zipf::new(n, theta);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut next_new = n as Vertex;
    (0..ops)
        .map(|_| {
            let r = rng.gen_range(0..100);
            let kind = kind_of(r);
            let mut op = Op {
                kind,
                src: zipf.sample(&mut rng),
                dst: zipf.sample(&mut rng),
                pick: rng.gen(),
                weight: rng.gen_range(0.0..1.0),
            };
            match KINDS[kind] {
                "node_insert" => {
                    op.src = next_new;
                    next_new += 1;
                }
                "node_delete" => op.src = rng.gen_range(0..n as Vertex),
                _ => {}
            }
            op
        })
        .collect()
}

/// The current out-neighbours of `v`: base arcs, then the delta's net effect.
fn neighbors(g: &Graph, delta: &PagedDelta, v: Vertex, buf: &mut Vec<(Vertex, ArcOp)>) -> Vec<Vertex> {
    let mut set: BTreeSet<Vertex> = BTreeSet::new();
    if (v as usize) < g.num_vertices() {
        set.extend(g.out().neighbors(v).iter().copied());
    }
    buf.clear();
    delta.ops(v, u64::MAX >> 1, buf).expect("delta read");
    for (d, op) in fold_ops(buf) {
        match op {
            ArcOp::Add(_) => set.insert(d),
            ArcOp::Remove => set.remove(&d),
        };
    }
    set.into_iter().collect()
}

/// Whether the arc `src -> dst` exists now (binary search in the base, then the delta).
fn has_arc(g: &Graph, delta: &PagedDelta, src: Vertex, dst: Vertex, buf: &mut Vec<(Vertex, ArcOp)>) -> bool {
    let mut found = (src as usize) < g.num_vertices() && g.out().neighbors(src).binary_search(&dst).is_ok();
    buf.clear();
    delta.ops(src, u64::MAX >> 1, buf).expect("delta read");
    for &(d, op) in buf.iter() {
        if d == dst {
            found = matches!(op, ArcOp::Add(_));
        }
    }
    found
}

/// Runs `ops`; returns per-kind latencies in nanoseconds and a checksum of what reads saw.
/// Runs operation `op` as batch `seq`; returns what its reads saw (a checksum term).
fn apply(g: &Graph, delta: &PagedDelta, op: &Op, seq: u64, buf: &mut Vec<(Vertex, ArcOp)>) -> u64 {
    let rec = |s, d, o| delta.record(seq, s, d, o).expect("delta write");
    match KINDS[op.kind] {
        "neighbors" => return neighbors(g, delta, op.src, buf).len() as u64,
        "point_read" => {
            let nb = neighbors(g, delta, op.src, buf);
            let dst = if op.pick.is_multiple_of(2) && !nb.is_empty() {
                nb[op.pick as usize % nb.len()]
            } else {
                op.dst
            };
            return has_arc(g, delta, op.src, dst, buf) as u64;
        }
        "edge_insert" | "node_insert" => rec(op.src, op.dst, ArcOp::Add(op.weight)),
        "edge_update" | "edge_delete" => {
            let nb = neighbors(g, delta, op.src, buf);
            if !nb.is_empty() {
                let d = nb[op.pick as usize % nb.len()];
                let update = KINDS[op.kind] == "edge_update";
                rec(op.src, d, if update { ArcOp::Add(op.weight) } else { ArcOp::Remove });
            }
        }
        "node_delete" => {
            for d in neighbors(g, delta, op.src, buf) {
                rec(op.src, d, ArcOp::Remove);
            }
        }
        other => unreachable!("kind {other}"),
    }
    0
}

/// One configuration under test: a graph and a delta, with per-kind latencies (ns).
struct Subject {
    mode: WriteBack,
    g: Graph,
    delta: PagedDelta,
    lat: Vec<Vec<u64>>,
    nanos: u64,
    check: u64,
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize] as f64 / 1e3
}

fn graph_bytes(g: &Graph) -> u64 {
    g.manifest().files.values().map(|f| f.padded_len()).sum()
}

fn main() {
    let a = parse_args().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let n = Graph::open(&a.graph, &OpenOptions::default()).expect("open graph").num_vertices();
    if n == 0 {
        eprintln!("{}: the graph has no vertices", a.graph.display());
        std::process::exit(2)
    }
    let ops = generate(n, a.ops, a.seed, a.zipf);
    let open_graph = |capacity: u64| {
        let backend = BackendKind::Pool { capacity, page_size: a.page_size, policy: a.policy.clone() };
        Graph::open(&a.graph, &OpenOptions { backend }).expect("open graph")
    };
    let delta_path = a.delta_dir.join(format!("linkbench-delta-{}", std::process::id()));
    let delta_opts = |capacity: u64, max_bytes: u64, write_back| PagedDeltaOptions {
        max_bytes,
        capacity,
        page_size: a.page_size,
        policy: a.policy.clone(),
        write_back,
    };
    // Sizing pass: the delta's final size, with a pool of 1 GiB (all of it, unless larger).
    let g = open_graph(1 << 40);
    let gbytes = graph_bytes(&g);
    let sizing_opts = delta_opts(1 << 30, 16 << 30, WriteBack::Batch);
    let sizing = PagedDelta::create(&delta_path, &sizing_opts).expect("delta");
    let mut buf = Vec::new();
    let want_check: u64 = (1u64..).zip(&ops).map(|(seq, op)| apply(&g, &sizing, op, seq, &mut buf)).sum();
    let dbytes = sizing.bytes();
    drop((sizing, g));
    let min = 2 * a.page_size as u64;
    let graph_pool = ((gbytes as f64 * a.fraction) as u64).max(min);
    let delta_pool = ((dbytes as f64 * a.fraction) as u64).max(min);
    // Both modes run interleaved, operation by operation, so that the load of a shared machine
    // falls on both alike.
    let mut subjects: Vec<Subject> = WriteBack::ALL
        .iter()
        .map(|&mode| {
            let path = delta_path.with_extension(mode.name());
            // Room for the blocks started when a tail page was not resident.
            let opts = delta_opts(delta_pool, 8 * dbytes + (1 << 20), mode);
            let delta = PagedDelta::create(path, &opts).expect("delta");
            let g = open_graph(graph_pool);
            Subject { mode, g, delta, lat: vec![Vec::new(); KINDS.len()], nanos: 0, check: 0 }
        })
        .collect();
    for (seq, op) in (1u64..).zip(&ops) {
        // Rotate which mode goes first: a later one finds caches warmed by the earlier ones.
        subjects.rotate_left(1);
        for s in &mut subjects {
            let t = Instant::now();
            s.check += apply(&s.g, &s.delta, op, seq, &mut buf);
            let ns = t.elapsed().as_nanos() as u64;
            s.lat[op.kind].push(ns);
            s.nanos += ns;
        }
    }
    subjects.sort_by_key(|s| WriteBack::ALL.iter().position(|&m| m == s.mode));
    for mut s in subjects {
        let mode = s.mode;
        assert_eq!(s.check, want_check, "reads saw different data in mode {}", mode.name());
        let stats: IoStats = s.delta.io_stats();
        let t = Instant::now();
        s.delta.flush().expect("flush");
        let flush_secs = t.elapsed().as_secs_f64();
        for (kind, l) in KINDS.iter().zip(&mut s.lat) {
            l.sort_unstable();
            let count = l.len().max(1) as f64;
            let mean = l.iter().map(|&x| x as f64 / 1e3).sum::<f64>() / count;
            let sq_mean = l.iter().map(|&x| (x as f64 / 1e3).powi(2)).sum::<f64>() / count;
            let line = serde_json::json!({
                "record": "op", "mode": mode.name(), "op": kind, "count": l.len(),
                "mean_us": mean, "sq_mean_us2": sq_mean,
                "p50_us": percentile(l, 0.5), "p99_us": percentile(l, 0.99),
            });
            println!("{line}");
        }
        let line = serde_json::json!({
            "record": "mode", "mode": mode.name(), "ops": ops.len(), "seconds": s.nanos as f64 / 1e9,
            "flush_seconds": flush_secs, "graph_bytes": gbytes, "delta_bytes": dbytes,
            "graph_pool": graph_pool, "delta_pool": delta_pool,
            "write_calls": stats.write_calls, "random_writes": stats.random_writes,
            "random_write_ratio": stats.random_write_ratio(), "pages_written": stats.pages_written,
            "bytes_written": stats.bytes_written, "delta_final_bytes": s.delta.bytes(), "delta_misses": stats.misses, "delta_hits": stats.hits,
            "graph_misses": s.g.io_stats().misses,
        });
        println!("{line}");
        let _ = std::fs::remove_file(s.delta.path());
    }
    let _ = std::fs::remove_file(&delta_path);
}
