//! Manifest parsing (magic, version, checksum, JSON body) from arbitrary bytes.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use ocgraph_core::format::Manifest;

fuzz_target!(|data: &[u8]| {
    if let Ok(m) = Manifest::from_bytes(data, Path::new("manifest")) {
        // What parses must serialise and parse back to the same manifest.
        let again = Manifest::from_bytes(&m.to_bytes(), Path::new("manifest")).expect("re-parse");
        assert_eq!(again.to_bytes(), m.to_bytes());
    }
});
