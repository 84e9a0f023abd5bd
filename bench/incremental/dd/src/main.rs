//! The differential-dataflow baseline of `bench/incremental/run.py --dd`: BFS or WCC kept current
//! over the same base graph and update stream that `ocgraph stream` applies, one timely round
//! per batch.
//!
//! Usage: `ocgraph-dd-bench KERNEL BASE UPDATES BATCH [--undirected] [--source S] [--workers W]`
//!
//! - `KERNEL`: `bfs` (hop distances from `--source`, default 0; differential's
//!   `algorithms::graphs::bfs`) or `wcc` (smallest-id labels: differential's
//!   `algorithms::graphs::propagate` over both directions of every edge, every vertex seeded with
//!   its own id).
//! - `BASE`: the base graph as little-endian u32 `(src, dst)` pairs (`ocgraph export --format
//!   bin32`); `--undirected` adds each edge in both directions (as ocgraph stores it).
//! - `UPDATES`: the text stream of `ocgraph workload updates` (`+ u v [w]`, `- u v`); the first
//!   line may be a `# vertices N` comment, other `#` lines are skipped.
//! - `BATCH`: updates per round.
//!
//! ocgraph's graphs are simple (adding an existing edge or removing a missing one changes
//! nothing), differential's collections are multisets: the driver keeps the current edge set and
//! feeds only the updates that change it, and that bookkeeping counts in the batch's time.
//!
//! Prints one JSON object: updates, updates/s over the stream, per-batch latency p50/p99/max in
//! microseconds, the seconds to load the base and reach the first fixpoint, and a summary of the
//! final result (reached vertices and distance sum for BFS, number of components for WCC) to
//! check against ocgraph's; with `--workers` above 1 the summary covers worker 0's share only.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Read};
use std::rc::Rc;
use std::time::Instant;

use differential_dataflow::algorithms::graphs::{bfs::bfs, propagate::propagate};
use differential_dataflow::input::Input;
use timely::dataflow::operators::probe::Handle;

type Node = u32;

/// One edge update of the stream.
#[derive(Clone, Copy)]
enum Update {
    Add(Node, Node),
    Remove(Node, Node),
}

/// Command-line arguments (see the module docs).
struct Args {
    kernel: String,
    base: String,
    updates: String,
    batch: usize,
    undirected: bool,
    source: Node,
    workers: usize,
}

fn parse_args() -> Args {
    let mut pos = Vec::new();
    let (mut undirected, mut source, mut workers) = (false, 0, 1);
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--undirected" => undirected = true,
            "--source" => source = it.next().and_then(|s| s.parse().ok()).expect("--source N"),
            "--workers" => workers = it.next().and_then(|s| s.parse().ok()).expect("--workers N"),
            _ => pos.push(a),
        }
    }
    if pos.len() != 4 || !["bfs", "wcc"].contains(&pos[0].as_str()) {
        eprintln!("usage: ocgraph-dd-bench bfs|wcc BASE.bin UPDATES.txt BATCH [--undirected] [--source S] [--workers W]");
        std::process::exit(2);
    }
    let batch = pos[3].parse().expect("BATCH must be a positive integer");
    Args {
        kernel: pos[0].clone(),
        base: pos[1].clone(),
        updates: pos[2].clone(),
        batch,
        undirected,
        source,
        workers,
    }
}

/// The base edges: little-endian u32 pairs.
fn read_base(path: &str) -> Vec<(Node, Node)> {
    let mut bytes = Vec::new();
    std::fs::File::open(path).and_then(|mut f| f.read_to_end(&mut bytes)).expect("read base edges");
    bytes
        .chunks_exact(8)
        .map(|c| {
            let u = u32::from_le_bytes(c[0..4].try_into().unwrap());
            let v = u32::from_le_bytes(c[4..8].try_into().unwrap());
            (u, v)
        })
        .collect()
}

/// The update stream (edge additions and removals; weights are ignored).
fn read_updates(path: &str) -> Vec<Update> {
    let f = std::fs::File::open(path).expect("open updates");
    let mut out = Vec::new();
    for line in BufReader::new(f).lines() {
        let line = line.expect("read updates");
        let mut t = line.split_whitespace();
        let (op, u, v) = (t.next(), t.next(), t.next());
        let node = |s: Option<&str>| s.and_then(|s| s.parse::<Node>().ok()).expect("bad vertex in update");
        match op {
            None => {}
            Some(s) if s.starts_with('#') => {}
            Some("+") => out.push(Update::Add(node(u), node(v))),
            Some("-") => out.push(Update::Remove(node(u), node(v))),
            Some(other) => panic!("unsupported update line {other:?}: only '+ u v' and '- u v'"),
        }
    }
    out
}

/// The `p`-th percentile (0-100) of sorted `xs`.
fn percentile(xs: &[f64], p: f64) -> f64 {
    if xs.is_empty() {
        return 0.0;
    }
    xs[((p / 100.0) * (xs.len() - 1) as f64).round() as usize]
}

