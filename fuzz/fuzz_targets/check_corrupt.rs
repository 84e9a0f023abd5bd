//! `ocgraph check` on a corrupted graph directory: patches to one data file of a valid graph
//! (plain or packed, the first byte picks both, and whether the manifest's checksum of the file
//! is updated so that the CSR invariants are checked). `check` ends in an error or OK; a graph
//! that checks OK must open and read without a panic.
#![no_main]

mod common;

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use ocgraph_core::format::{check_graph, Manifest, MANIFEST_FILE};
use ocgraph_core::ingest::{pack, NoProgress};

fuzz_target!(|data: &[u8]| {
    common::inline_rayon();
    static PACKED: OnceLock<std::path::PathBuf> = OnceLock::new();
    let Some((&mode, patches)) = data.split_first() else { return };
    let base = common::base_graph();
    let src = if mode & 1 != 0 {
        PACKED.get_or_init(|| {
            let dir = common::scratch().join("packed");
            pack(base, &dir, false, &NoProgress).expect("pack");
            dir
        })
    } else {
        base
    };
    let dir = common::scratch().join("check");
    common::copy_dir(src, &dir);
    let files: Vec<_> = common::files(&dir).into_iter().filter(|f| !f.ends_with("manifest")).collect();
    let file = &files[(mode >> 1) as usize % files.len()];
    let mut bytes = std::fs::read(file).expect("read");
    common::patch(&mut bytes, patches);
    std::fs::write(file, &bytes).expect("write");
    if mode & 0x80 != 0 {
        let mut m = Manifest::read(&dir).expect("manifest");
        let name = file.file_name().expect("name").to_string_lossy().into_owned();
        if let Some(e) = m.files.get_mut(&name) {
            e.crc32c = crc32c::crc32c(&bytes);
        }
        std::fs::write(dir.join(MANIFEST_FILE), m.to_bytes()).expect("write manifest");
    }
    if check_graph(&dir).is_ok() {
        common::read_all(&dir);
    }
});
