//! [`WritableGraph`]: a graph opened for durable updates.
//!
//! Every update call is one batch: validated, appended to the WAL with the next sequence number,
//! applied to the in-memory delta, then made durable per the [`Durability`] mode before the call
//! returns its sequence number. Snapshots see batches up to the last durable one (with
//! [`Durability::PerBatch`]) or the last applied one (other modes).
//!
//! When the delta passes `freeze_threshold` bytes it is frozen into an immutable level
//! (`levels/NNNNNNNN.level`), the manifest records the level and the WAL checkpoint, and WAL
//! segments wholly covered are deleted; the level is written without holding the writer lock
//! (the frozen delta stays readable meanwhile). [`WritableGraph::compact`] merges base + levels
//! into a new base generation; writers are blocked only while the delta is frozen at its start
//! and while the manifest is switched at its end. Automatic compaction (when the level count
//! passes `auto_compact_levels`) runs on a background thread.

mod by_id;
mod compaction;

use by_id::{refuse_unnamed_vertices, Names};

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use super::apply::{apply, plan, record, validate};
use super::delta::DeltaLog;
use super::graph_entries::is_base_generation;
use super::ids_log::{named_vertices, AddedIds, IDS_LOG};
use super::label_log::{is_label_log, LabelHistory, LabelLog, ViewLabels};
use super::level::{write_level, Level, SideOps};
use super::log_file::{LogFs, StdLogFs};
use super::memory_delta::MemoryDelta;
use super::paged_delta::{PagedDelta, PagedDeltaOptions};
use super::snapshot::{Snapshot, View};
use super::stream::{BatchChanges, ChangeSubscriber, Feed, SubscriptionId};
use super::wal::{Durability, RecoveryReport, Replay, Wal, WalOptions};
use super::wal_flusher::IntervalFlusher;
use super::wal_frame::{check_batch_len, WalItem};
use super::writer_lock::{lock_for_writing, WriterLock, WRITER_LOCK};
use crate::error::{Error, Result};
use crate::format::{while_manifest_changes, FileRole, IdMapKind, Manifest, UpdateState, MANIFEST_FILE};
use crate::graph::{Adjacency, Graph, OpenOptions, Vertex};
use crate::page::BackendKind;

/// Subdirectory holding the WAL segments.
pub const WAL_DIR: &str = "wal";
/// Subdirectory holding the level files.
pub const LEVELS_DIR: &str = "levels";
/// Subdirectory holding the scratch files of paged deltas ([`DeltaKind::Paged`]).
pub const DELTA_DIR: &str = "delta";

/// How to open a graph for updates.
#[derive(Debug, Clone)]
pub struct WriteOptions {
    /// Page backend for the base CSR (levels are always memory-mapped).
    pub backend: BackendKind,
    /// When an update call's batch is durable.
    pub durability: Durability,
    /// Freeze the delta into a level once it holds this many bytes.
    pub freeze_threshold: u64,
    /// Compact (in a background thread) once there are more than this many levels.
    pub auto_compact_levels: Option<usize>,
    /// WAL segment size before rotation.
    pub wal_segment_bytes: u64,
    /// Where the updates not yet frozen into a level are kept.
    pub delta: DeltaKind,
}

/// Where a [`WritableGraph`] keeps the updates not yet frozen into a level.
#[derive(Debug, Clone, Default)]
pub enum DeltaKind {
    /// In memory ([`MemoryDelta`]).
    #[default]
    Memory,
    /// In pages of scratch files under `<graph>/delta/`, each served by its own writable buffer
    /// pool with these options ([`PagedDelta`]): so the delta can outgrow memory. The directory
    /// is emptied on open (the WAL is the durable record). `max_bytes` bounds each delta file
    /// and must exceed `freeze_threshold` by the largest batch (16 bytes per arc operation,
    /// rounded up to 256-byte blocks per vertex); an update that overflows it fails.
    Paged(PagedDeltaOptions),
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            backend: BackendKind::default(),
            durability: Durability::PerBatch,
            freeze_threshold: 64 << 20,
            auto_compact_levels: Some(8),
            wal_segment_bytes: 64 << 20,
            delta: DeltaKind::Memory,
        }
    }
}

struct State {
    /// The newest state: `upto` is the last applied batch.
    view: View,
    /// The manifest on disk.
    manifest: Manifest,
    next_seq: u64,
    /// `(seq, vertex count from that batch on)`, for snapshots older than the last applied batch.
    vertex_history: Vec<(u64, u64)>,
    /// The label log (label changes of checkpointed batches).
    label_log: LabelLog,
    closed: bool,
}

struct Shared {
    dir: PathBuf,
    opts: WriteOptions,
    wal: Wal,
    state: Mutex<State>,
    /// Held for the whole of a compaction (one at a time).
    compacting: Mutex<()>,
    /// Held for the whole of a freeze (one at a time; writers are blocked only at its start and end).
    freezing: Mutex<()>,
    /// The error of a failed background compaction, reported by the next call to `compact`/`close`.
    background_error: Mutex<Option<Error>>,
    /// Original ids (held by every call that adds vertices, so vertex numbers stay put between
    /// naming new vertices and logging the batch that adds them).
    names: Mutex<Names>,
    /// The change feed (`stream.rs`).
    feed: Feed,
    /// The open [`WRITER_LOCK`] file, locked while this graph is open for updates (released
    /// by `close`, or when the last handle goes).
    writer_lock: Mutex<Option<WriterLock>>,
    /// The process that opened the graph: a child forked meanwhile shares its lock and log
    /// descriptors, so its updates would interleave with the parent's unseen; they are refused.
    pid: u32,
}

