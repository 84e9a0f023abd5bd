//! GAC, graph-adaptive caching (seed 001): CLOCK and LIFO compete, and the one with the better
//! record evicts.
//!
//! - **Groups.** Frames form groups of [`GacConfig::group_size`] by index (`frame / size`), and
//!   the victim is searched inside one group. Which group:
//!   - duel evidence, CLOCK active: the groups take turns as the segments of one CLOCK (a
//!     group evicts until its hand passes its last frame), so CLOCK is the global CLOCK;
//!   - duel evidence, LIFO active: a pseudo-random group (weighted by its frames), so that every
//!     group keeps its oldest pages and churns its newest;
//!   - rule evidence: the group the page being loaded hashes to (its ghosts and tags live
//!     there); other groups are tried only when every frame of the group is pinned.
//!
//!   (Hashing the page to a group under duel evidence lost up to 7 points against CLOCK at
//!   70-90% of the pages: free frames go out in order, so a group's frames are filled at one
//!   time, and one group held only hot pages while another held pages used once.)
//! - **Score.** A global score (an `f64` updated by compare-and-swap) says which policy is
//!   active: `> 0` or `0` (the start) LIFO, `< 0` CLOCK. A LIFO win adds, a CLOCK win subtracts.
//! - **Voters.** Randomly chosen voter groups gather evidence; follower groups just run the
//!   active policy.
//! - **Duel evidence** (default, [`Evidence::Duel`]): a voter group replays every request for
//!   its pages (loads and hits) through a CLOCK shadow and a LIFO shadow of the group's size
//!   (keys only); a request only one shadow holds is a point for that policy, added to the
//!   global score at once. (Gathering 8 points per group first left the score at 0 through
//!   short runs such as WCC's, whose groups each see a few points.) On a hit the shadow is
//!   updated only if the group's lock is free (a busy group skips that request's evidence).
//!   Shadows are keyed by the group the page hashes to, whatever frame holds it.
//! - **Rule evidence** ([`Evidence::Rules`], seed 001's competition) in a voter group, on a
//!   miss: the active policy's victim is evicted and
//!   remembered as a ghost (page, policy, time; [`GacConfig::ghosts_per_group`] per group); the
//!   fallback policy's victim (simulated) is only tagged. Rules:
//!   - a miss on a ghost: the evicting policy was wrong — the other one wins (rule 2);
//!   - a hit on a tagged page: the fallback was wrong — the other policy wins (rule 2);
//!   - the active policy evicts a tagged page: the fallback chose it first — it wins (rule 1).
//! - **Time decay.** The global score is multiplied by `d` every [`GacConfig::epoch_misses`]
//!   misses. With rule evidence, each voter group also counts its misses; its clock `T`
//!   advances by one every [`GacConfig::time_unit`] of them, and a win decided at `Tc` for a
//!   choice made at `Ts` counts `d^(Tc-Ts)`. (That per-win decay is what made the rules lose
//!   PageRank/WCC at 30-50% of the pages: LIFO's wins on a loop are disclosed a whole loop after
//!   the choice and count ~0.7^37, CLOCK's rule-1 wins on the churning newest frames at once.)
//! - **CLOCK** sets a frame's reference bit on every hit (rules: also on load).
//! - **Soft LIFO.** LIFO evicts the second most recently arrived page of the group. A page
//!   arrives when loaded for a request; pages read ahead ([`ReplacementPolicy::on_load_ahead`])
//!   arrive at their first request and are passed over by LIFO (and unseen by the shadows)
//!   until then. Each group keeps its ordinary pages (loaded, not deferred) in a list sorted
//!   by arrival ([`arrivals`]), so LIFO's choice is O(1); a scan of the group finds it when
//!   only deferred pages are left, a sort orders the group when the choice is refused.
//! - **Guided LIFO** ([`GacConfig::guided`], duel evidence). When LIFO becomes active, the
//!   cache holds what CLOCK left, not what the LIFO shadows that won hold, and plain LIFO
//!   freezes that. Often that is as good (on a loop any frozen set pays, once a loop), but
//!   not always (BFS on cnr-2000 at 30-70% of its pages lost 3.5-7.3 points to CLOCK: the
//!   shadows saw LIFO win on early pages the cache no longer held). So the voter groups
//!   count, while LIFO is active, the requests the LIFO shadows held and the cache missed
//!   minus the reverse (decayed with the score); once that gap exceeds
//!   [`GacConfig::guide_gap`] times the voters' frames (the shadows have out-hit the cache by
//!   that many cache-fulls), a page the LIFO shadow of its group has dropped since its last
//!   request goes first (a bitmap over the frames, set when a shadow drops a key whose owner
//!   frame still holds it, cleared on every request the shadows see), and LIFO's own choice
//!   only when no such page can be taken. Pages of follower groups are never marked. (Guiding
//!   at once lost 10-17 points on PageRank over kron16 at 40-80%: the cache's frozen set,
//!   thrown out, was as good as the shadows'.)
//! - **Boundary adjustment.** Pages the kernels report shared by two worker partitions
//!   ([`ReplacementPolicy::set_shared_pages`]: the page holding the end of one partition's
//!   data and the start of the next's) are passed over by LIFO from their load until their
//!   next request, so that the second partition finds what the first loaded
//!   ([`GacConfig::boundary`]).
//!
//! Hits cost CLOCK's reference-bit store plus one load of the frame's tag word; in a voter
//! group (duel evidence) also the shadows' update (and, while LIFO is active, the gap's when
//! the cache and the LIFO shadow disagree).

