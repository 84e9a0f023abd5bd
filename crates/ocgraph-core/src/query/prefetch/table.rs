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
//! whole bounds file) and protects its pages from eviction ([`Sink::protect`]: eviction passes
//! over them, and a page a fallback eviction took is protected again once a query loads it);
//! the lists share the frames the table leaves. Counting a use of a few table pages in turn
//! at every visit instead, as many as would keep each page marked while the clock hand
//! swept the lists' frames, would need the advisor awake every 250 µs (ca-AstroPh
//! at 10% makes ~30 misses per millisecond), and each wake-up costs the queries (see
//! [`super::advisor`]); it also could not keep the table for friends-of-friends queries
//! reading more lists per visit than the lists' frames allow a sweep.
//!
//! Replayed on the pool at 10% (`bench/queries/table_replay.py`, a CLOCK of the frames the table
//! leaves, the table's pages never evicted nor counted;
//! `bench/queries/results/table-replay-s18.txt`), misses per query against plain CLOCK on all
//! the frames: cnr-2000 (the table is 636 of 755 frames) -27%, -25% and -27% at alpha 0.1, 0.5
//! and 1, and -11% for friends-of-friends; ca-AstroPh (37 of 46 frames) -14%, -23% and -26%,
//! and -22% for friends-of-friends.
//!
//! Memory: none beyond the struct and the sink's set of protected pages (the pages are the
//! graph's own, in the pool's frames).

use super::window::WindowPage;
use super::Sink;

/// Frames the table must leave to the lists at least (a query holds a list or two pinned).
pub const MIN_LIST_FRAMES: u64 = 4;

/// The vertex table's pages, loaded once and protected from eviction.
#[derive(Debug)]
pub struct KeptTable {
    /// Pages of the vertex table.
    pages: u64,
    /// Whether the table has been advised and protected.
    kept: bool,
}

impl KeptTable {
    /// The keeper of a `pages`-page vertex table in `memory_pages` pages of memory; `None`
    /// unless the table leaves the lists [`MIN_LIST_FRAMES`] frames.
    pub fn new(pages: u64, memory_pages: u64) -> Option<KeptTable> {
        let lists = memory_pages.checked_sub(pages)?;
        (lists >= MIN_LIST_FRAMES).then_some(KeptTable { pages, kept: false })
    }

    /// One visit: the first advises the whole table and protects its pages; later ones do
    /// nothing.
    pub fn visit(&mut self, sink: &mut Sink<'_>) {
        if !self.kept {
            sink.will_need_bounds();
            sink.protect((0..self.pages).map(WindowPage::Bounds));
            self.kept = true;
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
    fn a_table_is_kept_only_where_it_leaves_the_lists_a_few_frames() {
        assert!(KeptTable::new(10, 14).is_some());
        assert!(KeptTable::new(10, 13).is_none() && KeptTable::new(10, 9).is_none());
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
        // Kept: the first visit advises the whole table (a background load) and protects it;
        // none of its pages is evicted.
        let g = open();
        let d = g.out();
        let mut sink = Sink::new(d);
        let mut table = KeptTable::new(10, 14).unwrap();
        table.visit(&mut sink);
        let resident = |p: u64| d.keep_bounds_page(p);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !(0..10).all(resident) {
            assert!(std::time::Instant::now() < deadline, "the table was never loaded");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(table_misses_after_queries(&g, || table.visit(&mut sink)), 0);
        assert_eq!(sink.stats().kept, 10);
    }
}