/// A graph opened for durable updates (see the module docs).
pub struct WritableGraph {
    shared: Arc<Shared>,
    compactor: Mutex<Option<crate::process::OwnedThread<()>>>,
    /// The background fsync of [`Durability::Interval`]; stopped by `close`.
    flusher: Mutex<Option<IntervalFlusher>>,
    recovery: RecoveryReport,
    /// The sequence number of the last batch at open, after recovery.
    opened_seq: u64,
}

/// A new, empty delta (out and in sides; one shared for undirected graphs) of the kind `opts`
/// asks for. Paged deltas get fresh files under `<dir>/delta/`, removed when dropped.
fn fresh_delta(dir: &Path, opts: &WriteOptions, directed: bool) -> Result<[Arc<dyn DeltaLog>; 2]> {
    static NEXT_FILE: AtomicU64 = AtomicU64::new(0);
    let side = |name: &str| -> Result<Arc<dyn DeltaLog>> {
        Ok(match &opts.delta {
            DeltaKind::Memory => Arc::new(MemoryDelta::new()),
            DeltaKind::Paged(p) => {
                let n = NEXT_FILE.fetch_add(1, Ordering::Relaxed);
                Arc::new(PagedDelta::create(dir.join(DELTA_DIR).join(format!("{n:08}.{name}")), p)?)
            }
        })
    };
    let out = side("out")?;
    let inn = if directed { side("in")? } else { out.clone() };
    Ok([out, inn])
}

/// `m`, the manifest of the graph at `dir`, unless it is packed: such a graph is refused for
/// updates.
fn refuse_packed(dir: &Path, m: Manifest) -> Result<Manifest> {
    if m.is_packed() {
        return Err(Error::invalid(format!(
            "{}: packed graphs cannot be opened for updates (update the plain graph and pack it again)",
            dir.display()
        )));
    }
    Ok(m)
}

/// Empties `<dir>/delta/` (scratch files of paged deltas), creating it when `paged`.
fn reset_delta_dir(dir: &Path, paged: bool) -> Result<()> {
    let delta_dir = dir.join(DELTA_DIR);
    match std::fs::remove_dir_all(&delta_dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(Error::io(&delta_dir, "remove delta directory", e))
        }
        _ => {}
    }
    if paged {
        std::fs::create_dir(&delta_dir).map_err(|e| Error::io(&delta_dir, "create delta directory", e))?;
    }
    Ok(())
}

/// Removes what an interrupted freeze or compaction may have left: temporary files, level files
/// and base generations the manifest does not reference, and root data files replaced by a base
/// generation.
fn remove_strays(dir: &Path, m: &Manifest) -> Result<()> {
    let _ = std::fs::remove_file(dir.join("manifest.tmp"));
    // The id log's rewrite during a compaction cut short.
    let _ = std::fs::remove_file(dir.join(IDS_LOG).with_extension("log.tmp"));
    let up = m.updates.clone().unwrap_or_default();
    let levels_dir = dir.join(LEVELS_DIR);
    if let Ok(rd) = std::fs::read_dir(&levels_dir) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if !up.levels.iter().any(|l| l.name == name) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    for e in std::fs::read_dir(dir).map_err(|e| Error::io(dir, "list graph directory", e))?.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let gen_dir = is_base_generation(&name);
        let listed_log = up.labels_log.as_ref().is_some_and(|l| l.name == name);
        if is_label_log(&name) && !listed_log {
            let _ = std::fs::remove_file(e.path());
        } else if gen_dir && m.data_dir.as_deref() != Some(name.as_str()) {
            let _ = std::fs::remove_dir_all(e.path());
        } else if m.data_dir.is_some() && FileRole::from_file_name(&name).is_some() {
            let _ = std::fs::remove_file(e.path());
        }
    }
    Ok(())
}

/// `manifest`'s update state, a fresh one over its base when it has none yet (the base simple
/// unless the view reads it with repeated arcs collapsed, `dedup_base`).
fn update_state(manifest: &mut Manifest, dedup_base: bool) -> &mut UpdateState {
    let n = manifest.num_vertices;
    manifest
        .updates
        .get_or_insert_with(|| UpdateState { base_simple: Some(!dedup_base), ..UpdateState::fresh(n) })
}

/// Checks the vertex counts the levels' headers record against the manifest's update state:
/// they never fall, start at the base's or above, and the checkpoint's count is the last
/// level's (the base's when no level is left), so every kernel sizes its arrays to the vertices
/// that batches actually added.
fn check_level_vertex_counts(dir: &Path, base_n: u64, up: &UpdateState, levels: &[Arc<Level>]) -> Result<()> {
    let manifest_says = |held: u64| {
        Error::format(
            dir.join(MANIFEST_FILE),
            format!(
                "updates.num_vertices is {}, but the base and levels hold {held} vertices at the checkpoint",
                up.num_vertices
            ),
        )
    };
    let mut prev = base_n;
    for (entry, level) in up.levels.iter().zip(levels) {
        let n = level.num_vertices();
        if n < prev {
            return Err(Error::format(
                dir.join(LEVELS_DIR).join(&entry.name),
                format!("level records {n} vertices, fewer than the {prev} before it"),
            ));
        }
        if n > up.num_vertices {
            return Err(manifest_says(n));
        }
        prev = n;
    }
    let last_upto = up.levels.last().map_or(up.checkpoint_seq, |l| l.upto_seq);
    if last_upto == up.checkpoint_seq && prev != up.num_vertices {
        return Err(manifest_says(prev));
    }
    Ok(())
}

