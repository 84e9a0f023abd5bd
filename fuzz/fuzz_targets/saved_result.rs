//! Saved maintained results (`<graph>/maintained/NAME.bin`, `ocgraph stream`'s `--maintain`
//! results, loaded by `Maintainer::start`): a graph with one batch and a saved wcc, bfs, sssp
//! and pagerank result; the first byte picks the file (bits 0..2) and whether its CRC is
//! recomputed after the patch (bit 2; the directory identity in the file is always made this
//! copy's, so that the payload decoder is reached). Ends in a loaded or recomputed result of
//! one value per vertex, never a panic; an unpatched file loads and equals a recomputation.
#![no_main]

mod common;

use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use libfuzzer_sys::fuzz_target;
use ocgraph_algo::incremental::{saved_path, Maintainer, Spec};
use ocgraph_core::update::{Durability, WritableGraph, WriteOptions};

const SPECS: [&str; 4] = ["wcc", "bfs:source=0", "sssp:source=1", "pagerank"];

fn opts() -> WriteOptions {
    WriteOptions { durability: Durability::None, auto_compact_levels: None, ..WriteOptions::default() }
}

/// The base graph after one batch, with every result of [`SPECS`] saved.
fn with_saved() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = common::scratch().join("saved-base");
        common::copy_dir(common::base_graph(), &dir);
        let g = WritableGraph::open(&dir, &opts()).expect("open writable");
        let n = common::BASE_VERTICES;
        let add: Vec<(u32, u32)> = (0..n).map(|i| (i, (i * 7 + 3) % n)).collect();
        let w: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let ms: Vec<Maintainer> =
            SPECS.iter().map(|s| Maintainer::start(&g, s.parse().expect("spec")).expect("start")).collect();
        g.add_edges(&add, Some(&w)).expect("add");
        for m in &ms {
            m.save(&g).expect("save");
        }
        for m in ms {
            m.stop(&g);
        }
        g.close().expect("close");
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    common::inline_rayon();
    static WORK: OnceLock<Mutex<common::Workdir>> = OnceLock::new();
    let Some((&mode, patches)) = data.split_first() else { return };
    let mut work = WORK
        .get_or_init(|| Mutex::new(common::Workdir::new(with_saved(), common::scratch().join("saved"))))
        .lock()
        .expect("workdir");
    let dir = work.reset().to_path_buf();
    let spec: Spec = SPECS[(mode & 3) as usize].parse().expect("spec");
    let file = saved_path(&dir, &spec);
    let mut bytes = std::fs::read(&file).expect("read saved result");
    let meta = std::fs::metadata(&dir).expect("stat");
    bytes[24..32].copy_from_slice(&meta.dev().to_le_bytes());
    bytes[32..40].copy_from_slice(&meta.ino().to_le_bytes());
    let fix_crc = |b: &mut Vec<u8>| {
        if b.len() >= 4 {
            let end = b.len() - 4;
            let crc = crc32c::crc32c(&b[..end]);
            b[end..].copy_from_slice(&crc.to_le_bytes());
        }
    };
    fix_crc(&mut bytes);
    let pristine = patches.is_empty();
    common::patch(&mut bytes, patches);
    if mode & 4 != 0 {
        fix_crc(&mut bytes);
    }
    work.write(&file, &bytes);
    let g = WritableGraph::open(&dir, &opts()).expect("open writable");
    let n = g.num_vertices();
    if let Ok(m) = Maintainer::start(&g, spec.clone()) {
        let got = m.result(&g).expect("result");
        assert_eq!(got.len(), n);
        // PageRank's maintained scores may differ from a recomputation within its tolerance.
        if pristine && mode & 3 != 3 {
            assert!(m.loaded(), "an intact saved result is not loaded");
            let want = spec.build(&g.snapshot()).expect("build").result();
            assert_eq!(format!("{got:?}"), format!("{want:?}"));
        }
        // A batch after the load is applied to what was loaded.
        let _ = g.add_edges(&[(0, 1), (2, 3)], Some(&[1.0, 2.0]));
        let _ = m.result(&g);
        m.stop(&g);
    }
    let _ = g.close();
});
