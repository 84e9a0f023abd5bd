//! Shared by the targets: rayon on the fuzzing thread ([`inline_rayon`]); for the file-based
//! ones a small stored graph made once per process (under /dev/shm when there is one, so that
//! writes cost no disk I/O), copies of it, byte patches from the fuzz input, and a full read of
//! a graph that opened.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::{Once, OnceLock};

use ocgraph_core::ingest::{BuildOptions, GraphBuilder, IdMap, NoProgress};
use ocgraph_core::{with_adjacency, Adjacency, GraphView, OpenOptions};

/// Makes rayon run on the calling thread: a global pool of one worker, this thread. libFuzzer
/// calls every input from the same thread, so the parsers' parallel loops then cost no
/// cross-thread hand-off per input (which would otherwise bound a target to a few thousand
/// executions per second).
pub fn inline_rayon() {
    static INIT: Once = Once::new();
    INIT.call_once(|| {
        let _ = rayon::ThreadPoolBuilder::new().num_threads(1).use_current_thread().build_global();
    });
}

/// This process's scratch directory.
pub fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let root =
            if Path::new("/dev/shm").is_dir() { PathBuf::from("/dev/shm") } else { std::env::temp_dir() };
        let dir = root.join(format!("ocgraph-fuzz-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch directory");
        dir
    })
}

/// Vertices of [`base_graph`]: small, so that a full read of a patched copy costs little
/// (every list of the graph is read at each execution) while each file keeps its layout.
pub const BASE_VERTICES: u32 = 64;

/// A directed weighted graph of [`BASE_VERTICES`] vertices and 5 arcs per vertex (fixed
/// seed), built once.
pub fn base_graph() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch().join("base");
        let opts = BuildOptions { weighted: true, ..BuildOptions::default() };
        let mut b = GraphBuilder::new(&dir, opts).expect("builder");
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let (mut src, mut dst, mut w) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..5 * BASE_VERTICES {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            src.push(i % BASE_VERTICES);
            dst.push((x % BASE_VERTICES as u64) as u32);
            w.push((x >> 40) as f32 / 1000.0);
        }
        b.push(&src, &dst, Some(&w)).expect("push");
        b.finish(IdMap::Identity, &NoProgress).expect("build");
        dir
    })
}

/// Replaces `dst` with a copy of the directory tree `src`.
pub fn copy_dir(src: &Path, dst: &Path) {
    let _ = std::fs::remove_dir_all(dst);
    std::fs::create_dir_all(dst).expect("create copy");
    for e in std::fs::read_dir(src).expect("list") {
        let e = e.expect("entry");
        let to = dst.join(e.file_name());
        if e.file_type().expect("type").is_dir() {
            copy_dir(&e.path(), &to);
        } else {
            copy_file(&e.path(), &to);
        }
    }
}

/// Copies a file with a read and a write, which retry when a signal interrupts them (libFuzzer's
/// timer does), where `std::fs::copy`'s `copy_file_range` returns `EINTR`.
fn copy_file(from: &Path, to: &Path) {
    std::fs::write(to, std::fs::read(from).expect("read for a copy")).expect("write a copy");
}

/// A copy of a stored graph that every execution patches. [`Workdir::reset`] makes it equal to
/// its source again by rewriting only the files the last execution changed through
/// [`Workdir::write`] and [`Workdir::set_len`] (a fresh copy per execution cost more than the
/// target's own work), and copies the whole tree again when the copy's listing (names and
/// sizes) changed some other way.
pub struct Workdir {
    src: PathBuf,
    dst: PathBuf,
    listing: Vec<(PathBuf, u64)>,
    written: Vec<PathBuf>,
}

impl Workdir {
    /// Copies `src` to `dst`.
    pub fn new(src: &Path, dst: PathBuf) -> Workdir {
        copy_dir(src, &dst);
        let listing = tree(&dst);
        Workdir { src: src.to_path_buf(), dst, listing, written: Vec::new() }
    }

    /// Makes the copy equal to the source and returns its path.
    pub fn reset(&mut self) -> &Path {
        for p in self.written.drain(..) {
            let rel = p.strip_prefix(&self.dst).expect("inside the copy");
            copy_file(&self.src.join(rel), &p);
        }
        if tree(&self.dst) != self.listing {
            copy_dir(&self.src, &self.dst);
        }
        &self.dst
    }

    /// Replaces the file at `path` (inside the copy) with `bytes`.
    pub fn write(&mut self, path: &Path, bytes: &[u8]) {
        self.written.push(path.to_path_buf());
        std::fs::write(path, bytes).expect("write");
    }

    /// Cuts or extends the file at `path` (inside the copy) to `len` bytes.
    pub fn set_len(&mut self, path: &Path, len: u64) {
        self.written.push(path.to_path_buf());
        let _ = std::fs::OpenOptions::new().write(true).open(path).and_then(|h| h.set_len(len));
    }
}

/// Every file under `dir` with its size, sorted.
fn tree(dir: &Path) -> Vec<(PathBuf, u64)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("list").flatten() {
            match e.metadata() {
                Ok(m) if m.is_dir() => stack.push(e.path()),
                Ok(m) => out.push((e.path(), m.len())),
                Err(_) => out.push((e.path(), u64::MAX)),
            }
        }
    }
    out.sort();
    out
}

/// The regular files of `dir` (not recursive), sorted by name.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("list")
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .collect();
    v.sort();
    v
}

/// Applies the patches of `data` to `bytes`: 4-byte records `(op, offset lo, offset hi,
/// value)`: op % 4 = 0 sets a byte, 1 xors it, 2 truncates there, 3 inserts the byte.
pub fn patch(bytes: &mut Vec<u8>, data: &[u8]) {
    for p in data.chunks_exact(4) {
        if bytes.is_empty() {
            bytes.push(p[3]);
            continue;
        }
        let at = u16::from_le_bytes([p[1], p[2]]) as usize % bytes.len();
        match p[0] % 4 {
            0 => bytes[at] = p[3],
            1 => bytes[at] ^= p[3],
            2 => bytes.truncate(at),
            _ => bytes.insert(at, p[3]),
        }
    }
}

/// Opens the graph at `dir` and reads every list and weight in both directions (at most the
/// first 100,000 vertices): what opened must read without a panic.
pub fn read_all(dir: &Path) {
    let Ok(g) = GraphView::open(dir, &OpenOptions::default()) else { return };
    let n = g.num_vertices().min(100_000) as u32;
    with_adjacency!(g, |out, inn| {
        for v in 0..n {
            let d = out.degree(v);
            assert_eq!(out.neighbors(v).len(), d);
            let _ = out.weights(v);
            let _ = inn.neighbors(v);
        }
    });
}