/// Whether some list of `base` holds a neighbour more than once (one sequential scan of the
/// out-lists: a repeated arc repeats on both sides of a directed graph).
fn has_repeated_arcs(base: &Graph) -> bool {
    let mut repeats = false;
    base.out().for_each_in_range(0..base.num_vertices() as Vertex, |_, ns| {
        repeats |= ns.windows(2).any(|w| w[0] == w[1]);
    });
    repeats
}

/// The net operations of `side` over the frozen deltas (oldest first) as of batch `seq`.
fn frozen_side_ops(frozen: &[[Arc<dyn DeltaLog>; 2]], side: usize, seq: u64) -> Result<SideOps> {
    let mut out = SideOps::default();
    if let [only] = frozen {
        // One sequential pass over the delta (the usual case: a failed freeze leaves more).
        only[side].for_each_vertex(seq, &mut |v, ops| {
            out.push_folded(v, ops);
            Ok(())
        })?;
        return Ok(out);
    }
    let mut touched: Vec<Vertex> = frozen.iter().flat_map(|f| f[side].touched(seq)).collect();
    touched.sort_unstable();
    touched.dedup();
    let mut ops = Vec::new();
    for v in touched {
        ops.clear();
        for f in frozen {
            f[side].ops(v, seq, &mut ops)?;
        }
        out.push_folded(v, &ops);
    }
    Ok(out)
}

impl WritableGraph {
    /// Opens the graph at `dir` for updates: loads the base and the levels listed in the
    /// manifest, replays the WAL batches after the checkpoint into a fresh delta (truncating a
    /// torn tail) and cleans up what an interrupted freeze or compaction left behind.
    pub fn open(dir: impl AsRef<Path>, opts: &WriteOptions) -> Result<WritableGraph> {
        Self::open_with_log_fs(dir, opts, Arc::new(StdLogFs))
    }

    /// Like [`WritableGraph::open`], writing the WAL through `fs` (fault injection in tests).
    pub fn open_with_log_fs(
        dir: impl AsRef<Path>,
        opts: &WriteOptions,
        fs: Arc<dyn LogFs>,
    ) -> Result<WritableGraph> {
        Self::open_impl(dir.as_ref(), opts, fs, true)
    }

    /// Loads the latest durable state for a reader ([`crate::GraphView::open`], which closes it
    /// at once). A writer may have the graph open meanwhile, so a reader takes no lock and
    /// changes no file: it replays the WAL up to a torn tail without cutting it (the tail may be
    /// a batch being appended), and leaves stray files, the delta directory, the label and id
    /// logs' tails and the manifest to the writer's open, which recovers them. Its
    /// [`WritableGraph::recovery`] tells what a writer's open would drop.
    ///
    /// A writer that freezes or compacts meanwhile moves the checkpoint and deletes the WAL
    /// segments, levels and base it covered: the reader then meets a missing file or a gap in
    /// the batches. So the open is retried while the manifest changes under it, and an error
    /// is returned only from an open during which the manifest stayed the same.
    pub fn open_for_reading(dir: &Path, opts: &WriteOptions) -> Result<WritableGraph> {
        while_manifest_changes(dir, 100, false, |_| Self::open_impl(dir, opts, Arc::new(StdLogFs), false))
    }

