//! `ocgraph advise`: which backend, memory budget, policy and copy (`reorder`, `pack`) to use
//! for each kernel, from the graph's sizes, its degree skew and locality, and the memory at
//! hand. The rules restate the measured results of `docs/benchmarks.md` (the scripts named
//! there): a pool holding the graph runs within 1.1-1.7x of GAPBS; below that, the reordered
//! and packed copy is the fast form of skewed graphs (BFS, connected components), while road
//! networks and crawl-ordered web graphs keep their order; PageRank reads every list each
//! iteration and gains from a reordered copy even in memory.

use std::path::PathBuf;

use clap::Args;
use ocgraph_core::format::{IdMapKind, MANIFEST_FILE};
use ocgraph_core::size::{format_size, meminfo};
use ocgraph_core::update::{LEVELS_DIR, WAL_DIR};
use ocgraph_core::{Adjacency, Error, Graph, GraphView, OpenOptions, Result, Vertex};

use super::size_arg;

/// Arguments of `ocgraph advise`.
#[derive(Args)]
pub struct AdviseArgs {
    /// Graph directory.
    graph: PathBuf,
    /// Memory for ocgraph (graph pages plus the kernels' per-vertex state); default: the
    /// memory available to this process (`ocgraph_core::memory::available_bytes`: `MemAvailable`,
    /// `ulimit -v` and the cgroup's memory limit).
    #[arg(long, allow_negative_numbers = true, value_parser = size_arg)]
    memory: Option<u64>,
}

/// Kernel state held in RAM besides the graph pages: bytes per vertex, and bytes per arc; the
/// bytes per vertex each kernel makes sure are available before it starts, so that a budget
/// advised here is one the kernel accepts. Triangle counting's oriented lists (4 bytes per edge
/// of the undirected graph) are counted apart: they stay in RAM only when they take at most a
/// quarter of the pool, else they go to a memory-mapped scratch file (the advice says which).
const KERNELS: [(&str, u64, u64); 5] = [
    ("bfs", ocgraph_algo::bfs::BFS_STATE_BYTES, 0),
    ("wcc", ocgraph_algo::wcc::WCC_STATE_BYTES, 0),
    ("sssp", ocgraph_algo::sssp::SSSP_STATE_BYTES, 0),
    ("pagerank", ocgraph_algo::pagerank::PAGERANK_STATE_BYTES, 0),
    ("triangle-count", ocgraph_algo::triangles::ORIENTED_STATE, 0),
];

/// Degree skew (max / mean out-degree, of every vertex: one pass over the offsets) and
/// locality (median |u - v| / n over the lists of a sample of vertices): skewed graphs gain
/// from `reorder`, local ones lose. (The maximum of a sample missed the hubs of a graph not
/// numbered by degree, and called it even.)
fn shape(g: &Graph) -> (f64, f64) {
    let n = g.num_vertices() as Vertex;
    if n == 0 || g.num_arcs() == 0 {
        return (1.0, 0.0);
    }
    let out = g.out();
    let mut max = 0u64;
    out.for_each_degree_in_range(0..n, |_, d| max = max.max(d as u64));
    let step = (n / 4096).max(1);
    let mut gaps = Vec::new();
    let mut v = 0;
    let sample = |v: Vertex, gaps: &mut Vec<u64>| {
        gaps.extend(out.neighbors(v).iter().take(16).map(|&u| (u as i64 - v as i64).unsigned_abs()));
    };
    while v < n {
        sample(v, &mut gaps);
        v += step;
    }
    // No sampled vertex has arcs (a star whose centre is not sampled): the lists of the first
    // vertices that have some, rather than calling the neighbours close.
    if gaps.is_empty() {
        let mut v = 0;
        while gaps.len() < 4096 && v < n {
            sample(v, &mut gaps);
            v += 1;
        }
    }
    let mean = g.num_arcs() as f64 / n as f64;
    gaps.sort_unstable();
    let median = gaps.get(gaps.len() / 2).copied().unwrap_or(0);
    (max as f64 / mean.max(1e-9), median as f64 / n as f64)
}

/// The smallest pool: two frames of the default page size (4 KiB), as the pool requires.
const MIN_POOL: u64 = 2 * 4096;

/// Bytes of the files under `dir` (none when it is missing).
fn dir_bytes(dir: &std::path::Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries.flatten().filter_map(|e| e.metadata().ok()).filter(|m| m.is_file()).map(|m| m.len()).sum()
}

