//! Query workload files (`ocgraph workload run`, `Workload::load`): the first byte is a mode,
//! the rest the file. Mode bit 0 recomputes the payload checksum (and bit 1 the query count
//! from the length) so that the checks behind them are reached. Ends in an error or a workload
//! whose `to_bytes` is the file, byte for byte.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use ocgraph_core::query::workload::{HEADER_LEN, MAGIC};
use ocgraph_core::query::Workload;

fuzz_target!(|data: &[u8]| {
    common::inline_rayon();
    let Some((&mode, rest)) = data.split_first() else { return };
    let mut b = Vec::new();
    if mode & 4 != 0 {
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&1u32.to_le_bytes());
    }
    b.extend_from_slice(rest);
    if b.len() >= HEADER_LEN {
        if mode & 2 != 0 {
            let k = u32::from_le_bytes(b[56..60].try_into().unwrap()).max(1) as u64;
            let count = (b.len() - HEADER_LEN) as u64 / (4 * k);
            b[16..24].copy_from_slice(&count.to_le_bytes());
        }
        if mode & 1 != 0 {
            let crc = crc32c::crc32c(&b[HEADER_LEN..]);
            b[60..64].copy_from_slice(&crc.to_le_bytes());
        }
    }
    let path = std::path::Path::new("fuzz.workload");
    if let Ok(w) = Workload::from_bytes(path, &b) {
        assert_eq!(w.to_bytes(), b, "a workload read back writes other bytes");
        assert_eq!(w.len() * w.kind.arity(), w.vertices.len());
        assert!(w.vertices.iter().all(|&v| (v as u64) < w.num_vertices));
        for i in 0..w.len() {
            assert_eq!(w.query(i).len(), w.kind.arity());
        }
    }
});
