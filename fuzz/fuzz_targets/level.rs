//! Level files: a graph with one frozen level whose file is patched as the input says (the
//! first byte: whether its checksum, in the file and the manifest, is recomputed so that the
//! layout checks behind it are reached). Opening ends in an error or a snapshot that reads
//! without a panic.
#![no_main]

mod common;

use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use libfuzzer_sys::fuzz_target;
use ocgraph_core::format::{Manifest, MANIFEST_FILE};
use ocgraph_core::update::{WritableGraph, WriteOptions, LEVELS_DIR};

/// The base graph with one level: edges added and removed, then frozen.
fn with_level() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = common::scratch().join("level-base");
        common::copy_dir(common::base_graph(), &dir);
        let g = WritableGraph::open(&dir, &WriteOptions::default()).expect("open writable");
        let n = common::BASE_VERTICES;
        let add: Vec<(u32, u32)> = (0..n).map(|i| (i, (i * 7 + 3) % n)).collect();
        let w: Vec<f32> = (0..n).map(|i| i as f32).collect();
        g.add_edges(&add, Some(&w)).expect("add");
        let remove: Vec<(u32, u32)> = (0..n / 4).map(|i| (i * 3, (i * 7 + 3) % n)).collect();
        g.remove_edges(&remove).expect("remove");
        g.freeze().expect("freeze");
        g.close().expect("close");
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    common::inline_rayon();
    static WORK: OnceLock<Mutex<common::Workdir>> = OnceLock::new();
    let Some((&mode, patches)) = data.split_first() else { return };
    let mut work = WORK
        .get_or_init(|| Mutex::new(common::Workdir::new(with_level(), common::scratch().join("level"))))
        .lock()
        .expect("workdir");
    let dir = work.reset().to_path_buf();
    let levels = common::files(&dir.join(LEVELS_DIR));
    let Some(file) = levels.first() else { return };
    let mut bytes = std::fs::read(file).expect("read level");
    common::patch(&mut bytes, patches);
    if mode & 1 != 0 && bytes.len() >= 48 {
        let data_end = u64::from_le_bytes(bytes[40..48].try_into().expect("8 bytes"));
        if data_end >= 48 && data_end <= bytes.len() as u64 {
            let crc = crc32c::crc32c_append(crc32c::crc32c(&bytes[..32]), &bytes[36..data_end as usize]);
            bytes[32..36].copy_from_slice(&crc.to_le_bytes());
            let mut m = Manifest::read(&dir).expect("manifest");
            if let Some(e) = m.updates.as_mut().and_then(|u| u.levels.first_mut()) {
                e.crc32c = crc;
                e.len = bytes.len() as u64;
            }
            work.write(&dir.join(MANIFEST_FILE), &m.to_bytes());
        }
    }
    work.write(file, &bytes);
    common::read_all(&dir);
});
