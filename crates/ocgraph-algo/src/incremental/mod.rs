//! Results kept current on a changing graph (seed 002 ch. 7, Snowy and RisGraph).
//!
//! A [`Maintained`] result is computed once with the static kernels and then updated from each
//! batch's changes ([`BatchChanges`], the writable graph's change feed) and the snapshot that
//! includes the batch: [`tree`] keeps BFS hop distances, SSSP distances and WCC labels with a
//! parent per vertex; [`pagerank`] keeps PageRank within its tolerance by residual push.
//! Vertex state is in memory; neighbour lists are read through the snapshot (so through the
//! page layer for the base).
//!
//! [`Maintainer`] ties one to a [`WritableGraph`]: it subscribes to the change feed, so every
//! update call updates the result before it returns; it rebuilds the result when it missed a
//! batch; it saves the result in `<graph>/maintained/<name>.bin` (with its batch sequence
//! number and a checksum) and reuses a saved result on start only when its sequence number is
//! the graph's and no later than the graph's at open (otherwise it recomputes): a result is
//! never stale.
//!
//! [`Maintainer::start_background`] instead applies the batches on the result's own thread
//! ([`background`]): update calls return once their batch is queued, and reading the result
//! first waits for the batches queued before the read.

mod background;
mod bucket_queue;
mod component_sizes;
mod first_values;
pub mod pagerank;
mod sweep_schedule;
pub mod tree;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use ocgraph_core::format::OutputFile;
use ocgraph_core::page::carry_read_errors;
use ocgraph_core::update::{
    BatchChanges, ChangeSubscriber, Snapshot, SubscriptionId, WritableGraph, SAVED_RESULT_MAGIC,
};
use ocgraph_core::{Error, Result, Vertex};
use parking_lot::Mutex;

use background::Queue;

pub use background::QUEUE_OPS;
pub use pagerank::PageRank;
pub use tree::{Bfs, Program, Sssp, Tree, Wcc};

pub use ocgraph_core::update::MAINTAINED_DIR;

/// The saved results' magic, which a writer's open reads too (it removes the results saved for
/// a batch that recovery dropped: `ocgraph_core::update::saved_results`).
const MAGIC: &[u8; 8] = SAVED_RESULT_MAGIC;

/// One value per vertex: integers (hops and labels, `-1` for none) or floats (distances,
/// infinity when unreachable; scores).
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    /// Integer values.
    Int(Vec<i64>),
    /// Float values.
    Float(Vec<f64>),
}

impl Values {
    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            Values::Int(v) => v.len(),
            Values::Float(v) => v.len(),
        }
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The vertices whose value changed since the previous call, with their values then and now.
#[derive(Debug, Clone, PartialEq)]
pub struct Changes {
    /// Vertices, ascending.
    pub vertices: Vec<Vertex>,
    /// Their values at the previous call (or when the result was made).
    pub old: Values,
    /// Their values now.
    pub new: Values,
}

/// A result kept current batch by batch.
pub trait Maintained: Send {
    /// The sequence number of the last batch the result includes.
    fn seq(&self) -> u64;
    /// Updates the result with the batch `changes`; `snap` sees exactly the batches up to
    /// `changes.seq`, which must be the next one after [`Maintained::seq`].
    fn apply(&mut self, changes: &BatchChanges, snap: &Snapshot) -> Result<()>;
    /// Recomputes the result from scratch (static kernels) on `snap`.
    fn rebuild(&mut self, snap: &Snapshot) -> Result<()>;
    /// The whole result.
    fn result(&self) -> Values;
    /// The vertices whose result value changed since the last call (see [`Changes`]).
    fn changes(&mut self) -> Changes;
    /// The state in its saved form.
    fn encode(&self) -> Vec<u8>;
    /// Restores a state saved by [`Maintained::encode`] as of batch `seq` on a graph of `n`
    /// vertices; `None` when `b` is not a valid encoding of such a state (a file that passes
    /// its checksum may still have been written by hand or by a bug: every count and vertex
    /// in it is checked before it sizes or indexes anything).
    fn decode(&mut self, seq: u64, n: usize, b: &[u8]) -> Option<()>;
    /// Gives a decoded state the snapshot it is current for (default: nothing to keep).
    fn attach(&mut self, _snap: &Snapshot) {}
}