mod arrivals;
mod config;
mod duel;
#[cfg(test)]
mod tests;

pub use config::{Evidence, GacConfig, Voters};

use arrivals::Arrivals;
use duel::{Duel, Slots};

use std::collections::{HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};

use parking_lot::{Mutex, RwLock};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::{PageKey, ReplacementPolicy};
use crate::error::Result;

/// splitmix64's step: neighbouring numbers map to unrelated ones.
fn mix(x: u64) -> u64 {
    crate::mix::mix64(x.wrapping_add(0x9e37_79b9_7f4a_7c15))
}

/// The two competing policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Contender {
    /// CLOCK (locality).
    Clock,
    /// LIFO (looping scans).
    Lifo,
}

impl Contender {
    fn other(self) -> Contender {
        match self {
            Contender::Clock => Contender::Lifo,
            Contender::Lifo => Contender::Clock,
        }
    }

    /// Tag bits (never 0).
    fn bits(self) -> u64 {
        match self {
            Contender::Clock => 1,
            Contender::Lifo => 2,
        }
    }
}

/// A frame's [`Gac::slots`] word before its page's first duel access.
const NO_HINT: u64 = u64::MAX;
/// [`Gac::slots`] bit (with a hint): the page is steady in its group's shadows (held by both,
/// CLOCK reference bit set), so a hit would change nothing there and skips the duel.
const STEADY: u64 = 1 << 62;

/// Marked frames [`Gac::take_dropped`] tries before giving up (all pinned or busy).
const GUIDED_TRIES: usize = 64;
/// Words of [`Gac::dropped`] (64 frames each) one search looks at.
const GUIDED_WORDS: usize = 64;

/// A frame's [`Gac::duel_group`] when its page's group does not vote with duel evidence.
const NO_GROUP: u32 = u32::MAX;

/// Frame holds no page.
const NO_KEY: u64 = u64::MAX;
/// Meta word bit: a boundary page not yet requested again since its load.
const FRESH_BOUNDARY: u64 = 1 << 63;
/// Meta word bit: a page read ahead and not requested yet.
const AHEAD: u64 = 1 << 62;
/// Meta word bits LIFO passes over (until the page's next request).
const DEFERRED: u64 = FRESH_BOUNDARY | AHEAD;
/// Meta word: low 2 bits the tagging policy, then the group time of the tag.
const TAG_MASK: u64 = !DEFERRED;

/// A page evicted by the active policy of a voter group.
#[derive(Debug, Clone, Copy)]
struct Ghost {
    key: PageKey,
    by: Contender,
    time: u64,
}

/// Per-group state touched only on misses.
struct Group {
    /// CLOCK hand, an offset within the group.
    hand: usize,
    ghosts: VecDeque<Ghost>,
    /// Shadows of a voter group with duel evidence.
    duel: Option<Duel>,
    /// The group's ordinary pages in LIFO order (see [`Gac::resync`]); out of date while
    /// the group's [`Gac::stale`] flag is set.
    arrivals: Arrivals,
}

