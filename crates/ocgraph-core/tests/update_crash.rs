//! Crash harness: a child process (this test binary re-invoked) streams durable update batches
//! and prints each acknowledged sequence number; the parent kills it with SIGKILL at random
//! moments (some right after a compaction starts), reopens the graph and checks that every
//! acknowledged batch is present and that the state is exactly the first `k` batches for some
//! `k` (no batch half applied). 10 trials by default, 100 with `OCGRAPH_LONG=1`.
//!
//! SIGKILL loses the process, not the page cache: this checks crash consistency of the
//! process (ordering of writes, renames and recovery), not power loss.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ocgraph_core::ingest::{BuildOptions, GraphBuilder, IdMap, NoProgress};
use ocgraph_core::update::{Durability, WritableGraph, WriteOptions};
use ocgraph_core::{Adjacency, Vertex};
use parking_lot::Mutex;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const CHILD_ENV: &str = "OCGRAPH_CRASH_CHILD_DIR";
const BASE_N: u32 = 200;

/// The batch with sequence number `seq` on a graph of `n` vertices (deterministic).
enum Batch {
    Add(Vec<(Vertex, Vertex)>, Vec<f32>),
    Remove(Vec<(Vertex, Vertex)>),
    AddVertices(u32),
    RemoveVertices(Vec<Vertex>),
}

fn batch_for(seq: u64, n: u32) -> Batch {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seq);
    let pairs = |rng: &mut Xoshiro256PlusPlus, k: usize| -> Vec<(Vertex, Vertex)> {
        (0..k).map(|_| (rng.gen_range(0..n), rng.gen_range(0..n.min(64)))).collect()
    };
    match seq % 31 {
        0 => Batch::AddVertices(rng.gen_range(1..3)),
        7 | 19 => Batch::RemoveVertices(vec![rng.gen_range(0..n)]),
        3 | 11 | 23 => Batch::Remove(pairs(&mut rng, 30)),
        _ => {
            let e = pairs(&mut rng, 40);
            let w = e.iter().map(|_| rng.gen_range(1..100) as f32).collect();
            Batch::Add(e, w)
        }
    }
}

fn opts() -> WriteOptions {
    WriteOptions {
        durability: Durability::PerBatch,
        freeze_threshold: 24 << 10,
        auto_compact_levels: Some(3),
        wal_segment_bytes: 16 << 10,
        ..WriteOptions::default()
    }
}

/// The child: streams batches forever (until killed).
fn child(dir: &Path) {
    let g = WritableGraph::open(dir, &opts()).unwrap();
    loop {
        let seq = g.last_seq() + 1;
        let got = match batch_for(seq, g.num_vertices() as u32) {
            Batch::Add(e, w) => g.add_edges(&e, Some(&w)).unwrap(),
            Batch::Remove(e) => g.remove_edges(&e).unwrap(),
            Batch::AddVertices(k) => {
                g.add_vertices(k).unwrap();
                g.last_seq()
            }
            Batch::RemoveVertices(v) => g.remove_vertices(&v).unwrap(),
        };
        assert_eq!(got, seq);
        println!("ACK {seq}");
        if seq.is_multiple_of(97) {
            println!("COMPACT");
            g.compact().unwrap();
        }
    }
}

#[test]
fn crash_child() {
    if let Ok(dir) = std::env::var(CHILD_ENV) {
        child(Path::new(&dir));
    }
}

/// The model after batches `1..=upto`.
fn model(upto: u64) -> (u32, BTreeMap<(Vertex, Vertex), f32>) {
    let mut n = BASE_N;
    let mut edges = BTreeMap::new();
    for seq in 1..=upto {
        match batch_for(seq, n) {
            Batch::Add(e, w) => {
                for (k, w) in e.into_iter().zip(w) {
                    edges.insert(k, w);
                }
            }
            Batch::Remove(e) => {
                for k in e {
                    edges.remove(&k);
                }
            }
            Batch::AddVertices(k) => n += k,
            Batch::RemoveVertices(vs) => {
                for v in vs {
                    edges.retain(|&(a, b), _| a != v && b != v);
                }
            }
        }
    }
    (n, edges)
}

