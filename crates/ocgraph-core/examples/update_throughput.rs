//! Sustained durable edge insertions: streams batches of random edges into a writable graph and
//! prints insertions per second (WAL group commit + delta + freezes to levels).
//!
//! Usage: `update_throughput DIR [vertices=4194304] [batches=200] [batch=10000] [threads=1]
//! [freeze_mib=64] [durable=1]`
//! (DIR is created; it must not exist).

use std::sync::Arc;
use std::time::Instant;

use ocgraph_core::ingest::{BuildOptions, GraphBuilder, IdMap, NoProgress};
use ocgraph_core::update::{Durability, WritableGraph, WriteOptions};
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
    Ok(())
}