/// Runs `ocgraph advise` (a corrupted file it panics on is reported, see
/// [`super::reporting_corruption`]).
pub fn run(args: &AdviseArgs) -> Result<()> {
    super::reporting_corruption(&args.graph, || advise(args))
}

/// [`run`] without the check after a panic.
fn advise(args: &AdviseArgs) -> Result<()> {
    // The graph as it is now: the base and its pending updates (which add vertices and arcs).
    let view = GraphView::open(&args.graph, &OpenOptions::default())?;
    let g = view.base();
    let m = g.manifest();
    let size_of = |keep: &dyn Fn(&str) -> bool| -> u64 {
        m.files.iter().filter(|(k, _)| keep(k)).map(|(_, e)| e.padded_len()).sum()
    };
    let ids = size_of(&|k| k.starts_with("ids"));
    // What a kernel reads: the lists (a packed graph's packed ones), their offsets and weights;
    // not the layouts and copies beside them, of which it reads one instead.
    let copy = |k: &str| {
        k.starts_with("grid")
            || k.starts_with("hubs")
            || k.ends_with(".lz4")
            || (!m.is_packed() && k.contains("packed"))
    };
    let base_bytes = size_of(&|k| !k.starts_with("ids") && !k.starts_with("labels") && !copy(k));
    // Pending updates: the levels kernels read beside the base, and the log whose batches an
    // open replays into an in-memory delta.
    let levels = dir_bytes(&args.graph.join(LEVELS_DIR));
    let log = dir_bytes(&args.graph.join(WAL_DIR));
    let graph_bytes = base_bytes + levels;
    let layouts = size_of(&|k| copy(k));
    let manifest = std::fs::metadata(args.graph.join(MANIFEST_FILE)).map(|m| m.len()).unwrap_or(0);
    let (n, arcs) = (view.num_vertices() as u64, view.num_arcs());
    let available = match args.memory {
        Some(m) => m,
        None => ocgraph_core::memory::available_bytes().ok_or_else(|| {
            Error::invalid("cannot read the available memory from /proc/meminfo: give --memory")
        })?,
    };
    let (skew, locality) = shape(g);
    // Copies (`reorder`, `pack`) and online queries read the stored graph only: with updates
    // pending they are refused until a compaction.
    let compact_first = if matches!(view, GraphView::Updated(_)) { "`ocgraph compact`, then " } else { "" };
    // A reordered copy is as reordered as it gets, though its shape stays skewed.
    let reordered = ocgraph_core::ingest::is_reordered(m);
    let skewed = skew > 50.0 && locality > 0.01 && !reordered;
    println!("graph      {} ({} vertices, {arcs} arcs)", args.graph.display(), n);
    println!(
        "size       {} of lists and offsets{}{}{}, {} of manifest{}",
        format_size(graph_bytes),
        if layouts > 0 {
            format!(", {} of stored layouts and copies", format_size(layouts))
        } else {
            String::new()
        },
        if ids > 0 { format!(", {} of original ids", format_size(ids)) } else { String::new() },
        if levels + log > 0 {
            format!(
                " (with {} of update levels; {} of update log, held in RAM as a delta)",
                format_size(levels),
                format_size(log)
            )
        } else {
            String::new()
        },
        format_size(manifest),
        if m.is_packed() { " (packed)" } else { "" }
    );
    println!(
        "memory     {} {}",
        format_size(available),
        if args.memory.is_some() {
            "(--memory)"
        } else {
            "available (MemAvailable, ulimit -v, cgroup limit)"
        }
    );
    println!(
        "shape      max/mean out-degree {skew:.0}, median neighbour distance {:.2}% of n: {}",
        locality * 100.0,
        if reordered {
            "a copy reordered by degree (`ocgraph reorder`)"
        } else if skewed {
            "skewed and scattered (social or Kronecker-like): a reordered copy helps"
        } else if locality <= 0.01 {
            "neighbours already close (road, crawl-ordered web): keep the given order"
        } else {
            "degrees even: a reordered copy gains little"
        }
    );
    println!();
    println!("{:<15} {:>10} {:>10}  advice", "kernel", "state", "pool");
    // Triangle counting's oriented lists: 4 bytes per undirected edge (an arc each way of an
    // undirected graph, at most one edge per arc of a directed one), and where they go with a
    // pool of `pool` bytes.
    let list_bytes = if g.is_directed() { arcs * 4 } else { arcs * 2 };
    let lists = |kernel: &str, pool: u64| match kernel {
        "triangle-count" if list_bytes <= pool / 4 => {
            format!("; oriented lists ({}) in RAM", format_size(list_bytes))
        }
        "triangle-count" => {
            format!("; oriented lists ({}) to a scratch file in TMPDIR", format_size(list_bytes))
        }
        _ => String::new(),
    };
    for (kernel, per_vertex, per_arc) in KERNELS {
        let state = n * per_vertex + arcs * per_arc + log;
        // What is left for graph pages after the kernel's state and a 10% margin.
        let mut pool = (available.saturating_sub(state) as f64 * 0.9) as u64;
        if kernel == "triangle-count" && list_bytes <= pool.min(graph_bytes.max(MIN_POOL)) / 4 {
            // Oriented lists kept in RAM are built twice over beside 40 bytes per vertex
            // (`triangles.rs`): that peak is left out of the pool too, and when the pool left
            // then holds less than 4 times the lists (the kernel's rule, `keep_in_memory`), a
            // pool an eighth below that sends them to the scratch file (room for the rounding
            // up of `--memory`).
            let in_ram = (available.saturating_sub(state + 2 * list_bytes + 40 * n) as f64 * 0.9) as u64;
            pool = if list_bytes <= in_ram.min(graph_bytes.max(MIN_POOL)) / 4 {
                in_ram
            } else {
                pool.min(4 * list_bytes / 8 * 7)
            };
        }
        let advice = if state >= available {
            format!("does not fit: the kernel alone needs {} of RAM", format_size(state))
        } else if pool < MIN_POOL {
            format!(
                "does not fit: after the kernel's {} the pool's smallest size ({}) is not left",
                format_size(state),
                format_size(MIN_POOL)
            )
        } else if pool >= graph_bytes {
            let copy = if kernel == "pagerank" && skewed && !m.is_packed() {
                format!("; {compact_first}`ocgraph reorder` first (PageRank-20 1.8x faster on kron22)")
            } else {
                String::new()
            };
            format!(
                "the graph fits: --backend pool --memory {}{copy}{}",
                memory_arg(graph_bytes.max(MIN_POOL)),
                lists(kernel, graph_bytes.max(MIN_POOL))
            )
        } else {
            let packed = m.is_packed() || m.has_packed_copy();
            let copy = match (kernel, skewed, packed) {
                ("triangle-count", ..) | (_, _, true) => String::new(),
                (_, true, false) => {
                    format!(
                        "; {compact_first}`ocgraph reorder` then `ocgraph pack` (fewer bytes, hubs together)"
                    )
                }
                (_, false, false) => {
                    format!("; {compact_first}`ocgraph pack` (fewer bytes; keep the given order)")
                }
            };
            let policy = if kernel == "pagerank" { "lifo" } else { "gac" };
            format!(
                "{:.0}% of the graph: --backend pool --memory {} --policy {policy}{copy}{}",
                100.0 * pool as f64 / graph_bytes.max(1) as f64,
                memory_arg(pool),
                lists(kernel, pool)
            )
        };
        println!(
            "{kernel:<15} {:>10} {:>10}  {advice}",
            format_size(state),
            format_size(pool.min(graph_bytes.max(MIN_POOL)))
        );
    }
    println!(
        "queries         {compact_first}online queries: --backend pool, --prefetch neighbourhood, --page-size 4KiB"
    );
    huge_pages(available.min(graph_bytes));
    if m.id_map != IdMapKind::Identity {
        println!("ids        relabelled: give sources by original id with --source-id");
    }
    Ok(())
}

/// Reports whether huge pages are reserved for the pool's frames.
fn huge_pages(pool: u64) {
    let size = meminfo("Hugepagesize").unwrap_or(2 << 20);
    match (meminfo("HugePages_Total"), meminfo("HugePages_Free")) {
        (Some(total), Some(free)) if total > 0 => println!(
            "huge pages {total} reserved, {free} free ({}): the pool's frames take them",
            format_size(free * size)
        ),
        _ => println!(
            "huge pages none reserved; for faster cold scans reserve the pool's size: sudo sysctl vm.nr_hugepages={}",
            pool.div_ceil(size).max(1)
        ),
    }
}

/// `bytes` as a `--memory` value a shell passes as one word (`46.8KiB`), rounded up to the
/// unit's tenth so that a pool of that size holds at least `bytes`.
fn memory_arg(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return bytes.to_string();
    }
    let (mut v, mut i) = (bytes as f64 / 1024.0, 0);
    while v >= 1024.0 && i + 1 < UNITS.len() {
        v /= 1024.0;
        i += 1;
    }
    format!("{:.1}{}", (v * 10.0).ceil() / 10.0, UNITS[i])
}