/// What to maintain, and its parameters.
#[derive(Debug, Clone, PartialEq)]
pub enum Spec {
    /// BFS hop distances from `source` (`-1` unreachable).
    Bfs {
        /// Source vertex.
        source: Vertex,
    },
    /// Shortest-path distances from `source` (infinity unreachable).
    Sssp {
        /// Source vertex.
        source: Vertex,
    },
    /// Weakly connected component labels (smallest vertex id of the component).
    Wcc,
    /// PageRank scores (networkx semantics).
    PageRank {
        /// Damping factor, in `[0, 1)`.
        damping: f64,
        /// networkx tolerance: the scores are within `Σ |T(x) - x| < n * tol`.
        tol: f64,
    },
}

impl std::str::FromStr for Spec {
    type Err = Error;

    /// `wcc`, `bfs:source=S`, `sssp:source=S`, `pagerank[:damping=D][:tol=T]`.
    fn from_str(s: &str) -> Result<Spec> {
        let mut parts = s.split(':');
        let kind = parts.next().unwrap_or_default();
        if !["bfs", "sssp", "wcc", "pagerank"].contains(&kind) {
            return Err(Error::invalid(format!(
                "unknown maintained result {kind:?} (bfs, sssp, wcc, pagerank)"
            )));
        }
        let (mut source, mut damping, mut tol) = (None, 0.85, 1e-6);
        let mut seen = std::collections::HashSet::new();
        for p in parts {
            let (k, v) = p
                .split_once('=')
                .ok_or_else(|| Error::invalid(format!("{s:?}: parameter {p:?} is not key=value")))?;
            let bad = |e: &dyn std::fmt::Display| Error::invalid(format!("{s:?}: {k}={v}: {e}"));
            if !seen.insert(k) {
                return Err(Error::invalid(format!("{s:?}: {k} given twice")));
            }
            match (kind, k) {
                ("bfs" | "sssp", "source") => {
                    // Named as `run --source` names it: "invalid digit" would not say that -1
                    // or 1.5 is refused for not being a vertex id.
                    let not_a_vertex = format!("not a vertex id (an integer in 0..={})", Vertex::MAX);
                    source = Some(v.parse::<Vertex>().map_err(|_| bad(&not_a_vertex))?)
                }
                ("pagerank", "damping") => damping = v.parse().map_err(|e| bad(&e))?,
                ("pagerank", "tol") => {
                    tol = v.parse().map_err(|e| bad(&e))?;
                    // Checked here too, so that the error quotes the text (1e-400 parses as 0).
                    if !(pagerank::MIN_TOL..=f64::MAX).contains(&tol) {
                        return Err(bad(&format!("must be from {:e} to a finite value", pagerank::MIN_TOL)));
                    }
                }
                _ => return Err(Error::invalid(format!("{s:?}: unknown parameter {k:?} for {kind:?}"))),
            }
        }
        let need = || Error::invalid(format!("{s:?}: {kind} needs source=S"));
        match kind {
            "bfs" => Ok(Spec::Bfs { source: source.ok_or_else(need)? }),
            "sssp" => Ok(Spec::Sssp { source: source.ok_or_else(need)? }),
            "wcc" => Ok(Spec::Wcc),
            _ => Ok(Spec::PageRank { damping, tol }), // "pagerank": the kind was checked above
        }
    }
}

impl Spec {
    /// The name of the result (its file name without `.bin`).
    pub fn name(&self) -> String {
        match self {
            Spec::Bfs { source } => format!("bfs-source-{source}"),
            Spec::Sssp { source } => format!("sssp-source-{source}"),
            Spec::Wcc => "wcc".into(),
            // In exponent form, as `tol`: a tiny damping's decimals would not fit a file name.
            // `+ 0.0` turns -0 into 0: one name (and one saved file) per damping value.
            Spec::PageRank { damping, tol } => format!("pagerank-d{:e}-tol{tol:e}", damping + 0.0),
        }
    }

