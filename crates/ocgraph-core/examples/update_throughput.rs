//! Sustained durable edge insertions: streams batches of random edges into a writable graph and
//! prints insertions per second (WAL group commit + delta + freezes to levels).
//!
//! Usage: `update_throughput DIR [vertices=4194304] [batches=200] [batch=10000] [threads=1]
//! [freeze_mib=64] [durable=1] [scan=0]`
//! (DIR is created; it must not exist).
//!
//! With `scan=1`, afterwards: compacts, adds `batches` more batches in three parts with a freeze
//! after each (3 levels), and times what a PageRank iteration reads (every vertex's out-degree
//! and a range scan of the in-lists) on a snapshot with the 3 levels and again after compaction.

use std::sync::Arc;
use std::time::Instant;

use ocgraph_core::ingest::{BuildOptions, GraphBuilder, IdMap, NoProgress};
use ocgraph_core::update::{Durability, Snapshot, WritableGraph, WriteOptions};
use ocgraph_core::Adjacency;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn main() -> ocgraph_core::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let Some(dir) = args.get(1) else {
        eprintln!("usage: update_throughput DIR [vertices] [batches] [batch] [threads]");
        std::process::exit(2);
    };
    let arg = |i: usize, d: u64| args.get(i).map_or(d, |s| s.parse().expect("a number"));
    let (n, batches, batch, threads) =
        (arg(2, 1 << 22) as u32, arg(3, 200), arg(4, 10_000) as usize, arg(5, 1));
    let mut b = GraphBuilder::new(dir.as_ref(), BuildOptions::default())?;
    b.reserve_vertices(n as u64);
    b.finish(IdMap::Identity, &NoProgress)?;
    let opts = WriteOptions {
        freeze_threshold: arg(6, 64) << 20,
        durability: if arg(7, 1) == 1 { Durability::PerBatch } else { Durability::None },
        ..WriteOptions::default()
    };
    let g = Arc::new(WritableGraph::open(dir, &opts)?);
    let start = Instant::now();
    let workers: Vec<_> = (0..threads)
        .map(|t| {
            let g = g.clone();
            std::thread::spawn(move || -> ocgraph_core::Result<()> {
                let mut rng = Xoshiro256PlusPlus::seed_from_u64(t);
                for _ in 0..batches / threads {
                    let edges: Vec<(u32, u32)> =
                        (0..batch).map(|_| (rng.gen_range(0..n), rng.gen_range(0..n))).collect();
                    g.add_edges(&edges, None)?;
                }
                Ok(())
            })
        })
        .collect();
    for w in workers {
        w.join().expect("worker panicked")?;
    }
    let secs = start.elapsed().as_secs_f64();
    let total = (batches / threads * threads) as f64 * batch as f64;
    println!(
        "{total:.0} durable edge insertions in {secs:.2} s: {:.0}/s ({} levels)",
        total / secs,
        g.num_levels()
    );
    if arg(8, 0) == 1 {
        g.compact()?;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(99);
        for _ in 0..3 {
            for _ in 0..batches / 3 {
                let edges: Vec<(u32, u32)> =
                    (0..batch).map(|_| (rng.gen_range(0..n), rng.gen_range(0..n))).collect();
                g.add_edges(&edges, None)?;
            }
            g.freeze()?;
        }
        let (levels, with_levels) = (g.num_levels(), scan_secs(&g.snapshot()));
        g.compact()?;
        let compacted = scan_secs(&g.snapshot());
        println!(
            "PageRank-like scan x3: {levels} levels {with_levels:.3} s, compacted {compacted:.3} s \
             (ratio {:.2})",
            with_levels / compacted
        );
    }
    Ok(())
}

/// Seconds for three passes of what a PageRank iteration reads (the first pass includes
/// building the snapshot's overlay, as a kernel's first iteration would).
fn scan_secs(s: &Snapshot) -> f64 {
    let start = Instant::now();
    let n = s.num_vertices() as u32;
    let mut check = 0u64;
    for _ in 0..3 {
        let out = s.out();
        check += (0..n).map(|v| out.degree(v) as u64).sum::<u64>();
        s.in_().for_each_in_range(0..n, |_, ns| check += ns.iter().map(|&u| u as u64 & 1).sum::<u64>());
    }
    std::hint::black_box(check);
    start.elapsed().as_secs_f64()
}