    fn open_impl(dir: &Path, opts: &WriteOptions, fs: Arc<dyn LogFs>, writer: bool) -> Result<WritableGraph> {
        // Absolute, and for a writer with links resolved: every later write (freeze, compact,
        // close) goes to this graph, whatever the process's working directory becomes and
        // wherever a link to it points then (a moved directory is refused: `check_directory`).
        let dir = match writer.then(|| std::fs::canonicalize(dir)) {
            Some(Ok(resolved)) => resolved,
            _ => crate::format::absolute(dir)?, // a missing graph: the manifest's read says so
        };
        // Read before the lock, so that a packed graph gets no `writer.lock` file.
        let manifest = refuse_packed(&dir, Manifest::read(&dir)?)?;
        let writer_lock = if writer { Some(lock_for_writing(&dir)?) } else { None };
        // A writer reads it again under the lock: a writer that closed after the read above
        // may have replaced it (a level frozen, a new base), and everything below (the strays
        // removed, the replay, the manifest this writer writes next) must start from its.
        let manifest = if writer { refuse_packed(&dir, Manifest::read(&dir)?)? } else { manifest };
        if writer {
            remove_strays(&dir, &manifest)?;
        }
        if let DeltaKind::Paged(p) = &opts.delta {
            if p.max_bytes <= opts.freeze_threshold {
                return Err(Error::invalid(format!(
                    "paged delta files of {} bytes cannot hold the freeze threshold of {} bytes",
                    p.max_bytes, opts.freeze_threshold
                )));
            }
        }
        if writer {
            reset_delta_dir(&dir, matches!(opts.delta, DeltaKind::Paged(_)))?;
        } else if matches!(opts.delta, DeltaKind::Paged(_)) {
            return Err(Error::invalid("a reader's delta is in memory"));
        }
        let base = Arc::new(Graph::open(&dir, &OpenOptions { backend: opts.backend.clone() })?);
        let mut manifest = manifest;
        let up = manifest.updates.clone().unwrap_or(UpdateState::fresh(manifest.num_vertices));
        let base_simple = match up.base_simple {
            Some(simple) => simple,
            None => {
                let simple = !has_repeated_arcs(&base);
                if let Some(u) = manifest.updates.as_mut().filter(|_| writer) {
                    u.base_simple = Some(simple);
                    manifest.write_atomic(&dir)?;
                }
                simple
            }
        };
        let levels_dir = dir.join(LEVELS_DIR);
        let directed = base.is_directed();
        let weighted = base.is_weighted();
        let levels: Vec<Arc<Level>> = up
            .levels
            .iter()
            .map(|e| Level::open(&levels_dir, e, directed, weighted).map(Arc::new))
            .collect::<Result<_>>()?;
        check_level_vertex_counts(&dir, base.num_vertices() as u64, &up, &levels)?;
        let history = LabelHistory::default();
        let label_log = LabelLog::open(&dir, up.labels_log.as_ref(), up.checkpoint_seq, &history, writer)?;
        let labels = ViewLabels { base: base.labels()?.map(Arc::new), history: Arc::new(history) };
        let mut view = View {
            base,
            levels: Arc::new(levels),
            frozen: Vec::new(),
            delta: fresh_delta(&dir, opts, directed)?,
            upto: up.checkpoint_seq,
            num_vertices: up.num_vertices,
            dedup_base: !base_simple,
            labels,
        };
        let mut vertex_history = vec![(up.checkpoint_seq, up.num_vertices)];
        let wal_dir = dir.join(WAL_DIR);
        let wal_opts = WalOptions { durability: opts.durability, segment_bytes: opts.wal_segment_bytes };
        let (kind, base_n) = (manifest.id_map, manifest.num_vertices);
        // The vertices the id log names, read when a batch written under `none` that adds
        // vertices first needs it, and again when one needs more: read after that batch's
        // frame, the log holds every name appended before the frame, even while a writer
        // appends (a reader's open).
        let mut named: Option<u64> = None;
        let replay = |seq: u64, items: &[WalItem], unsynced: bool| -> Result<Replay> {
            validate(items, view.num_vertices, weighted, "WAL replay")
                .map_err(|e| Error::format(&wal_dir, format!("batch {seq} cannot be replayed: {e}")))?;
            let n = view.num_vertices;
            let new_vertices: u64 = items
                .iter()
                .map(|it| if let WalItem::AddVertices { count } = it { *count as u64 } else { 0 })
                .sum();
            if unsynced && kind != IdMapKind::Identity && new_vertices > 0 {
                let need = n + new_vertices;
                if named.is_none_or(|k| k < need) {
                    named = Some(named_vertices(&dir, kind, base_n)?);
                }
                if named.is_some_and(|k| k < need) {
                    // Their names were appended to the id log before the frame but not fsynced
                    // first: a crash lost them (see `Replay::Missing`). Elsewhere a missing name
                    // is damage to the id log, which `AddedIds::open` reports below.
                    return Ok(Replay::Missing(format!(
                        "adds vertices {n}..{need} that {IDS_LOG} does not name"
                    )));
                }
            }
            apply(&mut view, seq, items)?;
            if view.num_vertices != n {
                vertex_history.push((seq, view.num_vertices));
            }
            Ok(Replay::Applied)
        };
        let (wal, recovery) = if writer {
            Wal::open(&wal_dir, wal_opts, fs, (up.checkpoint_seq, up.closed_seq), replay)?
        } else {
            Wal::open_for_reading(&wal_dir, wal_opts, (up.checkpoint_seq, up.closed_seq), replay)?
        };
        let next_seq = recovery.last_seq.max(up.checkpoint_seq) + 1;
        view.upto = next_seq - 1;
        if writer {
            // Before the next batch takes the number of one recovery dropped.
            super::saved_results::forget_results_after(&dir, next_seq - 1)?;
        }
        // Read after the replay, the log names every vertex of a batch replayed (their names
        // precede its frame) even while a writer appends.
        let added = AddedIds::open(&dir, kind, base_n, view.num_vertices, writer)?;
        let pending = added.pending();
        wal.before_sync(move || pending.sync());
        let names = Mutex::new(Names { kind, base: None, added });
        let state = State { view, manifest, next_seq, vertex_history, label_log, closed: false };
        let shared = Arc::new(Shared {
            dir,
            opts: opts.clone(),
            wal,
            state: Mutex::new(state),
            compacting: Mutex::new(()),
            freezing: Mutex::new(()),
            background_error: Mutex::new(None),
            names,
            feed: Feed::default(),
            writer_lock: Mutex::new(writer_lock),
            pid: crate::process::current_process(),
        });
        let flusher = match opts.durability {
            Durability::Interval(every) if writer => {
                let weak = Arc::downgrade(&shared);
                Some(IntervalFlusher::start(every, move || {
                    weak.upgrade().map(|s| s.wal.flush_written()).is_some()
                }))
            }
            _ => None,
        };
        let opened_seq = next_seq - 1;
        Ok(WritableGraph {
            shared,
            compactor: Mutex::new(None),
            flusher: Mutex::new(flusher),
            recovery,
            opened_seq,
        })
    }

    /// What WAL recovery found when the graph was opened.
    pub fn recovery(&self) -> &RecoveryReport {
        &self.recovery
    }

    /// The graph directory.
    pub fn path(&self) -> &Path {
        &self.shared.dir
    }

    /// Number of vertices now (including vertices added by batches not yet durable).
    pub fn num_vertices(&self) -> usize {
        self.shared.state.lock().view.num_vertices as usize
    }