    /// An empty state of this kind (to decode into); checks the parameters.
    fn empty(&self, n: usize) -> Result<Box<dyn Maintained>> {
        let check = |s: Vertex| {
            if (s as usize) < n {
                Ok(s)
            } else {
                Err(Error::invalid(format!("source vertex {s} out of range (graph has {n} vertices)")))
            }
        };
        Ok(match *self {
            Spec::Bfs { source } => Box::new(Tree::empty(Bfs { source: check(source)? })),
            Spec::Sssp { source } => Box::new(Tree::empty(Sssp { source: check(source)? })),
            Spec::Wcc => Box::new(Tree::empty(Wcc)),
            Spec::PageRank { damping, tol } => Box::new(PageRank::empty(damping, tol)?),
        })
    }

    /// Computes the result on `snap` (static kernels).
    pub fn build(&self, snap: &Snapshot) -> Result<Box<dyn Maintained>> {
        let mut m = self.empty(snap.num_vertices())?;
        m.rebuild(snap)?;
        m.changes();
        Ok(m)
    }
}

/// Little-endian encoding helpers for saved states.
pub(crate) mod bytes {
    pub fn put_u64(out: &mut Vec<u8>, v: u64) {
        out.extend_from_slice(&v.to_le_bytes());
    }

    pub fn get_u64(b: &mut &[u8]) -> Option<u64> {
        let (h, t) = b.split_first_chunk::<8>()?;
        *b = t;
        Some(u64::from_le_bytes(*h))
    }

    pub fn get_u32(b: &mut &[u8]) -> Option<u32> {
        let (h, t) = b.split_first_chunk::<4>()?;
        *b = t;
        Some(u32::from_le_bytes(*h))
    }
}

/// The saved file of `spec` in the graph directory `dir`.
pub fn saved_path(dir: &Path, spec: &Spec) -> PathBuf {
    dir.join(MAINTAINED_DIR).join(format!("{}.bin", spec.name()))
}

/// The identity of the graph directory `dir`: its device and inode numbers. A saved result
/// names the directory it was saved in, so that a file copied from another graph (whose
/// batches may differ under the same sequence numbers) is not taken for this one's; a copy of a
/// whole graph directory recomputes its results once.
fn dir_identity(dir: &Path) -> Result<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(dir).map_err(|e| Error::io(dir, "stat", e))?;
    Ok((meta.dev(), meta.ino()))
}

/// The saved form of `m` (current as of batch `m.seq()`, for a graph of `n` vertices in the
/// directory of identity `origin`), which [`write_saved`] writes.
///
/// Layout: `OCGMAIN2`, seq (u64), vertex count (u64), the directory's device and inode numbers
/// (u64 each), name length (u32) and name, payload length (u64) and payload
/// ([`Maintained::encode`]), then the CRC-32C of everything before.
fn saved_form(name: &str, n: u64, origin: (u64, u64), m: &dyn Maintained) -> Vec<u8> {
    let payload = m.encode();
    let mut buf = Vec::with_capacity(payload.len() + 64);
    buf.extend_from_slice(MAGIC);
    bytes::put_u64(&mut buf, m.seq());
    bytes::put_u64(&mut buf, n);
    bytes::put_u64(&mut buf, origin.0);
    bytes::put_u64(&mut buf, origin.1);
    buf.extend_from_slice(&(name.len() as u32).to_le_bytes());
    buf.extend_from_slice(name.as_bytes());
    bytes::put_u64(&mut buf, payload.len() as u64);
    buf.extend_from_slice(&payload);
    let crc = crc32c::crc32c(&buf);
    buf.extend_from_slice(&crc.to_le_bytes());
    buf
}

/// Writes a [`saved_form`] to `path` atomically: a temporary file, fsync, rename, fsync of
/// the directory.
fn write_saved(path: &Path, saved: &[u8]) -> Result<()> {
    let dir = path.parent().expect("saved results live in a directory");
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, "create directory", e))?;
    // Written beside `path` under a name of its own (two savers of one result never share it)
    // and renamed over it; a failed save removes what it wrote.
    OutputFile::write_whole(path, saved)
}

