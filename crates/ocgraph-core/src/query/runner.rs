//! Answering a query stream: in order with one client, or with N concurrent clients taking the
//! next query from a shared counter; per-query latency, throughput, and an optional advisor
//! thread fed by the query threads (see [`super::prefetch`]).
//!
//! Queries: an edge query returns the vertex's out-neighbour list; friends-of-friends and
//! shortest paths are answered by an [`Answerer`] (the CLI and Python bindings pass the
//! `ocgraph-algo` kernels). What the query threads push into the ring: the query vertex for
//! edge and friends-of-friends queries (its neighbours' lists are what comes next), and every
//! vertex a shortest-path search expands (its neighbours form the next level). A push is one
//! `fetch_add` and one store: the query path never blocks or allocates for the advisor.
//!
//! Answers file (`write_answers`), text, one line per query in query order after a header line
//! `# ocgraph answers v1 kind=<kind> count=<N>`:
//! - edge queries and friends-of-friends: `<i>` then the vertex ids, sorted, space-separated;
//! - shortest path: `<i> <hops>` then the path's vertices from source to target; `<i> -1` when
//!   the target is unreachable.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use serde::Serialize;

use super::prefetch::advisor::{self, AdvisorConfig, LOCK_RESERVE};
use super::prefetch::{omniscient, AdvisorStats, PrefetchMode};
use super::ring::Ring;
use super::timing::{Checkpoints, Histogram, Latency};
use super::workload::{QueryKind, Workload};
use crate::error::{Error, Result};
use crate::format::WeightRange;
use crate::graph::{Adjacency, Graph, Vertex};
use crate::page::{carry_read_errors, Advice, Slice};

/// The answer to one query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Edge query or friends-of-friends: sorted vertex ids.
    Vertices(Vec<Vertex>),
    /// Shortest path: the path from source to target, `None` when unreachable.
    Path(Option<Vec<Vertex>>),
}

/// The kernels that answer friends-of-friends and shortest-path queries.
pub trait Answerer: Sync {
    /// Vertices at distance exactly 2 from `v`, sorted.
    fn friends_of_friends<A: Adjacency>(&self, g: &A, v: Vertex) -> Result<Vec<Vertex>>;

    /// A fewest-hops path from `s` to `t` over `out` (`in_`: the in-edges), or `None`.
    fn shortest_path<O: Adjacency, I: Adjacency>(
        &self,
        out: &O,
        in_: &I,
        s: Vertex,
        t: Vertex,
    ) -> Result<Option<Vec<Vertex>>>;
}

/// How to run a workload.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The prefetcher beside the queries.
    pub prefetch: PrefetchMode,
    /// Concurrent query threads (1: the stream in order).
    pub clients: usize,
    /// Keep every answer in the report.
    pub keep_answers: bool,
    /// Ring slots (rounded up to a power of two).
    pub ring_capacity: usize,
    /// Ring entries this many queries behind the newest are skipped (default: `4 * clients`
    /// for edge queries, `clients` for the others; see [`default_max_stale`]).
    pub max_stale: Option<u32>,
    /// Queries the omniscient prefetcher advises ahead at most (default by kind); it also stops
    /// where the advised queries would fill a quarter of `memory`.
    pub lookahead: Option<usize>,
    /// Bytes of memory the graph's pages get: the pool's capacity, or the page cache's cap for
    /// mmap (`None`: the pool's capacity when the graph was opened with the pool, else
    /// unbounded). The neighbourhood prefetcher counts a prediction only while its pages can
    /// still be in memory, and reads the vertex table only when it fits (see
    /// [`neighbourhood`](super::prefetch::neighbourhood)); the omniscient one bounds its
    /// lookahead by it.
    pub memory: Option<u64>,
    /// Where protection locks pages (mmap), the share of `memory` the neighbourhood prefetcher
    /// leaves out of its plans (default [`LOCK_RESERVE`]: for a memory limit that covers the
    /// process's own pages too; 0 when `memory` is the graph's pages' alone).
    pub lock_reserve: f64,
    /// Before the run, advise [`Advice::Random`] on the graph's offsets and neighbour files
    /// (default on, whatever the prefetcher, so every mode runs on the same backend settings):
    /// no kernel read-ahead on mmap, no read-ahead in the pool. Random queries on a graph
    /// larger than memory otherwise read mostly what read-ahead guesses (seed 000's setting;
    /// on kron22 at 10% memory, read-ahead made 5000 edge queries read 12 GB on the pool).
    /// [`Advice::Normal`] is restored after the run. Not on a graph opened with an advice of
    /// its own ([`Graph::advice`]): the user's choice stands.
    pub random_advice: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            prefetch: PrefetchMode::None,
            clients: 1,
            keep_answers: false,
            ring_capacity: 4096,
            max_stale: None,
            lookahead: None,
            memory: None,
            lock_reserve: LOCK_RESERVE,
            random_advice: true,
        }
    }
}

