//! Opening a graph: the manifest (patched from a valid one; the first byte says whether its
//! checksum is recomputed so that the JSON and the checks behind it are reached) and the data
//! files' sizes and first and last offsets. A graph that opens must read without a panic.
#![no_main]

mod common;

use std::sync::{Mutex, OnceLock};

use libfuzzer_sys::fuzz_target;
use ocgraph_core::format::{Manifest, MANIFEST_FILE};

fuzz_target!(|data: &[u8]| {
    common::inline_rayon();
    static WORK: OnceLock<Mutex<common::Workdir>> = OnceLock::new();
    let Some((&mode, patches)) = data.split_first() else { return };
    let mut work = WORK
        .get_or_init(|| {
            Mutex::new(common::Workdir::new(common::base_graph(), common::scratch().join("open")))
        })
        .lock()
        .expect("workdir");
    let dir = work.reset().to_path_buf();
    let path = dir.join(MANIFEST_FILE);
    let mut bytes = std::fs::read(&path).expect("manifest");
    if mode & 1 != 0 {
        // Patch the JSON body and re-seal it with a valid header.
        let mut body = bytes[24..].to_vec();
        common::patch(&mut body, patches);
        bytes.truncate(24);
        bytes[12..16].copy_from_slice(&(body.len() as u32).to_le_bytes());
        bytes[16..20].copy_from_slice(&crc32c::crc32c(&body).to_le_bytes());
        bytes.extend_from_slice(&body);
    } else {
        common::patch(&mut bytes, patches);
    }
    work.write(&path, &bytes);
    if mode & 2 != 0 {
        // Also cut a data file short.
        let files = common::files(&dir);
        let f = &files[mode as usize % files.len()];
        let len = std::fs::metadata(f).expect("stat").len();
        work.set_len(f, len / 2);
    }
    let _ = Manifest::read(&dir);
    common::read_all(&dir);
});
