//! GraphBuilder against a brute-force reference, in memory and external, for every option mix.

mod ingest_common;

use ingest_common::{open_lists, reference};
use ocgraph_core::format::WeightRange;
use ocgraph_core::ingest::{BuildOptions, GraphBuilder, IdMap, NoProgress};
use proptest::prelude::*;

fn build(
    dir: &std::path::Path,
    n: usize,
    edges: &[(u32, u32, f32)],
    o: &BuildOptions,
    batch: usize,
) -> ocgraph_core::ingest::BuildReport {
    let mut b = GraphBuilder::new(dir, o.clone()).unwrap();
    b.reserve_vertices(n as u64);
    for chunk in edges.chunks(batch.max(1)) {
        let s: Vec<u32> = chunk.iter().map(|e| e.0).collect();
        let d: Vec<u32> = chunk.iter().map(|e| e.1).collect();
        let w: Vec<f32> = chunk.iter().map(|e| e.2).collect();
        b.push(&s, &d, Some(&w)).unwrap();
    }
    b.finish(IdMap::Identity, &NoProgress).unwrap()
}

fn check_all(n: usize, edges: &[(u32, u32, f32)], batch: usize, tiny: u64) {
    let tmp = ingest_common::scratch();
    let mut k = 0;
    for bits in 0..16u32 {
        for memory in [1u64 << 30, tiny] {
            let o = BuildOptions {
                directed: bits & 1 != 0,
                dedup: bits & 2 != 0,
                drop_self_loops: bits & 4 != 0,
                weighted: bits & 8 != 0,
                memory,
                ..BuildOptions::default()
            };
            k += 1;
            let dir = tmp.path().join(format!("g{k}"));
            let report = build(&dir, n, edges, &o, batch);
            let (want_out, want_in) = reference(n, edges, &o);
            let (g, out, inn) = open_lists(&dir);
            assert_eq!(out, want_out, "out lists, {o:?}");
            assert_eq!(inn, want_in, "in lists, {o:?}");
            let arcs: usize = want_out.iter().map(Vec::len).sum();
            let loops: usize =
                want_out.iter().enumerate().map(|(u, l)| l.iter().filter(|e| e.0 == u as u32).count()).sum();
            let edges_expected = if o.directed { arcs } else { (arcs - loops) / 2 + loops };
            assert_eq!(g.num_vertices(), n);
            assert_eq!(g.num_arcs(), arcs as u64);
            assert_eq!(g.num_edges(), edges_expected as u64);
            assert_eq!(report.num_edges, edges_expected as u64);
            assert_eq!(report.num_arcs, arcs as u64);
            // The range recorded with the weights: none when a weight is negative.
            let ws: Vec<f32> = want_out.iter().flatten().map(|e| f32::from_bits(e.1)).collect();
            let want_range = (o.weighted && ws.iter().all(|&w| w >= 0.0)).then(|| WeightRange {
                min_positive: ws.iter().copied().filter(|&w| w > 0.0).reduce(f32::min),
                max: ws.iter().copied().fold(0.0, f32::max),
                whole: ws.iter().all(|w| w.fract() == 0.0),
            });
            assert_eq!(g.manifest().weight_range, want_range, "weight range, {o:?}");
            if memory == tiny && arcs as u64 * 8 > tiny {
                assert!(report.spilled_runs > 0, "tiny budget must spill");
            }
            if memory != tiny {
                assert_eq!(report.spilled_runs, 0);
            }
        }
    }
}

fn edge_list(max_n: usize, max_m: usize) -> impl Strategy<Value = (usize, Vec<(u32, u32, f32)>)> {
    (1..max_n).prop_flat_map(move |n| {
        let e = (0..n as u32, 0..n as u32, (-2i32..6).prop_map(|w| w as f32 * 0.5));
        (Just(n), prop::collection::vec(e, 0..max_m))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn builder_matches_reference((n, edges) in edge_list(30, 120), batch in 1usize..50, tiny in 16u64..400) {
        check_all(n, &edges, batch, tiny);
    }
}

#[test]
fn many_runs_cascade_merge() {
    // 2 records per run: several hundred runs, more than one merge level.
    let n = 50usize;
    let edges: Vec<(u32, u32, f32)> =
        (0..600u32).map(|i| ((i * 7919) % n as u32, (i * 104_729 + 3) % n as u32, (i % 5) as f32)).collect();
    check_all(n, &edges, 64, 16);
}

#[test]
fn isolated_vertices_and_empty_lists() {
    let tmp = ingest_common::scratch();
    let dir = tmp.path().join("g");
    let mut b = GraphBuilder::new(&dir, BuildOptions::default()).unwrap();
    b.reserve_vertices(10);
    b.push(&[3], &[7], None).unwrap();
    let r = b.finish(IdMap::Identity, &NoProgress).unwrap();
    assert_eq!((r.num_vertices, r.num_edges, r.num_arcs), (10, 1, 1));
    let (_, out, inn) = open_lists(&dir);
    let mut want = vec![vec![]; 10];
    want[3] = vec![(7, 1f32.to_bits())];
    assert_eq!(out, want);
    assert_eq!(inn[7], vec![(3, 1f32.to_bits())]);
}

#[test]
fn builder_rejects_bad_batches_and_existing_output() {
    let tmp = ingest_common::scratch();
    let dir = tmp.path().join("g");
    let mut b = GraphBuilder::new(&dir, BuildOptions { weighted: true, ..Default::default() }).unwrap();
    assert!(b.push(&[1, 2], &[3], None).is_err());
    assert!(b.push(&[1], &[3], None).is_err());
    assert!(b.push(&[u32::MAX], &[3], Some(&[1.0])).is_err());
    drop(b);
    assert!(!dir.exists());
    let b = GraphBuilder::new(&dir, BuildOptions::default()).unwrap();
    assert!(b.finish(IdMap::Identity, &NoProgress).is_err(), "no vertices");
    assert!(!dir.exists());
    std::fs::create_dir(&dir).unwrap();
    assert!(GraphBuilder::new(&dir, BuildOptions::default()).is_err());
}
