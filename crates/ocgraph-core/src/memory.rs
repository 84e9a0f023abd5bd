//! Allocations sized by the graph, which the machine may refuse: they fail with
//! [`Error::OutOfMemory`] instead of aborting the process, as a failed `Vec` allocation does.
//!
//! A graph may have up to 2^32 - 1 vertices, and the per-vertex state of a kernel or a
//! maintained result (docs/guide.md, "Memory") is kept in RAM: on 4 billion vertices, 8 bytes
//! per vertex is 32 GiB. Kernels ask [`ensure_available`] for their per-vertex state before they
//! allocate it, and growing state goes through [`try_resize`].

use std::path::Path;

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

/// Bytes the machine can give this process now without swapping: the least of
/// `/proc/meminfo`'s `MemAvailable`, the address space `ulimit -v` leaves (the limit less this
/// process's `VmSize`), and the room under the memory limit of this process's cgroup and of
/// each cgroup above it ([`cgroup_headroom`]); `None` when none is known.
pub fn available_bytes() -> Option<u64> {
    let available = proc_kib("/proc/meminfo", "MemAvailable:");
    let left = address_space_limit()
        .map(|l| l.saturating_sub(proc_kib("/proc/self/status", "VmSize:").unwrap_or(0)));
    let cgroup = std::fs::read_to_string("/proc/self/cgroup")
        .ok()
        .and_then(|own| cgroup_headroom(&own, Path::new("/sys/fs/cgroup")));
    [available, left, cgroup].into_iter().flatten().min()
}

/// Limits at or above this are cgroup v1's "no limit" (`PAGE_COUNTER_MAX` pages, rounded).
const CGROUP_V1_UNLIMITED: u64 = 1 << 62;

/// The two layouts of the memory controller's files.
#[derive(Clone, Copy)]
enum CgroupVersion {
    V1,
    V2,
}

impl CgroupVersion {
    /// The files of a cgroup's limit and usage, and the `memory.stat` keys of its file pages.
    fn files(self) -> (&'static str, &'static str, [&'static str; 2]) {
        match self {
            CgroupVersion::V1 => (
                "memory.limit_in_bytes",
                "memory.usage_in_bytes",
                ["total_inactive_file", "total_active_file"],
            ),
            CgroupVersion::V2 => ("memory.max", "memory.current", ["inactive_file", "active_file"]),
        }
    }
}

/// The room under the memory limits of the cgroup that `own` (the text of `/proc/self/cgroup`)
/// names and of its ancestors, in the cgroup file system mounted at `root`: at each level with
/// a limit, the limit less the usage plus the file pages in that usage (page cache, which the
/// kernel reclaims before it refuses memory); the least over the levels. cgroup v1's `memory`
/// controller when it is mounted, else v2's unified tree; `None` when no level has a limit or
/// the files cannot be read.
fn cgroup_headroom(own: &str, root: &Path) -> Option<u64> {
    let v1 = own.lines().find_map(|l| {
        let mut fields = l.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        controllers.split(',').any(|c| c == "memory").then_some(path)
    });
    let v2 = own.lines().find_map(|l| l.strip_prefix("0::"));
    let (top, path, version) = match (v1, v2) {
        (Some(path), _) if root.join("memory").is_dir() => (root.join("memory"), path, CgroupVersion::V1),
        (_, Some(path)) => (root.to_path_buf(), path, CgroupVersion::V2),
        _ => return None,
    };
    let mut dir = top.join(path.trim_start_matches('/'));
    let mut room: Option<u64> = None;
    loop {
        if let Some(r) = cgroup_level_room(&dir, version) {
            room = Some(room.map_or(r, |least| least.min(r)));
        }
        if dir == top || !dir.pop() {
            return room;
        }
    }
}

/// The room under the memory limit of the one cgroup at `dir` (see [`cgroup_headroom`]);
/// `None` when it has no limit or its files cannot be read.
fn cgroup_level_room(dir: &Path, version: CgroupVersion) -> Option<u64> {
    let (limit_file, usage_file, file_keys) = version.files();
    let number = |name: &str| std::fs::read_to_string(dir.join(name)).ok()?.trim().parse::<u64>().ok();
    // v2 writes "max" for no limit, which does not parse.
    let limit = number(limit_file).filter(|&l| l < CGROUP_V1_UNLIMITED)?;
    let usage = number(usage_file)?;
    let stat = std::fs::read_to_string(dir.join("memory.stat")).unwrap_or_default();
    let file_pages: u64 = stat
        .lines()
        .filter_map(|l| l.split_once(' '))
        .filter(|(key, _)| file_keys.contains(key))
        .filter_map(|(_, value)| value.trim().parse::<u64>().ok())
        .sum();
    Some(limit.saturating_sub(usage) + file_pages.min(usage))
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

    /// Writes `files` (name, text) into `dir`, creating it.
    fn write_cgroup(dir: &Path, files: &[(&str, &str)]) {
        std::fs::create_dir_all(dir).unwrap();
        for (name, text) in files {
            std::fs::write(dir.join(name), text).unwrap();
        }
    }

    #[test]
    fn the_room_under_a_cgroup_limit_is_the_least_over_its_ancestors() {
        let root = tempfile::tempdir().unwrap();
        let memory = root.path().join("memory");
        // v1: no limit at the top, 1000 bytes at "a" (900 used, 300 of them page cache),
        // 500 at "a/b" (150 used, none cache): a/b has 350 left, a 400 (100 + 300).
        write_cgroup(&memory, &[("memory.limit_in_bytes", "9223372036854771712\n")]);
        let a = memory.join("a");
        write_cgroup(
            &a,
            &[
                ("memory.limit_in_bytes", "1000\n"),
                ("memory.usage_in_bytes", "900\n"),
                ("memory.stat", "cache 5\ntotal_inactive_file 200\ntotal_active_file 100\n"),
            ],
        );
        write_cgroup(&a.join("b"), &[("memory.limit_in_bytes", "500\n"), ("memory.usage_in_bytes", "150\n")]);
        let own = "4:memory:/a/b\n1:cpu:/\n0::/\n";
        assert_eq!(cgroup_headroom(own, root.path()), Some(350));
        std::fs::write(a.join("memory.usage_in_bytes"), "990\n").unwrap();
        assert_eq!(cgroup_headroom(own, root.path()), Some(310));
        // A level that cannot be read is skipped; no limit anywhere is no answer.
        assert_eq!(cgroup_headroom("4:memory:/gone\n", root.path()), None);
        assert_eq!(cgroup_headroom("1:cpu:/\n", root.path()), None);

        // v2 (no v1 memory controller mounted): "max" is no limit.
        let root = tempfile::tempdir().unwrap();
        write_cgroup(root.path(), &[("memory.stat", "file 1\n")]);
        let c = root.path().join("x");
        write_cgroup(
            &c,
            &[
                ("memory.max", "max\n"),
                ("memory.current", "70\n"),
                ("memory.stat", "anon 40\ninactive_file 20\nactive_file 10\n"),
            ],
        );
        assert_eq!(cgroup_headroom("0::/x\n", root.path()), None);
        std::fs::write(c.join("memory.max"), "100\n").unwrap();
        assert_eq!(cgroup_headroom("0::/x\n", root.path()), Some(60));
    }
}
