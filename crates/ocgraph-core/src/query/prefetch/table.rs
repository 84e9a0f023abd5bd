//! The whole vertex table kept in memory, where it fits with little room to spare.
//!
//! Every query reads its vertex's list bounds (its vertex-table entry) before its list. Under a
//! uniform pick (the alpha share of seed 000's edge-query stream, the start of a
//! friends-of-friends query) each of the table's pages is about `mean degree / 2` times as
//! likely to be read as a page of the lists (8 bytes of bounds against 4 bytes per arc), so
//! where the table fits in memory a frame holding a table page is worth more than one holding
//! a list page. The pool's CLOCK does not see that: a table page enters with its reference bit
//! clear and is evicted between its uses like any other page.
//!
//! [`KeptTable`] loads the table in the background on the first visit (one `WillNeed` over the
//! whole bounds file) and then, at every visit, counts a use of the next pages in turn
//! ([`Sink::keep_bounds_page`]: a resident page gets a use counted for the replacement policy,
//! a missing one is advised again). A visit whose query reads `r` lists keeps
//! [`KeptTable::per_visit`]`(r)` pages: with about one eviction per list read, every page is
//! then used at least [`MARKS_PER_SWEEP`] times while the clock hand sweeps the frames the
//! table leaves to the lists (the hand passes every frame once per that many evictions, and a
//! page whose reference bit is set when the hand passes survives).
//!
//! Replayed on the pool at 10% (`bench/queries/table_replay.py`, a CLOCK of the frames the table
//! leaves, the table's pages never evicted nor counted;
//! `bench/queries/results/table-replay-s18.txt`), misses per query against plain CLOCK on all
//! the frames: cnr-2000 (the table is 636 of 755 frames) -27%, -25% and -27% at alpha 0.1, 0.5
//! and 1, and -11% for friends-of-friends; ca-AstroPh (37 of 46 frames) -14%, -23% and -26%
//! (friends-of-friends -22%, but there the table is not kept: see [`KeptTable::new`]). Measured
//! at 1M edge queries and 50K friends-of-friends (`bench/queries/RESULTS.md`, session 18) the
//! neighbourhood prefetcher with the kept table ran 1.2-1.45x faster than none on both graphs.
//!
//! Memory: none beyond the struct (the pages are the graph's own, in the pool's frames).

use super::Sink;

/// Each table page gets at least this many uses per sweep of the clock hand over the frames
/// the table leaves to the lists.
pub const MARKS_PER_SWEEP: u64 = 2;

/// The vertex table's pages, loaded once and then kept in memory a few pages per visit.
#[derive(Debug)]
pub struct KeptTable {
    /// Pages of the vertex table.
    pages: u64,
    /// Pages of memory left to the lists.
    lists: u64,
    /// The next page to use.
    next: u64,
    /// Whether the whole table has been advised.
    loaded: bool,
}

impl KeptTable {
    /// The keeper of a `pages`-page vertex table in `memory_pages` pages of memory, for queries
    /// that read `reads` lists each on average; `None` unless the frames the table leaves to
    /// the lists let each page be kept [`MARKS_PER_SWEEP`] times per sweep of the clock hand
    /// *between* visits: a query that reads more lists than that sweeps the hand past the
    /// table's pages before the next visit keeps them (friends-of-friends on ca-AstroPh at 10%:
    /// 23 lists per query, 9 frames left; the table's pages were read again and again).
    pub fn new(pages: u64, memory_pages: u64, reads: f64) -> Option<KeptTable> {
        let lists = memory_pages.checked_sub(pages)?;
        (lists as f64 >= MARKS_PER_SWEEP as f64 * reads.max(1.0)).then_some(KeptTable {
            pages,
            lists,
            next: 0,
            loaded: false,
        })
    }

    /// Pages given a use by a visit whose query reads `reads` lists (at least one, at most the
    /// whole table).
    pub fn per_visit(&self, reads: u64) -> u64 {
        (MARKS_PER_SWEEP * reads * self.pages).div_ceil(self.lists).clamp(1, self.pages.max(1))
    }