    /// Whether the graph is directed.
    pub fn is_directed(&self) -> bool {
        self.shared.state.lock().view.base.is_directed()
    }

    /// Whether arcs carry weights.
    pub fn is_weighted(&self) -> bool {
        self.shared.state.lock().view.base.is_weighted()
    }

    /// The sequence number of the last batch applied.
    pub fn last_seq(&self) -> u64 {
        self.shared.state.lock().next_seq - 1
    }

    /// The sequence number of the last batch when the graph was opened, after recovery. A
    /// record of a later batch made by an earlier writer (a saved result) may describe a batch
    /// this graph no longer holds: recovery drops a damaged last frame of the log, and the
    /// next batch takes its number.
    pub fn opened_seq(&self) -> u64 {
        self.opened_seq
    }

    /// The sequence number of the last batch known durable in the log (a crash keeps it and
    /// every batch before it, whatever the durability mode).
    pub fn durable_seq(&self) -> u64 {
        self.shared.wal.durable_seq()
    }

    /// Number of levels over the base.
    pub fn num_levels(&self) -> usize {
        self.shared.state.lock().view.levels.len()
    }

    /// Adds the edges `edges[i]` with `weights[i]` (required to be `None` on unweighted graphs;
    /// 1.0 when `None` on weighted ones). Adding an existing edge replaces its weight. Returns the
    /// batch's sequence number once it is durable.
    pub fn add_edges(&self, edges: &[(Vertex, Vertex)], weights: Option<&[f32]>) -> Result<u64> {
        self.check_added_weights(edges.len(), weights)?;
        let items = batch_items(
            "add_edges",
            edges.iter().enumerate().map(|(i, &(src, dst))| WalItem::AddEdge {
                src,
                dst,
                weight: weights.map_or(1.0, |w| w[i]),
            }),
        )?;
        self.commit(&items, "add_edges").map(|(s, _)| s)
    }

    /// Removes the edges (missing ones are ignored). Returns the batch's sequence number.
    pub fn remove_edges(&self, edges: &[(Vertex, Vertex)]) -> Result<u64> {
        let items =
            batch_items("remove_edges", edges.iter().map(|&(src, dst)| WalItem::RemoveEdge { src, dst }))?;
        self.commit(&items, "remove_edges").map(|(s, _)| s)
    }

    /// Sets the weights of existing edges (missing edges are ignored; weighted graphs only).
    pub fn set_edge_weights(&self, edges: &[(Vertex, Vertex)], weights: &[f32]) -> Result<u64> {
        self.check_new_weights(edges.len(), weights)?;
        let items = batch_items(
            "set_edge_weights",
            edges.iter().zip(weights).map(|(&(src, dst), &weight)| WalItem::SetWeight { src, dst, weight }),
        )?;
        self.commit(&items, "set_edge_weights").map(|(s, _)| s)
    }

    /// Adds `count` isolated vertices; returns their ids. Graphs with an id map (imported with
    /// `--relabel`) name every vertex: add theirs with [`WritableGraph::add_vertices_by_id`].
    /// A count of 0 leaves nothing to write and is no batch.
    pub fn add_vertices(&self, count: u32) -> Result<Range<Vertex>> {
        let names = self.shared.names.lock();
        refuse_unnamed_vertices(&names, count as u64, "add_vertices")?;
        let items: &[WalItem] = if count == 0 { &[] } else { &[WalItem::AddVertices { count }] };
        let (_, before, due) = self.shared.commit(items, "add_vertices")?;
        drop(names);
        self.compact_if_due(due);
        Ok(before as Vertex..(before + count as u64) as Vertex)
    }

    /// Checks the weights of `add_edges` (`edges` of them, when given; weighted graphs only).
    fn check_added_weights(&self, edges: usize, weights: Option<&[f32]>) -> Result<()> {
        let Some(w) = weights else { return Ok(()) };
        if w.len() != edges {
            return Err(Error::invalid(format!("add_edges: {edges} edges but {} weights", w.len())));
        }
        if !self.is_weighted() {
            return Err(Error::invalid("add_edges: the graph is unweighted; weights are not accepted"));
        }
        Ok(())
    }

    /// Checks the weights of `set_edge_weights` (`edges` of them; weighted graphs only).
    fn check_new_weights(&self, edges: usize, weights: &[f32]) -> Result<()> {
        if weights.len() != edges {
            return Err(Error::invalid(format!(
                "set_edge_weights: {edges} edges but {} weights",
                weights.len()
            )));
        }
        if !self.is_weighted() {
            return Err(Error::invalid("set_edge_weights: the graph is unweighted"));
        }
        Ok(())
    }

    /// Sets the label of each vertex `labels[i].0` to `labels[i].1`, in order (the last one per
    /// vertex wins), as one batch; [`NO_LABEL`](crate::labels::NO_LABEL) removes a label. A
    /// graph without labels gets them (every other vertex unlabelled). Returns the batch's
    /// sequence number.
    ///
    /// Errors: a vertex out of range (naming it).
    pub fn set_labels(&self, labels: &[(Vertex, u32)]) -> Result<u64> {
        let items: Vec<WalItem> = labels.iter().map(|&(v, label)| WalItem::SetLabel { v, label }).collect();
        self.commit(&items, "set_labels").map(|(s, _)| s)
    }

    /// Removes every edge incident to each vertex of `ids` (the ids stay valid, with degree 0).
    pub fn remove_vertices(&self, ids: &[Vertex]) -> Result<u64> {
        let items: Vec<WalItem> = ids.iter().map(|&v| WalItem::RemoveVertex { v }).collect();
        self.commit(&items, "remove_vertices").map(|(s, _)| s)
    }

