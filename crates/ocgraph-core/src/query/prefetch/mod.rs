//! Prefetchers: an advisor thread that turns what the query threads visit (or, for the
//! omniscient bound, the known query stream) into `WillNeed` advice on the neighbours file.
//!
//! - [`PrefetchMode::Neighbourhood`] ([`neighbourhood`]): for a visited vertex, advise the
//!   neighbour lists of some of its neighbours (chosen by query kind), highest degree first,
//!   only a bounded prefix of each; for edge queries only while its predictions hit. And,
//!   in the query threads themselves, list-start prediction
//!   ([`Graph::predict_list_starts`](crate::Graph::predict_list_starts)): a read of a vertex's
//!   bounds that misses brings the page where its list is predicted to start, in the same
//!   submission (the pool), so the list read after it is a hit. This is what wins where a
//!   query's pages are its own vertex's bounds and list, known to no advisor in time
//!   (road-usroads: friends-of-friends 1.26-1.53x faster than none on the pool at 10%,
//!   `bench/queries/run.py`, `docs/benchmarks.md`). The omniscient bound predicts list starts too,
//!   so that it stays a bound.
//! - [`PrefetchMode::Sequential`] ([`sequential`]): advise the window of the neighbours file
//!   that follows the visited vertex's first arc.
//! - [`PrefetchMode::Omniscient`] ([`omniscient`]): read ahead in the workload and advise what
//!   the next queries will read (and predict list starts, as the neighbourhood prefetcher
//!   does): the bound on what any prefetcher can gain.
//!
//! Advice goes through the page backend: `madvise(MADV_WILLNEED)` on mmap, background loads
//! into free or evictable frames on the pool (never evicting pinned pages, never blocking).

pub mod advisor;
pub mod neighbourhood;
pub mod omniscient;
pub mod sequential;
pub mod table;
pub mod window;

use rustc_hash::FxHashSet;
use serde::Serialize;

use crate::error::{Error, Result};
use crate::graph::Direction;
use window::WindowPage;

/// Which prefetcher runs beside the queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrefetchMode {
    /// No advisor thread.
    None,
    /// Neighbour lists of the visited vertices' neighbours.
    Neighbourhood,
    /// The next window of the neighbours file after the visited vertex's list.
    Sequential,
    /// Reads ahead from the known query stream.
    Omniscient,
}

impl PrefetchMode {
    /// Every mode, in the order benchmarks report them.
    pub const ALL: [PrefetchMode; 4] =
        [PrefetchMode::None, PrefetchMode::Neighbourhood, PrefetchMode::Sequential, PrefetchMode::Omniscient];

    /// The mode's name: `none`, `neighbourhood`, `sequential`, `omniscient`.
    pub fn name(self) -> &'static str {
        match self {
            PrefetchMode::None => "none",
            PrefetchMode::Neighbourhood => "neighbourhood",
            PrefetchMode::Sequential => "sequential",
            PrefetchMode::Omniscient => "omniscient",
        }
    }

    /// Parses a mode name (`neighborhood` is accepted too).
    pub fn parse(s: &str) -> Result<PrefetchMode> {
        Ok(match s {
            "none" => PrefetchMode::None,
            "neighbourhood" | "neighborhood" => PrefetchMode::Neighbourhood,
            "sequential" => PrefetchMode::Sequential,
            "omniscient" => PrefetchMode::Omniscient,
            _ => {
                return Err(Error::invalid(format!(
                    "unknown prefetcher {s:?} (none, neighbourhood, sequential, omniscient)"
                )))
            }
        })
    }
}

/// What the advisor did during a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct AdvisorStats {
    /// Ring entries pushed by the query threads.
    pub pushed: u64,
    /// Ring entries handed to the prefetcher (the stale ones included where it asks for
    /// them).
    pub entries: u64,
    /// Ring entries too stale to act on: skipped, or only recorded in the neighbourhood
    /// prefetcher's recent-neighbourhood window.
    pub stale: u64,
    /// Ring entries overwritten before the advisor read them.
    pub lost: u64,
    /// Ranges advised (`advise` calls made).
    pub ranges: u64,
    /// Ranges not advised again because they were advised very recently.
    pub repeats: u64,
    /// Bytes covered by the advised ranges.
    pub bytes: u64,
    /// Visited vertices the neighbourhood prefetcher had predicted (edge queries).
    pub predicted_hits: u64,
    /// Visited vertices for which the neighbourhood prefetcher advised nothing because its
    /// recent hit rate was too low (edge queries).
    pub gated: u64,
    /// Vertex-table entries (list bounds) of visited vertices' neighbours the neighbourhood
    /// prefetcher read (edge queries).
    pub entries_read: u64,
    /// Edge-query and friends-of-friends visits whose list was not in memory when the
    /// neighbourhood prefetcher got to it (it does not load it): the visit predicted or advised
    /// nothing, or added only the vertex itself to the recent-neighbourhood window.
    pub uncached: u64,
    /// Pages the neighbourhood prefetcher kept (its recent neighbourhood's, edge queries, or
    /// the kept vertex table's): found in memory and a use counted for the replacement policy
    /// (the missing ones it advised count in `ranges`), or protected from eviction, resident or
    /// not (counted at every protection round).
    pub kept: u64,
    /// Of `kept`, the pages of lists.
    pub kept_lists: u64,
}

