//! Chooses the block size of the compressed adjacency (`ocgraph layout compress`) by
//! measurement: for each block size, compresses every block of a graph's `out.neighbors` with
//! LZ4 alone and with the stored codec (zigzag deltas in byte planes, zero planes left out,
//! LZ4), and times decoding every block on one thread as the pool does (checksum, LZ4, planes;
//! best of 3), and the LZ4 step alone. Prints a table and writes it as CSV.
//!
//! ```text
//! cargo run --release -p ocgraph-core --example block_codec -- GRAPH OUT.csv [KIB,KIB,...]
//! ```

use std::time::Instant;

use ocgraph_core::format::compressed::{compress_block, BlockEntry, BlockIndex, Transform};
use rayon::prelude::*;

/// Best of 3 timings of `f`, in seconds.
fn best_of_3(mut f: impl FnMut()) -> f64 {
    (0..3)
        .map(|_| {
            let t0 = Instant::now();
            f();
            t0.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: block_codec GRAPH OUT.csv [block KiB, comma-separated]");
        std::process::exit(2);
    }
    let plain =
        std::fs::read(std::path::Path::new(&args[1]).join("out.neighbors")).expect("read out.neighbors");
    let sizes: Vec<usize> = args
        .get(3)
        .map_or("4,16,64,256".into(), |s| s.clone())
        .split(',')
        .map(|k| k.parse::<usize>().unwrap() << 10)
        .collect();
    let gbs = |secs: f64| plain.len() as f64 / secs / 1e9;
    let mut csv = String::from("block_bytes,codec,stored_bytes,ratio,decode_gb_per_s,lz4_only_gb_per_s\n");
    let head = ("block", "codec", "stored", "ratio", "decode GB/s", "LZ4 GB/s");
    println!("{:>9} {:>12} {:>14} {:>7} {:>11} {:>9}", head.0, head.1, head.2, head.3, head.4, head.5);
    let mut row = |bs: usize, name: &str, stored: usize, decode: f64, lz4: f64| {
        let ratio = plain.len() as f64 / stored as f64;
        let (d, l) = (gbs(decode), gbs(lz4));
        println!("{bs:>9} {name:>12} {stored:>14} {ratio:>7.3} {d:>11.2} {l:>9.2}");
        csv += &format!("{bs},{name},{stored},{ratio:.4},{d:.3},{l:.3}\n");
    };
    for &bs in &sizes {
        let mut out = vec![0u8; bs];
        // LZ4 alone, on the plain bytes.
        let blocks: Vec<Vec<u8>> = plain.par_chunks(bs).map(lz4_flex::block::compress).collect();
        let t = best_of_3(|| {
            for (k, b) in blocks.iter().enumerate() {
                let len = (plain.len() - k * bs).min(bs);
                lz4_flex::block::decompress_into(b, &mut out[..len]).expect("decodes");
            }
        });
        row(bs, "lz4", blocks.iter().map(Vec::len).sum(), t, t);
        // The stored codec, decoded through the block index as the pool does.
        let blocks: Vec<Vec<u8>> =
            plain.par_chunks(bs).map(|b| compress_block(b, Transform::DeltaPlanes)).collect();
        let mut index = BlockIndex {
            block_size: bs as u32,
            transform: Transform::DeltaPlanes,
            logical_len: plain.len() as u64,
            blocks: Vec::new(),
        };
        for b in &blocks {
            index.blocks.push(BlockEntry { offset: 0, len: b.len() as u32, crc32c: crc32c::crc32c(b) });
        }
        let mut planes = vec![0u8; bs + bs / 4];
        let decode = best_of_3(|| {
            for (k, b) in blocks.iter().enumerate() {
                let len = index.logical_block_len(k);
                index.decode(k, b, &mut planes, &mut out[..len]).expect("decodes");
            }
        });
        let lz4 = best_of_3(|| {
            for (k, b) in blocks.iter().enumerate().filter(|&(k, _)| !index.is_raw(k)) {
                let _ = lz4_flex::block::decompress_into(&b[1..], &mut planes[..index.logical_block_len(k)]);
            }
        });
        row(bs, "zigzag+planes", blocks.iter().map(Vec::len).sum(), decode, lz4);
    }
    std::fs::write(&args[2], csv).expect("write the CSV");
}
