//! Replacement policies for the buffer pool.
//!
//! A policy only sees frame indices (`0..frames`) and [`PageKey`]s; it knows nothing of the
//! pool's page tables or memory, so the same code can be driven by a trace-replaying cache
//! simulator. Every method takes `&self`: policies synchronise internally (CLOCK's reference bits
//! are atomics, so hits take no lock; LRU/FIFO/LIFO keep a list under a mutex).
//!
//! Protocol, as the pool drives it:
//! 1. a page is loaded into a frame → [`ReplacementPolicy::on_load`];
//! 2. a request finds the page resident → [`ReplacementPolicy::on_hit`];
//! 3. a miss needs a frame and none is free → [`ReplacementPolicy::victim`]: the policy offers
//!    candidate frames in its preference order to the `evictable` callback, which tries to claim
//!    the frame (it fails, returning `false`, when the frame is pinned or busy) — the first frame
//!    claimed is returned;
//! 4. the claimed frame's page is dropped → [`ReplacementPolicy::on_evict`], and the frame is
//!    reused for the requested page (step 1 again).
//!
//! Grouped and ghost-keeping policies use the key `victim` receives: [`Gac`] hashes it into a
//! group of frames and searches only that group; a policy remembers each frame's key from
//! `on_load` to keep ghost entries of evicted keys ([`Gac`], [`S3Fifo`], [`ArcPolicy`]).

mod arc;
mod clock;
mod fifo;
pub mod gac;
mod ghosts;
mod lifo;
mod list;
mod lru;
mod random;
mod s3fifo;

pub use arc::ArcPolicy;
pub use clock::Clock;
pub use fifo::Fifo;
pub use gac::{Gac, GacConfig};
pub use lifo::Lifo;
pub use lru::Lru;
pub use random::RandomPolicy;
pub use s3fifo::S3Fifo;

use crate::error::{Error, Result};
use crate::page::FileId;

/// Identifies a page of a file: the file id in the top 16 bits, the page number below.
pub type PageKey = u64;

/// The [`PageKey`] of page `page` of `file`.
pub fn page_key(file: FileId, page: u64) -> PageKey {
    debug_assert!(page < 1 << 48);
    (file as u64) << 48 | page
}

/// The file and page number of a [`PageKey`].
pub fn split_page_key(key: PageKey) -> (FileId, u64) {
    ((key >> 48) as FileId, key & ((1 << 48) - 1))
}

/// Chooses which frame to evict. See the module documentation for the calling protocol.
pub trait ReplacementPolicy: Send + Sync {
    /// The policy's name (as accepted by [`policy_by_name`]).
    fn name(&self) -> &'static str;

    /// The page in `frame` was requested and found resident.
    fn on_hit(&self, frame: usize);

    /// Page `key` was just loaded into `frame`.
    fn on_load(&self, frame: usize, key: PageKey);

    /// Page `key` was read ahead into `frame`, before any request for it; its first request
    /// then calls [`ReplacementPolicy::on_hit`]. Default: [`ReplacementPolicy::on_load`].
    fn on_load_ahead(&self, frame: usize, key: PageKey) {
        self.on_load(frame, key)
    }

    /// The page in `frame` was evicted (after a successful [`ReplacementPolicy::victim`]).
    fn on_evict(&self, frame: usize);

    /// Picks a frame to evict to make room for page `key`: offers candidates to `evictable` in
    /// preference order and returns the first one it accepts, or `None` when no loaded frame
    /// could be claimed (all pinned); the caller then waits and retries.
    fn victim(&self, key: PageKey, evictable: &mut dyn FnMut(usize) -> bool) -> Option<usize>;

    /// Boundary adjustment (seed 001): the pages of `keys` are shared by two worker partitions
    /// of the scan about to run (each holds the end of one partition's data and the start of
    /// the next's), so a page of them loaded from now on should stay until it is requested
    /// again. Replaces the set given before; an empty slice ends it. Default: ignored (only
    /// [`Gac`] honours it).
    fn set_shared_pages(&self, _keys: &[PageKey]) {}

    /// Whether [`ReplacementPolicy::set_shared_pages`] does anything (so that callers can skip
    /// finding the pages). Default: false.
    fn wants_shared_pages(&self) -> bool {
        false
    }

    /// An adaptive policy's current score (GAC: `>= 0` means LIFO is active, `< 0` CLOCK);
    /// `None` for static policies.
    fn score(&self) -> Option<f64> {
        None
    }
}

/// The policy names [`policy_by_name`] accepts.
pub const POLICY_NAMES: [&str; 8] = ["clock", "lru", "fifo", "lifo", "random", "s3fifo", "arc", "gac"];

/// A policy for `frames` frames by name: `clock`, `lru`, `fifo`, `lifo`, `random` (seeded with
/// a fixed seed, so runs are reproducible), `s3fifo`, `arc`, or `gac` with default parameters;
/// `gac:key=value:...` sets GAC's parameters (see [`GacConfig::parse`]). Case is ignored
/// (`LRU` is `lru`).
pub fn policy_by_name(name: &str, frames: usize) -> Result<Box<dyn ReplacementPolicy>> {
    let lower = name.to_ascii_lowercase();
    if lower.starts_with("gac:") {
        return Ok(Box::new(Gac::new(frames, &GacConfig::parse(&lower)?)?));
    }
    Ok(match lower.as_str() {
        "clock" => Box::new(Clock::new(frames)),
        "lru" => Box::new(Lru::new(frames)),
        "fifo" => Box::new(Fifo::new(frames)),
        "lifo" => Box::new(Lifo::new(frames)),
        "random" => Box::new(RandomPolicy::new(frames, 0x5eed)),
        "s3fifo" => Box::new(S3Fifo::new(frames)),
        "arc" => Box::new(ArcPolicy::new(frames)),
        "gac" => Box::new(Gac::new(frames, &GacConfig::default())?),
        _ => {
            return Err(Error::invalid(format!(
                "unknown replacement policy '{name}' (valid: {})",
                POLICY_NAMES.join(", ")
            )))
        }
    })
}

#[cfg(test)]
mod test_driver;
#[cfg(test)]
mod tests;
