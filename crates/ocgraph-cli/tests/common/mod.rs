//! Helpers shared by the CLI's stream tests: running `ocgraph`, reading a graph's edges back,
//! and random update streams replayed on a reference edge set.

#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

/// Runs `ocgraph args` (the binary under test).
pub fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ocgraph")).args(args).output().expect("run ocgraph")
}

/// Runs `ocgraph args`, asserting success; its standard output.
pub fn ok(args: &[&str]) -> String {
    let out = run(args);
    assert!(out.status.success(), "ocgraph {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// `path` as a command-line argument.
pub fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// The arcs (or undirected edges, stored once as `(min, max)`) of `g`, read from `ocgraph export`.
pub fn read_edges(g: &Path, directed: bool) -> BTreeSet<(u32, u32)> {
    let el = g.with_extension("el");
    ok(&["export", p(g), p(&el)]);
    std::fs::read_to_string(&el)
        .unwrap()
        .lines()
        .map(|l| {
            let mut w = l.split_whitespace().map(|x| x.parse::<u32>().unwrap());
            let (u, v) = (w.next().unwrap(), w.next().unwrap());
            if directed {
                (u, v)
            } else {
                (u.min(v), u.max(v))
            }
        })
        .collect()
}

/// A small deterministic generator (xorshift64*).
pub struct Rng(pub u64);

impl Rng {
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }
}

/// One update: `+ u v`, `- u v` or `-v u`.
#[derive(Clone, Copy)]
pub enum Op {
    Add(u32, u32),
    Remove(u32, u32),
    RemoveVertex(u32),
}

impl Op {
    pub fn line(&self) -> String {
        match *self {
            Op::Add(u, v) => format!("+ {u} {v}"),
            Op::Remove(u, v) => format!("- {u} {v}"),
            Op::RemoveVertex(u) => format!("-v {u}"),
        }
    }

    pub fn apply(&self, edges: &mut BTreeSet<(u32, u32)>, directed: bool) {
        let key = |u: u32, v: u32| if directed { (u, v) } else { (u.min(v), u.max(v)) };
        match *self {
            Op::Add(u, v) => {
                edges.insert(key(u, v));
            }
            Op::Remove(u, v) => {
                edges.remove(&key(u, v));
            }
            Op::RemoveVertex(x) => edges.retain(|&(u, v)| u != x && v != x),
        }
    }
}

/// `count` random updates replayed on a copy of `edges`: 45% additions of random pairs, 50%
/// removals of an existing edge, 5% vertex removals.
pub fn random_ops(edges: &BTreeSet<(u32, u32)>, n: u32, directed: bool, count: usize, seed: u64) -> Vec<Op> {
    let mut rng = Rng(seed);
    let mut cur = edges.clone();
    let mut ops = Vec::with_capacity(count);
    for _ in 0..count {
        let r = rng.below(100);
        let op = if r < 45 || cur.is_empty() {
            Op::Add(rng.below(n as usize) as u32, rng.below(n as usize) as u32)
        } else if r < 95 {
            let &(u, v) = cur.iter().nth(rng.below(cur.len())).unwrap();
            Op::Remove(u, v)
        } else {
            Op::RemoveVertex(rng.below(n as usize) as u32)
        };
        op.apply(&mut cur, directed);
        ops.push(op);
    }
    ops
}

/// The undirected simple view of `edges` as neighbour sets.
pub fn neighbour_sets(edges: &BTreeSet<(u32, u32)>, n: u32) -> Vec<BTreeSet<u32>> {
    let mut nb = vec![BTreeSet::new(); n as usize];
    for &(u, v) in edges {
        if u != v {
            nb[u as usize].insert(v);
            nb[v as usize].insert(u);
        }
    }
    nb
}