/// The outcome of [`run_queries`].
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    /// Workload kind name.
    pub kind: &'static str,
    /// Prefetcher name.
    pub prefetch: &'static str,
    /// Query threads.
    pub clients: usize,
    /// Queries answered.
    pub queries: usize,
    /// Wall time of the whole stream.
    pub seconds: f64,
    /// Queries per second.
    pub queries_per_second: f64,
    /// Per-query latency.
    pub latency: Latency,
    /// `(n, seconds)`: when the first `n` queries had all been answered, for `n` = 1, 2, 5, 10,
    /// 20, 50, ... up to the query count, and the query count itself (time against `n`).
    pub progress: Vec<(usize, f64)>,
    /// What the advisor did.
    pub advisor: AdvisorStats,
    /// The answers, in query order, when asked for.
    #[serde(skip)]
    pub answers: Option<Vec<Answer>>,
}

/// Reads neighbour lists from `inner` and pushes every vertex whose list is read into the ring.
struct Observed<'a, A> {
    inner: A,
    ring: &'a Ring,
    epoch: u32,
}

impl<A: Adjacency> Adjacency for Observed<'_, A> {
    fn num_vertices(&self) -> usize {
        self.inner.num_vertices()
    }
    fn num_arcs(&self) -> u64 {
        self.inner.num_arcs()
    }
    fn degree(&self, v: Vertex) -> usize {
        self.inner.degree(v)
    }
    fn neighbors(&self, v: Vertex) -> Slice<'_, Vertex> {
        self.ring.push(v, self.epoch);
        self.inner.neighbors(v)
    }
    fn weights(&self, v: Vertex) -> Option<Slice<'_, f32>> {
        self.inner.weights(v)
    }
    fn is_weighted(&self) -> bool {
        self.inner.is_weighted()
    }
    fn weight_range(&self) -> Option<WeightRange> {
        self.inner.weight_range()
    }
    fn memory_budget(&self) -> Option<u64> {
        self.inner.memory_budget()
    }
}

/// The default staleness bound of ring entries ([`RunOptions::max_stale`]) for `clients`
/// clients sending `kind` queries. An edge-query visit foretells the next queries (the stream
/// draws from recently seen vertices), so visits up to 4 queries old per client are acted on;
/// a friends-of-friends or shortest-path visit serves only its own query, so only the queries
/// that may still be running (one per client) are: advice for a finished query loads nothing
/// it needs (with the advisor's 1 ms batches, a batch of road-usroads FoF queries, ~80 µs each,
/// holds about a dozen, all but the newest finished).
pub fn default_max_stale(kind: QueryKind, clients: usize) -> u32 {
    match kind {
        QueryKind::Edge => 4 * clients as u32,
        QueryKind::FriendsOfFriends | QueryKind::ShortestPath => clients as u32,
    }
}