/// The canonical form of an edge as the driver's edge set keeps it.
fn key(undirected: bool, u: Node, v: Node) -> (Node, Node) {
    if undirected && v < u {
        (v, u)
    } else {
        (u, v)
    }
}

fn main() {
    let args = parse_args();
    let t0 = Instant::now();
    let base = read_base(&args.base);
    let updates = read_updates(&args.updates);
    let n = base
        .iter()
        .flat_map(|&(u, v)| [u, v])
        .chain(updates.iter().flat_map(|u| match *u {
            Update::Add(a, b) | Update::Remove(a, b) => [a, b],
        }))
        .max()
        .map_or(0, |m| m + 1);
    let read_secs = t0.elapsed().as_secs_f64();
    let config = timely::Config::process(args.workers);
    let guards = timely::execute(config, move |worker| {
        let index = worker.index();
        let probe = Handle::new();
        // The final result as (vertex -> value), kept by worker 0's inspect of its own share.
        let result: Rc<RefCell<HashMap<Node, u32>>> = Rc::default();
        let sink = result.clone();
        let (mut roots, mut graph) = worker.dataflow::<u64, _, _>(|scope| {
            let (root_input, roots) = scope.new_collection::<Node, isize>();
            let (edge_input, edges) = scope.new_collection::<(Node, Node), isize>();
            let out = match args.kernel.as_str() {
                "bfs" => bfs(edges, roots),
                _ => {
                    let both = edges.clone().concat(edges.map(|(u, v)| (v, u)));
                    propagate(both, roots.map(|v| (v, v)))
                }
            };
            out.inspect(move |&((v, x), _t, d)| {
                let mut m = sink.borrow_mut();
                if d > 0 {
                    m.insert(v, x);
                } else if m.get(&v) == Some(&x) {
                    m.remove(&v);
                }
            })
            .probe_with(&probe);
            (root_input, edge_input)
        });
        let mut edges: HashSet<(Node, Node)> = HashSet::new();
        let insert_both = args.undirected && args.kernel == "bfs";
        if index == 0 {
            match args.kernel.as_str() {
                "bfs" => roots.insert(args.source),
                _ => (0..n).for_each(|v| roots.insert(v)),
            }
            for &(u, v) in &base {
                if edges.insert(key(args.undirected, u, v)) {
                    graph.insert((u, v));
                    if insert_both && u != v {
                        graph.insert((v, u));
                    }
                }
            }
        }
        roots.close();
        graph.advance_to(1);
        graph.flush();
        worker.step_while(|| probe.less_than(graph.time()));
        let load_secs = t0.elapsed().as_secs_f64() - read_secs;
        let mut lat = Vec::new();
        let start = Instant::now();
        for (round, chunk) in updates.chunks(args.batch).enumerate() {
            let t = Instant::now();
            if index == 0 {
                for &up in chunk {
                    match up {
                        Update::Add(u, v) => {
                            if edges.insert(key(args.undirected, u, v)) {
                                graph.insert((u, v));
                                if insert_both && u != v {
                                    graph.insert((v, u));
                                }
                            }
                        }
                        Update::Remove(u, v) => {
                            if edges.remove(&key(args.undirected, u, v)) {
                                graph.remove((u, v));
                                if insert_both && u != v {
                                    graph.remove((v, u));
                                }
                            }
                        }
                    }
                }
            }
            graph.advance_to(round as u64 + 2);
            graph.flush();
            worker.step_while(|| probe.less_than(graph.time()));
            lat.push(t.elapsed().as_secs_f64() * 1e6);
        }
        let total = start.elapsed().as_secs_f64();
        let m = result.borrow();
        let summary = match args.kernel.as_str() {
            "bfs" => format!(
                "\"reached\": {}, \"dist_sum\": {}",
                m.len(),
                m.values().map(|&d| d as u64).sum::<u64>()
            ),
            _ => format!("\"components\": {}", m.iter().filter(|(v, l)| v == l).count()),
        };
        let mut sorted = lat.clone();
        sorted.sort_by(f64::total_cmp);
        if index == 0 {
            println!(
                "{{\"kernel\": \"{}\", \"batch\": {}, \"workers\": {}, \"vertices\": {n}, \"updates\": {}, \
                 \"updates_per_sec\": {:.1}, \"p50_us\": {:.1}, \"p99_us\": {:.1}, \"max_us\": {:.1}, \
                 \"read_secs\": {read_secs:.3}, \"load_secs\": {load_secs:.3}, {summary}}}",
                args.kernel,
                args.batch,
                args.workers,
                updates.len(),
                updates.len() as f64 / total,
                percentile(&sorted, 50.0),
                percentile(&sorted, 99.0),
                sorted.last().copied().unwrap_or(0.0),
            );
        }
    })
    .expect("timely");
    drop(guards);
}