/// Removes the temporary files (`.NAME.tmp-PID-N`, see [`OutputFile`]) that saves of another
/// process left in `dir` when they were cut short: only the graph's writer saves results, and
/// this process holds its lock.
fn remove_unfinished_saves(dir: &Path) {
    let ours = format!(".tmp-{}-", std::process::id());
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') && name.contains(".tmp-") && !name.contains(&ours) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// The result saved in the graph directory `dir` when it is valid and current for `snap`
/// (saved in this directory, same batch sequence number and vertex count, and that batch no
/// later than `opened_seq`, the last batch when the graph was opened); `None` otherwise
/// (missing, torn, corrupt, stale or copied files included).
///
/// A file saved for a batch after `opened_seq` was saved by an earlier writer for a batch that
/// recovery dropped (a damaged last frame of the log, which the next batch renumbers), so it
/// is not taken even when the graph's new batch has its number; a result saved by this writer
/// past its open is recomputed too, which costs time, never a wrong answer.
fn load_from(dir: &Path, spec: &Spec, snap: &Snapshot, opened_seq: u64) -> Option<Box<dyn Maintained>> {
    let origin = dir_identity(dir).ok()?;
    let buf = std::fs::read(saved_path(dir, spec)).ok()?;
    let (body, crc) = buf.split_last_chunk::<4>()?;
    if crc32c::crc32c(body) != u32::from_le_bytes(*crc) {
        return None;
    }
    let mut b = body.strip_prefix(MAGIC.as_slice())?;
    let seq = bytes::get_u64(&mut b)?;
    let n = bytes::get_u64(&mut b)?;
    let saved_in = (bytes::get_u64(&mut b)?, bytes::get_u64(&mut b)?);
    let len = bytes::get_u32(&mut b)? as usize;
    let name = b.get(..len)?;
    b = &b[len..];
    let plen = bytes::get_u64(&mut b)? as usize;
    if name != spec.name().as_bytes()
        || seq != snap.seq()
        || seq > opened_seq
        || n != snap.num_vertices() as u64
        || saved_in != origin
        || b.len() != plen
    {
        return None;
    }
    let mut m = spec.empty(snap.num_vertices()).ok()?;
    m.decode(seq, snap.num_vertices(), b)?;
    m.attach(snap);
    Some(m)
}

/// Runs `f`, which reads `snap`, with at most the threads its base's buffer pool has frames for
/// ([`ocgraph_core::Graph::reading_threads`]): a pool of a few frames would otherwise see
/// every thread hold one frame and wait for another.
fn with_readers<T: Send>(snap: &Snapshot, f: impl FnOnce() -> T + Send) -> T {
    match snap.base().reading_threads(None) {
        Some(m) => match rayon::ThreadPoolBuilder::new().num_threads(m).build() {
            Ok(pool) => pool.install(f),
            Err(_) => f(),
        },
        None => f(),
    }
}

/// The subscriber side of a [`Maintainer`].
struct Slot {
    /// `None` until the first computation.
    state: Mutex<Option<Box<dyn Maintained>>>,
    /// A batch failed to update the result: it takes no more batches and is rebuilt on next
    /// use (which reports the error while it persists). The result is kept, not dropped, so
    /// that the first values `changes` reports since its last call survive the rebuild.
    failed: AtomicBool,
    /// Background maintenance: the batches waiting for the worker thread.
    queue: Option<Queue>,
}

impl Slot {
    /// Updates the result with one batch (a gap in the sequence numbers rebuilds it).
    fn apply(&self, changes: &BatchChanges, snap: &Snapshot) {
        let mut st = self.state.lock();
        let Some(m) = st.as_mut() else { return };
        if changes.seq <= m.seq() || self.failed.load(Ordering::Acquire) {
            return;
        }
        // A failed page read (an I/O error, a pool too small for its readers) fails the
        // batch as an error does.
        let r = ocgraph_core::page::catch_read_errors(|| {
            with_readers(snap, || {
                if changes.seq == m.seq() + 1 {
                    m.apply(changes, snap)
                } else {
                    m.rebuild(snap)
                }
            })
        });
        if !matches!(r, Ok(Ok(()))) {
            self.failed.store(true, Ordering::Release);
        }
    }
}

impl ChangeSubscriber for Slot {
    fn on_batch(&self, changes: &BatchChanges, snap: &Snapshot) {
        match &self.queue {
            Some(q) => q.push(changes, snap),
            None => self.apply(changes, snap),
        }
    }
}

/// Starts the thread applying the batches queued in `slot` until its queue closes.
fn spawn_worker(slot: Arc<Slot>, spec: &Spec) -> Result<ocgraph_core::process::OwnedThread<()>> {
    std::thread::Builder::new()
        .name(format!("maintain {}", spec.name()))
        .spawn(move || {
            let q = slot.queue.as_ref().expect("a background slot has a queue");
            while let Some((changes, snap)) = q.pop() {
                // The worker outlives a batch that panics (the result is rebuilt, and the panic
                // reported, on next use), so that readers waiting for the batch return.
                let applied = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    carry_read_errors(|| slot.apply(&changes, &snap))
                }));
                if applied.is_err() {
                    slot.failed.store(true, Ordering::Release);
                }
                q.done(changes.seq);
            }
        })
        .map(ocgraph_core::process::OwnedThread::new)
        .map_err(|e| Error::invalid(format!("{}: cannot start its thread: {e}", spec.name())))
}