    /// One visit whose query reads `reads` lists: the first advises the whole table; every
    /// visit keeps the next [`KeptTable::per_visit`] pages.
    pub fn visit(&mut self, sink: &mut Sink<'_>, reads: u64) {
        if !self.loaded {
            sink.will_need_bounds();
            self.loaded = true;
        }
        for _ in 0..self.per_visit(reads) {
            sink.keep_bounds_page(self.next);
            self.next = (self.next + 1) % self.pages;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Vertex;
    use crate::ingest::{BuildOptions, GraphBuilder, IdMap, NoProgress};
    use crate::page::{Advice, BackendKind};
    use crate::{Graph, OpenOptions};

    #[test]
    fn a_table_is_kept_only_where_it_leaves_the_lists_frames_for_a_sweep() {
        // 10 table pages in 14 frames leave 4: enough for queries reading one or two lists.
        let t = KeptTable::new(10, 14, 1.0).unwrap();
        assert_eq!((t.per_visit(1), t.per_visit(2), t.per_visit(100)), (5, 10, 10));
        assert!(KeptTable::new(10, 14, 2.0).is_some());
        assert!(KeptTable::new(10, 14, 2.5).is_none(), "a query sweeps the hand past the table");
        assert!(KeptTable::new(10, 10, 1.0).is_none() && KeptTable::new(10, 9, 1.0).is_none());
    }

    /// Reads the lists of `queries` vertices spread over the graph (each miss evicts under
    /// CLOCK), calling `visit` after each; then returns how many of the table's 10 pages miss
    /// when read again.
    fn table_misses_after_queries(g: &Graph, mut visit: impl FnMut()) -> u64 {
        let d = g.out();
        for i in 0..400u32 {
            drop(d.list(i.wrapping_mul(2_654_435_761) % 5000 as Vertex));
            visit();
        }
        let before = g.io_stats().misses;
        for page in 0..10u32 {
            d.list_bytes(page * 512);
        }
        g.io_stats().misses - before
    }

    #[test]
    fn a_kept_table_is_loaded_on_the_first_visit_and_survives_the_lists_churning() {
        // 5000 vertices (10 pages of offsets), each with 4 arcs: 20 pages of lists.
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("g");
        let mut b = GraphBuilder::new(&out, BuildOptions::default()).unwrap();
        let src: Vec<u32> = (0..5000u32).flat_map(|v| [v; 4]).collect();
        let dst: Vec<u32> = (0..20_000u32).map(|i| (i * 7 + 1) % 5000).collect();
        b.push(&src, &dst, None).unwrap();
        b.finish(IdMap::Identity, &NoProgress).unwrap();
        let open = || {
            let pool = BackendKind::Pool { capacity: 14 * 4096, page_size: 4096, policy: "clock".into() };
            let g = Graph::open(&out, &OpenOptions { backend: pool }).unwrap();
            // As the query runner does: no read-ahead.
            g.out().advise_files(Advice::Random);
            g
        };
        // Plain CLOCK: list misses evict table pages.
        let g = open();
        assert!(table_misses_after_queries(&g, || {}) > 0, "CLOCK kept the whole table by itself");
        // Kept: the first visit advises the whole table (a background load), then every visit
        // keeps 5 of its pages; none is evicted.
        let g = open();
        let d = g.out();
        let mut sink = Sink::new(d);
        let mut table = KeptTable::new(10, 14, 1.0).unwrap();
        table.visit(&mut sink, 1);
        let resident = |p: u64| d.keep_bounds_page(p);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !(0..10).all(resident) {
            assert!(std::time::Instant::now() < deadline, "the table was never loaded");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(table_misses_after_queries(&g, || table.visit(&mut sink, 1)), 0);
        assert!(sink.stats().kept >= 400 * 5 - 10);
    }
}
