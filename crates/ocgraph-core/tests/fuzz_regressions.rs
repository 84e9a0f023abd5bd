//! Inputs that crashed a fuzz target (`fuzz/`, kept under `fuzz/regressions/TARGET/`), replayed
//! through the same public entry points: each must end in an error or a valid result.

use std::path::Path;

use ocgraph_core::format::{Manifest, MANIFEST_FILE};
use ocgraph_core::ingest::{BuildOptions, GraphBuilder, IdMap, NoProgress};
use ocgraph_core::update::{WritableGraph, WriteOptions, LEVELS_DIR};
use ocgraph_core::{GraphView, OpenOptions};

/// The `level` target's graph: 300 vertices, 1,500 weighted arcs, then one frozen level of 200
/// additions and 50 removals (`fuzz/fuzz_targets/common/mod.rs`, `level.rs`).
fn graph_with_level(dir: &Path) {
    let mut b = GraphBuilder::new(dir, BuildOptions { weighted: true, ..BuildOptions::default() }).unwrap();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let (mut src, mut dst, mut w) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..1500u32 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        src.push(i % 300);
        dst.push((x % 300) as u32);
        w.push((x >> 40) as f32 / 1000.0);
    }
    b.push(&src, &dst, Some(&w)).unwrap();
    b.finish(IdMap::Identity, &NoProgress).unwrap();
    let g = WritableGraph::open(dir, &WriteOptions::default()).unwrap();
    let add: Vec<(u32, u32)> = (0..200).map(|i| (i, (i * 7 + 3) % 300)).collect();
    let w: Vec<f32> = (0..200).map(|i| i as f32).collect();
    g.add_edges(&add, Some(&w)).unwrap();
    let remove: Vec<(u32, u32)> = (0..50).map(|i| (i * 3, (i * 7 + 3) % 300)).collect();
    g.remove_edges(&remove).unwrap();
    g.freeze().unwrap();
    g.close().unwrap();
}

/// `fuzz/regressions/level/crash-e364fc0b…`: one byte of the first section's vertex count
/// flipped and the checksum recomputed, so that the second section header is read from other
/// data, with `k` near 2^64: `Level::parse` checks `k <= u32::MAX` and `m <= data_end` before
/// the offsets arithmetic that such counts would overflow.
#[test]
fn level_with_a_garbage_section_header_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    graph_with_level(&dir);
    let level = std::fs::read_dir(dir.join(LEVELS_DIR)).unwrap().next().unwrap().unwrap().path();
    let mut bytes = std::fs::read(&level).unwrap();
    bytes[64] ^= 0xbf;
    let data_end = u64::from_le_bytes(bytes[40..48].try_into().unwrap()) as usize;
    let crc = crc32c::crc32c_append(crc32c::crc32c(&bytes[..32]), &bytes[36..data_end]);
    bytes[32..36].copy_from_slice(&crc.to_le_bytes());
    std::fs::write(&level, &bytes).unwrap();
    let mut m = Manifest::read(&dir).unwrap();
    m.updates.as_mut().unwrap().levels[0].crc32c = crc;
    std::fs::write(dir.join(MANIFEST_FILE), m.to_bytes()).unwrap();
    let err = GraphView::open(&dir, &OpenOptions::default()).err().expect("a corrupt level does not open");
    assert!(err.to_string().contains(".level"), "{err}");
}