/// A result maintained on a [`WritableGraph`] (see the module docs).
pub struct Maintainer {
    spec: Spec,
    slot: Arc<Slot>,
    id: SubscriptionId,
    /// Whether the first computation reused a saved result.
    loaded: bool,
    /// The background thread applying queued batches (let go, not joined, in a forked child).
    worker: Option<ocgraph_core::process::OwnedThread<()>>,
}

impl Maintainer {
    /// Starts maintaining `spec` on `w`: reuses the saved result when it is current, else
    /// computes it; every batch committed from now on updates it before its update call returns.
    pub fn start(w: &WritableGraph, spec: Spec) -> Result<Maintainer> {
        Maintainer::start_with(w, spec, None)
    }

    /// As [`Maintainer::start`], but batches are applied on a thread of the result's own: an
    /// update call returns once its batch is queued (waiting only while batches of
    /// [`QUEUE_OPS`] operations are), and [`Maintainer::wait`] (or any read of the result)
    /// waits for them. Through a buffer pool, each result maintained this way is one more
    /// reading thread, holding up to two slices at a time (see [`ocgraph_core::page`]'s pool).
    pub fn start_background(w: &WritableGraph, spec: Spec) -> Result<Maintainer> {
        Maintainer::start_with(w, spec, Some(Queue::default()))
    }

    fn start_with(w: &WritableGraph, spec: Spec, queue: Option<Queue>) -> Result<Maintainer> {
        let background = queue.is_some();
        let slot = Arc::new(Slot { state: Mutex::new(None), failed: AtomicBool::new(false), queue });
        let (id, snap) = w.subscribe(slot.clone())?;
        remove_unfinished_saves(&w.path().join(MAINTAINED_DIR));
        let saved = load_from(w.path(), &spec, &snap, w.opened_seq());
        let loaded = saved.is_some();
        let m = match saved {
            Some(m) => m,
            None => match with_readers(&snap, || spec.build(&snap)) {
                Ok(m) => m,
                Err(e) => {
                    w.unsubscribe(id);
                    return Err(named_error(&spec, e));
                }
            },
        };
        // Batches delivered meanwhile were skipped (or are queued): the next one applied, or
        // the next use, rebuilds.
        *slot.state.lock() = Some(m);
        let worker = if background {
            match spawn_worker(slot.clone(), &spec) {
                Ok(t) => Some(t),
                Err(e) => {
                    w.unsubscribe(id);
                    return Err(e);
                }
            }
        } else {
            None
        };
        Ok(Maintainer { spec, slot, id, loaded, worker })
    }

    /// Waits until the result includes batch `seq` (or the last batch committed before this
    /// call, when `seq` is past it). Returns at once for results maintained in the update call.
    pub fn wait(&self, w: &WritableGraph, seq: u64) -> Result<()> {
        self.with(w, seq, |_| ())
    }

