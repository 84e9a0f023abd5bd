//! Page-layer benchmark: opens a graph with a chosen backend and runs one access pattern,
//! printing one JSON line (seconds, throughput, I/O statistics).
//!
//! ```text
//! pagebench GRAPH [--backend mmap|pool] [--memory SIZE] [--policy NAME] [--page-size BYTES]
//!                 [--mode scan|random] [--reads K] [--seed S] [--threads T] [--warm]
//!                 [--repeat R] [--against-mmap]
//! ```
//! - `scan`: `for_each_in_range` over all vertices (split into `T` contiguous ranges), summing
//!   neighbour ids; throughput in MB/s of offsets + neighbours bytes.
//! - `random`: `K` vertices drawn with a seeded RNG (split over `T` threads), summing their
//!   neighbour ids; throughput in reads/s.
//! - mmap is opened with `MADV_RANDOM` for `random` and `MADV_SEQUENTIAL` for `scan`.
//! - `--warm`: run one untimed scan first and reset the statistics (measures cached speed).
//! - `--repeat R`: time the pattern `R` times and report the fastest (`runs` lists them all).
//! - `--against-mmap` (with `--warm`): also open the graph with mmap in this process, warm it,
//!   and alternate one timed pool round and one timed mmap round `R` times, so both see the same
//!   machine load; reports `mmap_seconds` (fastest mmap round) and `ratio` (pool / mmap).
//!
//! `cpu_seconds` is the process CPU time of the fastest round (by CPU time; `cpu_ratio` compares
//! those): on a loaded machine it is less disturbed by waiting for a core than `seconds`.
//! `open_seconds` is the time `Graph::open` took (the pool maps its frames there; they are
//! committed by the OS as the first reads fill them, so that cost is part of `seconds`).
//! `hugetlb_bytes` is the process's memory on reserved huge pages at the end (`HugetlbPages`
//! of `/proc/self/status`): the pool's frames when the system has reserved huge pages.

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
    repeat: u32,
    against_mmap: bool,
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
        repeat: 1,
        against_mmap: false,
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
            "--repeat" => a.repeat = val()?.parse().map_err(|e| format!("--repeat: {e}"))?,
            "--against-mmap" => a.against_mmap = true,
            _ if a.graph.is_empty() && !arg.starts_with("--") => a.graph = arg,
            _ => return Err(format!("unexpected argument '{arg}'")),
        }
    }
    if a.graph.is_empty() {
        return Err("usage: pagebench GRAPH [--backend mmap|pool] [--memory SIZE] [--policy NAME] \
                    [--page-size BYTES] [--mode scan|random] [--reads K] [--seed S] [--threads T] [--warm] \
                    [--repeat R] [--against-mmap]"
            .into());
    }
    if a.repeat == 0 {
        return Err("--repeat must be at least 1".into());
    }
    if a.against_mmap && !a.warm {
        return Err("--against-mmap compares cached speed: it needs --warm".into());
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

/// CPU time used by this process so far (all threads), in seconds: less disturbed than wall
/// time when other processes compete for the cores.
fn cpu_seconds() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// This process's memory on reserved huge pages (`HugetlbPages` in `/proc/self/status`, in
/// bytes; 0 where absent).
fn hugetlb_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib = status
        .lines()
        .find_map(|l| l.strip_prefix("HugetlbPages:")?.trim().strip_suffix("kB")?.trim().parse().ok());
    kib.unwrap_or(0u64) * 1024
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
    let open = |backend| {
        Graph::open(&a.graph, &OpenOptions { backend }).unwrap_or_else(|e| {
            eprintln!("pagebench: {e}");
            std::process::exit(1)
        })
    };
    let t0 = Instant::now();
    let g = open(backend);
    let open_secs = t0.elapsed().as_secs_f64();
    if a.warm {
        scan(&g, a.threads);
    }
    let mmap = a.against_mmap.then(|| {
        let advice = if a.mode == "random" { Advice::Random } else { Advice::Sequential };
        let m = open(BackendKind::Mmap { advice });
        scan(&m, a.threads);
        m
    });
    let run = |g: &Graph| {
        let (t0, c0) = (Instant::now(), cpu_seconds());
        let checksum = match a.mode.as_str() {
            "scan" => scan(g, a.threads),
            "random" => random(g, a.reads, a.seed, a.threads),
            other => {
                eprintln!("pagebench: unknown mode '{other}' (scan or random)");
                std::process::exit(2)
            }
        };
        (t0.elapsed().as_secs_f64(), cpu_seconds() - c0, checksum)
    };
    g.reset_io_stats();
    let (mut runs, mut cpu, mut mmap_runs, mut mmap_cpu) = (vec![], vec![], vec![], vec![]);
    let mut checksum = 0;
    for _ in 0..a.repeat {
        let (secs, cpu_secs, sum) = run(&g);
        runs.push(secs);
        cpu.push(cpu_secs);
        checksum = sum;
        if let Some(m) = &mmap {
            let (secs, cpu_secs, sum) = run(m);
            assert_eq!(sum, checksum, "pool and mmap disagree on the checksum");
            mmap_runs.push(secs);
            mmap_cpu.push(cpu_secs);
        }
    }
    let fastest = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let secs = fastest(&runs);
    let m = g.manifest();
    let bytes: u64 = [FileRole::OutOffsets, FileRole::OutNeighbors]
        .iter()
        .filter_map(|&r| m.file(r).map(|f| f.padded_len()))
        .sum();
    let (throughput, unit) = match a.mode.as_str() {
        "scan" => (bytes as f64 / 1e6 / secs, "MB/s"),
        _ => (a.reads as f64 / secs, "reads/s"),
    };
    let mut line = serde_json::json!({
        "mode": a.mode, "backend": a.backend, "memory": a.memory, "policy": a.policy,
        "page_size": a.page_size, "threads": a.threads, "warm": a.warm, "graph_bytes": bytes,
        "open_seconds": open_secs, "seconds": secs, "runs": runs, "cpu_seconds": fastest(&cpu),
        "throughput": throughput,
        "unit": unit, "checksum": checksum, "stats": g.io_stats().to_json(),
        "hugetlb_bytes": hugetlb_bytes(),
    });
    if mmap.is_some() {
        let mmap_secs = fastest(&mmap_runs);
        line["mmap_seconds"] = mmap_secs.into();
        line["mmap_runs"] = mmap_runs.into();
        line["ratio"] = (secs / mmap_secs).into();
        line["mmap_cpu_seconds"] = fastest(&mmap_cpu).into();
        line["cpu_ratio"] = (fastest(&cpu) / fastest(&mmap_cpu)).into();
    }
    println!("{line}");
}
