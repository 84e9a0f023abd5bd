//! The advisor thread's loop.
//!
//! Ring-driven modes (neighbourhood, sequential) drain the [`Ring`] and apply their policy to
//! every entry that is not stale (the neighbourhood prefetcher's recent-neighbourhood window
//! records the stale ones too, see [`Neighbourhood::record`]); the omniscient mode watches how many queries have started
//! and advises the next `lookahead` queries of the workload, as far as their pages fit in a
//! share of the memory (see [`omniscient`]). When there is nothing to do the
//! advisor yields, then sleeps 50 µs at a time; it stops when `stop` is set.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use super::neighbourhood::Neighbourhood;
use super::{omniscient, sequential, AdvisorStats, PrefetchMode, Sink};
use crate::graph::{Adjacency, Direction};
use crate::query::ring::{Cursor, Ring};
use crate::query::workload::Workload;

/// How the advisor runs.
#[derive(Debug, Clone, Copy)]
pub struct AdvisorConfig {
    /// The prefetcher.
    pub mode: PrefetchMode,
    /// Ring entries this many epochs (queries) behind the newest are skipped.
    pub max_stale: u32,
    /// Queries advised ahead (omniscient).
    pub lookahead: usize,
    /// Pages of memory the graph gets (`None`: unbounded); see [`Neighbourhood::new`].
    pub memory_pages: Option<u64>,
}

/// Runs the advisor until `stop` is set; `started` counts the queries begun so far.
pub fn run(
    dir: Direction<'_>,
    ring: &Ring,
    workload: &Workload,
    started: &AtomicUsize,
    stop: &AtomicBool,
    cfg: AdvisorConfig,
) -> AdvisorStats {
    let mut sink = Sink::new(dir);
    let mut cursor = Cursor::default();
    let mut nb = Neighbourhood::new(workload.kind, cfg.memory_pages, dir.num_vertices(), dir.num_arcs());
    let mut lookahead = omniscient::Lookahead::new(cfg.lookahead, cfg.memory_pages);
    let mut idle = 0u32;
    loop {
        let did = match cfg.mode {
            PrefetchMode::None => 0,
            PrefetchMode::Neighbourhood => {
                ring.drain(&mut cursor, cfg.max_stale, nb.records_stale(), |v, stale| {
                    if stale {
                        nb.record(&mut sink, v)
                    } else {
                        nb.advise(&mut sink, v)
                    }
                })
            }
            PrefetchMode::Sequential => {
                ring.drain(&mut cursor, cfg.max_stale, false, |v, _| sequential::advise(&mut sink, v))
            }
            PrefetchMode::Omniscient => {
                lookahead.advise(&mut sink, workload, started.load(Ordering::Acquire))
            }
        };
        if did > 0 {
            idle = 0;
            continue;
        }
        if stop.load(Ordering::Acquire) {
            break;
        }
        idle += 1;
        if idle < 16 {
            std::thread::yield_now();
        } else {
            std::thread::sleep(Duration::from_micros(50));
        }
    }
    AdvisorStats {
        pushed: ring.pushed(),
        entries: cursor.read,
        stale: cursor.stale,
        lost: cursor.lost,
        predicted_hits: nb.hits,
        gated: nb.gated,
        entries_read: nb.entries_read,
        uncached: nb.uncached,
        ..sink.stats()
    }
}
