//! WAL frame decoding from arbitrary bytes: a frame, "truncated" or "invalid", never a panic.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use ocgraph_core::update::wal_frame::{decode_frame, encode_frame, Decoded};

fuzz_target!(|data: &[u8]| {
    common::inline_rayon();
    if let Decoded::Frame { seq, flags, items, len } = decode_frame(data) {
        assert!(len <= data.len());
        // A decoded frame re-encodes to a frame that decodes to the same encoding.
        let mut out = Vec::new();
        encode_frame(seq, flags, &items, &mut out);
        let Decoded::Frame { seq: s2, flags: f2, items: i2, len: l2 } = decode_frame(&out) else {
            panic!("a re-encoded frame decodes")
        };
        let mut again = Vec::new();
        encode_frame(s2, f2, &i2, &mut again);
        assert_eq!((s2, f2, l2, &again), (seq, flags, out.len(), &out));
    }
});
