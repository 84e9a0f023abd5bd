//! Manifest parsing from arbitrary bytes. The first byte picks the mode: odd, the rest is the
//! JSON body and gets a valid header (length, checksum) so that the JSON schema and the checks
//! behind it are reached; even, the rest is the whole manifest.
#![no_main]

mod common;

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use ocgraph_core::format::{Manifest, FORMAT_VERSION, MANIFEST_MAGIC};

fuzz_target!(|data: &[u8]| {
    common::inline_rayon();
    let Some((&mode, rest)) = data.split_first() else { return };
    let bytes = if mode & 1 != 0 {
        let mut b = MANIFEST_MAGIC.to_vec();
        b.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        b.extend_from_slice(&(rest.len() as u32).to_le_bytes());
        b.extend_from_slice(&crc32c::crc32c(rest).to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(rest);
        b
    } else {
        rest.to_vec()
    };
    if let Ok(m) = Manifest::from_bytes(&bytes, Path::new("manifest")) {
        // What parses must serialise and parse back to the same manifest.
        let again = Manifest::from_bytes(&m.to_bytes(), Path::new("manifest")).expect("re-parse");
        assert_eq!(again.to_bytes(), m.to_bytes());
    }
});
