//! The real graphs in data/ import with the counts data/README.md gives.

mod ingest_common;

use std::path::PathBuf;

use ingest_common::scratch;
use ocgraph_core::ingest::{import, BuildOptions, ImportOptions, NoProgress, Relabel};
use ocgraph_core::{Adjacency, Graph, OpenOptions};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data").join(name)
}

#[test]
fn ca_astroph_undirected_dedup_relabel() {
    let tmp = scratch();
    for (k, (relabel, memory)) in
        [(Relabel::FirstSeen, 1u64 << 30), (Relabel::Sorted, 1 << 20)].into_iter().enumerate()
    {
        let out = tmp.path().join(format!("astro{k}"));
        let opts = ImportOptions {
            relabel,
            build: BuildOptions { directed: false, dedup: true, memory, ..BuildOptions::default() },
            ..ImportOptions::default()
        };
        let r = import(&data("ca-AstroPh.txt.gz"), &out, &opts, &NoProgress).unwrap();
        assert_eq!(r.num_vertices, 18_772);
        assert_eq!(r.num_edges, 198_110);
        assert_eq!(r.num_arcs, 2 * (198_110 - 60) + 60);
        assert_eq!(r.spilled_runs > 0, memory < (1 << 30));
        ocgraph_core::format::check_graph(&out).unwrap();
        let g = Graph::open(&out, &OpenOptions::default()).unwrap();
        let loops = (0..g.num_vertices() as u32).filter(|&v| g.out().neighbors(v).contains(&v)).count();
        assert_eq!(loops, 60);
    }
}

#[test]
fn road_usroads_mtx() {
    let tmp = scratch();
    let out = tmp.path().join("road");
    let r = import(&data("road-usroads.mtx.gz"), &out, &ImportOptions::default(), &NoProgress).unwrap();
    assert_eq!((r.num_vertices, r.num_edges, r.num_arcs), (129_164, 165_435, 2 * 165_435));
    let g = Graph::open(&out, &OpenOptions::default()).unwrap();
    assert!(!g.is_directed());
    ocgraph_core::format::check_graph(&out).unwrap();
}

#[test]
fn cnr_2000_directed() {
    let tmp = scratch();
    for (k, memory) in [1u64 << 30, 8 << 20].into_iter().enumerate() {
        let out = tmp.path().join(format!("cnr{k}"));
        let opts =
            ImportOptions { build: BuildOptions { memory, ..BuildOptions::default() }, ..Default::default() };
        let r = import(&data("cnr-2000.el.gz"), &out, &opts, &NoProgress).unwrap();
        assert_eq!((r.num_vertices, r.num_edges, r.num_arcs), (325_557, 3_216_152, 3_216_152));
        assert_eq!(r.spilled_runs > 0, k == 1);
        let g = Graph::open(&out, &OpenOptions::default()).unwrap();
        assert!(g.is_directed());
        let loops = (0..g.num_vertices() as u32).filter(|&v| g.out().neighbors(v).contains(&v)).count();
        assert_eq!(loops, 87_442);
        // In-degrees sum to the arc count and match a count over the out-lists.
        let mut indeg = vec![0u64; g.num_vertices()];
        for v in 0..g.num_vertices() as u32 {
            for &u in g.out().neighbors(v).iter() {
                indeg[u as usize] += 1;
            }
        }
        for v in (0..g.num_vertices() as u32).step_by(97) {
            assert_eq!(g.in_().degree(v) as u64, indeg[v as usize]);
        }
        if k == 1 {
            ocgraph_core::format::check_graph(&out).unwrap();
        }
    }
}
