//! Chooses the block size and transform of the compressed adjacency (`ocgraph layout
//! compress`) by measurement: for each block size, compresses every block of a graph's
//! `out.neighbors` with LZ4 alone and with the delta + byte-plane transform, and times decoding
//! every block on one thread (best of 3). Prints a table and writes it as CSV.
//!
//! ```text
//! cargo run --release -p ocgraph-core --example block_codec -- GRAPH OUT.csv [KIB,KIB,...]
//! ```

use std::time::Instant;

use ocgraph_core::format::compressed::{decode_planes, encode_block, Transform};
use rayon::prelude::*;

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
    let mut csv =
        String::from("block_bytes,transform,stored_bytes,ratio,decode_ns_per_byte,decode_gb_per_s\n");
    println!("{:>9} {:>12} {:>14} {:>7} {:>10}", "block", "transform", "stored", "ratio", "decode GB/s");
    for &bs in &sizes {
        for (name, transform) in [("lz4", None), ("delta+planes", Some(Transform::DeltaPlanes))] {
            let blocks: Vec<Vec<u8>> = plain
                .par_chunks(bs)
                .map(|b| match transform {
                    None => lz4_flex::block::compress(b),
                    Some(t) => lz4_flex::block::compress(&encode_block(b, t)),
                })
                .collect();
            let stored: usize = blocks.iter().map(Vec::len).sum();
            let (mut planes, mut out) = (vec![0u8; bs], vec![0u8; bs]);
            let mut best = f64::INFINITY;
            for _ in 0..3 {
                let t0 = Instant::now();
                for (k, b) in blocks.iter().enumerate() {
                    let len = (plain.len() - k * bs).min(bs);
                    match transform {
                        None => {
                            lz4_flex::block::decompress_into(b, &mut out[..len]).expect("decodes");
                        }
                        Some(t) => {
                            lz4_flex::block::decompress_into(b, &mut planes[..len]).expect("decodes");
                            decode_planes(&planes[..len], t, &mut out[..len]);
                        }
                    }
                    std::hint::black_box(&out);
                }
                best = best.min(t0.elapsed().as_secs_f64());
            }
            let ratio = plain.len() as f64 / stored as f64;
            let gbs = plain.len() as f64 / best / 1e9;
            println!("{:>9} {:>12} {:>14} {:>7.3} {:>10.2}", bs, name, stored, ratio, gbs);
            csv +=
                &format!("{bs},{name},{stored},{ratio:.4},{:.4},{gbs:.3}\n", best * 1e9 / plain.len() as f64);
        }
    }
    std::fs::write(&args[2], csv).expect("write the CSV");
}
