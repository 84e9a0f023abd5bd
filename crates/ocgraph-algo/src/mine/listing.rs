//! Matches listed in memory ([`list_cliques`](super::list_cliques),
//! [`list_matches`](super::list_matches)): the rows the workers collect are held to half the
//! memory the machine had available when the listing started (the rows are held twice while
//! they are joined), so a listing larger than memory stops with
//! [`Error::OutOfMemory`](ocgraph_core::Error::OutOfMemory) instead of the process being killed.

use std::sync::atomic::{AtomicU64, Ordering};

use ocgraph_core::{memory, Result, Vertex};

/// Entries a worker's list grows by at least when it grows.
const MIN_GROWTH: usize = 1 << 12;

/// The budget of one listing, shared by its workers.
pub(crate) struct Listing {
    /// Bytes the workers' lists may reserve in all.
    limit: u64,
    /// Bytes they reserved.
    reserved: AtomicU64,
    /// The most bytes a refused request would have brought the reservations to; 0 while none
    /// was refused (once one is, the listing stops).
    refused_at: AtomicU64,
}

impl Listing {
    /// A listing allowed half the memory available now (no limit when that is unknown).
    pub(crate) fn new() -> Listing {
        Listing::with_limit(memory::available_bytes().map_or(u64::MAX, |b| b / 2))
    }

    /// A listing whose workers may reserve `limit` bytes in all.
    pub(crate) fn with_limit(limit: u64) -> Listing {
        Listing { limit, reserved: AtomicU64::new(0), refused_at: AtomicU64::new(0) }
    }

    /// Makes room in `found` for `more` entries; `false` (and the listing stops) when that
    /// would pass the limit.
    pub(crate) fn make_room(&self, found: &mut Vec<Vertex>, more: usize) -> bool {
        if found.capacity() - found.len() >= more {
            return true;
        }
        let grow = found.capacity().max(more).max(MIN_GROWTH);
        let bytes = (grow * std::mem::size_of::<Vertex>()) as u64;
        let wanted = self.reserved.fetch_add(bytes, Ordering::Relaxed) + bytes;
        if wanted > self.limit {
            self.reserved.fetch_sub(bytes, Ordering::Relaxed);
            self.refused_at.fetch_max(wanted, Ordering::Relaxed);
            return false;
        }
        found.reserve_exact(grow);
        true
    }

    /// Whether a worker was refused room (the others stop at their next vertex).
    pub(crate) fn is_over(&self) -> bool {
        self.refused_at.load(Ordering::Relaxed) > 0
    }

    /// The workers' rows of `k` vertices joined, or the error of a listing that passed its
    /// limit (`what`: "the 4-cliques", "the matches", and how else to get them).
    pub(crate) fn join(&self, parts: Vec<Vec<Vertex>>, k: usize, what: &str) -> Result<Vec<Vertex>> {
        let total: usize = parts.iter().map(Vec::len).sum();
        if self.is_over() {
            let bytes = self.refused_at.load(Ordering::Relaxed);
            return Err(memory::out_of_memory(
                format!(
                    "listing {what} in memory (more than {} rows of {k} vertices; count them instead, \
                     or list them to a file with `ocgraph mine ... --list --out FILE`)",
                    total / k.max(1)
                ),
                bytes.saturating_mul(2),
            ));
        }
        let mut out = Vec::new();
        memory::try_reserve(&mut out, total, || {
            format!("joining the {} rows listing {what}", total / k.max(1))
        })?;
        for p in parts {
            out.extend_from_slice(&p);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_past_its_limit_is_an_out_of_memory_error() {
        let roomy = Listing::with_limit(1 << 20);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for row in [[1, 2], [3, 4]] {
            assert!(roomy.make_room(&mut a, 2));
            a.extend_from_slice(&row);
        }
        assert!(roomy.make_room(&mut b, 2));
        b.extend_from_slice(&[5, 6]);
        assert_eq!(roomy.join(vec![a, b], 2, "the edges").unwrap(), [1, 2, 3, 4, 5, 6]);

        // Room for 4,096 entries: the 2,049th row of two does not fit.
        let tight = Listing::with_limit((MIN_GROWTH * 4) as u64);
        let mut rows = Vec::new();
        let fitted = (0..3000u32).take_while(|&i| {
            let ok = tight.make_room(&mut rows, 2);
            if ok {
                rows.extend_from_slice(&[i, i]);
            }
            ok
        });
        assert_eq!(fitted.count(), 2048);
        assert!(tight.is_over());
        // Refused again (as a worker does until its next vertex): the need reported stays the
        // one refused request on top of what was granted, joined twice.
        assert!(!tight.make_room(&mut rows, 2));
        let e = tight.join(vec![rows], 2, "the edges").unwrap_err();
        assert_eq!(e.kind(), ocgraph_core::error::ErrorKind::OutOfMemory);
        assert!(
            e.to_string().contains("listing the edges in memory (more than 2048 rows of 2 vertices"),
            "{e}"
        );
        assert!(e.to_string().contains("needs 64.0 KiB (65536 bytes)"), "{e}");
    }
}
