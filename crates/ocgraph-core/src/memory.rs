//! Allocations sized by the graph, which the machine may refuse: they fail with
//! [`Error::OutOfMemory`] instead of aborting the process, as a failed `Vec` allocation does.
//!
//! A graph may have up to 2^32 - 1 vertices, and the per-vertex state of a kernel or a
//! maintained result (docs/guide.md, "Memory") is kept in RAM: on 4 billion vertices, 8 bytes
//! per vertex is 32 GiB. Kernels ask [`ensure_available`] for their per-vertex state before they
//! allocate it, and growing state goes through [`try_resize`].

use crate::error::{Error, Result};

/// Fails with [`Error::OutOfMemory`] when `bytes` cannot be allocated now: one allocation of
/// that size, freed at once. It is never written, so it costs no memory; the kernel's own
/// allocations then follow. The operating system may still refuse pages later (it promises
/// more than it has), but a request the process cannot map at all (beyond `ulimit -v`, or
/// beyond RAM and swap together) is an error here rather than an abort there.
pub fn ensure_available(bytes: u64, what: impl FnOnce() -> String) -> Result<()> {
    let mut probe: Vec<u8> = Vec::new();
    let granted = usize::try_from(bytes).is_ok_and(|len| probe.try_reserve_exact(len).is_ok());
    if !granted {
        return Err(out_of_memory(what(), bytes));
    }
    // Kept opaque so that the allocation is not optimised away.
    std::hint::black_box(probe.as_mut_ptr());
    Ok(())
}

/// Makes room in `v` for `n` entries, failing with [`Error::OutOfMemory`] (naming `what`) where
/// the growth cannot be allocated.
pub fn try_reserve<T>(v: &mut Vec<T>, n: usize, what: impl FnOnce() -> String) -> Result<()> {
    let more = n.saturating_sub(v.len());
    v.try_reserve_exact(more)
        .map_err(|_| out_of_memory(what(), (more as u64).saturating_mul(std::mem::size_of::<T>() as u64)))
}

/// [`Vec::resize`] to `n` entries of `fill`, failing as [`try_reserve`] does.
pub fn try_resize<T: Clone>(v: &mut Vec<T>, n: usize, fill: T, what: impl FnOnce() -> String) -> Result<()> {
    try_reserve(v, n, what)?;
    v.resize(n, fill);
    Ok(())
}

/// Address space a worker thread reserves for its stack: Rust's default, which rayon keeps.
const THREAD_STACK_BYTES: u64 = 2 << 20;

/// The error of `threads` worker threads the system would not start (`cause`: its words).
/// Under an address-space limit (`ulimit -v`) that is the threads' stacks finding no room: an
/// [`Error::OutOfMemory`] naming the limit. Otherwise (a limit on threads) an invalid argument
/// that says to ask for fewer.
pub fn threads_refused(threads: usize, cause: &str) -> Error {
    let what = format!("starting {threads} worker thread(s) ({cause})");
    match address_space_limit() {
        Some(limit) => Error::OutOfMemory {
            what,
            bytes: threads as u64 * THREAD_STACK_BYTES,
            address_space_limit: Some(limit),
        },
        None => Error::invalid(format!("{what} failed: ask for fewer with --threads or RAYON_NUM_THREADS")),
    }
}

/// Bytes the machine can give this process now without swapping: `/proc/meminfo`'s
/// `MemAvailable`, or the address space `ulimit -v` leaves (the limit less this process's
/// `VmSize`) when that is less; `None` when neither is known.
pub fn available_bytes() -> Option<u64> {
    let available = proc_kib("/proc/meminfo", "MemAvailable:");
    let left = address_space_limit()
        .map(|l| l.saturating_sub(proc_kib("/proc/self/status", "VmSize:").unwrap_or(0)));
    match (available, left) {
        (Some(a), Some(l)) => Some(a.min(l)),
        (a, l) => a.or(l),
    }
}

/// The value of the `key` line (`NAME:  123 kB`) of the proc file `path`, in bytes.
fn proc_kib(path: &str, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    let value = text.lines().find_map(|l| l.strip_prefix(key))?;
    value.trim().trim_end_matches("kB").trim().parse::<u64>().ok().map(|k| k * 1024)
}

/// The [`Error::OutOfMemory`] of `what`, which needed `bytes`.
pub fn out_of_memory(what: String, bytes: u64) -> Error {
    Error::OutOfMemory { what, bytes, address_space_limit: address_space_limit() }
}

/// This process's address-space limit (`ulimit -v`) in bytes, when it has one: the "Max
/// address space" line of `/proc/self/limits` ("unlimited" or an unreadable file: `None`).
fn address_space_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find_map(|l| l.strip_prefix("Max address space"))?;
    line.split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_allocation_beyond_the_address_space_is_an_error() {
        assert!(ensure_available(1 << 20, || "a small array".into()).is_ok());
        let e = ensure_available(u64::MAX / 2, || "a huge array".into()).unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::OutOfMemory);
        assert!(e.to_string().contains("a huge array needs 8388608.0 TiB"), "{e}");
        let mut v = vec![1u64; 3];
        try_resize(&mut v, 5, 7, || "v".into()).unwrap();
        assert_eq!(v, [1, 1, 1, 7, 7]);
        try_resize(&mut v, 2, 7, || "v".into()).unwrap();
        assert_eq!(v, [1, 1]);
        let e = try_resize(&mut v, usize::MAX / 16, 0, || "growing v".into()).unwrap_err();
        assert!(e.to_string().starts_with("out of memory: growing v needs"), "{e}");
        assert_eq!(v, [1, 1]);
    }
}
