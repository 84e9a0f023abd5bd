//! Binary edge lists (u32/u64 pairs, with or without weights): the first byte picks the
//! format, weighted reading and relabelling. Ends in an error or a count of edges.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use ocgraph_core::ingest::{parse_bytes, InputFormat, Relabel};

fuzz_target!(|data: &[u8]| {
    common::inline_rayon();
    let Some((&mode, rest)) = data.split_first() else { return };
    let format = [
        InputFormat::Binary32,
        InputFormat::Binary64,
        InputFormat::Binary32Weighted,
        InputFormat::Binary64Weighted,
    ][mode as usize % 4];
    let relabel = if mode & 8 != 0 { Relabel::FirstSeen } else { Relabel::None };
    let _ = parse_bytes(rest.to_vec(), format, mode & 4 != 0, relabel);
});
