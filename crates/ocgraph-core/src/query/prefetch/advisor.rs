//! The advisor thread's loop.
//!
//! Ring-driven modes (neighbourhood, sequential) drain the [`Ring`] and apply their policy to
//! every entry that is not stale (the neighbourhood prefetcher's recent-neighbourhood window
//! records the stale ones too, see [`Neighbourhood::record`]); the omniscient mode watches how many queries have started
//! and advises the next `lookahead` queries of the workload, as far as their pages fit in a
//! share of the memory (see [`omniscient`]). When there is nothing to do the
//! advisor sleeps ([`IDLE_SLEEP`], or the neighbourhood policy's
//! [`Neighbourhood::idle_sleep`]) and then takes all that came in meanwhile in one batch (the
//! omniscient bound still polls: [`OMNISCIENT_SLEEP`]); it stops when `stop` is set.
//!
//! Why sleep rather than poll: each wake-up of the advisor costs the query thread, at least on
//! this 2-vCPU KVM guest. It used to yield 16 times and then sleep 50 µs at a time, waking
//! about once per query, and on road-usroads at alpha 1 (pool at 10%, 200K queries), where
//! the neighbourhood policy advises nothing, that alone made the queries 1.2x slower than with
//! no advisor (14.5 s against 11.7 s; the query thread's `pread`s took 37 µs each instead of
//! 16 µs under strace). Parking the advisor and waking it at every push cost as much, even with
//! the advisor doing nothing with the entries. Sleeping 1 ms between batches: 11.7 s. Hand-run
//! with `bench/queries/compare.py`; `bench/queries/run.py` measures the full sizes.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use super::neighbourhood::Neighbourhood;
use super::{omniscient, sequential, AdvisorStats, PrefetchMode, Sink};
use crate::graph::{Adjacency, Direction};
use crate::query::ring::{Cursor, Ring};
use crate::query::workload::Workload;

/// How long an idle advisor (neighbourhood, sequential) sleeps before it looks at the ring
/// again.
pub const IDLE_SLEEP: Duration = Duration::from_millis(1);

/// The omniscient advisor, the bound, polls instead of sleeping between batches:
/// 16 yields, then sleeps of this length. It must keep pace with the queries (its lookahead is a
/// few queries on a small pool); with 1 ms sleeps it fell to 1.01-1.05x of none on ca-AstroPh at
/// alpha 0.5 and 1 (1M queries, hand-run with `bench/queries/compare.py`).
const OMNISCIENT_SLEEP: Duration = Duration::from_micros(50);

/// Where protection locks pages (mmap), the default share of the memory the neighbourhood
/// policy leaves out of its plans ([`AdvisorConfig::lock_reserve`]): locked pages cannot be
/// reclaimed, and under a memory cgroup they share the limit with the process's own memory
/// (about 12 MB for the CLI answering 1M edge queries on kron22, 4 bytes per query of it the
/// workload). With kron22 at 10% (54.7 MB, the vertex table 33.6 MB) the table is still kept.
pub const LOCK_RESERVE: f64 = 0.25;

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
    /// Where protection locks pages, the share of `memory_pages` the neighbourhood policy
    /// leaves out of its plans (see [`LOCK_RESERVE`]).
    pub lock_reserve: f64,
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
    let planned = planned_pages(cfg.memory_pages, dir.protection_locks(), cfg.lock_reserve);
    let mut nb = Neighbourhood::new(workload.kind, planned, dir.num_vertices());
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
        match cfg.mode {
            PrefetchMode::Neighbourhood => std::thread::sleep(nb.idle_sleep()),
            PrefetchMode::Omniscient => {
                idle += 1;
                if idle < 16 {
                    std::thread::yield_now();
                } else {
                    std::thread::sleep(OMNISCIENT_SLEEP);
                }
            }
            _ => std::thread::sleep(IDLE_SLEEP),
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

/// The pages the neighbourhood policy plans for: `memory_pages`, less `share` of it where
/// protection `locks` pages.
fn planned_pages(memory_pages: Option<u64>, locks: bool, share: f64) -> Option<u64> {
    memory_pages.map(|m| if locks { m - (m as f64 * share) as u64 } else { m })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_reserve_comes_off_the_plan_only_where_protection_locks() {
        // cnr-2000 at 10% on mmap: 755 pages, 188.75 of them the default reserve.
        assert_eq!(planned_pages(Some(755), true, LOCK_RESERVE), Some(567));
        assert_eq!(planned_pages(Some(755), true, 0.0), Some(755));
        assert_eq!(planned_pages(Some(755), false, LOCK_RESERVE), Some(755));
        assert_eq!(planned_pages(None, true, LOCK_RESERVE), None);
    }
}