/// The GAC policy. See the module documentation.
pub struct Gac {
    group_size: usize,
    ghosts_per_group: usize,
    evidence: Evidence,
    decay: f64,
    /// Group misses per decay step.
    time_unit: f64,
    epoch_misses: u64,
    soft_lifo: bool,
    guided: bool,
    /// The group that evicts next (duel evidence).
    cursor: AtomicUsize,
    /// [`GacConfig::boundary`].
    boundary: bool,
    /// The pages shared by two partitions ([`ReplacementPolicy::set_shared_pages`]).
    shared: RwLock<HashSet<PageKey>>,
    /// Whether `shared` holds any page (the load path reads only this when not).
    any_shared: AtomicBool,
    groups: Box<[Mutex<Group>]>,
    voter: Box<[bool]>,
    /// Per frame: the key loaded, or [`NO_KEY`].
    key: Box<[AtomicU64]>,
    /// Per frame: CLOCK reference bit.
    referenced: Box<[AtomicBool]>,
    /// Per frame: load order (LIFO), from `loads`.
    load_seq: Box<[AtomicU64]>,
    /// Per frame: tag (fallback policy and group time), [`FRESH_BOUNDARY`] and [`AHEAD`].
    meta: Box<[AtomicU64]>,
    loads: AtomicU64,
    /// Per frame: its page's [`Slots`] in the shadows (packed) with [`STEADY`], or
    /// [`NO_HINT`] before any.
    slots: Box<[AtomicU64]>,
    /// Per frame: the voter group (duel evidence) its page hashes to, or [`NO_GROUP`]; set on
    /// load, so that hits neither hash the key nor look up the voters.
    duel_group: Box<[AtomicU32]>,
    /// Per frame: in its group's [`Arrivals`] (written under the group's lock).
    listed: Box<[AtomicBool]>,
    /// Per group: its [`Arrivals`] is out of date. While CLOCK is active (duel evidence) a
    /// change of a frame only sets this flag, and LIFO's next pick in the group rebuilds the
    /// list (see [`Gac::resync`]).
    stale: Box<[AtomicBool]>,
    /// Per frame, 64 to a word: its page has been dropped by its group's LIFO shadow since
    /// its last request (guided LIFO).
    dropped: Box<[AtomicU64]>,
    /// Requests of voter groups that the LIFO shadows held and the cache missed, minus those
    /// the cache hit and the LIFO shadows missed, while LIFO was active (`f64` bits, decayed
    /// with the score). Guided LIFO acts only while it exceeds `gap_min`.
    gap: AtomicU64,
    /// [`GacConfig::guide_gap`] times the voter groups' frames.
    gap_min: f64,
    /// Frames marked in `dropped`.
    dropped_count: AtomicUsize,
    /// The word of `dropped` where the next search starts.
    dropped_cursor: AtomicUsize,
    /// Per group: misses so far (voter groups only).
    time: Box<[AtomicU64]>,
    misses: AtomicU64,
    /// The global score, `f64` bits.
    score: AtomicU64,
}

impl Gac {
    /// GAC over `frames` frames with `config` (checked with [`GacConfig::validate`]).
    pub fn new(frames: usize, config: &GacConfig) -> Result<Gac> {
        config.validate()?;
        let gs = config.group_size;
        let n = frames.div_ceil(gs).max(1);
        let voters = match config.voters {
            Voters::Count(c) => c.min(n),
            Voters::Fraction(f) => ((f * n as f64).ceil() as usize).clamp(1, n),
        };
        let mut order: Vec<usize> = (0..n).collect();
        order.shuffle(&mut Xoshiro256PlusPlus::seed_from_u64(config.seed));
        let mut voter = vec![false; n];
        for &g in &order[..voters] {
            voter[g] = true;
        }
        let voter_frames: usize =
            (0..n).filter(|&g| voter[g]).map(|g| ((g + 1) * gs).min(frames).saturating_sub(g * gs)).sum();
        let gap_min = config.guide_gap * voter_frames as f64;
        Ok(Gac {
            group_size: gs,
            ghosts_per_group: config.ghosts_per_group,
            evidence: config.evidence,
            decay: config.decay,
            time_unit: config.time_unit.unwrap_or(1) as f64,
            epoch_misses: config.epoch_misses.unwrap_or(frames.max(1) as u64),
            soft_lifo: config.soft_lifo,
            guided: config.guided && config.evidence == Evidence::Duel,
            cursor: AtomicUsize::new(0),
            boundary: config.boundary,
            shared: RwLock::new(HashSet::new()),
            any_shared: AtomicBool::new(false),
            groups: (0..n)
                .map(|g| {
                    let duel = (voter[g] && config.evidence == Evidence::Duel).then(|| {
                        let cap = ((g + 1) * gs).min(frames).saturating_sub(g * gs);
                        Duel::new(cap, config.soft_lifo)
                    });
                    let frames_here = ((g + 1) * gs).min(frames).saturating_sub(g * gs);
                    let arrivals = Arrivals::new(frames_here);
                    Mutex::new(Group { hand: 0, ghosts: VecDeque::new(), duel, arrivals })
                })
                .collect(),
            voter: voter.into(),
            key: (0..frames).map(|_| AtomicU64::new(NO_KEY)).collect(),
            referenced: (0..frames).map(|_| AtomicBool::new(false)).collect(),
            load_seq: (0..frames).map(|_| AtomicU64::new(0)).collect(),
            meta: (0..frames).map(|_| AtomicU64::new(0)).collect(),
            loads: AtomicU64::new(0),
            slots: (0..frames).map(|_| AtomicU64::new(NO_HINT)).collect(),
            duel_group: (0..frames).map(|_| AtomicU32::new(NO_GROUP)).collect(),
            listed: (0..frames).map(|_| AtomicBool::new(false)).collect(),
            stale: (0..n).map(|_| AtomicBool::new(false)).collect(),
            dropped: (0..frames.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
            gap: AtomicU64::new(0f64.to_bits()),
            gap_min,
            dropped_count: AtomicUsize::new(0),
            dropped_cursor: AtomicUsize::new(0),
            time: (0..n).map(|_| AtomicU64::new(0)).collect(),
            misses: AtomicU64::new(0),
            score: AtomicU64::new(0f64.to_bits()),
        })
    }

    /// The global score: `>= 0` LIFO is active, `< 0` CLOCK.
    pub fn score(&self) -> f64 {
        f64::from_bits(self.score.load(Ordering::Relaxed))
    }

    /// The active policy.
    pub fn active(&self) -> Contender {
        if self.score() >= 0.0 {
            Contender::Lifo
        } else {
            Contender::Clock
        }
    }

    /// Number of voter groups.
    pub fn voter_groups(&self) -> usize {
        self.voter.iter().filter(|&&v| v).count()
    }

    /// Applies `f` to the global score with compare-and-swap.
    fn update_score(&self, f: impl Fn(f64) -> f64) {
        Self::update_f64(&self.score, f);
    }

    /// Applies `f` to the `f64` in `word` with compare-and-swap.
    fn update_f64(word: &AtomicU64, f: impl Fn(f64) -> f64) {
        let _ =
            word.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| Some(f(f64::from_bits(b)).to_bits()));
    }

