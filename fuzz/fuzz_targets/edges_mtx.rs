//! The MatrixMarket edge-list parser as `import` runs it: the first byte picks weighted or not and
//! the relabelling; the rest is the file. Ends in an error or a count of edges.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use ocgraph_core::ingest::{parse_bytes, InputFormat, Relabel};

fuzz_target!(|data: &[u8]| {
    common::inline_rayon();
    let Some((&mode, rest)) = data.split_first() else { return };
    let relabel = if mode & 2 != 0 { Relabel::FirstSeen } else { Relabel::None };
    let _ = parse_bytes(rest.to_vec(), InputFormat::MatrixMarket, mode & 1 != 0, relabel);
});
