//! The label file parser (`import --labels`, `ocgraph labels set`): the input is the file, read
//! against the original ids of a small graph with integer ids. Ends in an error or one label
//! per vertex.
#![no_main]

mod common;

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use ocgraph_core::ids::IdLookup;
use ocgraph_core::labels::read_label_file;
use ocgraph_core::{Graph, OpenOptions};

fuzz_target!(|data: &[u8]| {
    common::inline_rayon();
    static IDS: OnceLock<IdLookup> = OnceLock::new();
    let ids = IDS.get_or_init(|| {
        Graph::open(common::base_graph(), &OpenOptions::default()).expect("base graph").ids().expect("ids")
    });
    let path = common::scratch().join("labels.txt");
    std::fs::write(&path, data).expect("write the label file");
    if let Ok(labels) = read_label_file(&path, ids) {
        assert_eq!(labels.len() as u64, ids.len());
    }
});