fn check_state(dir: &Path, acked: u64) -> u64 {
    let g = WritableGraph::open(dir, &opts()).unwrap();
    let s = g.snapshot();
    let seq = s.seq();
    assert!(seq >= acked, "acknowledged batch {acked} lost: recovered up to {seq}");
    let (n, edges) = model(seq);
    assert_eq!(s.num_vertices(), n as usize, "vertex count after {seq} batches");
    assert_eq!(s.num_edges(), edges.len() as u64, "edge count after {seq} batches");
    let mut out: Vec<Vec<(Vertex, f32)>> = vec![Vec::new(); n as usize];
    let mut inn: Vec<Vec<(Vertex, f32)>> = vec![Vec::new(); n as usize];
    for (&(a, b), &w) in &edges {
        out[a as usize].push((b, w));
        inn[b as usize].push((a, w));
    }
    for v in 0..n {
        for (dir, exp) in [(s.out(), &out[v as usize]), (s.in_(), &inn[v as usize])] {
            let got: Vec<(Vertex, f32)> =
                dir.neighbors(v).iter().copied().zip(dir.weights(v).unwrap().iter().copied()).collect();
            assert_eq!(&got, exp, "vertex {v} after {seq} batches");
        }
    }
    g.close().unwrap();
    seq
}

#[test]
fn acknowledged_batches_survive_sigkill() {
    let trials = if std::env::var("OCGRAPH_LONG").is_ok_and(|v| v == "1") { 100 } else { 10 };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let o = BuildOptions { directed: true, weighted: true, ..BuildOptions::default() };
    let mut b = GraphBuilder::new(&dir, o).unwrap();
    b.reserve_vertices(BASE_N as u64);
    b.finish(IdMap::Identity, &NoProgress).unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut acked_total = 0u64;
    let mut compactions_hit = 0;
    for trial in 0..trials {
        let mut child = Command::new(&exe)
            .args(["--exact", "crash_child", "--nocapture", "--test-threads=1"])
            .env(CHILD_ENV, &dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let lines = Arc::new(Mutex::new(Vec::<String>::new()));
        let reader = {
            let (stdout, lines) = (child.stdout.take().unwrap(), lines.clone());
            std::thread::spawn(move || {
                for l in BufReader::new(stdout).lines() {
                    let Ok(l) = l else { break };
                    lines.lock().push(l);
                }
            })
        };
        let start = Instant::now();
        if trial % 2 == 1 {
            // Kill shortly after a compaction starts (or after 3 s at most).
            let before = lines.lock().iter().filter(|l| *l == "COMPACT").count();
            while start.elapsed() < Duration::from_secs(3)
                && lines.lock().iter().filter(|l| *l == "COMPACT").count() == before
            {
                std::thread::sleep(Duration::from_millis(1));
            }
            std::thread::sleep(Duration::from_micros(rng.gen_range(0..20_000)));
        } else {
            std::thread::sleep(Duration::from_millis(rng.gen_range(30..400)));
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the child stopped by itself ({status}): run it alone to see its panic");
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        reader.join().unwrap();
        let lines = lines.lock();
        compactions_hit += lines.iter().any(|l| l == "COMPACT") as usize;
        let acked =
            lines.iter().filter_map(|l| l.strip_prefix("ACK ")).map(|s| s.parse::<u64>().unwrap()).max();
        let acked = acked.unwrap_or(0).max(acked_total);
        acked_total = check_state(&dir, acked);
    }
    eprintln!(
        "{trials} trials: {acked_total} batches recovered, {compactions_hit} trials reached a compaction"
    );
    assert!(acked_total > 0, "the child never acknowledged a batch");
    assert!(compactions_hit > 0, "no trial reached a compaction");
}