    /// `winner` was right about a choice made at time `since` of group `g`.
    fn win(&self, winner: Contender, g: usize, since: u64) {
        let dt = self.time[g].load(Ordering::Relaxed).saturating_sub(since) as f64;
        let w = self.decay.powf(dt / self.time_unit);
        let w = if winner == Contender::Lifo { w } else { -w };
        self.update_score(|s| s + w);
    }

    /// A page arrives in `frame` (loaded for a request, or first requested after read-ahead):
    /// it becomes the newest for LIFO.
    fn arrive(&self, frame: usize) {
        self.load_seq[frame].store(self.loads.fetch_add(1, Ordering::Relaxed) + 1, Ordering::Relaxed);
    }

    /// Loads `key` into `frame`; `request`: the load serves a request (duel evidence), else
    /// the page was read ahead.
    fn load(&self, frame: usize, key: PageKey, request: bool) {
        self.key[frame].store(key, Ordering::Relaxed);
        self.set_dropped(frame, false);
        // The frame's slot hint belonged to its previous page.
        self.slots[frame].store(NO_HINT, Ordering::Relaxed);
        // Rules: a load is a reference (otherwise simulated CLOCK would tag the page just
        // loaded — the very page LIFO evicts next — and win rule 1 on every miss). Duel: a
        // load leaves the bit clear, as the static CLOCK (a page used once goes first).
        // A page read ahead gets the bit too, as with the static CLOCK: otherwise the hand,
        // passing just after the window was read, evicts it before its first use.
        let rules = self.evidence == Evidence::Rules;
        self.referenced[frame].store(rules || !request, Ordering::Relaxed);
        if !rules {
            let g = self.group_of(key);
            let dg = if self.voter[g] { g as u32 } else { NO_GROUP };
            self.duel_group[frame].store(dg, Ordering::Relaxed);
            if request {
                self.duel(frame, true);
            }
        }
        if request {
            self.arrive(frame);
        } else {
            self.load_seq[frame].store(self.loads.fetch_add(1, Ordering::Relaxed) + 1, Ordering::Relaxed);
        }
        let fresh = if self.any_shared.load(Ordering::Relaxed) && self.shared.read().contains(&key) {
            FRESH_BOUNDARY
        } else {
            0
        };
        self.meta[frame].store(fresh | if request { 0 } else { AHEAD }, Ordering::Relaxed);
        self.resync(frame);
    }

    /// Puts `frame` where its state says in its group's [`Arrivals`]: in the list, by load
    /// sequence, iff it holds an ordinary page (loaded, not deferred). Called after every
    /// change of the frame's key, load sequence or deferred bits.
    ///
    /// While CLOCK is active with duel evidence nothing reads the lists, so the change only
    /// marks the group stale (no lock); [`Gac::fresh_arrivals`] rebuilds its list when LIFO
    /// next picks there. (Keeping the lists up to date cost a lock and a list update per page
    /// arrival and eviction, a sixth of GAC's extra instructions on a CLOCK-active WCC run.)
    fn resync(&self, frame: usize) {
        if self.evidence == Evidence::Duel && self.active() == Contender::Clock {
            let stale = &self.stale[frame / self.group_size];
            if !stale.load(Ordering::Relaxed) {
                stale.store(true, Ordering::Release);
            }
            return;
        }
        if !self.ordinary(frame) && !self.listed[frame].load(Ordering::Relaxed) {
            // Neither in the list nor due in it (an eviction or a load ahead of a page that
            // was not ordinary): no lock.
            return;
        }
        let g = frame / self.group_size;
        self.resync_locked(g, &mut self.groups[g].lock(), frame);
    }

    /// [`Gac::resync`] with group `g`'s lock held (`frame` in group `g`).
    fn resync_locked(&self, g: usize, grp: &mut Group, frame: usize) {
        let lo = g * self.group_size;
        let i = frame - lo;
        grp.arrivals.remove(i);
        let ordinary = self.ordinary(frame);
        if ordinary {
            grp.arrivals.insert(i, |j| self.load_seq[lo + j].load(Ordering::Relaxed));
        }
        self.listed[frame].store(ordinary, Ordering::Relaxed);
    }

