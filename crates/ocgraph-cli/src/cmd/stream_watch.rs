//! `ocgraph stream --watch PATTERN`: after every batch, the matches of a watched pattern that
//! the batch made appear and disappear, and for a labelled pattern those whose labels it
//! changed ([`ocgraph_algo::mine::Watch`], explored only around the pairs and the relabelled
//! vertices of the batch), on the watch's own copy of the changed vertices' lists
//! ([`WatchStore`]) over the graph as it was when the stream started, and its own copy of the
//! labels (the graph's, or `--watch-labels`, edited by the stream's `L` lines).
//!
//! What a batch sets: on an undirected graph, `+ u v` makes `u - v` an edge and `- u v` not,
//! `-v u` removes every edge of `u` (those it had before the batch and those the batch gave it
//! earlier), in batch order (the update path's semantics). On a directed graph the undirected
//! view of a pair depends on both arcs: the same pairs are looked up in the snapshot after the
//! batch.
//!
//! `--watch-out FILE` writes one line per change: `B + v0 v1 ...` for a match that appeared in
//! batch `B` (0-based), `B - v0 v1 ...` for one that disappeared, `B ~ v0 v1 ...` for one whose
//! data vertices' labels changed, the data vertices in pattern-vertex order. Totals and the
//! watch's own time go to the summary.

use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ocgraph_algo::mine::{Changes, Pattern, Watch, WatchStore};
use ocgraph_core::format::OutputFile;
use ocgraph_core::labels::NO_LABEL;
use ocgraph_core::page::carry_read_errors;
use ocgraph_core::update::{Snapshot, WalItem, WritableGraph};
use ocgraph_core::{Adjacency, Error, Result, Vertex};

/// A watched pattern kept across the batches of one stream.
pub(crate) struct Watcher {
    watch: Watch,
    labels: Option<Vec<u32>>,
    /// The graph when the watch started (read for the lists the store does not hold).
    start: Snapshot,
    store: WatchStore,
    /// The pairs the current batch sets (reused across batches).
    updates: Vec<(Vertex, Vertex, bool)>,
    /// The label changes of the current batch (reused across batches).
    relabels: Vec<(Vertex, u32)>,
    out: Option<OutputFile>,
    /// Matches added and removed so far.
    pub(crate) added: u64,
    pub(crate) removed: u64,
    /// Matches whose labels changed so far.
    pub(crate) modified: u64,
    /// Seconds spent finding the changes.
    pub(crate) secs: f64,
}

/// The pairs the batch `items` sets, in batch order, each with whether it is an edge after the
/// item (`-v u` lists `u`'s pairs in `store` and those earlier items set). For a directed
/// graph (`after` given: the snapshot after the batch) the state is read there instead.
fn batch_updates(
    items: &[WalItem],
    store: &WatchStore,
    start: &Snapshot,
    after: Option<&Snapshot>,
    updates: &mut Vec<(Vertex, Vertex, bool)>,
) {
    updates.clear();
    // The pairs set so far by their ends (targets of a source, sources of a target), kept for
    // a batch with `-v u` lines: a scan of every pair for each such line made a batch of many
    // quadratic.
    type ByEnd = HashMap<Vertex, (Vec<Vertex>, Vec<Vertex>)>;
    let mut by_end = items.iter().any(|it| matches!(it, WalItem::RemoveVertex { .. })).then(ByEnd::new);
    let set = |updates: &mut Vec<(Vertex, Vertex, bool)>, by_end: &mut Option<ByEnd>, src, dst, edge| {
        updates.push((src, dst, edge));
        if let Some(ends) = by_end {
            ends.entry(src).or_default().0.push(dst);
            ends.entry(dst).or_default().1.push(src);
        }
    };
    for item in items {
        match *item {
            WalItem::AddEdge { src, dst, .. } => set(updates, &mut by_end, src, dst, true),
            WalItem::RemoveEdge { src, dst } => set(updates, &mut by_end, src, dst, false),
            WalItem::RemoveVertex { v } => {
                let mut nb = store.neighbors((&start.out(), &start.in_()), v);
                if let Some((targets, sources)) = by_end.as_ref().and_then(|ends| ends.get(&v)) {
                    nb.extend(targets.iter().chain(sources).copied());
                }
                nb.sort_unstable();
                nb.dedup();
                for &x in &nb {
                    updates.push((v, x, false));
                    if let Some(ends) = &mut by_end {
                        ends.entry(x).or_default().1.push(v);
                    }
                }
                // Every pair with `v` as an end is now `(v, x)` for an `x` of `nb`: the ends
                // of `v` become `nb` (appending them to the old ones doubled the list at each
                // repeated `-v v` of a batch).
                if let Some(ends) = &mut by_end {
                    ends.insert(v, (nb, Vec::new()));
                }
            }
            WalItem::SetWeight { .. } | WalItem::AddVertices { .. } | WalItem::SetLabel { .. } => {}
        }
    }
    if let Some(a) = after {
        let (out, in_) = (a.out(), a.in_());
        let arc = |u: Vertex, v: Vertex| out.neighbors(u).binary_search(&v).is_ok();
        let n = out.num_vertices() as Vertex;
        for p in updates.iter_mut() {
            p.2 = p.0 < n && p.1 < n && (arc(p.0, p.1) || in_.neighbors(p.0).binary_search(&p.1).is_ok());
        }
    }
}