/// Slots of the recently-advised filter.
const RECENT: usize = 4096;

/// Issues advice on one direction's neighbours file, skipping ranges advised very recently
/// (a direct-mapped table of the last ranges), and counts what it did.
pub struct Sink<'g> {
    dir: Direction<'g>,
    recent: Box<[u64]>,
    /// Pages protected from eviction (see [`Sink::protect`]), and an empty set to reuse.
    protected: FxHashSet<WindowPage>,
    spare: FxHashSet<WindowPage>,
    stats: AdvisorStats,
}

impl<'g> Sink<'g> {
    /// A sink advising on `dir`.
    pub fn new(dir: Direction<'g>) -> Sink<'g> {
        Sink {
            dir,
            recent: vec![u64::MAX; RECENT].into_boxed_slice(),
            protected: FxHashSet::default(),
            spare: FxHashSet::default(),
            stats: AdvisorStats::default(),
        }
    }

    /// The direction advised on.
    pub fn dir(&self) -> Direction<'g> {
        self.dir
    }

    /// Advises bytes `[start, end)` of the lists file.
    pub fn bytes(&mut self, start: u64, end: u64) {
        if end <= start {
            return;
        }
        let key = start.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ end;
        let slot = &mut self.recent[(key >> 52) as usize % RECENT];
        if *slot == key {
            self.stats.repeats += 1;
            return;
        }
        *slot = key;
        self.dir.will_need_list_bytes(start, end);
        self.stats.ranges += 1;
        self.stats.bytes += end - start;
    }

    /// Keeps page `page` of the list bounds in memory: a use counted if it is resident, else
    /// advised (no repeat filter: advice on a page being loaded does nothing).
    pub fn keep_bounds_page(&mut self, page: u64) {
        if self.dir.keep_bounds_page(page) {
            self.stats.kept += 1;
        } else {
            self.dir.will_need_bounds_page(page);
            self.stats.ranges += 1;
            self.stats.bytes += Direction::HINT_PAGE;
        }
    }

    /// Advises the whole vertex table (the list bounds).
    pub fn will_need_bounds(&mut self) {
        self.stats.bytes += self.dir.will_need_bounds();
        self.stats.ranges += 1;
    }

    /// Protects exactly `pages` (of the window, or the kept vertex table) from eviction
    /// ([`Direction::set_protected`]: resident or not, none is loaded) until the next call or
    /// until the sink is dropped: the pages protected before and not among them are protected
    /// no more. Counts them as kept.
    pub fn protect(&mut self, pages: impl IntoIterator<Item = WindowPage>) {
        let mut next = std::mem::take(&mut self.spare);
        next.clear();
        for p in pages {
            if next.insert(p) && !self.protected.contains(&p) {
                self.set_protected(p, true);
            }
        }
        for &p in self.protected.difference(&next) {
            self.set_protected(p, false);
        }
        self.stats.kept += next.len() as u64;
        self.stats.kept_lists += next.iter().filter(|p| matches!(p, WindowPage::List(_))).count() as u64;
        self.spare = std::mem::replace(&mut self.protected, next);
    }

    fn set_protected(&self, page: WindowPage, on: bool) {
        match page {
            WindowPage::Bounds(p) => self.dir.set_protected(p, false, on),
            WindowPage::List(p) => self.dir.set_protected(p, true, on),
        }
    }

    /// What the sink did so far.
    pub fn stats(&self) -> AdvisorStats {
        self.stats
    }
}

/// The pages a sink protected are protected no longer than it lives.
impl Drop for Sink<'_> {
    fn drop(&mut self) {
        self.protect(std::iter::empty());
    }
}