/// Answers every query of `w` on `g` (see the module docs); `answerer` runs the kernels.
///
/// Errors: the workload was made for a graph of another size, `clients == 0`, or a kernel error.
pub fn run_queries<Q: Answerer>(
    g: &Graph,
    w: &Workload,
    opts: &RunOptions,
    answerer: &Q,
) -> Result<RunReport> {
    w.check_graph(g.path(), g.num_vertices())?;
    if opts.clients == 0 {
        return Err(Error::invalid("at least one client is needed"));
    }
    let ring = Ring::new(opts.ring_capacity);
    let observe = matches!(opts.prefetch, PrefetchMode::Neighbourhood | PrefetchMode::Sequential);
    let started = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let cfg = AdvisorConfig {
        mode: opts.prefetch,
        max_stale: opts.max_stale.unwrap_or_else(|| default_max_stale(w.kind, opts.clients)),
        lookahead: opts.lookahead.unwrap_or_else(|| omniscient::default_lookahead(w.kind)),
        memory_pages: opts.memory.or(g.memory_budget()).map(|m| m / 4096),
        lock_reserve: opts.lock_reserve,
    };
    let random_advice = opts.random_advice && g.advice() == Advice::Normal;
    if random_advice {
        g.out().advise_files(Advice::Random);
        g.in_().advise_files(Advice::Random);
    }
    // The neighbourhood prefetcher's second part: a bounds read that misses brings the page
    // where the list is predicted to start (see `Graph::predict_list_starts`). The omniscient
    // bound does it too, so that it still bounds what the neighbourhood prefetcher gains.
    g.predict_list_starts(matches!(opts.prefetch, PrefetchMode::Neighbourhood | PrefetchMode::Omniscient));
    let checkpoints = Checkpoints::new(w.len());
    let t0 = Instant::now();
    let shared = Shared {
        g,
        w,
        ring: &ring,
        observe,
        started: &started,
        keep: opts.keep_answers,
        answerer,
        checkpoints: &checkpoints,
        t0,
    };
    let shared = &shared;
    let (results, advisor) = std::thread::scope(|s| {
        let advisor = (opts.prefetch != PrefetchMode::None)
            .then(|| s.spawn(|| carry_read_errors(|| advisor::run(g.out(), &ring, w, &started, &stop, cfg))));
        let clients: Vec<_> =
            (0..opts.clients).map(|_| s.spawn(move || carry_read_errors(|| client(shared)))).collect();
        let joined: Vec<_> = clients.into_iter().map(|h| h.join()).collect();
        // The advisor stops before a client's panic goes on: the scope waits for the advisor,
        // which runs until told to stop (a panic before this line hung the call for good).
        stop.store(true, Ordering::Release);
        let stats = advisor.map(|h| h.join());
        // A client's panic (a failed read: the file's error as its message) goes on as it was,
        // so that the caller reports it as such.
        let results: Vec<_> =
            joined.into_iter().map(|r| r.unwrap_or_else(|p| std::panic::resume_unwind(p))).collect();
        let stats = stats.map(|r| r.unwrap_or_else(|p| std::panic::resume_unwind(p))).unwrap_or_default();
        (results, stats)
    });
    let seconds = t0.elapsed().as_secs_f64();
    g.predict_list_starts(false);
    if random_advice {
        // Back to the default access pattern for whatever runs on this graph next (before a
        // client's error is returned too).
        g.out().advise_files(Advice::Normal);
        g.in_().advise_files(Advice::Normal);
    }
    let mut latency = Histogram::default();
    let mut answers: Vec<Option<Answer>> = if opts.keep_answers { vec![None; w.len()] } else { Vec::new() };
    for r in results {
        let (times, ans) = r?;
        latency.merge(&times);
        for (i, a) in ans {
            answers[i] = Some(a);
        }
    }
    let answers =
        opts.keep_answers.then(|| answers.into_iter().map(|a| a.expect("every query answered")).collect());
    Ok(RunReport {
        kind: w.kind.name(),
        prefetch: opts.prefetch.name(),
        clients: opts.clients,
        queries: w.len(),
        seconds,
        queries_per_second: if seconds > 0.0 { w.len() as f64 / seconds } else { 0.0 },
        latency: latency.summary(),
        progress: checkpoints.progress(),
        advisor,
        answers,
    })
}

