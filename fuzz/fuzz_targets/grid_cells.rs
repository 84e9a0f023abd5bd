//! The grid layout's readers on arbitrary bytes: `grid.index` parsing (the first 4 bytes pick
//! the shape the manifest would claim: cells per side and block bits) and the LZ4 cell decoder
//! with its transform. A parsed index holds entries rising to the claimed counts; any
//! decompressed cell decodes, and encoding any payload decodes back to it.
#![no_main]

mod common;

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use ocgraph_core::format::grid::{decode_cell, encode_cell, Codec, GridHeader, GridIndex, GridInfo};

fuzz_target!(|data: &[u8]| {
    common::inline_rayon();
    if data.len() < 4 {
        return;
    }
    let (shape, rest) = data.split_at(4);
    let cells = 1 + (shape[0] % 8) as u32;
    let codec = if shape[1] & 1 == 1 { Codec::Lz4 } else { Codec::None };
    let info = GridInfo { cells_per_side: cells, block_bits: (shape[2] % 17) as u32, codec };
    let expect = GridHeader { info, num_vertices: 1000, num_arcs: shape[3] as u64 * 3, weighted: false };
    if let Ok(index) = GridIndex::parse(rest, Path::new("grid.index"), &expect, 4096) {
        assert_eq!(index.edges.len(), info.num_cells() + 1);
        assert!(index.edges.windows(2).all(|w| w[0] <= w[1]) && index.bytes.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(index.edges[info.num_cells()], expect.num_arcs);
    }
    // The LZ4 path: a cell of m arcs as `ocgraph check` and the reader decode it.
    let m = (shape[3] as usize) * 4;
    let mut bytes = vec![0u8; 4 * m];
    if matches!(lz4_flex::block::decompress_into(rest, &mut bytes), Ok(k) if k == bytes.len()) {
        let mut payload = vec![0u16; 2 * m];
        decode_cell(&bytes, &mut payload);
        let mut again = vec![0u16; 2 * m];
        decode_cell(&encode_cell(&payload), &mut again);
        assert_eq!(again, payload);
    }
});
