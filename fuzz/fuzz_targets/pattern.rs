//! Mining patterns: `Pattern::named` on the input as a name (`ocgraph mine pattern NAME`,
//! `stream --watch`), and `Pattern::from_edges` on its bytes as edges (pairs of bytes, folded
//! below 12 so that sizes past the limit are reached) with optional labels (a byte per vertex,
//! 255 a wildcard). Ends in an error or a pattern whose edge list builds it again.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use ocgraph_algo::mine::plan::MAX_PATTERN_VERTICES;
use ocgraph_algo::Pattern;

fuzz_target!(|data: &[u8]| {
    common::inline_rayon();
    if let Ok(name) = std::str::from_utf8(data) {
        if let Ok(p) = Pattern::named(name) {
            assert!((2..=MAX_PATTERN_VERTICES).contains(&p.num_vertices()));
            assert_eq!(Pattern::from_edges(&p.edges(), None).expect("its own edges"), p);
        }
    }
    let Some((&mode, rest)) = data.split_first() else { return };
    let ne = (mode & 31) as usize;
    let edges: Vec<(usize, usize)> =
        rest.chunks_exact(2).take(ne).map(|c| ((c[0] % 12) as usize, (c[1] % 12) as usize)).collect();
    let k = edges.iter().map(|&(a, b)| a.max(b) + 1).max().unwrap_or(0);
    let labels = (mode & 0x80 != 0).then(|| {
        let tail = rest.get(2 * ne..).unwrap_or(&[]);
        (0..k).map(|i| tail.get(i).filter(|&&b| b != 255).map(|&b| b as u32)).collect::<Vec<_>>()
    });
    if let Ok(p) = Pattern::from_edges(&edges, labels.clone()) {
        assert_eq!(p.num_vertices(), k);
        let mut e: Vec<(usize, usize)> = edges.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
        e.sort();
        e.dedup();
        assert_eq!(p.edges(), e);
        assert_eq!(Pattern::from_edges(&p.edges(), labels).expect("its own edges"), p);
    }
});