impl Watcher {
    /// Starts watching `pattern` (edge- or vertex-induced) on `w` as it is now; `labels` gives
    /// each data vertex its label (labelled patterns; `None`: every vertex unlabelled); changes
    /// go to `out` when given.
    pub(crate) fn start(
        w: &WritableGraph,
        pattern: Pattern,
        induced: bool,
        labels: Option<Vec<u32>>,
        out: Option<&Path>,
    ) -> Result<Watcher> {
        let labels = match labels {
            None if pattern.is_labelled() => Some(vec![NO_LABEL; w.num_vertices()]),
            l => l,
        };
        let out = out.map(OutputFile::create).transpose()?;
        Ok(Watcher {
            watch: Watch::new(pattern, induced),
            labels,
            start: w.snapshot(),
            store: WatchStore::new(w.num_vertices()),
            updates: Vec::new(),
            relabels: Vec::new(),
            out,
            added: 0,
            removed: 0,
            modified: 0,
            secs: 0.0,
        })
    }

    /// Finds the matches batch number `batch` (its operations `items`, just applied to `w`)
    /// made appear and disappear; counts them and writes them to the `--watch-out` file.
    pub(crate) fn after_batch(&mut self, w: &WritableGraph, items: &[WalItem], batch: usize) -> Result<()> {
        let after = w.is_directed().then(|| w.snapshot());
        self.watch_batch(items, w.num_vertices(), after.as_ref(), batch)
    }

    /// [`Watcher::after_batch`] given what it reads of the graph after the batch: its vertex
    /// count `n` and, for a directed graph, its snapshot `after`.
    fn watch_batch(
        &mut self,
        items: &[WalItem],
        n: usize,
        after: Option<&Snapshot>,
        batch: usize,
    ) -> Result<()> {
        let t = Instant::now();
        self.store.set_num_vertices(n);
        if let Some(l) = &mut self.labels {
            // Vertices the stream added have no label.
            l.resize(l.len().max(n), NO_LABEL);
        }
        batch_updates(items, &self.store, &self.start, after, &mut self.updates);
        self.relabels.clear();
        self.relabels.extend(items.iter().filter_map(|it| match *it {
            WalItem::SetLabel { v, label } => Some((v, label)),
            _ => None,
        }));
        let s = &self.start;
        let ch = self.store.apply(
            &self.watch,
            (&s.out(), &s.in_()),
            self.labels.as_deref(),
            &self.updates,
            &self.relabels,
        )?;
        if let Some(l) = &mut self.labels {
            for &(v, label) in &self.relabels {
                l[v as usize] = label;
            }
        }
        let k = self.watch.pattern().num_vertices();
        self.added += (ch.added.len() / k) as u64;
        self.removed += (ch.removed.len() / k) as u64;
        self.modified += (ch.modified.len() / k) as u64;
        if let Some(f) = &mut self.out {
            let path = f.path().to_path_buf();
            write_changes(f, batch, &ch, k).map_err(|e| Error::io(path, "write", e))?;
        }
        self.secs += t.elapsed().as_secs_f64();
        Ok(())
    }

    /// Moves the watch to a thread of its own (`stream --background`): see [`Background`].
    pub(crate) fn into_background(self) -> Background {
        let queue = Arc::new(Queue::default());
        let q = queue.clone();
        // A failed page read unwinds to the stream's `catch_read_errors` through the join.
        let thread = std::thread::spawn(move || {
            carry_read_errors(|| {
                // Marks the watch stopped however the thread ends (a panic too), so that the
                // stream never waits on a queue nobody empties.
                let _stopped = Stopped(q.clone());
                let mut wa = self;
                let mut latencies = Vec::new();
                while let Some(job) = q.pop() {
                    wa.watch_batch(&job.items, job.n, job.after.as_ref(), job.batch)?;
                    latencies.push(job.started.elapsed().as_secs_f64());
                }
                Ok((wa, latencies))
            })
        });
        Background { queue, thread: Some(thread) }
    }

    /// Puts the `--watch-out` file in place (whole: a stream that fails leaves none).
    pub(crate) fn finish(&mut self) -> Result<()> {
        self.out.take().map_or(Ok(()), OutputFile::commit)
    }
}

/// Batches queued for a background watch beyond the one it is watching: a batch's latency
/// includes its wait in the queue, so a short queue keeps the latency near the watch's own
/// time while the update path of the next batch overlaps the watch of this one.
const QUEUED_BATCHES: usize = 1;

/// A batch handed to a background watch.
struct Job {
    batch: usize,
    items: Vec<WalItem>,
    /// The graph's vertex count after the batch.
    n: usize,
    /// The snapshot after the batch (directed graphs).
    after: Option<Snapshot>,
    /// When the batch's update began.
    started: Instant,
}

