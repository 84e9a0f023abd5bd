//! `ocgraph check` on a corrupted graph directory: patches to one data file of a valid graph
//! (plain or packed, the first byte picks both, and whether the manifest's checksum of the file
//! is updated so that the CSR invariants are checked). `check` ends in an error or OK; a graph
//! that checks OK must open and read without a panic.
#![no_main]

mod common;

use std::sync::{Mutex, OnceLock};

use libfuzzer_sys::fuzz_target;
use ocgraph_core::format::{check_graph, Manifest, MANIFEST_FILE};
use ocgraph_core::ingest::{pack, NoProgress};

fuzz_target!(|data: &[u8]| {
    common::inline_rayon();
    static WORK: OnceLock<[Mutex<common::Workdir>; 2]> = OnceLock::new();
    let Some((&mode, patches)) = data.split_first() else { return };
    let work = WORK.get_or_init(|| {
        let base = common::base_graph();
        let packed = common::scratch().join("packed");
        pack(base, &packed, false, &NoProgress).expect("pack");
        let plain_copy = common::Workdir::new(base, common::scratch().join("check"));
        let packed_copy = common::Workdir::new(&packed, common::scratch().join("check-packed"));
        [Mutex::new(plain_copy), Mutex::new(packed_copy)]
    });
    let mut work = work[(mode & 1) as usize].lock().expect("workdir");
    let dir = work.reset().to_path_buf();
    let files: Vec<_> = common::files(&dir).into_iter().filter(|f| !f.ends_with("manifest")).collect();
    let file = &files[(mode >> 1) as usize % files.len()];
    let mut bytes = std::fs::read(file).expect("read");
    common::patch(&mut bytes, patches);
    work.write(file, &bytes);
    if mode & 0x80 != 0 {
        let mut m = Manifest::read(&dir).expect("manifest");
        let name = file.file_name().expect("name").to_string_lossy().into_owned();
        if let Some(e) = m.files.get_mut(&name) {
            e.crc32c = crc32c::crc32c(&bytes);
        }
        work.write(&dir.join(MANIFEST_FILE), &m.to_bytes());
    }
    if check_graph(&dir).is_ok() {
        common::read_all(&dir);
    }
});
