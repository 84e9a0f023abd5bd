//! The neighbourhood prefetcher (seed 000): for a visited vertex `v`, advise the neighbour
//! lists of some of `v`'s neighbours, highest degree first, each cut to a bounded prefix.
//!
//! Where the vertex table takes at most [`TABLE_KEEP_SHARE`] of a bounded memory, the whole table is loaded and protected from eviction ([`KeptTable`],
//! for edge and friends-of-friends queries; edge queries then do nothing else): a uniformly
//! picked vertex needs its table page, and a table page is worth more than a list page (see
//! [`super::table`]).
//!
//! Which neighbours, by query kind (the advisor knows what kind of query the clients send):
//! - friends-of-friends: the query reads every neighbour's list right after `v`'s, so the
//!   first [`FOF_NEIGHBOURS`] neighbours are advised, each list cut to [`FOF_PREFIX_BYTES`].
//!   Only from what is in memory: `v`'s list and the neighbours' bounds are peeked at, and a
//!   neighbour whose bounds are not in memory gets them advised rather than read. Reading them
//!   (a miss in the advisor, on the query's heels) had made road-usroads (pool at 10%, 50K
//!   queries of ~90 µs, its vertex table 4.4 times the memory) 4-5% slower than no
//!   prefetcher; peeking, it is level (hand-run, `bench/queries/compare.py`). Where the table is kept the
//!   bounds are always in memory and nothing changes;
//! - edge queries: the alpha-recency stream draws the next vertex from a FIFO of recently seen
//!   vertices, which `v`'s neighbours enter *in list order*, so the ones that stay longest are
//!   the *last* ones of `v`'s list. Where the vertex table fits, two parts:
//!   - **the vertex table of the neighbourhood**: the advisor reads the list bounds (offsets
//!     entries) of the last [`VERTEX_TABLE_NEIGHBOURS`] neighbours, the first half of their
//!     adjacency, always. A next query from the FIFO needs its vertex's entry before its
//!     list, and these reads keep those pages in memory: on the pool a read of a resident
//!     page counts as a use for the replacement policy, on mmap it is a plain load, and a
//!     missing page is read by the advisor, off the queries' path. They are reads rather than
//!     `WillNeed` advice because advice on a resident page does nothing (and on mmap would
//!     cost a system call per entry). Under CLOCK the pages of kron22's vertex table (8K of
//!     them, each used by a query every few thousand queries) were often evicted between
//!     uses. Hand-run on kron22, pool at 10%, 100K queries, two runs each: with these reads the
//!     read calls (queries' and advisor's) fell from 130K to 104K at alpha 0.1 and from 73K
//!     to 61K at alpha 1, and the runs took 7.9-8.0 s against 10.4-11.7 s with no prefetcher
//!     (alpha 0.1) and 4.1-4.3 s against 6.2-6.8 s (alpha 1). They are read only where
//!     memory is unbounded: with a bound, the whole table is protected where it fits
//!     ([`KeptTable`]; kron22 at 10%, 100K queries: 1.22x, 1.43x and 1.28x faster than none
//!     at alpha 0.1, 0.5 and 1, against 0.98x, 1.15x and 1.14x with these reads);
//!   - **lists, where the vertex table is read**: the last [`EDGE_NEIGHBOURS`] are advised
//!     (one page of each list). Edge-query prediction is checked against the stream: every
//!     visited vertex is looked up among the recently predicted ones, and an exponential
//!     average of that hit rate gates this I/O: below [`MIN_HIT_RATE`] the advisor keeps
//!     predicting but advises no list, so a stream with no locality (alpha = 1) costs no list
//!     reads. The threshold is the break-even: each visit advises 16 pages, a hit saves one or two demand
//!     reads, and a background read costs the queries about a tenth of a demand read (device
//!     time, evictions). On kron22 predictions hit ~5% of edge queries at alpha = 0.1, ~3% at
//!     0.5 and none at 1 (`bench/queries/predictability.py`), so the lists are rarely advised there;
//!   - **the recent neighbourhood, where the vertex table is neither read nor kept** (it does
//!     not fit in [`TABLE_KEEP_SHARE`] of the memory): a
//!     [`Window`] of the last [`WINDOW`] vertices seen (each visited vertex, then its
//!     neighbours), each vertex-table page weighed by how many of them have their entry on it.
//!     Every [`KEEP_EVERY`] visits the heaviest pages (1/[`KEEP_SHARE`] of the memory, at most
//!     [`MAX_KEEP`], each holding at least [`MIN_WEIGHT`] of the window) are kept in memory: a
//!     resident one gets a use counted for the replacement policy
//!     ([`Direction::keep_bounds_page`]: no request, no load), a missing one is advised. Why: a
//!     next query drawn from the recent vertices needs its entry first, on a page with
//!     probability proportional to that page's weight, and the pool's CLOCK evicts such pages
//!     between their uses (a page enters with its reference bit clear). Hand-run on the pool
//!     at 10% (`bench/queries/compare.py`): 14-16% fewer demand misses on
//!     ca-AstroPh at alpha 0.1 and 0.5, 4-5% on road-usroads and cnr-2000 at alpha 0.5.
//!     The window weighs the pages of lists too (the page each vertex's list starts on, where
//!     its bounds are in memory: [`Direction::cached_list_page`]). While the window's pages
//!     (bounds and lists) do not all fit in memory, the rule changes: every
//!     [`PROTECT_EVERY`] visits its pages of both kinds are ranked together by weight, and the
//!     heaviest, [`PROTECT_SHARE`] of the memory's pages, are *protected* from eviction
//!     ([`Sink::protect`]: eviction passes over them while they are resident; a missing one is
//!     protected once a query's miss loads it, none is loaded or advised); the pages that left
//!     that set are protected no more. This leaves the replacement policy only the lighter
//!     pages to evict: close to evicting the resident page of least weight. There CLOCK must choose among the neighbourhood's pages
//!     and chooses worse than the weights (road-usroads at 10%, alpha 0.1: CLOCK hits 75% of
//!     requests, Belady's optimum 87%), and loading missing pages evicts other pages of the
//!     window. Replayed (`bench/queries/window_replay.py --resident`, 20K queries): pages read
//!     per query on road-usroads at 10% fall 15% at alpha 0.1 and 7% at 0.5 against CLOCK;
//!     the rule before it (half the memory's bounds pages kept or advised, a quarter's list
//!     pages kept) saved 4% and 2%, as its background loads took back what its demand misses
//!     saved. Protection rather than a use counted: the advisor wakes only every
//!     [`KEEP_IDLE_SLEEP`] (see [`super::advisor`]), and a reference bit set in one batch is
//!     cleared by the clock hand before the next; counting uses, a 1M-query run
//!     read 0.3% fewer bytes than none at alpha 0.5 (road-usroads, pool at 10%). Where the window fits (cnr-2000 at 10%), keeping list pages too cost 3-6% more
//!     misses than keeping the bounds pages alone, so the first rule stays. The
//!     advisor takes `v`'s neighbours from its list only if it is still in memory
//!     ([`Direction::cached_neighbors_part`]: a peek, which neither loads a page nor counts
//!     as a use; the query thread pushes `v` once it has read the list). Reading it as a query
//!     does had cost road-usroads (pool at 10% = 57 frames) 9% more misses: the
//!     advisor, lagging a few queries, reloaded evicted lists. Gated like the lists above, on
//!     the share of visits found in the window ([`MIN_WINDOW_RATE`]): a uniform stream
//!     (alpha = 1) keeps nothing;
//! - shortest paths: every expanded vertex, the first [`EDGE_NEIGHBOURS`] neighbours.
//!
//! Where lists are advised, the chosen neighbours' offsets are advised first (so those reads
//! overlap), then their lists.