/// The batches between the stream and its background watch. Both sides wait by spinning, then
/// yielding, then sleeping briefly ([`Waiting`]): a batch of one update takes microseconds, and
/// a thread put to sleep on a lock or channel takes tens of microseconds to wake, which a
/// blocking channel paid on every batch (with `sync_channel`, `stream --watch triangle
/// --background` over the kron20 stream of `bench/mining/run.py` ran at a sixth of the rate of
/// the watch in line).
#[derive(Default)]
struct Queue {
    jobs: Mutex<VecDeque<Job>>,
    /// Set by the stream after its last batch.
    closed: AtomicBool,
    /// Set by the watch when it ends (after the last batch, or on an error).
    stopped: AtomicBool,
}

impl Queue {
    /// Queues `job`, waiting while [`QUEUED_BATCHES`] are queued; false when the watch stopped.
    fn push(&self, job: Job) -> bool {
        let mut wait = Waiting::default();
        let mut job = Some(job);
        loop {
            if self.stopped.load(Ordering::Acquire) {
                return false;
            }
            {
                let mut jobs = self.jobs.lock().expect("the queue's lock is never poisoned");
                if jobs.len() < QUEUED_BATCHES {
                    jobs.push_back(job.take().expect("pushed once"));
                    return true;
                }
            }
            wait.step();
        }
    }

    /// The next batch, waiting for one; `None` once the stream closed the queue and it is empty.
    fn pop(&self) -> Option<Job> {
        let mut wait = Waiting::default();
        loop {
            // Read before the queue: a job pushed before closing is then seen below.
            let closed = self.closed.load(Ordering::Acquire);
            if let Some(job) = self.jobs.lock().expect("the queue's lock is never poisoned").pop_front() {
                return Some(job);
            }
            if closed {
                return None;
            }
            wait.step();
        }
    }
}

/// How a side of the [`Queue`] waits: spins first, then yields the core, then sleeps 50 µs at
/// a time (a stream paused on its input does not hold a core).
#[derive(Default)]
struct Waiting(u32);

impl Waiting {
    fn step(&mut self) {
        match self.0 {
            0..64 => std::hint::spin_loop(),
            64..4096 => std::thread::yield_now(),
            _ => std::thread::sleep(Duration::from_micros(50)),
        }
        self.0 = self.0.saturating_add(1);
    }
}

/// What a background watch returns: the watcher and each batch's latency in seconds (from the
/// start of its update to the end of its watch).
type Finished = (Watcher, Vec<f64>);

/// A watch on a thread of its own (`stream --background`): the stream applies batch `b + 1`
/// while the watch explores batch `b`'s changes, on its own store over the graph as the stream
/// started (it reads nothing else of the graph, except the snapshot after each batch of a
/// directed graph, taken when the batch is queued). Batches are watched in order; a batch's
/// latency ends when its changes are found.
///
/// Dropped without [`Background::finish`] (the stream failed), it still closes the queue and
/// waits for the watch of the batches applied, which then ends as the watch in line would: a
/// `--watch-out` file is removed, standard output gets the changes found.
pub(crate) struct Background {
    queue: Arc<Queue>,
    thread: Option<std::thread::JoinHandle<Result<Finished>>>,
}

/// Sets its queue's `stopped` when dropped: when the watch's thread ends.
struct Stopped(Arc<Queue>);

impl Drop for Stopped {
    fn drop(&mut self) {
        self.0.stopped.store(true, Ordering::Release);
    }
}

impl Background {
    /// Queues batch number `batch` (its operations `items`, just applied to `w`; its update
    /// began at `started`), waiting while the queue is full. False when the watch has stopped,
    /// which it does only on an error, returned by [`Background::finish`].
    pub(crate) fn queue(&self, w: &WritableGraph, items: &[WalItem], batch: usize, started: Instant) -> bool {
        let after = w.is_directed().then(|| w.snapshot());
        self.queue.push(Job { batch, items: items.to_vec(), n: w.num_vertices(), after, started })
    }

    /// Waits for the watch of every queued batch: the watcher and the batches' latencies.
    pub(crate) fn finish(mut self) -> Result<Finished> {
        self.close().expect("the thread is joined once, here or on drop")
    }

    /// Closes the queue and joins the watch's thread, unless it was joined already.
    fn close(&mut self) -> Option<Result<Finished>> {
        self.queue.closed.store(true, Ordering::Release);
        Some(match self.thread.take()?.join() {
            Ok(r) => r,
            Err(panic) => std::panic::resume_unwind(panic),
        })
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            // The stream's own error is what the caller reports; the watch's result goes.
            let _ = self.close();
        }
    }
}

/// Writes the changes `ch` (flattened matches, `k` vertices each) of batch `batch`.
fn write_changes(f: &mut impl Write, batch: usize, ch: &Changes, k: usize) -> std::io::Result<()> {
    for (sign, flat) in [('+', &ch.added), ('-', &ch.removed), ('~', &ch.modified)] {
        for m in flat.chunks(k) {
            write!(f, "{batch} {sign}")?;
            for v in m {
                write!(f, " {v}")?;
            }
            writeln!(f)?;
        }
    }
    Ok(())
}
