//! The id log and the label log (`ids.log`: the names of vertices that updates added to a
//! relabelled graph; `labels.NNNNNNNN.log`: checkpointed label changes), read by the writer's
//! recovery: a string-id graph with named vertices added and labels set over two batches, one
//! of them frozen (so that the label log holds a record), closed cleanly. The first byte picks
//! the file (bit 0) and whether every record's CRC is recomputed after the patch (bit 1, so that
//! the checks on vertices, lengths, counts and order behind the CRC are reached). Ends in an
//! error or a graph whose every vertex has a name and whose labels read, which takes another
//! named batch and reopens; an unpatched log gives the names and labels written. Never a panic.
#![no_main]

mod common;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use libfuzzer_sys::fuzz_target;
use ocgraph_core::format::Manifest;
use ocgraph_core::ids::OriginalId;
use ocgraph_core::ingest::{BuildOptions, GraphBuilder, IdMap, NoProgress};
use ocgraph_core::update::ids_log::IDS_LOG;
use ocgraph_core::update::{Durability, WritableGraph, WriteOptions};

/// Vertices of the base graph, named `v0`, `v1`, ...
const BASE: u32 = 16;

fn opts() -> WriteOptions {
    WriteOptions { durability: Durability::None, auto_compact_levels: None, ..WriteOptions::default() }
}

fn name(s: String) -> OriginalId {
    OriginalId::Str(s)
}

/// The names and labels the kept graph ends with, vertex by vertex.
fn expected() -> (Vec<OriginalId>, Vec<u32>) {
    let mut names: Vec<OriginalId> = (0..BASE).map(|i| name(format!("v{i}"))).collect();
    names.extend((0..8).map(|i| name(format!("new-{i}"))));
    let labels = (0..names.len() as u32).map(|v| if v % 3 == 0 { v + 100 } else { u32::MAX }).collect();
    (names, labels)
}

/// The kept graph: a ring of [`BASE`] named vertices; batch 1 adds four named vertices and
/// labels, then a freeze; batch 2 adds four more and their labels.
fn with_logs() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = common::scratch().join("names-base");
        let _ = std::fs::remove_dir_all(&dir);
        let mut b = GraphBuilder::new(&dir, BuildOptions::default()).expect("builder");
        let src: Vec<u32> = (0..BASE).collect();
        let dst: Vec<u32> = (0..BASE).map(|i| (i + 1) % BASE).collect();
        b.push(&src, &dst, None).expect("push");
        b.finish(IdMap::Strings((0..BASE).map(|i| format!("v{i}")).collect()), &NoProgress).expect("build");
        let g = WritableGraph::open(&dir, &opts()).expect("open writable");
        let (names, labels) = expected();
        for half in [0..4usize, 4..8] {
            let edges: Vec<(OriginalId, OriginalId)> =
                half.clone().map(|i| (names[i].clone(), names[BASE as usize + i].clone())).collect();
            g.add_edges_by_id(&edges, None).expect("add named");
            let set: Vec<(u32, u32)> = (0..BASE as usize + half.end)
                .filter(|&v| labels[v] != u32::MAX)
                .map(|v| (v as u32, labels[v]))
                .collect();
            g.set_labels(&set).expect("labels");
            if half.start == 0 {
                g.freeze().expect("freeze");
            }
        }
        g.close().expect("close");
        dir
    })
}

/// The label log the manifest names.
fn label_log(dir: &Path) -> PathBuf {
    let m = Manifest::read(dir).expect("manifest");
    dir.join(m.updates.and_then(|u| u.labels_log).expect("a label log").name)
}

/// Recomputes the CRC-32C of every whole record of an id log (`vertex, length L, L bytes, CRC`)
/// or a label log (`seq u64, count c u32, 8c bytes, CRC`), as far as the lengths hold.
fn reseal(bytes: &mut [u8], ids: bool) {
    let mut at = 0;
    loop {
        let (head, len_at) = if ids { (8, at + 4) } else { (12, at + 8) };
        let Some(len) = bytes.get(len_at..len_at + 4) else { return };
        let len = u32::from_le_bytes(len.try_into().expect("4 bytes")) as usize;
        let body = head + if ids { len } else { 8 * len };
        let Some(end) = at.checked_add(body).filter(|&e| e + 4 <= bytes.len()) else { return };
        let crc = crc32c::crc32c(&bytes[at..end]);
        bytes[end..end + 4].copy_from_slice(&crc.to_le_bytes());
        at = end + 4;
    }
}

fuzz_target!(|data: &[u8]| {
    common::inline_rayon();
    static WORK: OnceLock<Mutex<common::Workdir>> = OnceLock::new();
    let Some((&mode, patches)) = data.split_first() else { return };
    let mut work = WORK
        .get_or_init(|| Mutex::new(common::Workdir::new(with_logs(), common::scratch().join("names"))))
        .lock()
        .expect("workdir");
    let dir = work.reset().to_path_buf();
    let ids = mode & 1 == 0;
    let file = if ids { dir.join(IDS_LOG) } else { label_log(&dir) };
    let mut bytes = std::fs::read(&file).expect("read the log");
    common::patch(&mut bytes, patches);
    if mode & 2 != 0 {
        reseal(&mut bytes, ids);
    }
    work.write(&file, &bytes);
    let Ok(g) = WritableGraph::open(&dir, &opts()) else { return };
    let n = g.num_vertices() as u32;
    let snap = g.snapshot();
    let (names, labels) = expected();
    for v in 0..n {
        let id = g.original_id(v).expect("every vertex has a name");
        assert!(g.vertex_of(&id).expect("lookup").is_some(), "{id} does not resolve");
        let label = snap.label(v);
        if patches.is_empty() {
            assert_eq!((&id, label), (&names[v as usize], labels[v as usize]));
        }
    }
    if let Ok(list) = g.ids() {
        assert_eq!(list.len(), n as u64);
    }
    if patches.is_empty() {
        assert_eq!(n as usize, names.len());
    }
    // What recovered takes another named batch and reopens.
    let _ = g.add_edges_by_id(&[(name("v0".into()), name("later".into()))], None);
    drop(snap);
    if g.close().is_ok() {
        if let Ok(g) = WritableGraph::open(&dir, &opts()) {
            for v in 0..g.num_vertices() as u32 {
                let _ = g.original_id(v).expect("every vertex has a name after a reopen");
            }
            let _ = g.close();
        }
    }
});