use std::time::Duration;

use super::advisor::IDLE_SLEEP;
use super::table::KeptTable;
use super::window::Window;
use super::Sink;
use crate::graph::{Direction, Vertex};
use crate::query::workload::QueryKind;

/// Neighbours advised per visited vertex for edge queries and shortest paths.
pub const EDGE_NEIGHBOURS: usize = 8;
/// Neighbours whose list bounds (vertex-table entries) the advisor reads per visited vertex for
/// edge queries: the last ones of its list. (Hand-run on kron22, alpha 0.1 and 1, 100K
/// queries on the pool at 10%: 128 to 512 were all faster than none; 512 read the fewest
/// pages; 1024 read a little fewer still but cost the advisor as much CPU as a query at
/// alpha 1.)
pub const VERTEX_TABLE_NEIGHBOURS: usize = 512;
/// Up to this share of a bounded memory, the whole vertex table is kept in memory
/// ([`KeptTable`]), for edge and friends-of-friends queries (both start at a uniformly picked
/// vertex). (At 10%: kron22's table is 0.61 of the memory, ca-AstroPh's 0.80, cnr-2000's
/// 0.84; road-usroads' 4.4 does not fit.) Not for shortest paths: on cnr-2000 (20 pairs at
/// 10%) it doubled their bytes read and time (hand-run, `bench/queries/compare.py`).
pub const TABLE_KEEP_SHARE: f64 = 0.875;
/// Bytes advised per neighbour list for edge queries and shortest paths (one 4 KiB page:
/// 1024 plain ids, or about twice as many packed ones).
pub const PREFIX_BYTES: u64 = 4096;
/// Neighbours advised per friends-of-friends query vertex.
pub const FOF_NEIGHBOURS: usize = 32;
/// Bytes advised per neighbour list for friends-of-friends.
pub const FOF_PREFIX_BYTES: u64 = 4096;
/// Edge-query hit rate (visited vertices that were predicted) below which nothing is advised.
pub const MIN_HIT_RATE: f64 = 0.10;
/// The advisor's idle sleep while it protects the window's pages (see
/// [`Neighbourhood::idle_sleep`]). What it protects comes in one batch per sleep and must keep
/// pace with the misses (road-usroads at 10%: 57 frames, 7 of them left unprotected, ~30
/// misses per millisecond): a heavy page a miss brings in is protected only at the next batch.
/// Hand-run, 200K edge queries: misses fell 12.6% and 6.7% against none at alpha 0.1 and 0.5
/// with 250 µs, 6.6% and 3.3% with 1 ms (`bench/queries/compare.py`).
pub const KEEP_IDLE_SLEEP: Duration = Duration::from_micros(250);
/// Vertices in the recent-neighbourhood window (the seed's FIFO held 1000).
pub const WINDOW: usize = 1024;
/// The heaviest pages of the window are kept every this many visits.
pub const KEEP_EVERY: u64 = 4;
/// Pages kept: this share of the memory's pages (1/`KEEP_SHARE`) ...
pub const KEEP_SHARE: u64 = 2;
/// ... and at most this many.
pub const MAX_KEEP: usize = 128;
/// While the window's pages do not all fit in memory, its heaviest pages (both kinds) are
/// protected from eviction, as many as this share of the memory's pages ...
pub const PROTECT_SHARE: f64 = 0.875;
/// ... every this many visits.
pub const PROTECT_EVERY: u64 = 2;
/// A page is kept only when at least this many of the window's vertices read it.
pub const MIN_WEIGHT: u32 = 2;
/// Share of visits found in the window below which nothing is kept.
pub const MIN_WINDOW_RATE: f64 = 0.25;
/// Weight of one visit in the hit-rate average.
const RATE_WEIGHT: f64 = 1.0 / 64.0;
/// Slots of the table of recently predicted vertices (direct-mapped).
const PREDICTED: usize = 1024;

