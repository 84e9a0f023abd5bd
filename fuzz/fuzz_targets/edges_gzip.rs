//! Gzip'd edge lists: the input is compressed, then cut short and one byte flipped as its
//! first bytes say, and read as text, CSV or MatrixMarket (truncated and corrupt streams
//! included). Ends in an error or a count of edges.
#![no_main]

mod common;

use std::io::Write;

use libfuzzer_sys::fuzz_target;
use ocgraph_core::ingest::{parse_bytes, InputFormat, Relabel};

fuzz_target!(|data: &[u8]| {
    common::inline_rayon();
    if data.len() < 4 {
        return;
    }
    let (head, body) = data.split_at(4);
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(body).expect("write to Vec");
    let mut gz = e.finish().expect("finish gzip");
    let cut = u16::from_le_bytes([head[1], head[2]]) as usize;
    if head[0] & 4 != 0 && cut < gz.len() {
        gz.truncate(cut.max(2));
    }
    if head[0] & 8 != 0 {
        let at = head[3] as usize % gz.len();
        gz[at] ^= head[1] | 1;
    }
    let format = [InputFormat::Text, InputFormat::Csv, InputFormat::MatrixMarket][head[0] as usize % 3];
    let _ = parse_bytes(gz, format, head[0] & 16 != 0, Relabel::None);
});