    /// Registers `s` with the change feed (`stream.rs`): every batch committed from now on is
    /// delivered to it before its update call returns. Returns the subscription and a snapshot
    /// of the last applied batch, the state the first delivered batch starts from.
    pub fn subscribe(&self, s: Arc<dyn ChangeSubscriber>) -> Result<(SubscriptionId, Snapshot)> {
        let st = self.shared.state.lock();
        self.shared.check_open(&st)?;
        let id = self.shared.feed.add(s);
        Ok((id, Snapshot::new(st.view.clone())))
    }

    /// Ends a subscription; returns whether it existed.
    pub fn unsubscribe(&self, id: SubscriptionId) -> bool {
        self.shared.feed.remove(id)
    }

    /// Commits `items` as one batch (mixed additions, removals, weight changes and vertex
    /// operations, in order, with the semantics of the single-kind calls). Returns the batch's
    /// sequence number.
    /// Vertices added without names are refused on graphs that keep original ids, as by
    /// [`WritableGraph::add_vertices`].
    pub fn update(&self, items: &[WalItem]) -> Result<u64> {
        let added: u64 = items
            .iter()
            .map(|i| if let WalItem::AddVertices { count } = i { *count as u64 } else { 0 })
            .sum();
        if added == 0 {
            return self.commit(items, "update").map(|(s, _)| s);
        }
        // Held through the commit, as `add_vertices` holds it, so that no vertex is named
        // meanwhile.
        let names = self.shared.names.lock();
        refuse_unnamed_vertices(&names, added, "update")?;
        let (seq, _, due) = self.shared.commit(items, "update")?;
        drop(names);
        self.compact_if_due(due);
        Ok(seq)
    }

    /// When an update call's batch is durable (with [`Durability::PerBatch`] every call returns
    /// durable, so callers need no [`WritableGraph::sync`]).
    pub fn durability(&self) -> Durability {
        self.shared.opts.durability
    }

    /// Refuses a forked child's use of its parent's writer: the parent's threads may have held
    /// the writer's locks, or been inside a log sync, when the process forked, and in the child
    /// nothing would ever release them.
    pub fn check_process(&self) -> Result<()> {
        self.shared.check_process()
    }

    /// Makes the batches up to `seq` (one already applied) durable, without waiting for the
    /// writer's state: callers holding a lock that a batch's delivery waits for may call it.
    pub fn sync_to(&self, seq: u64) -> Result<()> {
        self.check_process()?;
        self.shared.wal.sync_to(seq)
    }

    /// Makes every batch applied so far durable (for durability modes other than per batch).
    pub fn sync(&self) -> Result<()> {
        self.check_process()?;
        self.shared.wal.sync_to(self.last_seq())
    }

    /// A consistent snapshot of the graph now (see the module docs for which batches it sees).
    pub fn snapshot(&self) -> Snapshot {
        self.shared.snapshot()
    }

    /// Freezes the delta into a new level (no-op when nothing changed since the checkpoint).
    pub fn freeze(&self) -> Result<()> {
        let auto = {
            let _one = self.shared.freezing.lock();
            self.shared.freeze_held(false)?
        };
        if auto {
            self.start_background_compaction();
        }
        Ok(())
    }

    /// Merges the base and every level (after freezing the delta) into a new base and switches
    /// to it atomically. Updates may continue meanwhile (they land in later levels).
    pub fn compact(&self) -> Result<()> {
        self.wait_background()?;
        self.shared.compact()
    }

    /// Waits for background compaction and for a compaction or freeze another thread is
    /// running, makes every batch durable and closes the graph: its writer lock is released
    /// even while other handles to it live (later updates through them fail as closed).
    pub fn close(&self) -> Result<()> {
        if self.check_process().is_err() {
            // A forked child's copy: the parent closes the writer (see `check_process`).
            return Ok(());
        }
        self.wait_background()?;
        self.flusher.lock().take();
        let _compaction = self.shared.compacting.lock();
        let _freeze = self.shared.freezing.lock();
        let mut st = self.shared.state.lock();
        st.closed = true;
        let last = st.next_seq - 1;
        drop(st);
        self.shared.wal.sync_to(last)?;
        self.shared.record_closed(last)?;
        // Snapshots taken from this handle may outlive it; the next writer need not wait
        // (dropping the lock unlocks it, see `WriterLock`).
        drop(self.shared.writer_lock.lock().take());
        Ok(())
    }

    /// Commits one batch; starts background compaction when due. Returns the batch's sequence
    /// number and the vertex count before it.
    fn commit(&self, items: &[WalItem], what: &str) -> Result<(u64, u64)> {
        let (seq, before, compact_due) = self.shared.commit(items, what)?;
        self.compact_if_due(compact_due);
        Ok((seq, before))
    }

    /// Starts the automatic compaction a commit made due. Callers must not hold the names lock:
    /// with a small pool the compaction runs in this thread, and it takes that lock.
    fn compact_if_due(&self, due: bool) {
        if due {
            self.start_background_compaction();
        }
    }

