//! The packed-list decoder on arbitrary bytes (first 4 bytes: the vertex); decoded lists
//! re-encode to the same bytes.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use ocgraph_core::format::packed::{decode_list, encode_list};

fuzz_target!(|data: &[u8]| {
    common::inline_rayon();
    if data.len() < 4 {
        return;
    }
    let v = u32::from_le_bytes(data[..4].try_into().expect("4 bytes"));
    let mut out = Vec::new();
    if decode_list(v, &data[4..], &mut out).is_ok() {
        let mut again = Vec::new();
        decode_list(
            v,
            &{
                let mut b = Vec::new();
                encode_list(v, &out, &mut b);
                b
            },
            &mut again,
        )
        .expect("a re-encoded list decodes");
        assert_eq!(again, out);
    }
});