/// The neighbourhood policy's state.
pub struct Neighbourhood {
    kind: QueryKind,
    /// Recently predicted vertices (`Vertex::MAX`: empty slot).
    predicted: Box<[Vertex]>,
    /// Visits so far.
    visits: u64,
    /// Exponential average of the edge-query hit rate (starts at 0: advice begins once
    /// predictions have hit).
    rate: f64,
    scratch: Vec<(u64, u64)>,
    picked: Vec<Vertex>,
    /// Visited vertices that had been predicted (or were in the recent-neighbourhood window).
    pub hits: u64,
    /// Visited vertices for which nothing was advised or kept (hit rate too low).
    pub gated: u64,
    /// Vertex-table entries (list bounds) read for edge queries.
    pub entries_read: u64,
    /// Edge-query and friends-of-friends visits that advised nothing: the visited vertex's list
    /// was no longer (or not yet) in memory (see [`Direction::cached_neighbors_part`]).
    pub uncached: u64,
    /// Whether edge queries read the vertex table of the neighbourhood (memory is unbounded).
    read_table: bool,
    /// The whole vertex table kept (see [`TABLE_KEEP_SHARE`]).
    table: Option<KeptTable>,
    /// The recent neighbourhood (edge queries when the vertex table is not read).
    recent: Window,
    /// Vertex-table pages of the window kept per keeping visit while the window fits.
    keep: usize,
    /// Pages of the window protected while it does not fit.
    protect: usize,
    /// Pages of memory for the graph (`u64::MAX`: unbounded).
    memory_pages: u64,
}

impl Neighbourhood {
    /// The policy for a stream of `kind` queries over a graph of `vertices` vertices, with
    /// `memory_pages` pages of memory for the graph (`None`: unbounded).
    pub fn new(kind: QueryKind, memory_pages: Option<u64>, vertices: usize) -> Neighbourhood {
        let table_pages = ((vertices as u64 + 1) * 8).div_ceil(4096);
        let read_table = memory_pages.is_none();
        // The kept table is for queries that start at a uniformly picked vertex.
        let table = memory_pages
            .filter(|&m| table_pages as f64 <= TABLE_KEEP_SHARE * m as f64)
            .filter(|_| kind != QueryKind::ShortestPath)
            .and_then(|m| KeptTable::new(table_pages, m));
        Neighbourhood {
            kind,
            predicted: vec![Vertex::MAX; PREDICTED].into_boxed_slice(),
            visits: 0,
            rate: 0.0,
            scratch: Vec::new(),
            picked: Vec::new(),
            hits: 0,
            gated: 0,
            entries_read: 0,
            uncached: 0,
            read_table,
            table,
            recent: Window::new(WINDOW),
            keep: memory_pages.map_or(MAX_KEEP, |m| (m / KEEP_SHARE) as usize).min(MAX_KEEP),
            protect: memory_pages.map_or(0, |m| (m as f64 * PROTECT_SHARE) as usize),
            memory_pages: memory_pages.unwrap_or(u64::MAX),
        }
    }