    /// Brings group `g`'s [`Arrivals`] up to date if it is stale: its ordinary pages sorted
    /// by load sequence, as [`Gac::resync`] would have kept them.
    fn fresh_arrivals(&self, g: usize, grp: &mut Group) {
        if !self.stale[g].load(Ordering::Acquire) || !self.stale[g].swap(false, Ordering::AcqRel) {
            return;
        }
        let frames = self.frames_of(g);
        let lo = frames.start;
        let mut order = [(0u64, 0u8); 64];
        let mut n = 0;
        for f in frames {
            let ordinary = self.ordinary(f);
            self.listed[f].store(ordinary, Ordering::Relaxed);
            if ordinary {
                order[n] = (self.load_seq[f].load(Ordering::Relaxed), (f - lo) as u8);
                n += 1;
            }
        }
        order[..n].sort_unstable();
        grp.arrivals.clear();
        for &(_, i) in &order[..n] {
            grp.arrivals.insert(i as usize, |j| self.load_seq[lo + j].load(Ordering::Relaxed));
        }
    }

    /// Locks group `g` and takes the frame `choose` picks in it (claimed) out of its
    /// [`Arrivals`] (see [`Gac::unlist_locked`]).
    fn take_in(&self, g: usize, choose: impl FnOnce(&mut Group) -> Option<usize>) -> Option<usize> {
        let mut grp = self.groups[g].lock();
        let f = choose(&mut grp)?;
        self.unlist_locked(g, &mut grp, f);
        Some(f)
    }

    /// Takes the victim `frame` (claimed: the pool evicts it next) out of group `g`'s
    /// [`Arrivals`] under the lock [`Gac::victim`] holds, so that `on_evict` needs no lock.
    fn unlist_locked(&self, g: usize, grp: &mut Group, frame: usize) {
        grp.arrivals.remove(frame - g * self.group_size);
        self.listed[frame].store(false, Ordering::Relaxed);
    }

    /// Whether `frame` holds an ordinary page (loaded, not deferred).
    #[inline]
    fn ordinary(&self, frame: usize) -> bool {
        self.loaded(frame) && self.meta[frame].load(Ordering::Relaxed) & DEFERRED == 0
    }

    /// Duel evidence: replays a request for `frame`'s page in its group's shadows if the group
    /// votes. `wait` (a load): take the group's lock even when busy; else (a hit) skip when
    /// busy, and find the key through the frame's slot hint.
    fn duel(&self, frame: usize, wait: bool) {
        let g = self.duel_group[frame].load(Ordering::Relaxed);
        if g == NO_GROUP {
            return;
        }
        let g = g as usize;
        let Some(mut grp) = (if wait { Some(self.groups[g].lock()) } else { self.groups[g].try_lock() })
        else {
            return;
        };
        let grp = &mut *grp;
        if let Some(d) = grp.duel.as_mut() {
            let key = self.key[frame].load(Ordering::Relaxed);
            // On a load the hint is stale (another page's): scan.
            let h = self.slots[frame].load(Ordering::Relaxed);
            let hint = (!wait && h != NO_HINT).then(|| Slots::unpack(h & !STEADY));
            let (points, at, steady, lifo_held) = match hint {
                // Held by both shadows, as at its last request: no points, steady now.
                Some(at) if d.hit_both(key, at, frame as u32) => (0, at, true, true),
                _ => d.access_owned(
                    key,
                    hint,
                    frame as u32,
                    |f| self.unsteady(f),
                    |f, k| {
                        if self.key[f as usize].load(Ordering::Relaxed) == k {
                            self.set_dropped(f as usize, true);
                        }
                    },
                ),
            };
            // Both shadows hold the page now.
            self.set_dropped(frame, false);
            if self.guided && self.active() == Contender::Lifo {
                // A load is a miss of the cache, any other request a hit.
                let d = f64::from(u8::from(lifo_held)) - f64::from(u8::from(!wait));
                if d != 0.0 {
                    Self::update_f64(&self.gap, |g| g + d);
                }
            }
            self.slots[frame].store(at.pack() | if steady { STEADY } else { 0 }, Ordering::Relaxed);
            if points != 0 {
                self.update_score(|s| s + f64::from(points));
            }
        }
    }

