//! Page-layer benchmark: opens a graph with a chosen backend and runs one access pattern,
//! printing one JSON line (seconds, throughput, I/O statistics).
//!
//! ```text
//! pagebench GRAPH [--backend mmap|pool] [--memory SIZE] [--policy NAME] [--page-size BYTES]
//!                 [--mode scan|random] [--reads K] [--seed S] [--threads T] [--warm]
//! ```
//! - `scan`: `for_each_in_range` over all vertices (split into `T` contiguous ranges), summing
//!   neighbour ids; throughput in MB/s of offsets + neighbours bytes.
//! - `random`: `K` vertices drawn with a seeded RNG (split over `T` threads), summing their
//!   neighbour ids; throughput in reads/s.
//! - mmap is opened with `MADV_RANDOM` for `random` and `MADV_SEQUENTIAL` for `scan`.
//! - `--warm`: run one untimed scan first and reset the statistics (measures cached speed).

use std::time::Instant;

use ocgraph_core::format::FileRole;
use ocgraph_core::page::{Advice, BackendKind};
use ocgraph_core::size::parse_size;
use ocgraph_core::{Adjacency, Graph, OpenOptions, Vertex};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

struct Args {
    graph: String,
    backend: String,
    memory: u64,
    policy: String,
    page_size: usize,
    mode: String,
    reads: u64,
    seed: u64,
    threads: u32,
    warm: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        graph: String::new(),
        backend: "pool".into(),
        memory: 1 << 30,
        policy: "clock".into(),
        page_size: 4096,
        mode: "scan".into(),
        reads: 1_000_000,
        seed: 1,
        threads: 1,
        warm: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut val = || it.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--backend" => a.backend = val()?,
            "--memory" => a.memory = parse_size(&val()?).map_err(|e| e.to_string())?,
            "--policy" => a.policy = val()?,
            "--page-size" => a.page_size = parse_size(&val()?).map_err(|e| e.to_string())? as usize,
            "--mode" => a.mode = val()?,
            "--reads" => a.reads = val()?.parse().map_err(|e| format!("--reads: {e}"))?,
            "--seed" => a.seed = val()?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--threads" => a.threads = val()?.parse().map_err(|e| format!("--threads: {e}"))?,
            "--warm" => a.warm = true,
            _ if a.graph.is_empty() && !arg.starts_with("--") => a.graph = arg,
            _ => return Err(format!("unexpected argument '{arg}'")),
        }
    }
    if a.graph.is_empty() {
        return Err("usage: pagebench GRAPH [--backend mmap|pool] [--memory SIZE] [--policy NAME] \
                    [--page-size BYTES] [--mode scan|random] [--reads K] [--seed S] [--threads T] [--warm]"
            .into());
    }
    Ok(a)
}

/// Sum of neighbour ids over all vertices, scanning `threads` contiguous ranges in parallel.
fn scan(g: &Graph, threads: u32) -> u64 {
    let n = g.num_vertices() as u64;
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads as u64)
            .map(|t| {
                let range = (n * t / threads as u64) as Vertex..(n * (t + 1) / threads as u64) as Vertex;
                s.spawn(move || {
                    let mut sum = 0u64;
                    g.out()
                        .for_each_in_range(range, |_, nb| sum += nb.iter().map(|&x| x as u64).sum::<u64>());
                    sum
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("scan thread")).sum()
    })
}

/// Sum of neighbour ids of `reads` random vertices (thread `t` uses seed `seed + t`).
fn random(g: &Graph, reads: u64, seed: u64, threads: u32) -> u64 {
    let n = g.num_vertices() as Vertex;
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads as u64)
            .map(|t| {
                let k = reads * (t + 1) / threads as u64 - reads * t / threads as u64;
                s.spawn(move || {
                    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed + t);
                    let out = g.out();
                    let mut sum = 0u64;
                    for _ in 0..k {
                        sum += out.neighbors(rng.gen_range(0..n)).iter().map(|&x| x as u64).sum::<u64>();
                    }
                    sum
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("random thread")).sum()
    })
}

fn main() {
    let a = parse_args().unwrap_or_else(|e| {
        eprintln!("pagebench: {e}");
        std::process::exit(2)
    });
    let backend = match a.backend.as_str() {
        // mmap gets the advice matching the pattern (no read-ahead for random reads).
        "mmap" if a.mode == "random" => BackendKind::Mmap { advice: Advice::Random },
        "mmap" => BackendKind::Mmap { advice: Advice::Sequential },
        "pool" => BackendKind::Pool { capacity: a.memory, page_size: a.page_size, policy: a.policy.clone() },
        other => {
            eprintln!("pagebench: unknown backend '{other}' (mmap or pool)");
            std::process::exit(2)
        }
    };
    let g = Graph::open(&a.graph, &OpenOptions { backend }).unwrap_or_else(|e| {
        eprintln!("pagebench: {e}");
        std::process::exit(1)
    });
    if a.warm {
        scan(&g, a.threads);
    }
    g.reset_io_stats();
    let t0 = Instant::now();
    let checksum = match a.mode.as_str() {
        "scan" => scan(&g, a.threads),
        "random" => random(&g, a.reads, a.seed, a.threads),
        other => {
            eprintln!("pagebench: unknown mode '{other}' (scan or random)");
            std::process::exit(2)
        }
    };
    let secs = t0.elapsed().as_secs_f64();
    let m = g.manifest();
    let bytes: u64 = [FileRole::OutOffsets, FileRole::OutNeighbors]
        .iter()
        .filter_map(|&r| m.file(r).map(|f| f.padded_len()))
        .sum();
    let (throughput, unit) = match a.mode.as_str() {
        "scan" => (bytes as f64 / 1e6 / secs, "MB/s"),
        _ => (a.reads as f64 / secs, "reads/s"),
    };
    let line = serde_json::json!({
        "mode": a.mode, "backend": a.backend, "memory": a.memory, "policy": a.policy,
        "page_size": a.page_size, "threads": a.threads, "warm": a.warm, "graph_bytes": bytes,
        "seconds": secs, "throughput": throughput, "unit": unit, "checksum": checksum,
        "stats": g.io_stats().to_json(),
    });
    println!("{line}");
}