    fn slot(v: Vertex) -> usize {
        ((v as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 54) as usize & (PREDICTED - 1)
    }

    /// Advises for visited vertex `v`.
    pub fn advise(&mut self, sink: &mut Sink<'_>, v: Vertex) {
        let dir = sink.dir();
        let edge = self.kind == QueryKind::Edge;
        let k = EDGE_NEIGHBOURS;
        self.picked.clear();
        if let Some(table) = &mut self.table {
            table.visit(sink);
            if edge {
                return;
            }
        }
        // Only the arcs used: a hub's whole list would be copied for nothing.
        if edge && self.read_table {
            let last = dir.neighbors_part(v, VERTEX_TABLE_NEIGHBOURS.max(k), true);
            self.read_vertex_table(dir, &last);
            self.picked.extend_from_slice(&last[last.len().saturating_sub(k)..]);
        } else if edge {
            return self.keep_recent(sink, v, true);
        } else if self.kind == QueryKind::FriendsOfFriends {
            return self.advise_friends(sink, v);
        } else {
            self.picked.extend_from_slice(&dir.neighbors_part(v, k, false));
        }
        if edge {
            self.visits += 1;
            let hit = self.predicted[Self::slot(v)] == v;
            for &w in &self.picked {
                self.predicted[Self::slot(w)] = w;
            }
            if !self.gate(hit, MIN_HIT_RATE) {
                return;
            }
        }
        // Offsets first, so that their reads overlap; then each list's range.
        for &w in &self.picked {
            dir.will_need_offsets(w);
        }
        self.scratch.clear();
        for &w in &self.picked {
            let r = dir.list_bytes(w);
            self.scratch.push((r.start, r.end));
        }
        Self::advise_longest_first(&mut self.scratch, sink, PREFIX_BYTES);
    }

    /// Advises the byte ranges `lists`, longest first (ties: file order), each cut to `prefix`.
    fn advise_longest_first(lists: &mut [(u64, u64)], sink: &mut Sink<'_>, prefix: u64) {
        lists.sort_unstable_by_key(|&(a, b)| (std::cmp::Reverse(b - a), a));
        for &(a, b) in lists.iter() {
            sink.bytes(a, b.min(a + prefix));
        }
    }

    /// Friends-of-friends: advises the lists of `v`'s first [`FOF_NEIGHBOURS`] neighbours,
    /// each cut to [`FOF_PREFIX_BYTES`], longest first, from what is in memory only: `v`'s list
    /// and each neighbour's bounds are peeked at ([`Direction::cached_neighbors_part`]), a
    /// neighbour whose bounds are not in memory gets its bounds advised instead of its list.
    fn advise_friends(&mut self, sink: &mut Sink<'_>, v: Vertex) {
        let dir = sink.dir();
        let Some(nbrs) = dir.cached_neighbors_part(v, FOF_NEIGHBOURS, false) else {
            self.uncached += 1;
            return;
        };
        self.scratch.clear();
        for &w in &nbrs {
            match dir.cached_list_range(w) {
                Some(r) => self.scratch.push((r.start, r.end)),
                None => dir.will_need_offsets(w),
            }
        }
        Self::advise_longest_first(&mut self.scratch, sink, FOF_PREFIX_BYTES);
    }

    /// How long the advisor sleeps when it has nothing to do: [`IDLE_SLEEP`], or
    /// [`KEEP_IDLE_SLEEP`] while it protects the recent neighbourhood's pages with the
    /// window's gate open (what it protects must follow the pages the misses bring in).
    pub fn idle_sleep(&self) -> Duration {
        if self.records_stale() && self.rate >= MIN_WINDOW_RATE {
            KEEP_IDLE_SLEEP
        } else {
            IDLE_SLEEP
        }
    }

    /// Whether the policy wants the visits too stale to act on (see [`Neighbourhood::record`]).
    /// The recent-neighbourhood window does (edge queries where the vertex table is neither
    /// read nor kept).
    pub fn records_stale(&self) -> bool {
        self.kind == QueryKind::Edge && !self.read_table && self.table.is_none()
    }

    /// Records visited vertex `v`, too stale to act on: for edge queries with the
    /// recent-neighbourhood window, `v` enters it; otherwise does nothing. The window stands
    /// for the workload's FIFO of recently seen vertices, which every query feeds: when the
    /// advisor falls behind (on the pool at 10% it skipped ~45% of road-usroads' visits as
    /// stale, hand-run) a window of only the fresh visits weighs the wrong pages.
    pub fn record(&mut self, sink: &mut Sink<'_>, v: Vertex) {
        if self.records_stale() {
            self.keep_recent(sink, v, false);
        }
    }

    /// Counts an edge-query visit that was (`hit`) or was not foreseen in the hit-rate
    /// average, and returns whether the average is at least `min_rate` (else counts the visit
    /// as gated).
    fn gate(&mut self, hit: bool, min_rate: f64) -> bool {
        self.hits += hit as u64;
        self.rate += RATE_WEIGHT * (hit as u8 as f64 - self.rate);
        let open = self.rate >= min_rate;
        self.gated += !open as u64;
        open
    }

    /// Edge queries where the vertex table is not read: `v` and its neighbours enter the
    /// window; if `fresh`, every [`KEEP_EVERY`] fresh visits its heaviest pages are kept (see
    /// the module documentation).
    fn keep_recent(&mut self, sink: &mut Sink<'_>, v: Vertex, fresh: bool) {
        let dir = sink.dir();
        let seen = self.recent.contains(v);
        // The query has just read `v`'s list; if it is no longer in memory (the advisor lags),
        // only `v` enters rather than load the list again.
        let nbrs = dir.cached_neighbors_part(v, self.recent.capacity() - 1, true);
        self.uncached += nbrs.is_none() as u64;
        // List pages are looked up (a peek at each vertex's bounds) only while the gate is
        // open: a closed gate keeps nothing, and at alpha = 1 the peeks only cost the advisor.
        let weigh_lists = self.rate >= MIN_WINDOW_RATE;
        for w in std::iter::once(v).chain(nbrs.into_iter().flatten()) {
            self.recent.push(w, if weigh_lists { dir.cached_list_page(w) } else { None });
        }
        let open = self.gate(seen, MIN_WINDOW_RATE);
        if !fresh {
            return;
        }
        self.visits += 1;
        if !open {
            return;
        }
        if self.recent.pages() as u64 > self.memory_pages {
            if self.visits.is_multiple_of(PROTECT_EVERY) {
                self.protect_heaviest(sink);
            }
        } else if self.visits.is_multiple_of(KEEP_EVERY) {
            for p in self.recent.heaviest(self.keep, MIN_WEIGHT) {
                sink.keep_bounds_page(p);
            }
        }
    }

    /// While the window does not fit in memory: protects its heaviest pages, both kinds ranked
    /// together, [`PROTECT_SHARE`] of the memory's pages, and no others; loads nothing.
    fn protect_heaviest(&mut self, sink: &mut Sink<'_>) {
        sink.protect(self.recent.ranked(self.protect));
    }

    /// Reads the list bounds of `ws` (see the module documentation: the reads keep the
    /// vertex-table pages in memory).
    fn read_vertex_table(&mut self, dir: Direction<'_>, ws: &[Vertex]) {
        let arcs: u64 = ws.iter().map(|&w| dir.list_bytes(w)).map(|r| r.end - r.start).sum();
        // The reads are the point; the sum only keeps them from being optimised away on mmap.
        std::hint::black_box(arcs);
        self.entries_read += ws.len() as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::{BuildOptions, GraphBuilder, IdMap, NoProgress};
    use crate::{Graph, OpenOptions};

    /// Directed: 0 -> 1..=20; every other vertex v -> v + 1 (mod 64).
    fn graph(dir: &std::path::Path) -> Graph {
        let out = dir.join("g");
        let mut b = GraphBuilder::new(&out, BuildOptions::default()).unwrap();
        let (mut src, mut dst): (Vec<u32>, Vec<u32>) = (1..=20).map(|w| (0, w)).unzip();
        for v in 1..64u32 {
            src.push(v);
            dst.push((v + 1) % 64);
        }
        b.push(&src, &dst, None).unwrap();
        b.finish(IdMap::Identity, &NoProgress).unwrap();
        Graph::open(&out, &OpenOptions::default()).unwrap()
    }

    #[test]
    fn edge_queries_advise_once_predictions_hit_and_stop_when_they_miss() {
        let dir = tempfile::tempdir().unwrap();
        let g = graph(dir.path());
        let mut sink = Sink::new(g.out());
        let mut nb = Neighbourhood::new(QueryKind::Edge, None, 64);
        nb.advise(&mut sink, 0);
        // The last EDGE_NEIGHBOURS of 0's list (13..=20) are predicted, but nothing is advised
        // before predictions have hit.
        assert_eq!((sink.stats().ranges, nb.gated), (0, 1));
        nb.advise(&mut sink, 20);
        assert_eq!(nb.hits, 1);
        nb.advise(&mut sink, 12);
        assert_eq!(nb.hits, 1, "12 is not among the last {EDGE_NEIGHBOURS} neighbours of 0");
        // A walk 12 -> 13 -> 14 ... visits what it predicted each time: once the hit rate
        // reaches MIN_HIT_RATE, the next vertex's list is advised.
        let mut v = 12;
        while sink.stats().ranges == 0 {
            v += 1;
            nb.advise(&mut sink, v);
        }
        assert!(nb.rate >= MIN_HIT_RATE && v < 30, "opened at {v}");
        assert_eq!(sink.stats().ranges, 1, "{v}'s one neighbour");
        // A stream whose visits are never predicted: the hit rate decays, advice stops.
        let gated = nb.gated;
        let mut v = 30;
        while nb.gated == gated {
            v = if v == 30 { 50 } else { 30 };
            nb.advise(&mut sink, v);
        }
        let ranges = sink.stats().ranges;
        nb.advise(&mut sink, 40);
        assert_eq!(sink.stats().ranges, ranges, "gated: nothing advised");
        assert!(nb.rate < MIN_HIT_RATE);
    }

    #[test]
    fn edge_queries_read_the_vertex_table_of_the_neighbourhood_even_when_gated() {
        use crate::page::BackendKind;
        // 5000 vertices (10 pages of offsets); 0 -> 600, 1700, 2900, 4100 (offsets pages 1, 3,
        // 5, 8); 4999 -> 0.
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("g");
        let mut b = GraphBuilder::new(&out, BuildOptions::default()).unwrap();
        b.push(&[0, 0, 0, 0, 4999], &[600, 1700, 2900, 4100, 0], None).unwrap();
        b.finish(IdMap::Identity, &NoProgress).unwrap();
        let pool = BackendKind::Pool { capacity: 1 << 20, page_size: 4096, policy: "clock".into() };
        let g = Graph::open(&out, &OpenOptions { backend: pool }).unwrap();
        let mut sink = Sink::new(g.out());
        let mut nb = Neighbourhood::new(QueryKind::Edge, None, 64);
        nb.advise(&mut sink, 0);
        // The first visit is gated (no prediction has hit): no list advised, but the four
        // neighbours' entries were read.
        assert_eq!((sink.stats().ranges, nb.gated, nb.entries_read), (0, 1, 4));
        // Their pages are resident now: reading their bounds misses nothing; a vertex on a
        // page not read (3500: page 6) does.
        let misses = || g.io_stats().misses;
        let before = misses();
        for w in [600, 1700, 2900, 4100] {
            g.out().list_bytes(w);
        }
        assert_eq!(misses(), before);
        g.out().list_bytes(3500);
        assert_eq!(misses(), before + 1);
        // With a memory bound the table is kept whole (or the window used): no reads.
        for memory in [11, 14, 100] {
            let mut bounded = Neighbourhood::new(QueryKind::Edge, Some(memory), 5000);
            bounded.advise(&mut sink, 0);
            assert_eq!(bounded.entries_read, 0);
        }
    }

    #[test]
    fn edge_visits_fill_the_window_from_the_list_in_memory_and_load_nothing() {
        use crate::page::BackendKind;
        let dir = tempfile::tempdir().unwrap();
        let g = graph(dir.path());
        let out = dir.path().join("g");
        let pool = BackendKind::Pool { capacity: 1 << 20, page_size: 4096, policy: "clock".into() };
        let g2 = Graph::open(&out, &OpenOptions { backend: pool }).unwrap();
        drop(g);
        let mut sink = Sink::new(g2.out());
        // Memory too small for the vertex table: the recent-neighbourhood window.
        let mut nb = Neighbourhood::new(QueryKind::Edge, Some(0), 64);
        // 0's list is not in memory: only 0 enters the window, nothing is read.
        let requests = g2.io_stats().page_requests;
        nb.advise(&mut sink, 0);
        nb.advise(&mut sink, 20);
        assert_eq!((nb.uncached, nb.hits, g2.io_stats().page_requests), (2, 0, requests));
        // Once a query has read it, a visit of 0 (in the window) brings its neighbours in,
        // still without a request.
        g2.out().list(0);
        let requests = g2.io_stats().page_requests;
        nb.advise(&mut sink, 0);
        nb.advise(&mut sink, 13);
        assert_eq!((nb.uncached, nb.hits), (2, 2));
        assert_eq!(g2.io_stats().page_requests, requests);
        assert_eq!(sink.stats().kept + sink.stats().ranges, 0, "no memory: nothing kept");
    }

    #[test]
    fn edge_visits_keep_the_heaviest_vertex_table_pages_in_memory() {
        use crate::page::BackendKind;
        // 5000 vertices (10 pages of offsets); 0 -> 600..=610 (offsets page 1); 4999 -> 0.
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("g");
        let mut b = GraphBuilder::new(&out, BuildOptions::default()).unwrap();
        let (mut src, mut dst): (Vec<u32>, Vec<u32>) = (600..=610).map(|w| (0, w)).unzip();
        src.push(4999);
        dst.push(0);
        b.push(&src, &dst, None).unwrap();
        b.finish(IdMap::Identity, &NoProgress).unwrap();
        // Four frames of LRU: 0's list page, then offsets pages 0, 1 and 5 (page 0 the least
        // recently used of these).
        let pool = BackendKind::Pool { capacity: 4 * 4096, page_size: 4096, policy: "lru".into() };
        let g = Graph::open(&out, &OpenOptions { backend: pool }).unwrap();
        let d = g.out();
        d.list(0);
        d.list_bytes(600);
        d.list_bytes(2600);
        // Memory of 8 pages: the 10-page table does not fit, 4 pages are kept.
        let mut sink = Sink::new(d);
        let mut nb = Neighbourhood::new(QueryKind::Edge, Some(8), 5000);
        let misses = || g.io_stats().misses;
        let before = misses();
        // Visits of 0 are found in the window; once the gate opens, offsets pages 1 (11 of the
        // window's vertices per visit) and 0 (one) are kept: both are resident.
        while sink.stats().kept == 0 {
            nb.advise(&mut sink, 0);
            assert!(nb.visits < 200, "never kept");
        }
        assert_eq!((sink.stats().kept, sink.stats().ranges, misses()), (2, 0, before));
        // Under LRU pages 1 and 0 are now the most recent: two new pages evict 0's list page
        // and page 5, read after them but not kept.
        d.list_bytes(3600);
        d.list_bytes(4100);
        let before = misses();
        d.list_bytes(600);
        d.list_bytes(0);
        assert_eq!(misses(), before, "the kept pages stayed");
        d.list_bytes(2600);
        assert_eq!(misses(), before + 1, "page 5 was evicted");
    }

    #[test]
    fn where_the_window_does_not_fit_its_heaviest_pages_are_protected() {
        use crate::page::BackendKind;
        // 300,000 vertices (586 pages of offsets); 0 -> 600, 1700, 2900, 290,000 (offsets pages 1,
        // 3, 5, 566), and each of these -> 0: every list starts on page 0 of the lists.
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("g");
        let mut b = GraphBuilder::new(&out, BuildOptions::default()).unwrap();
        let far = 290_000;
        b.push(&[0, 0, 0, 0, 600, 1700, 2900, far], &[600, 1700, 2900, far, 0, 0, 0, 0], None).unwrap();
        b.finish(IdMap::Identity, &NoProgress).unwrap();
        // 16 frames of LRU, so that the pages read on open are gone after the reads below.
        let pool = BackendKind::Pool { capacity: 16 * 4096, page_size: 4096, policy: "lru".into() };
        let g = Graph::open(&out, &OpenOptions { backend: pool }).unwrap();
        let d = g.out();
        // Visits of 0 (5 window entries each) until the window has turned over since the gate
        // opened (list pages are weighed from then on), then one keeping step (`every`
        // visits); returns the window's pages and what that step did.
        let run = |memory: u64, every: u64| {
            let mut sink = Sink::new(d);
            let mut nb = Neighbourhood::new(QueryKind::Edge, Some(memory), 300_000);
            for _ in 0..400 {
                nb.advise(&mut sink, 0);
            }
            assert!(sink.stats().kept > 0, "never kept");
            let mut sink = Sink::new(d);
            for _ in 0..every {
                nb.advise(&mut sink, 0);
            }
            (nb.recent.pages(), sink.stats())
        };
        // Everything read but `far`'s list: its offsets page is not in memory, and its list
        // page is not known. The window of visits of 0 needs 6 pages: offsets pages 0, 1, 3, 5
        // and 566 (one vertex each per visit), lists page 0 (four).
        for v in (100_000..=280_000).step_by(10_000) {
            d.list_bytes(v);
        }
        for w in [0, 600, 1700, 2900] {
            d.list(w);
        }
        assert!([0, 600, 1700, 2900].iter().all(|&w| d.cached_list_page(w).is_some()));
        assert_eq!(d.cached_list_page(far), None, "offsets page 566 is not in memory");
        // 4 pages of memory: the window does not fit. 3 pages (PROTECT_SHARE) are protected:
        // the list page, the heaviest, and two offsets pages; nothing is loaded or advised.
        assert_eq!(PROTECT_SHARE, 0.875);
        let (pages, s) = run(4, PROTECT_EVERY);
        assert_eq!((pages, s.kept, s.kept_lists, s.ranges), (6, 3, 1, 0));
        let misses = g.io_stats().misses;
        d.list_bytes(far);
        assert_eq!(g.io_stats().misses, misses + 1, "offsets page 566 was not loaded");
        // 8 pages: the window fits; MAX_KEEP's share (4) of the offsets pages is kept, no list
        // page.
        let (pages, s) = run(8, KEEP_EVERY);
        assert_eq!((pages, s.kept, s.kept_lists, s.ranges), (6, 4, 0, 0));
        // The protection holds while the sink lives: the list page (read by LRU least recently)
        // survives 20 other pages passing through the 16 frames; once the sink is gone it does
        // not.
        let sweep = || {
            d.list(0);
            for v in (0..20).map(|i| 10_000 + i * 12_000) {
                d.list_bytes(v);
            }
            // Vertex 0's bounds (its offsets page may have gone), then its list page.
            d.list_bytes(0);
            let misses = g.io_stats().misses;
            d.list(0);
            g.io_stats().misses == misses
        };
        for w in [0, 600, 1700, 2900] {
            d.list(w);
        }
        let mut sink = Sink::new(d);
        let mut nb = Neighbourhood::new(QueryKind::Edge, Some(4), 300_000);
        for _ in 0..400 {
            nb.advise(&mut sink, 0);
        }
        assert!(sweep(), "the protected list page was evicted");
        drop(sink);
        assert!(!sweep(), "the list page stayed protected after the sink was dropped");
    }

    #[test]
    fn stale_visits_enter_the_window_but_keep_nothing() {
        use crate::page::BackendKind;
        let dir = tempfile::tempdir().unwrap();
        drop(graph(dir.path()));
        let pool = BackendKind::Pool { capacity: 1 << 20, page_size: 4096, policy: "clock".into() };
        let g = Graph::open(dir.path().join("g"), &OpenOptions { backend: pool }).unwrap();
        let mut sink = Sink::new(g.out());
        // Only the window mode (edge queries, vertex table too large) wants stale visits.
        assert!(!Neighbourhood::new(QueryKind::FriendsOfFriends, Some(8), 64).records_stale());
        assert!(!Neighbourhood::new(QueryKind::Edge, None, 64).records_stale());
        // Sized as for 5000 vertices: a 10-page vertex table that 8 pages of memory cannot hold.
        let mut nb = Neighbourhood::new(QueryKind::Edge, Some(8), 5000);
        assert!(nb.records_stale());
        g.out().list(0);
        // Stale visits of 0: 0 and its 20 neighbours enter the window, the gate opens, but
        // nothing is kept or advised, and the keeping count does not move.
        for _ in 0..100 {
            nb.record(&mut sink, 0);
        }
        assert!((1..=20).all(|w| nb.recent.contains(w)) && nb.recent.contains(0));
        assert!(!nb.recent.contains(21));
        assert!(nb.rate >= MIN_WINDOW_RATE, "stale visits count for the gate");
        assert_eq!((sink.stats().kept, sink.stats().ranges, nb.visits), (0, 0, 0));
        // The first KEEP_EVERY fresh visits keep the window's one page of offsets.
        for _ in 0..KEEP_EVERY {
            nb.advise(&mut sink, 0);
        }
        assert_eq!((sink.stats().kept, sink.stats().ranges), (1, 0));
    }

    #[test]
    fn the_whole_table_is_kept_between_the_two_shares_for_queries_from_a_uniform_vertex() {
        use QueryKind::{Edge, FriendsOfFriends, ShortestPath};
        // 5000 vertices: a 10-page vertex table.
        let kept = |kind, memory| {
            let nb = Neighbourhood::new(kind, Some(memory), 5000);
            (nb.table.is_some(), nb.read_table)
        };
        assert_eq!(kept(Edge, 100), (true, false), "0.1 of the memory");
        assert_eq!(kept(Edge, 14), (true, false), "0.71");
        assert_eq!(kept(FriendsOfFriends, 14), (true, false));
        assert_eq!(kept(Edge, 13), (false, false), "0.77, but the lists get 3 frames: the window");
        assert_eq!(kept(Edge, 11), (false, false), "0.91: the window");
        assert_eq!(kept(ShortestPath, 14), (false, false));
        // Kept once, on the first visit: stale visits are not wanted.
        assert!(!Neighbourhood::new(FriendsOfFriends, Some(14), 5000).records_stale());
    }

    #[test]
    fn friends_of_friends_advice_reads_nothing_that_is_not_in_memory() {
        use crate::page::BackendKind;
        // 300,000 vertices (586 pages of offsets); 0 -> 100,000, 150,000, 200,000, 250,000
        // (offsets pages 195, 292, 390, 488: beyond the read-ahead of the reads on open), each
        // of which -> 0.
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("g");
        let mut b = GraphBuilder::new(&out, BuildOptions::default()).unwrap();
        let far = [100_000, 150_000, 200_000, 250_000];
        let src: Vec<u32> = [0; 4].into_iter().chain(far).collect();
        let dst: Vec<u32> = far.into_iter().chain([0; 4]).collect();
        b.push(&src, &dst, None).unwrap();
        b.push(&[299_999], &[0], None).unwrap();
        b.finish(IdMap::Identity, &NoProgress).unwrap();
        let pool = BackendKind::Pool { capacity: 1 << 20, page_size: 4096, policy: "clock".into() };
        let g = Graph::open(&out, &OpenOptions { backend: pool }).unwrap();
        let d = g.out();
        // No read-ahead (as the query runner sets): a query's miss loads only its page.
        d.advise_files(crate::page::Advice::Random);
        let mut sink = Sink::new(d);
        // 8 pages of memory: the table is not kept.
        let mut nb = Neighbourhood::new(QueryKind::FriendsOfFriends, Some(8), 300_000);
        let requests = || g.io_stats().page_requests;
        // 0's list is not in memory: nothing advised, nothing read.
        let before = requests();
        nb.advise(&mut sink, 0);
        assert_eq!((nb.uncached, sink.stats().ranges, requests()), (1, 0, before));
        // Once a query has read it, the neighbours' bounds (not in memory) are advised, not
        // read, and no list is advised: their places are not known.
        d.list(0);
        let before = requests();
        nb.advise(&mut sink, 0);
        assert_eq!((nb.uncached, sink.stats().ranges, requests()), (1, 0, before));
        // With their bounds in memory, their four lists are advised.
        for w in far {
            d.list_bytes(w);
        }
        let before = requests();
        nb.advise(&mut sink, 0);
        assert_eq!((sink.stats().ranges, requests()), (4, before));
    }

    #[test]
    fn friends_of_friends_advise_the_first_neighbours_without_gating() {
        let dir = tempfile::tempdir().unwrap();
        let g = graph(dir.path());
        let mut sink = Sink::new(g.out());
        let mut nb = Neighbourhood::new(QueryKind::FriendsOfFriends, None, 64);
        for v in [5, 9, 33, 0] {
            nb.advise(&mut sink, v);
        }
        // One list each for 5, 9 and 33 (6, 10, 34), and all 20 of 0's neighbours (fewer than
        // the bound), of which 6 and 10 were just advised (repeats, not advised again).
        let s = sink.stats();
        assert_eq!((s.ranges, s.repeats), (3 + 18, 2));
        assert_eq!((nb.hits, nb.gated), (0, 0));
    }
}