    fn wait_background(&self) -> Result<()> {
        if let Some(h) = self.compactor.lock().take() {
            h.join();
        }
        match self.shared.background_error.lock().take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Starts an automatic compaction on a thread of its own (in the caller's thread when the
    /// buffer pool cannot serve two readers).
    fn start_background_compaction(&self) {
        let mut slot = self.compactor.lock();
        if slot.as_ref().is_some_and(|h| !h.is_finished()) {
            return;
        }
        if let Some(h) = slot.take() {
            h.join();
        }
        let base = self.shared.state.lock().view.base.clone();
        if base.reading_threads(Some(2)) < Some(2) {
            // A buffer pool too small for a reader beside the caller's (under four frames): a
            // background compaction would hold frames the caller's reads wait for, so it runs
            // here, in the update call that made it due. Its error is reported as a background
            // one is: the batch itself is committed.
            if let Err(e) = self.shared.compact() {
                *self.shared.background_error.lock() = Some(e);
            }
            return;
        }
        let shared = self.shared.clone();
        *slot = Some(crate::process::OwnedThread::new(std::thread::spawn(move || {
            // A failed page read is kept like any other error of the compaction.
            if let Err(e) = crate::page::catch_read_errors(|| shared.compact()).and_then(|r| r) {
                *shared.background_error.lock() = Some(e);
            }
        })));
    }
}

impl Shared {
    /// Refuses to write into `dir` when it is no longer the directory this handle opened and
    /// locked (renamed, or replaced by another graph, since): its lock file at `dir` must be
    /// the file this handle holds. The batches already committed are in the opened directory.
    fn check_directory(&self) -> Result<()> {
        let held = self.writer_lock.lock();
        let Some(file) = held.as_ref() else { return Ok(()) };
        if file.is_at(&self.dir.join(WRITER_LOCK)) {
            return Ok(());
        }
        Err(Error::invalid(format!(
            "{}: the graph directory was moved or replaced since this handle opened it; \
             close the handle and open the graph where it is now",
            self.dir.display()
        )))
    }

    fn check_open(&self, st: &State) -> Result<()> {
        if st.closed {
            return Err(Error::invalid(format!(
                "{}: the graph is closed (a batch that is logged but fails to be recorded in the \
                 delta closes it: reopen the graph, which applies every logged batch)",
                self.dir.display()
            )));
        }
        self.check_process()
    }

    /// See [`WritableGraph::check_process`].
    fn check_process(&self) -> Result<()> {
        if crate::process::current_process() != self.pid {
            return Err(Error::invalid(format!(
                "{}: the graph was opened for updates by process {}; a forked child must open it itself (after the parent closed it)",
                self.dir.display(),
                self.pid
            )));
        }
        Ok(())
    }

    /// Logs, applies and commits one batch; returns its sequence number, the vertex count
    /// before it, and whether automatic compaction is due (after a freeze it triggered when the
    /// delta passed its threshold).
    fn commit(&self, items: &[WalItem], what: &str) -> Result<(u64, u64, bool)> {
        let mut frozen_for_room = false;
        let (seq, before, freeze, feed) = loop {
            let mut st = self.state.lock();
            self.check_open(&st)?;
            let before = st.view.num_vertices;
            validate(items, before, st.view.base.is_weighted(), what)?;
            if items.is_empty() {
                return Ok((st.next_seq - 1, before, false));
            }
            let seq = st.next_seq;
            let log = self.feed.start().map(|l| BatchChanges { seq, ..l });
            let mut plan = plan(&st.view, items, log, what)?;
            let ops = plan.sides[0].len() + plan.sides[1].len();
            // Refused before anything is recorded or logged when the delta cannot take it
            // (after one freeze, which starts an empty delta).
            let room = (0..2).all(|side| st.view.delta[side].has_room(&plan.sides[side]));
            if !room {
                drop(st);
                if !frozen_for_room {
                    let _one = self.freezing.lock();
                    self.freeze_held(false)?;
                    frozen_for_room = true;
                    continue;
                }
                return Err(Error::invalid(format!(
                    "{what}: the batch does not fit in an empty paged delta ({ops} arc operations); \
                     split it or raise the delta's max_bytes"
                )));
            }
            let recording: u64 =
                (0..2).map(|side| st.view.delta[side].record_memory(plan.sides[side].len())).sum();
            crate::memory::ensure_available(recording, || {
                format!("{what}: recording a batch of {ops} arc operations in the delta (split the batch)")
            })?;
            // Checked before the batch is logged (the memory check above, the room check before
            // it). Logged first: a failed append leaves nothing recorded and the graph usable. Then
            // recorded in the delta (with the room checked above, only an I/O error of a paged
            // delta's pool fails here): the batch is in the log but only partly recorded, so the
            // graph closes, and a reopen replays the logged batch whole.
            self.wal.append(seq, items)?;
            st.next_seq += 1;
            if let Err(e) = record(&mut st.view, seq, &plan) {
                st.closed = true;
                return Err(e);
            }
            st.view.upto = seq;
            if st.view.num_vertices != before {
                let n = st.view.num_vertices;
                st.vertex_history.push((seq, n));
            }
            let freeze = st.view.delta_bytes() > self.opts.freeze_threshold;
            let feed = plan.log.take().map(|c| self.feed.ready(c, &st.view));
            break (seq, before, freeze, feed);
        };
        self.wal.commit(seq)?;
        if let Some(ready) = feed {
            ready.deliver();
        }
        let mut compact_due = false;
        if freeze {
            // One freeze at a time: when one is running, its successor picks up what is left.
            if let Some(_one) = self.freezing.try_lock() {
                // The batch is committed whatever happens here: a failed freeze is retried by the
                // next batch and reported by the next `compact`/`close`.
                match self.freeze_held(true) {
                    Ok(due) => compact_due = due,
                    Err(e) => *self.background_error.lock() = Some(e),
                }
            }
        }
        Ok((seq, before, compact_due))
    }

    fn snapshot(&self) -> Snapshot {
        let st = self.state.lock();
        let applied = st.next_seq - 1;
        let upto = match self.opts.durability {
            Durability::PerBatch => applied.min(self.wal.durable_seq()),
            _ => applied,
        };
        let mut view = st.view.clone();
        view.upto = upto;
        let i = st.vertex_history.partition_point(|&(s, _)| s <= upto);
        view.num_vertices = st.vertex_history[i.saturating_sub(1)].1;
        Snapshot::new(view)
    }

    /// Freezes the delta as of the last applied batch into a level (with `only_if_over`, only
    /// when it still passes the threshold); returns whether automatic compaction is due. The
    /// caller holds `freezing`.
    ///
    /// 1. Under the state lock: rotate the WAL (every applied batch durable), move the delta to
    ///    the frozen list (still read by snapshots), start a fresh delta, reserve a file id.
    /// 2. Without the lock (writers continue): write the level from every frozen delta.
    /// 3. Under the state lock: record the level and the checkpoint in the manifest (atomic
    ///    rewrite), swap the frozen deltas for the level; then delete covered WAL segments.
    ///
    /// A failure leaves the frozen deltas in place (and the WAL segments): the next freeze
    /// includes them.
    /// Records in the manifest that the batches up to `last` are durable as this writer closes
    /// (`UpdateState::closed_seq`), so that an open finding the log cut short before them
    /// refuses it instead of dropping them as a crash's torn tail. A reader's handle, a closed
    /// graph with nothing new, and a directory moved since the open (its manifest is not this
    /// handle's to write) record nothing.
    fn record_closed(&self, last: u64) -> Result<()> {
        if self.writer_lock.lock().is_none() || self.check_directory().is_err() {
            return Ok(());
        }
        let mut st = self.state.lock();
        if last <= st.manifest.updates.as_ref().map_or(0, |u| u.closed_seq) {
            return Ok(());
        }
        let mut manifest = st.manifest.clone();
        update_state(&mut manifest, st.view.dedup_base).closed_seq = last;
        manifest.write_atomic(&self.dir)?;
        st.manifest = manifest;
        Ok(())
    }

    fn freeze_held(&self, only_if_over: bool) -> Result<bool> {
        let (frozen, seq, n, segment, id, directed, weighted) = {
            let mut st = self.state.lock();
            self.check_open(&st)?;
            self.check_directory()?;
            let seq = st.next_seq - 1;
            let bytes = st.view.delta_bytes();
            if only_if_over && bytes <= self.opts.freeze_threshold {
                return Ok(false);
            }
            let dedup_base = st.view.dedup_base;
            let up = update_state(&mut st.manifest, dedup_base);
            if seq == up.checkpoint_seq {
                return Ok(false);
            }
            let id = up.next_file_id;
            up.next_file_id += 1;
            // Everything applied becomes durable in the WAL first, so no snapshot taken from now
            // on can miss a batch that the level contains.
            let segment = self.wal.rotate()?;
            let directed = st.view.base.is_directed();
            let old = std::mem::replace(&mut st.view.delta, fresh_delta(&self.dir, &self.opts, directed)?);
            st.view.frozen.push(old);
            let weighted = st.view.base.is_weighted();
            (st.view.frozen.clone(), seq, st.view.num_vertices, segment, id, directed, weighted)
        };
        let mut sides: Vec<SideOps> = Vec::new();
        for side in 0..if directed { 2 } else { 1 } {
            sides.push(frozen_side_ops(&frozen, side, seq)?);
        }
        let name = format!("{id:08}.level");
        let levels_dir = self.dir.join(LEVELS_DIR);
        let entry = write_level(&levels_dir, &name, seq, n, weighted, &sides)?;
        let level = Arc::new(Level::open(&levels_dir, &entry, directed, weighted)?);
        let mut st = self.state.lock();
        let mut manifest = st.manifest.clone();
        let up = manifest.updates.as_mut().expect("reserved in step 1");
        // The label changes the checkpoint covers reach the label log before the manifest
        // names it; the WAL segments holding them are deleted only after the switch.
        let State { label_log, view, .. } = &mut *st;
        label_log.append(&view.labels.history, seq, id)?;
        up.labels_log = label_log.entry();
        up.levels.push(entry);
        up.checkpoint_seq = seq;
        up.num_vertices = n;
        self.check_directory()?;
        manifest.write_atomic(&self.dir)?;
        st.manifest = manifest;
        let mut levels = (*st.view.levels).clone();
        levels.push(level);
        st.view.levels = Arc::new(levels);
        st.view.frozen.drain(..frozen.len());
        let mut history = vec![(seq, n)];
        history.extend(st.vertex_history.iter().copied().filter(|&(s, _)| s > seq));
        st.vertex_history = history;
        let due = self.opts.auto_compact_levels.is_some_and(|k| st.view.levels.len() > k);
        drop(st);
        self.wal.remove_segments_before(segment)?;
        Ok(due)
    }
}

/// A batch's items, refused (before they are allocated) when they are more than a batch may
/// hold or more than the machine can hold; `what` names the caller in the error.
fn batch_items(what: &str, items: impl ExactSizeIterator<Item = WalItem>) -> Result<Vec<WalItem>> {
    let n = items.len();
    check_batch_len(n, what)?;
    let mut out = Vec::new();
    crate::memory::try_reserve(&mut out, n, || format!("{what}: a batch of {n} items"))?;
    out.extend(items);
    Ok(out)
}