    /// Marks or unmarks `frame` in [`Gac::dropped`] (nothing is marked without guided LIFO,
    /// so the duel's hit path then skips the bitmap).
    #[inline]
    fn set_dropped(&self, frame: usize, on: bool) {
        if !self.guided {
            return;
        }
        let (w, b) = (&self.dropped[frame / 64], 1u64 << (frame % 64));
        if on {
            if w.fetch_or(b, Ordering::Relaxed) & b == 0 {
                self.dropped_count.fetch_add(1, Ordering::Relaxed);
            }
        } else if w.load(Ordering::Relaxed) & b != 0 && w.fetch_and(!b, Ordering::Relaxed) & b != 0 {
            self.dropped_count.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// Guided LIFO's victim: a frame marked in [`Gac::dropped`] holding an ordinary page,
    /// claimed by `evictable` and taken out of its group's [`Arrivals`]. Searches from where
    /// the last search stopped, at most [`GUIDED_WORDS`] words and [`GUIDED_TRIES`] marked
    /// frames; `None` when none was taken.
    fn take_dropped(&self, evictable: &mut dyn FnMut(usize) -> bool) -> Option<usize> {
        if self.dropped_count.load(Ordering::Relaxed) == 0 {
            return None;
        }
        let words = self.dropped.len();
        let start = self.dropped_cursor.load(Ordering::Relaxed);
        let mut tries = 0;
        for i in 0..words.min(GUIDED_WORDS) {
            let w = (start + i) % words;
            let mut bits = self.dropped[w].load(Ordering::Relaxed);
            while bits != 0 {
                let f = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let taken =
                    self.take_in(f / self.group_size, |_| (self.ordinary(f) && evictable(f)).then_some(f));
                if taken.is_some() {
                    self.set_dropped(f, false);
                    self.dropped_cursor.store(w, Ordering::Relaxed);
                    return taken;
                }
                tries += 1;
                if tries == GUIDED_TRIES {
                    return None;
                }
            }
        }
        self.dropped_cursor.store((start + words.min(GUIDED_WORDS)) % words, Ordering::Relaxed);
        None
    }

    /// The state of a shadow slot owned by `frame` changed: its page is no longer steady.
    fn unsteady(&self, frame: u32) {
        let s = &self.slots[frame as usize];
        let h = s.load(Ordering::Relaxed);
        if h != NO_HINT && h & STEADY != 0 {
            let _ = s.compare_exchange(h, h & !STEADY, Ordering::Relaxed, Ordering::Relaxed);
        }
    }

    /// Whether a hit on `frame` would change nothing in the shadows (see [`STEADY`]).
    #[inline]
    fn steady(&self, frame: usize) -> bool {
        let h = self.slots[frame].load(Ordering::Relaxed);
        h != NO_HINT && h & STEADY != 0
    }

    /// The group page `key` hashes to.
    fn group_of(&self, key: PageKey) -> usize {
        (mix(key) % self.groups.len() as u64) as usize
    }

    fn frames_of(&self, g: usize) -> std::ops::Range<usize> {
        let lo = g * self.group_size;
        lo.min(self.key.len())..((g + 1) * self.group_size).min(self.key.len())
    }

    fn loaded(&self, f: usize) -> bool {
        self.key[f].load(Ordering::Relaxed) != NO_KEY
    }

    fn tagged(&self, f: usize) -> bool {
        self.meta[f].load(Ordering::Relaxed) & TAG_MASK != 0
    }

    /// CLOCK over the group from its hand: frames accepted by `pick` with a clear reference
    /// bit (set bits are cleared on the way). With duel evidence up to the group's last frame
    /// (the hand then returns to the first and the next group takes over, see
    /// [`ReplacementPolicy::victim`]), else at most two turns.
    fn clock_pick(&self, g: usize, grp: &mut Group, pick: &mut dyn FnMut(usize) -> bool) -> Option<usize> {
        let r = self.frames_of(g);
        let n = r.len();
        if self.evidence == Evidence::Duel {
            // The hand stops past the last frame; the group's next turn starts at the first.
            while grp.hand < n {
                let f = r.start + grp.hand;
                grp.hand += 1;
                if self.loaded(f) && !self.referenced[f].swap(false, Ordering::Relaxed) && pick(f) {
                    return Some(f);
                }
            }
            grp.hand = 0;
            return None;
        }
        for _ in 0..2 * n {
            let f = r.start + grp.hand;
            grp.hand = (grp.hand + 1) % n;
            if !self.loaded(f) || self.referenced[f].swap(false, Ordering::Relaxed) {
                continue;
            }
            if pick(f) {
                return Some(f);
            }
        }
        None
    }

    /// LIFO over the group: loaded frames newest first (soft LIFO: the newest goes last; fresh
    /// boundary pages go after the others); the first accepted by `pick`.
    fn lifo_pick(&self, g: usize, grp: &mut Group, pick: &mut dyn FnMut(usize) -> bool) -> Option<usize> {
        self.lifo_pick_ordinary(g, grp, pick).or_else(|| self.lifo_pick_deferred(g, pick))
    }

    /// [`Gac::lifo_pick`] among the group's ordinary pages only.
    fn lifo_pick_ordinary(
        &self,
        g: usize,
        grp: &mut Group,
        pick: &mut dyn FnMut(usize) -> bool,
    ) -> Option<usize> {
        self.fresh_arrivals(g, grp);
        // The ordinary pages from the group's Arrivals, in order; the list is kept under the
        // group's lock, the frames' state in atomics: a frame whose page is no longer ordinary
        // (a concurrent change under way) is passed over.
        let lo = g * self.group_size;
        for i in grp.arrivals.newest_first(self.soft_lifo) {
            let f = lo + i;
            if self.loaded(f) && self.meta[f].load(Ordering::Relaxed) & DEFERRED == 0 && pick(f) {
                return Some(f);
            }
        }
        None
    }

    /// [`Gac::lifo_pick`] among the group's deferred pages only.
    fn lifo_pick_deferred(&self, g: usize, pick: &mut dyn FnMut(usize) -> bool) -> Option<usize> {
        // Then the deferred pages, newest first: the newest found by a scan (groups holding
        // only pages read ahead are common), the others sorted only when it is refused.
        let deferred = || {
            self.frames_of(g)
                .filter(|&f| self.loaded(f) && self.meta[f].load(Ordering::Relaxed) & DEFERRED != 0)
        };
        let first = deferred().min_by_key(|&f| u64::MAX - self.load_seq[f].load(Ordering::Relaxed))?;
        if pick(first) {
            return Some(first);
        }
        let mut rest: Vec<(u64, usize)> =
            deferred().map(|f| (u64::MAX - self.load_seq[f].load(Ordering::Relaxed), f)).collect();
        rest.sort_unstable();
        rest.into_iter().map(|c| c.1).filter(|&f| f != first).find(|&f| pick(f))
    }

    /// LIFO's full order of group `g`'s loaded frames: newest first, deferred pages (fresh
    /// boundary, read ahead) after the ordinary ones; soft LIFO: the newest ordinary page
    /// after the other ordinary ones. (The reference [`Gac::lifo_pick`] is tested against.)
    #[cfg(test)]
    fn lifo_order(&self, g: usize) -> Vec<usize> {
        let mut cands: Vec<(bool, u64, usize)> = self
            .frames_of(g)
            .filter(|&f| self.loaded(f))
            .map(|f| {
                let fresh = self.meta[f].load(Ordering::Relaxed) & DEFERRED != 0;
                (fresh, u64::MAX - self.load_seq[f].load(Ordering::Relaxed), f)
            })
            .collect();
        cands.sort_unstable();
        if self.soft_lifo && cands.len() > 1 && !cands[0].0 {
            // The newest non-boundary page goes after the other non-boundary pages.
            let k = cands.iter().take_while(|c| !c.0).count();
            cands[..k].rotate_left(1);
        }
        cands.into_iter().map(|c| c.2).collect()
    }

    fn pick(
        &self,
        p: Contender,
        g: usize,
        grp: &mut Group,
        pick: &mut dyn FnMut(usize) -> bool,
    ) -> Option<usize> {
        match p {
            Contender::Clock => self.clock_pick(g, grp, pick),
            Contender::Lifo => self.lifo_pick(g, grp, pick),
        }
    }

    /// The miss path of group `g`: the competition in a voter group, the active policy in a
    /// follower.
    fn victim_in(&self, g: usize, key: PageKey, evictable: &mut dyn FnMut(usize) -> bool) -> Option<usize> {
        let mut grp = self.groups[g].lock();
        let active = self.active();
        if !self.voter[g] || self.evidence == Evidence::Duel {
            let f = self.pick(active, g, &mut grp, evictable)?;
            self.unlist_locked(g, &mut grp, f);
            return Some(f);
        }
        let now = self.time[g].fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(i) = grp.ghosts.iter().position(|gh| gh.key == key) {
            let gh = grp.ghosts.remove(i).expect("position is in range");
            self.win(gh.by.other(), g, gh.time);
        }
        let va = self.pick(active, g, &mut grp, evictable)?;
        let fallback = active.other();
        // The fallback may choose a frame it tagged before (its tag keeps the older time).
        if let Some(vf) = self.pick(fallback, g, &mut grp, &mut |f| f != va) {
            if !self.tagged(vf) {
                self.meta[vf].fetch_or(now << 2 | fallback.bits(), Ordering::Relaxed);
            }
        }
        let m = self.meta[va].swap(0, Ordering::Relaxed);
        if m & DEFERRED != 0 && self.frames_of(g).contains(&va) {
            self.resync_locked(g, &mut grp, va);
        }
        let m = m & TAG_MASK;
        if m != 0 {
            // The fallback tagged it earlier and nobody asked for it since (rule 1).
            let by = if m & 3 == Contender::Clock.bits() { Contender::Clock } else { Contender::Lifo };
            self.win(by, g, m >> 2);
        } else {
            let old = self.key[va].load(Ordering::Relaxed);
            // Ghosts live in the group their page hashes to; a page loaded into another
            // group's frame while frames were free is not remembered.
            if self.group_of(old) == g && self.ghosts_per_group > 0 {
                if grp.ghosts.len() == self.ghosts_per_group {
                    grp.ghosts.pop_front();
                }
                grp.ghosts.push_back(Ghost { key: old, by: active, time: now });
            }
        }
        self.unlist_locked(g, &mut grp, va);
        Some(va)
    }
}

impl ReplacementPolicy for Gac {
    fn name(&self) -> &'static str {
        "gac"
    }

    fn on_hit(&self, frame: usize) {
        if !self.referenced[frame].load(Ordering::Relaxed) {
            self.referenced[frame].store(true, Ordering::Relaxed);
        }
        if self.evidence == Evidence::Duel && !self.steady(frame) {
            self.duel(frame, false);
        }
        if self.meta[frame].load(Ordering::Relaxed) != 0 {
            let m = self.meta[frame].swap(0, Ordering::Relaxed);
            if m & AHEAD != 0 {
                // First request of a page read ahead: for LIFO it arrives now.
                self.arrive(frame);
            }
            if m & DEFERRED != 0 {
                self.resync(frame);
            }
            let m = m & TAG_MASK;
            if m != 0 {
                // The fallback's choice was asked for again before the active policy chose it.
                let by = if m & 3 == Contender::Clock.bits() { Contender::Clock } else { Contender::Lifo };
                self.win(by.other(), frame / self.group_size, m >> 2);
            }
        }
    }

    fn on_load(&self, frame: usize, key: PageKey) {
        self.load(frame, key, true);
    }

    fn on_load_ahead(&self, frame: usize, key: PageKey) {
        // Not a request: the shadows see the page at its first request (an `on_hit`), and
        // LIFO passes over it until then (it is the next page needed, not the last one).
        self.load(frame, key, false);
    }

    fn on_evict(&self, frame: usize) {
        self.key[frame].store(NO_KEY, Ordering::Relaxed);
        self.set_dropped(frame, false);
        self.referenced[frame].store(false, Ordering::Relaxed);
        self.meta[frame].store(0, Ordering::Relaxed);
        self.resync(frame);
    }

    fn victim(&self, key: PageKey, evictable: &mut dyn FnMut(usize) -> bool) -> Option<usize> {
        let m = self.misses.fetch_add(1, Ordering::Relaxed) + 1;
        if m.is_multiple_of(self.epoch_misses) {
            let d = self.decay;
            self.update_score(|s| s * d);
            Self::update_f64(&self.gap, |g| g * d);
        }
        let n = self.groups.len();
        match (self.evidence, self.active()) {
            (Evidence::Duel, Contender::Lifo) => {
                // A pseudo-random group, weighted by its frames (the next ones when every frame
                // of it is pinned): every group keeps its oldest pages and churns its newest.
                // Pages read ahead and not used yet go only when no group has an ordinary page
                // to give: a group holding only such pages (common during a scan) passes the
                // turn, or LIFO would evict the newest of them, a page the scan needs soon.
                // Guided LIFO first takes a page the LIFO shadows have dropped.
                if self.guided && f64::from_bits(self.gap.load(Ordering::Relaxed)) > self.gap_min {
                    if let Some(f) = self.take_dropped(evictable) {
                        return Some(f);
                    }
                }
                let g = (mix(m) % self.key.len() as u64) as usize / self.group_size;
                let groups = || (0..n).map(|i| (g + i) % n);
                let ordinary =
                    groups().find_map(|h| self.take_in(h, |grp| self.lifo_pick_ordinary(h, grp, evictable)));
                return ordinary.or_else(|| groups().find_map(|h| self.victim_in(h, key, evictable)));
            }
            (Evidence::Duel, Contender::Clock) => {
                // The groups take turns, as the segments of one CLOCK: the current group evicts
                // until its CLOCK hand passes its last frame (or every frame of it is pinned).
                // (Hashing the page to a group instead left hot pages to be evicted in one
                // group while another held pages used once: free frames go out in order, so a
                // group's frames are filled at one time.) Two turns of every group find a
                // victim unless all frames are pinned.
                for _ in 0..=2 * n {
                    let g = self.cursor.load(Ordering::Relaxed);
                    if let Some(f) = self.victim_in(g, key, evictable) {
                        return Some(f);
                    }
                    let _ =
                        self.cursor.compare_exchange(g, (g + 1) % n, Ordering::Relaxed, Ordering::Relaxed);
                }
                return None;
            }
            (Evidence::Rules, _) => {}
        }
        // Rules: ghosts and tags live in the group the page hashes to.
        let g = self.group_of(key);
        if let Some(f) = self.victim_in(g, key, evictable) {
            return Some(f);
        }
        // Every frame of the group is pinned: take the active policy's choice elsewhere.
        let active = self.active();
        (1..n).map(|i| (g + i) % n).find_map(|h| self.take_in(h, |grp| self.pick(active, h, grp, evictable)))
    }

    fn wants_shared_pages(&self) -> bool {
        self.boundary
    }

    fn set_shared_pages(&self, keys: &[PageKey]) {
        if !self.boundary {
            return;
        }
        let mut shared = self.shared.write();
        shared.clear();
        shared.extend(keys);
        self.any_shared.store(!shared.is_empty(), Ordering::Relaxed);
    }

    fn score(&self) -> Option<f64> {
        Some(Gac::score(self))
    }
}