/// One client's latencies and `(index, answer)` pairs (completions go to the shared
/// [`Checkpoints`]).
type ClientResult = Result<(Histogram, Vec<(usize, Answer)>)>;

/// What every query thread shares.
struct Shared<'a, Q> {
    g: &'a Graph,
    w: &'a Workload,
    ring: &'a Ring,
    /// Push visited vertices into the ring.
    observe: bool,
    /// Queries begun so far (the next query index).
    started: &'a AtomicUsize,
    /// Keep the answers.
    keep: bool,
    answerer: &'a Q,
    /// Where completions are recorded.
    checkpoints: &'a Checkpoints,
    t0: Instant,
}

impl<Q> Clone for Shared<'_, Q> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<Q> Copy for Shared<'_, Q> {}

/// One query thread: takes the next query until the stream is done.
fn client<Q: Answerer>(sh: &Shared<'_, Q>) -> ClientResult {
    let Shared { g, w, ring, observe, started, keep, answerer, checkpoints, t0 } = *sh;
    let mut lat = Histogram::default();
    let mut answers = Vec::new();
    loop {
        let i = started.fetch_add(1, Ordering::AcqRel);
        if i >= w.len() {
            return Ok((lat, answers));
        }
        let q = w.query(i);
        let t = Instant::now();
        let epoch = ring.begin_epoch();
        let answer = match w.kind {
            QueryKind::Edge => {
                let out = g.out();
                let n = out.neighbors(q[0]);
                // Pushed once the list is in memory: the advisor predicts from it without
                // loading it (friends-of-friends push first: their advice is for this query).
                if observe {
                    ring.push(q[0], epoch);
                }
                if keep {
                    Answer::Vertices(n.to_vec())
                } else {
                    // Touch the list as a client would (the answer is not kept).
                    std::hint::black_box(n.iter().fold(0u32, |a, &x| a ^ x));
                    Answer::Vertices(Vec::new())
                }
            }
            QueryKind::FriendsOfFriends => {
                if observe {
                    ring.push(q[0], epoch);
                }
                Answer::Vertices(answerer.friends_of_friends(&g.out(), q[0])?)
            }
            QueryKind::ShortestPath => {
                let (s, t) = (q[0], q[1]);
                if observe {
                    let out = Observed { inner: g.out(), ring, epoch };
                    let in_ = Observed { inner: g.in_(), ring, epoch };
                    Answer::Path(answerer.shortest_path(&out, &in_, s, t)?)
                } else {
                    Answer::Path(answerer.shortest_path(&g.out(), &g.in_(), s, t)?)
                }
            }
        };
        let end = Instant::now();
        lat.record((end - t).as_nanos() as u64);
        checkpoints.done(i, (end - t0).as_nanos() as u64);
        if keep {
            answers.push((i, answer));
        }
    }
}

/// Writes `answers` to `path` in the answers format (see the module docs).
pub fn write_answers(path: &Path, kind: QueryKind, answers: &[Answer]) -> Result<()> {
    let io = |e| Error::io(path, "write", e);
    let mut out = crate::format::OutputFile::create(path)?;
    writeln!(out, "# ocgraph answers v1 kind={} count={}", kind.name(), answers.len()).map_err(io)?;
    for (i, a) in answers.iter().enumerate() {
        write!(out, "{i}").map_err(io)?;
        let list = match a {
            Answer::Vertices(v) => v.as_slice(),
            Answer::Path(None) => {
                writeln!(out, " -1").map_err(io)?;
                continue;
            }
            Answer::Path(Some(p)) => {
                write!(out, " {}", p.len() - 1).map_err(io)?;
                p.as_slice()
            }
        };
        for v in list {
            write!(out, " {v}").map_err(io)?;
        }
        writeln!(out).map_err(io)?;
    }
    out.commit()
}
