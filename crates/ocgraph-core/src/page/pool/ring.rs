//! Batched asynchronous reads through io_uring, for the `WillNeed` loader (see [`prefetch`]).
//!
//! On this project's VM a random direct 4 KiB read issued alone (`pread`) costs 11-13 us of
//! guest kernel CPU, a quarter of it the virtio doorbell; queued four at a time through one
//! `io_uring_enter` it costs ~5 us, sixteen at a time ~3 us, and the disk serves 2-3x the reads
//! (`examples/ring_reads.rs`, `bench/pages/results/ring-reads.txt`). A prefetcher that reads
//! through a ring therefore takes less CPU from the query threads beside it.
//!
//! [`prefetch`]: super::prefetch

use io_uring::{opcode, types, IoUring};

/// One io_uring instance: queue reads, submit them together, reap their completions.
pub(super) struct Ring {
    ring: IoUring,
    /// Reads submitted and not reaped yet.
    in_flight: usize,
}

impl Ring {
    /// A ring of `entries` submission slots, or `None` where the kernel (or a sandbox's
    /// seccomp filter) refuses io_uring.
    pub(super) fn new(entries: u32) -> Option<Ring> {
        IoUring::new(entries).ok().map(|ring| Ring { ring, in_flight: 0 })
    }

    /// Reads submitted and not reaped yet.
    pub(super) fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// Queues a `readv` of `iov` from byte `offset` of `fd`, tagged `token` (submitted by the
    /// next [`Ring::submit_and_wait`]; a full submission queue is submitted first).
    ///
    /// # Safety
    /// `fd` stays open, and `iov` and every buffer it names stay valid and are neither read nor
    /// written by anyone else, until the completion tagged `token` is reaped.
    pub(super) unsafe fn push_readv(&mut self, fd: i32, iov: &[libc::iovec], offset: u64, token: u64) {
        let entry = opcode::Readv::new(types::Fd(fd), iov.as_ptr(), iov.len() as u32)
            .offset(offset)
            .build()
            .user_data(token);
        loop {
            // SAFETY: the entry's buffers outlive the read by the caller's guarantee.
            if unsafe { self.ring.submission().push(&entry) }.is_ok() {
                self.in_flight += 1;
                return;
            }
            self.submit_and_wait(0);
        }
    }

    /// Submits the queued reads and waits until at least `min` completions are ready.
    ///
    /// Panics on an error other than an interruption: the ring is unusable then, and reads in
    /// flight would hold their pages locked for ever.
    pub(super) fn submit_and_wait(&mut self, min: usize) {
        loop {
            match self.ring.submit_and_wait(min) {
                Ok(_) => return,
                Err(e) if matches!(e.raw_os_error(), Some(libc::EINTR | libc::EAGAIN | libc::EBUSY)) => {}
                Err(e) => panic!("ocgraph: io_uring_enter failed: {e}"),
            }
        }
    }

    /// Appends the ready completions to `out` as (token, result: bytes read or `-errno`).
    pub(super) fn reap(&mut self, out: &mut Vec<(u64, i32)>) {
        for c in self.ring.completion() {
            self.in_flight -= 1;
            out.push((c.user_data(), c.result()));
        }
    }
}

impl Drop for Ring {
    /// Waits for every read in flight: their buffers are frames of a pool that may be freed
    /// right after.
    fn drop(&mut self) {
        let mut done = Vec::new();
        while self.in_flight > 0 {
            if self.ring.submit_and_wait(1).is_err() {
                return;
            }
            done.clear();
            self.reap(&mut done);
        }
    }
}
