//! The page table: one atomic word per page of each file (8 bytes of memory per page of the
//! graph, whether resident or not: files are fixed size, so a direct-mapped array needs no
//! hashing and no lock), as in vmcache.
//!
//! Word layout:
//! - bit 63: the page was loaded at least once (tells cold misses from capacity misses);
//! - bit 62: the page was read ahead and not requested since (for `prefetches_used`);
//! - bit 61: the page starts an asynchronous read-ahead window and was not requested since
//!   (its first use asks for the next window);
//! - bits 32..61: the frame index (meaningful only while resident);
//! - bits 0..32: the state: [`EVICTED`], [`LOCKED`] (being loaded or evicted by one thread), or
//!   otherwise the pin count of the resident page (0 = resident and evictable).

/// Set once the page has been loaded.
pub(super) const LOADED_ONCE: u64 = 1 << 63;
/// Set on a page loaded by read-ahead until its first request.
pub(super) const PREFETCHED: u64 = 1 << 62;
/// Set on the first page of an asynchronous read-ahead window until its first request.
pub(super) const TRIGGER: u64 = 1 << 61;
const FRAME_SHIFT: u32 = 32;
const FRAME_MASK: u64 = 0x1FFF_FFFF;
const STATE_MASK: u64 = 0xFFFF_FFFF;
/// State: not in memory.
pub(super) const EVICTED: u64 = 0xFFFF_FFFF;
/// State: one thread holds the page exclusively (loading it, or evicting it).
pub(super) const LOCKED: u64 = 0xFFFF_FFFE;
/// Pin counts stop growing here (a reader wanting more pins waits for some to be released).
pub(super) const MAX_PINS: u64 = 0xFFFF_FF00;
/// The largest frame index a word can hold.
pub(super) const MAX_FRAMES: usize = FRAME_MASK as usize;

/// The state field of a word.
#[inline]
pub(super) fn state(w: u64) -> u64 {
    w & STATE_MASK
}

/// The frame field of a word.
#[inline]
pub(super) fn frame(w: u64) -> usize {
    ((w >> FRAME_SHIFT) & FRAME_MASK) as usize
}

/// The word of a page resident in `frame` with `pins` pins.
#[inline]
pub(super) fn resident(frame: usize, pins: u64) -> u64 {
    debug_assert!(frame <= MAX_FRAMES && pins < MAX_PINS);
    LOADED_ONCE | (frame as u64) << FRAME_SHIFT | pins
}

/// `w` with its state replaced by `s` (keeping the loaded-once bit, clearing the frame and
/// the prefetched bit).
#[inline]
pub(super) fn with_state(w: u64, s: u64) -> u64 {
    (w & LOADED_ONCE) | s
}