    /// What is maintained.
    pub fn spec(&self) -> &Spec {
        &self.spec
    }

    /// Whether the first computation reused a saved result.
    pub fn loaded(&self) -> bool {
        self.loaded
    }

    /// Runs `f` on the result, first waiting for the queued batches up to `upto` (background
    /// maintenance) and rebuilding it when it is not current for the last batch committed
    /// before the call (a batch it missed, or a failed update), or for `upto` when earlier.
    fn with<T>(&self, w: &WritableGraph, upto: u64, f: impl FnOnce(&mut dyn Maintained) -> T) -> Result<T> {
        // Graph calls before the slot's lock: a delivery holds the graph's turn and waits for it.
        let last = w.last_seq().min(upto);
        if let Some(q) = &self.slot.queue {
            q.wait_for(last);
        }
        let snap = w.snapshot();
        let mut st = self.slot.state.lock();
        let failed = self.slot.failed.load(Ordering::Acquire);
        let stale = failed || st.as_ref().is_none_or(|m| m.seq() < last && m.seq() < snap.seq());
        if stale {
            let named = |e| named_error(&self.spec, e);
            match st.as_mut() {
                Some(m) => with_readers(&snap, || m.rebuild(&snap)).map_err(named)?,
                None => *st = Some(with_readers(&snap, || self.spec.build(&snap)).map_err(named)?),
            }
            self.slot.failed.store(false, Ordering::Release);
        }
        Ok(f(st.as_mut().expect("built above").as_mut()))
    }

    /// The sequence number of the last batch the result includes.
    pub fn seq(&self, w: &WritableGraph) -> Result<u64> {
        self.with(w, u64::MAX, |m| m.seq())
    }

    /// The whole result, current for the graph's last batch.
    pub fn result(&self, w: &WritableGraph) -> Result<Values> {
        self.with(w, u64::MAX, |m| m.result())
    }

    /// The vertices whose value changed since the previous call, with old and new values.
    pub fn changes(&self, w: &WritableGraph) -> Result<Changes> {
        self.with(w, u64::MAX, |m| m.changes())
    }

    /// Makes the graph's batches durable, then saves the result in
    /// `<graph>/maintained/<name>.bin`; returns the file's path.
    pub fn save(&self, w: &WritableGraph) -> Result<PathBuf> {
        w.check_process()?;
        let path = saved_path(w.path(), &self.spec);
        let origin = dir_identity(w.path())?;
        let (seq, saved) = self.with(w, u64::MAX, |m| {
            (m.seq(), saved_form(&self.spec.name(), m.result().len() as u64, origin, m))
        })?;
        // The log is made durable up to the result's batch before the file claims it: the
        // result may include batches another thread committed after any earlier sync, and a
        // file claiming a batch the log could still lose would be loaded after a crash as
        // current for the batches that replace it. (A batch is in the log before any snapshot
        // shows it.) Outside the result's lock: a batch being delivered to it holds the
        // writer's turn, which a sync of the whole log would wait for.
        w.sync_to(seq)?;
        write_saved(&path, &saved)?;
        Ok(path)
    }

    /// Stops maintaining (the saved file, if any, stays).
    pub fn stop(self, w: &WritableGraph) {
        // A forked child's copy holds no subscription of its own (and the parent's threads
        // may have held the feed's lock when it forked).
        if w.check_process().is_ok() {
            w.unsubscribe(self.id);
        }
    }
}

/// `e` from computing `spec`'s result: an argument error (a negative weight) names the result.
fn named_error(spec: &Spec, e: Error) -> Error {
    let name = spec.name();
    match e {
        Error::InvalidArgument(why) if !why.starts_with(&name) => Error::invalid(format!("{name}: {why}")),
        e => e,
    }
}

impl Drop for Maintainer {
    /// Stops the background thread (batches still queued are dropped).
    fn drop(&mut self) {
        if let Some(q) = &self.slot.queue {
            q.close();
        }
        if let Some(t) = self.worker.take() {
            t.join();
        }
    }
}
