//! Buffer pool tests against the bytes of random files.

use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::{catch_read_errors, BufferPool};
use crate::error::ErrorKind;
use crate::page::backend::{PageSource, PagedFile, PartitionCut};
use crate::page::mmap::MmapSource;
use crate::page::policy::POLICY_NAMES;

/// Writes files of random bytes with the given sizes; returns their specs and contents.
fn random_files(dir: &Path, sizes: &[u64], seed: u64) -> (Vec<PagedFile>, Vec<Vec<u8>>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut specs = Vec::new();
    let mut data = Vec::new();
    for (i, &len) in sizes.iter().enumerate() {
        let bytes: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        let path = dir.join(format!("f{i}"));
        std::fs::write(&path, &bytes).unwrap();
        specs.push(PagedFile { path, len });
        data.push(bytes);
    }
    (specs, data)
}

/// A random read (file, offset, len): 4-byte aligned, sometimes spanning pages, sometimes at
/// the end of the file.
fn random_read(rng: &mut impl Rng, data: &[Vec<u8>], page: u64) -> (u8, u64, usize) {
    let file = rng.gen_range(0..data.len());
    let len = data[file].len() as u64;
    if len == 0 {
        return (file as u8, 0, 0);
    }
    let offset = match rng.gen_range(0..4) {
        0 => len - rng.gen_range(1..=len.min(3 * page) / 4) * 4, // near the end
        1 => (rng.gen_range(1..=len / page.min(len)) * page).min(len) - 4, // just before a boundary
        _ => rng.gen_range(0..len / 4) * 4,
    };
    let max = (len - offset).min(3 * page) / 4;
    let n = if rng.gen_bool(0.5) { rng.gen_range(0..=max.min(16)) } else { rng.gen_range(0..=max) };
    (file as u8, offset, (n * 4) as usize)
}

fn check_source(src: &dyn PageSource, data: &[Vec<u8>], page: u64, seed: u64, pool: Option<&BufferPool>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut held = None;
    for i in 0..400 {
        let (file, offset, len) = random_read(&mut rng, data, page);
        let got = src.read(file, offset, len).typed::<u8>();
        let want = &data[file as usize][offset as usize..offset as usize + len];
        assert_eq!(&*got, want, "read {i}: file {file} offset {offset} len {len}");
        let mut copy = vec![0xAAu8; len];
        src.read_into(file, offset, &mut copy);
        assert_eq!(copy, want, "read_into {i}: file {file} offset {offset} len {len}");
        // Sometimes keep one slice alive across the next read (2 pins at most).
        held = if rng.gen_bool(0.3) { Some(got) } else { None };
        if let Some(p) = pool {
            p.resident_pages();
        }
    }
    drop(held);
}

#[test]
fn every_policy_and_capacity_returns_the_file_bytes() {
    let dir = tempfile::tempdir().unwrap();
    // Sizes are multiples of 4096 (graph files are padded) but not of 16 KiB.
    let (files, data) = random_files(dir.path(), &[4096 * 13, 4096, 0, 4096 * 6], 7);
    let total: u64 = files.iter().map(|f| f.len).sum();
    for page in [4096u64, 16384] {
        let pages: u64 = files.iter().map(|f| f.len.div_ceil(page)).sum();
        for policy in POLICY_NAMES {
            for frames in [2, 3, pages / 2, pages] {
                let pool = BufferPool::open(&files, frames * page, page as usize, policy).unwrap();
                assert_eq!(pool.frame_count() as u64, frames);
                check_source(&pool, &data, page, frames * 31 + page, Some(&pool));
                let s = pool.stats();
                assert_eq!(s.hits + s.misses, s.page_requests);
                assert_eq!(s.cold_misses + s.capacity_misses, s.misses);
                if frames == pages {
                    assert_eq!(s.capacity_misses, 0, "{policy}");
                    assert_eq!(s.evictions, 0);
                }
            }
        }
    }
    // A capacity larger than the files allocates only what they need.
    let pool = BufferPool::open(&files, total * 10, 4096, "clock").unwrap();
    assert_eq!(pool.frame_count() as u64, total / 4096);
    let mmap = MmapSource::open(&files).unwrap();
    check_source(&mmap, &data, 4096, 5, None);
}

#[test]
fn buffered_fallback_on_shm_returns_the_file_bytes() {
    // tmpfs may refuse O_DIRECT; either way the bytes must be right.
    let Ok(dir) = tempfile::tempdir_in("/dev/shm") else { return };
    let (files, data) = random_files(dir.path(), &[4096 * 9, 4096 * 2], 11);
    let pool = BufferPool::open(&files, 3 * 4096, 4096, "lru").unwrap();
    check_source(&pool, &data, 4096, 3, Some(&pool));
}

#[test]
fn eight_threads_read_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let (files, data) = random_files(dir.path(), &[4096 * 40, 4096 * 25], 13);
    for policy in POLICY_NAMES {
        // Fewer frames than threads: misses must wait for pins to be released.
        for frames in [4u64, 16] {
            let pool = BufferPool::open(&files, frames * 4096, 4096, policy).unwrap();
            std::thread::scope(|s| {
                for t in 0..8u64 {
                    let (pool, data) = (&pool, &data);
                    s.spawn(move || {
                        let mut rng = Xoshiro256PlusPlus::seed_from_u64(t);
                        for _ in 0..1500 {
                            let (file, offset, len) = random_read(&mut rng, data, 4096);
                            let got = pool.read(file, offset, len).typed::<u8>();
                            assert_eq!(&*got, &data[file as usize][offset as usize..offset as usize + len]);
                        }
                    });
                }
            });
            let resident = pool.resident_pages();
            assert!(resident <= frames as usize);
            let s = pool.stats();
            assert_eq!(s.resident_bytes, resident as u64 * 4096, "{policy}");
            assert_eq!(s.capacity_bytes, frames * 4096);
            assert_eq!(s.hits + s.misses, s.page_requests, "{policy}");
            assert_eq!(s.cold_misses + s.capacity_misses, s.misses);
        }
    }
}

#[test]
fn stats_of_a_scan() {
    let dir = tempfile::tempdir().unwrap();
    let n = 20u64;
    let (files, _) = random_files(dir.path(), &[4096 * n], 17);
    let scan = |pool: &BufferPool| {
        for p in 0..n {
            for k in 0..4 {
                drop(pool.read(0, p * 4096 + k * 1024, 8));
            }
        }
    };
    let pool = BufferPool::open(&files, n * 4096, 4096, "clock").unwrap();
    pool.set_read_ahead(0, 0);
    scan(&pool);
    let s = pool.stats();
    assert_eq!((s.page_requests, s.hits, s.misses), (4 * n, 3 * n, n));
    assert_eq!((s.cold_misses, s.capacity_misses, s.evictions), (n, 0, 0));
    assert_eq!((s.bytes_read, s.read_calls, s.sequential_reads), (n * 4096, n, n));
    assert_eq!(pool.resident_pages(), n as usize);
    pool.reset_stats();
    scan(&pool);
    let s = pool.stats();
    assert_eq!((s.hits, s.misses, s.bytes_read), (4 * n, 0, 0));

    // Half the capacity under FIFO: the second scan misses on every page, all capacity misses.
    let pool = BufferPool::open(&files, n / 2 * 4096, 4096, "fifo").unwrap();
    pool.set_read_ahead(0, 0);
    scan(&pool);
    scan(&pool);
    let s = pool.stats();
    assert_eq!((s.cold_misses, s.capacity_misses), (n, n));
    assert_eq!(s.evictions, 2 * n - n / 2);
    assert_eq!(s.sequential_reads, 2 * n - 1, "the restart at offset 0 is not sequential");
    assert_eq!(pool.resident_pages(), n as usize / 2);
}

#[test]
fn sequential_misses_read_ahead() {
    let dir = tempfile::tempdir().unwrap();
    let n = 40u64;
    let (files, data) = random_files(dir.path(), &[4096 * n], 31);
    let pool = BufferPool::open(&files, n * 4096, 4096, "clock").unwrap();
    pool.set_read_ahead(9, 0);
    for p in 0..n {
        let got = pool.read(0, p * 4096 + 16, 8).typed::<u8>();
        assert_eq!(&*got, &data[0][(p * 4096 + 16) as usize..(p * 4096 + 24) as usize]);
    }
    let s = pool.stats();
    // 40 frames: read-ahead of min(64, 10) - 1 = 9 pages, so one read per 10 pages.
    assert_eq!((s.misses, s.prefetches_issued, s.prefetches_used), (4, 36, 36));
    assert_eq!((s.hits, s.read_calls, s.sequential_reads, s.bytes_read), (36, 4, 4, n * 4096));
    assert_eq!(pool.resident_pages(), n as usize);
}

/// Makes pages `kept` of a 400-page file resident (no read-ahead), then scans the file from
/// page 0 with read-ahead, checking every page's bytes; returns the scan's (misses, bytes read).
fn scan_past_resident_pages(kept: &[u64], seed: u64) -> (u64, u64) {
    let dir = tempfile::tempdir().unwrap();
    let n = 400u64;
    let (files, data) = random_files(dir.path(), &[4096 * n], seed);
    let pool = BufferPool::open(&files, n * 4096, 4096, "clock").unwrap();
    pool.set_read_ahead(0, 0);
    for &p in kept {
        drop(pool.read(0, p * 4096, 8));
    }
    let before = pool.stats();
    pool.set_read_ahead(7, 16);
    for p in 0..n {
        let got = pool.read(0, p * 4096 + 8, 8).typed::<u8>();
        assert_eq!(&*got, &data[0][(p * 4096 + 8) as usize..(p * 4096 + 16) as usize]);
        drop(got);
        // Let the background readers finish, so that the counts do not depend on timing.
        pool.resident_pages();
    }
    let s = pool.stats();
    (s.misses - before.misses, s.bytes_read - before.bytes_read)
}

#[test]
fn a_read_ahead_stream_passes_over_resident_pages() {
    // Pages 100..140 are resident before the scan. The stream's windows pass over them and
    // read on, so the scan misses only at its first two pages (the first miss does not follow
    // the previous read, the second starts the stream) and reads every other page once.
    // (Before, the window starting at page 104 read nothing and ended the stream: 4 misses.)
    let kept: Vec<u64> = (100..140).collect();
    assert_eq!(scan_past_resident_pages(&kept, 41), (2, (400 - 40) * 4096));
}

#[test]
fn a_read_ahead_window_reads_every_hole_between_resident_pages() {
    // Every 5th page of 100..300 is resident before the scan (as LIFO keeps pages scattered
    // over a file it loops over). The windows read the evicted pages between them, so the scan
    // still misses only at its first two pages and reads every other page once.
    // (Before, a window stopped at its first resident page: 67 misses.)
    let kept: Vec<u64> = (100..300).step_by(5).collect();
    assert_eq!(scan_past_resident_pages(&kept, 43), (2, (400 - 40) * 4096));
}

#[test]
fn a_read_ahead_stream_ends_after_windows_that_find_every_page_resident() {
    // Pages 100..300 are resident before the scan: more than `MAX_IDLE` windows of 16 pages.
    // The stream ends inside them instead of carrying on past them, so the scan misses again
    // at page 300 (twice: the first miss there starts no stream) and still reads every other
    // page once.
    let kept: Vec<u64> = (100..300).collect();
    assert_eq!(scan_past_resident_pages(&kept, 47), (4, (400 - 200) * 4096));
}

#[test]
fn a_read_spanning_evicted_pages_loads_them_with_one_call_without_read_ahead() {
    let dir = tempfile::tempdir().unwrap();
    let n = 256u64;
    let (files, data) = random_files(dir.path(), &[4096 * n], 47);
    // 256 frames: a demand run is at most 256 / 64 = 4 pages.
    let pool = BufferPool::open(&files, n * 4096, 4096, "clock").unwrap();
    pool.set_read_ahead(0, 0);
    let read = |lo: u64, len: u64| {
        let got = pool.read(0, lo, len as usize).typed::<u8>();
        assert_eq!(&*got, &data[0][lo as usize..(lo + len) as usize]);
    };
    // Pages 10..=13 (4 pages) missing: one preadv, four misses, no read-ahead.
    read(10 * 4096 + 8, 4 * 4096 - 16);
    let s = pool.stats();
    assert_eq!((s.misses, s.hits, s.read_calls, s.bytes_read), (4, 0, 1, 4 * 4096));
    assert_eq!(s.prefetches_issued, 0);
    // Pages 20..=28 with page 22 resident: runs 20..=21, 23..=26 (capped at 4), 27..=28.
    read(22 * 4096, 8);
    pool.reset_stats();
    read(20 * 4096 + 100, 9 * 4096 - 200);
    let s = pool.stats();
    assert_eq!((s.misses, s.hits, s.read_calls, s.bytes_read), (8, 1, 3, 8 * 4096));
    // A pool of 3 frames (demand runs of one page) still reads ranges of 7 pages: every page
    // is unpinned after its copy.
    let tiny = BufferPool::open(&files, 3 * 4096, 4096, "clock").unwrap();
    tiny.set_read_ahead(0, 0);
    for lo in [0u64, 5 * 4096 + 7, 100 * 4096 + 3] {
        let got = tiny.read(0, lo, 7 * 4096).typed::<u8>();
        assert_eq!(&*got, &data[0][lo as usize..(lo + 7 * 4096) as usize]);
    }
    assert_eq!(pool.resident_pages(), 13);
}

#[test]
fn a_cached_read_is_a_peek_that_never_loads() {
    let dir = tempfile::tempdir().unwrap();
    let (files, data) = random_files(dir.path(), &[4096 * 4], 23);
    let pool = BufferPool::open(&files, 2 * 4096, 4096, "lru").unwrap();
    pool.set_read_ahead(0, 0);
    let peek = |lo: u64, len: usize| {
        let mut got = vec![0u8; len];
        pool.read_cached_into(0, lo, &mut got)
            .then(|| assert_eq!(got, data[0][lo as usize..lo as usize + len]))
    };
    // Pages 0 then 1 resident; page 0 is the least recently used.
    pool.read(0, 10, 8);
    pool.read(0, 4096 + 10, 8);
    let before = pool.stats();
    assert_eq!(peek(100, 64), Some(()));
    assert_eq!(peek(3 * 4096, 8), None, "page 3 is not resident");
    assert_eq!(peek(4096 - 8, 16), Some(()), "pages 0 and 1, both resident");
    assert_eq!(peek(2 * 4096 - 8, 16), None, "page 2 is not resident");
    // No request, hit or miss counted, nothing loaded.
    let after = pool.stats();
    assert_eq!(
        (after.page_requests, after.hits, after.misses),
        (before.page_requests, before.hits, before.misses)
    );
    assert_eq!(pool.resident_pages(), 2);
    // Not a use for LRU either: reading page 2 evicts page 0, peeked last but used first.
    pool.read(0, 2 * 4096, 8);
    assert_eq!(peek(0, 8), None);
    assert_eq!(peek(4096, 8), Some(()));
}

#[test]
fn keeping_a_cached_page_is_a_use_that_never_loads() {
    let dir = tempfile::tempdir().unwrap();
    let (files, _) = random_files(dir.path(), &[4096 * 4], 29);
    let pool = BufferPool::open(&files, 2 * 4096, 4096, "lru").unwrap();
    pool.set_read_ahead(0, 0);
    // Pages 0 then 1 resident; page 0 is the least recently used.
    pool.read(0, 10, 8);
    pool.read(0, 4096 + 10, 8);
    let before = pool.stats();
    assert!(pool.keep_cached(0, 100), "page 0 is resident");
    assert!(!pool.keep_cached(0, 3 * 4096 + 5), "page 3 is not");
    let after = pool.stats();
    assert_eq!(
        (after.page_requests, after.hits, after.misses),
        (before.page_requests, before.hits, before.misses),
        "nothing counted"
    );
    assert_eq!(pool.resident_pages(), 2, "nothing loaded");
    // Page 0 was used last now: reading page 2 evicts page 1.
    pool.read(0, 2 * 4096, 8);
    assert!(pool.keep_cached(0, 0));
    assert!(!pool.keep_cached(0, 4096));
}

#[test]
fn a_protected_page_is_passed_over_by_eviction_until_every_other_frame_is_pinned() {
    let dir = tempfile::tempdir().unwrap();
    let (files, data) = random_files(dir.path(), &[4096 * 8], 31);
    let pool = BufferPool::open(&files, 3 * 4096, 4096, "lru").unwrap();
    pool.set_read_ahead(0, 0);
    let resident = |page: u64| pool.keep_cached(0, page * 4096);
    // Page 1 protected before it is loaded: protection holds once a request loads it.
    pool.protect(0, 4096 + 7);
    for p in [0, 1, 2] {
        pool.read(0, p * 4096, 8);
    }
    // LRU would evict page 1 (least recently used once page 0 is used again): protected, it
    // stays while pages 3..7 pass through the other two frames.
    pool.read(0, 0, 8);
    for p in 3..8 {
        let got = pool.read(0, p * 4096, 16).typed::<u8>();
        assert_eq!(&*got, &data[0][(p * 4096) as usize..(p * 4096 + 16) as usize]);
        assert!(resident(1), "protected page 1 evicted by page {p}");
    }
    // With both other frames pinned, a miss evicts the protected page rather than wait.
    let a = pool.read(0, 6 * 4096, 8);
    let b = pool.read(0, 7 * 4096, 8);
    let c = pool.read(0, 2 * 4096, 8).typed::<u8>();
    assert_eq!(&*c, &data[0][2 * 4096..2 * 4096 + 8]);
    assert!(!resident(1), "page 1 gave way");
    drop((a, b, c));
    // Unprotected, page 1 is an ordinary page: LRU evicts it first.
    pool.unprotect(0, 4096);
    pool.read(0, 4096, 8);
    pool.read(0, 0, 8);
    pool.read(0, 6 * 4096, 8);
    pool.read(0, 3 * 4096, 8);
    assert!(!resident(1), "unprotected page 1 (least recently used) was evicted");
}

#[test]
fn pages_shared_by_two_partitions_stay_until_requested_again_under_gac() {
    // Three frames, GAC with LIFO active throughout (no voters) and hard LIFO: a miss evicts
    // the newest page, except a page reported shared (boundary adjustment) until its next
    // request. Two files; residency is checked with a peek (no policy call).
    let dir = tempfile::tempdir().unwrap();
    let (files, _) = random_files(dir.path(), &[4096 * 8, 4096 * 8], 32);
    let cut = |file, next_start, prev_end| PartitionCut { file, next_start, prev_end };
    let run = |policy: &str, reports: &[Vec<PartitionCut>]| {
        let pool = BufferPool::open(&files, 3 * 4096, 4096, policy).unwrap();
        pool.set_read_ahead(0, 0);
        for r in reports {
            pool.share_pages(r);
        }
        let resident = |page: u64| pool.read_cached_into(0, page * 4096, &mut [0u8; 8]);
        for p in [0, 2, 1] {
            pool.read(0, p * 4096, 8);
        }
        // Page 1 is the newest: hard LIFO evicts it, unless shared.
        pool.read(0, 3 * 4096, 8);
        let kept = resident(1);
        if kept {
            // Requested again, page 1 is an ordinary page; the next misses evict the newest.
            pool.read(0, 4096, 8);
            pool.read(0, 4 * 4096, 8);
            pool.read(0, 5 * 4096, 8);
            assert!(resident(1), "page 1 (older than 3, 4) stays under LIFO");
        }
        (kept, pool.stats().shared_pages)
    };
    let gac = "gac:voters=0:soft=0";
    // A cut inside page 1 of file 0 (list bytes: both partitions read page 1).
    let inside = vec![cut(0, 4096 + 100, 4096 + 100)];
    assert_eq!(run(gac, std::slice::from_ref(&inside)), (true, 1));
    // A bounds entry (bytes 4104..4112) read by both partitions: page 1 too.
    assert_eq!(run(gac, &[vec![cut(0, 4104, 4112)]]), (true, 1));
    // A cut on a page boundary shares nothing.
    assert_eq!(run(gac, &[vec![cut(0, 4096, 4096)]]), (false, 0));
    // A report naming file 1 only leaves file 0's pages shared; one naming file 0 replaces them.
    assert_eq!(run(gac, &[inside.clone(), vec![cut(1, 100, 100)]]), (true, 2));
    assert_eq!(run(gac, &[inside.clone(), vec![cut(0, 8192, 8192)]]), (false, 1));
    // A span over pages 0..=2 counts three pages; with every resident page shared, LIFO
    // takes the newest of them after all.
    assert_eq!(run(gac, &[vec![cut(0, 100, 3 * 4096 - 1)]]), (false, 3));
    // Without boundary adjustment, or under another policy, the report changes nothing.
    assert_eq!(run("gac:voters=0:soft=0:boundary=0", std::slice::from_ref(&inside)), (false, 1));
    assert_eq!(run("lifo", &[inside]), (false, 1));
}

#[test]
fn a_read_spanning_pages_pins_nothing_after_the_copy() {
    let dir = tempfile::tempdir().unwrap();
    let (files, data) = random_files(dir.path(), &[4096 * 4], 19);
    let pool = BufferPool::open(&files, 2 * 4096, 4096, "lru").unwrap();
    // Spans 3 pages with 2 frames: only possible if each page is unpinned after its copy.
    let got = pool.read(0, 100, 4096 * 2 + 8).typed::<u8>();
    assert_eq!(&*got, &data[0][100..100 + 4096 * 2 + 8]);
    let again = pool.read(0, 4096 * 3, 64).typed::<u8>();
    assert_eq!(&*again, &data[0][4096 * 3..4096 * 3 + 64]);
}

#[test]
fn bad_parameters_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let (files, _) = random_files(dir.path(), &[4096 * 4], 23);
    for ps in [2048usize, 4097, 12288, 131072] {
        let e = BufferPool::open(&files, 1 << 20, ps, "clock").err().unwrap();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{ps}");
    }
    let e = BufferPool::open(&files, 2 * 16384 - 1, 16384, "clock").err().unwrap();
    assert!(
        e.to_string().contains("less than 2 pages") && e.to_string().contains("--memory / memory="),
        "{e}"
    );
    let e = BufferPool::open(&files, 1 << 20, 4096, "mru").err().unwrap();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    let missing = vec![PagedFile { path: dir.path().join("nope"), len: 4096 }];
    let e = BufferPool::open(&missing, 1 << 20, 4096, "clock").err().unwrap();
    assert!(e.to_string().contains("nope"), "{e}");
}

/// A pool of four frames whose only file is `dir`: a directory opens like a file on Linux, but
/// reading it fails (EISDIR).
fn pool_failing_reads(dir: &Path) -> BufferPool {
    let files = [PagedFile { path: dir.to_path_buf(), len: 4096 }];
    BufferPool::open(&files, 4 * 4096, 4096, "clock").unwrap()
}

#[test]
fn io_error_after_open_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let pool = pool_failing_reads(dir.path());
    let msg = catch_read_errors(|| drop(pool.read(0, 0, 8))).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(msg.contains(&dir.path().display().to_string()) && msg.contains("offset 0"), "{msg}");
    // The page was unlocked and the frame given back.
    assert_eq!(pool.resident_pages(), 0);
}

/// While one thread is inside `catch_read_errors`, a failed read on a thread outside every
/// scope panics with the file's error as its message, and a thread that carries read errors
/// passes them to its joiner's scope.
#[test]
fn a_read_failing_beside_a_scope_panics_with_its_message_unless_carried() {
    let dir = tempfile::tempdir().unwrap();
    let pool = pool_failing_reads(dir.path());
    let path = dir.path().display().to_string();
    let (entered, leave) = (std::sync::Barrier::new(2), std::sync::Barrier::new(2));
    std::thread::scope(|s| {
        let scoped = s.spawn(|| {
            catch_read_errors(|| {
                entered.wait();
                leave.wait();
            })
        });
        entered.wait();
        let payload = s.spawn(|| drop(pool.read(0, 0, 8))).join().expect_err("the read failed");
        let carried = catch_read_errors(|| {
            s.spawn(|| super::carry_read_errors(|| drop(pool.read(0, 0, 8))))
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p))
        });
        leave.wait();
        assert!(scoped.join().unwrap().is_ok());
        let msg = payload.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(msg.contains(&path) && msg.contains("offset 0"), "panic message {msg:?}");
        let msg = carried.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(msg.contains(&path) && msg.contains("offset 0"), "carried error {msg:?}");
    });
    assert_eq!(pool.resident_pages(), 0);
}

#[test]
fn a_file_truncated_after_open_is_an_error_instead_of_zeros() {
    let dir = tempfile::tempdir().unwrap();
    let (files, data) = random_files(dir.path(), &[4096 * 8], 37);
    let pool = BufferPool::open(&files, 8 * 4096, 4096, "clock").unwrap();
    let path = files[0].path.display().to_string();
    // Truncate to the middle of page 5.
    std::fs::OpenOptions::new().write(true).open(&files[0].path).unwrap().set_len(4096 * 5 + 100).unwrap();
    let error_message = |pool: &BufferPool, offset: u64| {
        catch_read_errors(|| drop(pool.read(0, offset, 8))).err().map(|e| e.to_string())
    };
    let check = |pool: &BufferPool, offset: u64, at: u64, resident: usize| {
        let msg = error_message(pool, offset).unwrap_or_else(|| panic!("no error reading at {offset}"));
        assert!(
            msg.contains(&path)
                && msg.contains(&format!("offset {at}:"))
                && msg.contains("file is shorter than the manifest says: truncated after open?"),
            "{msg}"
        );
        // The failed load left no page locked and gave its frames back.
        assert_eq!(pool.resident_pages(), resident);
    };
    pool.set_read_ahead(0, 0);
    check(&pool, 6 * 4096 + 8, 6 * 4096, 0);
    check(&pool, 5 * 4096, 5 * 4096 + 100, 0);
    // Pages wholly inside the file still read fine.
    for p in 0..4 {
        let got = pool.read(0, p * 4096 + 40, 16).typed::<u8>();
        assert_eq!(&*got, &data[0][(p * 4096 + 40) as usize..(p * 4096 + 56) as usize]);
    }
    // A sequential miss at page 4 reads ahead pages 4..8 with one preadv: page 5 is short.
    pool.set_read_ahead(3, 0);
    check(&pool, 4 * 4096, 5 * 4096 + 100, 4);
}

#[test]
fn the_background_thread_reads_ahead_of_a_sequential_scan() {
    let dir = tempfile::tempdir().unwrap();
    let n = 64u64;
    let (files, data) = random_files(dir.path(), &[4096 * n], 41);
    let pool = BufferPool::open(&files, n * 4096, 4096, "clock").unwrap();
    // Synchronous windows of 1 + 3 pages; asynchronous ones of 8, then 16 (at most) pages.
    pool.set_read_ahead(3, 16);
    let check = |p: u64| {
        let got = pool.read(0, p * 4096 + 16, 8).typed::<u8>();
        assert_eq!(&*got, &data[0][(p * 4096 + 16) as usize..(p * 4096 + 24) as usize], "page {p}");
    };
    // One sequential miss (last_end starts at 0) reads pages 0..4 and queues 4..12 and 12..28.
    check(0);
    let wait_resident = |want: usize| {
        let t0 = std::time::Instant::now();
        while pool.resident_pages() < want {
            assert!(t0.elapsed().as_secs() < 20, "read-ahead never completed");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    };
    wait_resident(28);
    let s = pool.stats();
    assert_eq!((s.misses, s.prefetches_issued, s.read_calls), (1, 3 + 8 + 16, 3));
    // Using page 4 (the first of the first asynchronous window) queues 28..44.
    for p in 1..=4 {
        check(p);
    }
    wait_resident(44);
    // The whole scan returns the file's bytes, with few misses (none if the thread keeps up).
    for p in 5..n {
        check(p);
    }
    let s = pool.stats();
    assert_eq!(s.cold_misses + s.capacity_misses, s.misses);
    assert_eq!(s.bytes_read, n * 4096, "every page read once");
    assert_eq!(s.prefetches_used, s.prefetches_issued);
    assert_eq!(pool.resident_pages(), n as usize);
}

#[test]
fn a_small_pool_scanned_by_threads_with_read_ahead_returns_the_file_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let (files, data) = random_files(dir.path(), &[4096 * 300, 4096 * 100], 43);
    for frames in [16u64, 64] {
        let pool = BufferPool::open(&files, frames * 4096, 4096, "clock").unwrap();
        pool.set_read_ahead(3, 4);
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let (pool, data) = (&pool, &data);
                s.spawn(move || {
                    for round in 0..3 {
                        let file = ((t + round) % 2) as usize;
                        let pages = data[file].len() as u64 / 4096;
                        for p in (t * pages / 4..pages).chain(0..t * pages / 4) {
                            let off = p * 4096 + 8 * t;
                            let got = pool.read(file as u8, off, 64).typed::<u8>();
                            assert_eq!(&*got, &data[file][off as usize..off as usize + 64]);
                        }
                    }
                });
            }
        });
        assert!(pool.resident_pages() <= frames as usize);
    }
}

#[test]
fn a_window_longer_than_iov_max_is_read_in_few_calls() {
    let dir = tempfile::tempdir().unwrap();
    let n = 1100u64;
    let (files, data) = random_files(dir.path(), &[4096 * n], 47);
    let pool = BufferPool::open(&files, n * 4096, 4096, "clock").unwrap();
    pool.set_read_ahead(n as usize - 1, 0);
    drop(pool.read(0, 0, 8));
    let s = pool.stats();
    // 1024 pages per preadv (IOV_MAX): two calls, not one per page.
    assert_eq!((s.misses, s.read_calls, s.bytes_read), (1, 2, n * 4096));
    for p in [0, 1023, 1024, n - 1] {
        let got = pool.read(0, p * 4096, 4096).typed::<u8>();
        assert_eq!(&*got, &data[0][(p * 4096) as usize..((p + 1) * 4096) as usize], "page {p}");
    }
}

/// A pool that reads nothing for a while backs the frames it used with huge pages in the
/// background (`MADV_COLLAPSE`, best effort): the bytes it serves stay those
/// of the files before, during and after, on 2 MiB of frames (one huge page's worth).
#[test]
fn frames_keep_their_bytes_when_collapsed_to_huge_pages() {
    let dir = tempfile::tempdir().unwrap();
    let (files, data) = random_files(dir.path(), &[4096 * 512], 17);
    let pool = BufferPool::open(&files, 4096 * 512, 4096, "clock").unwrap();
    pool.set_read_ahead(0, 0);
    assert!(!pool.watching.load(std::sync::atomic::Ordering::Acquire));
    for p in 0..512u64 {
        assert_eq!(&*pool.read(0, p * 4096, 4096).typed::<u8>(), &data[0][p as usize * 4096..][..4096]);
    }
    assert!(pool.watching.load(std::sync::atomic::Ordering::Acquire), "the huge-page thread runs");
    // Reads keep hitting while the huge-page thread settles and collapses.
    let until = std::time::Instant::now() + super::SETTLE_INTERVAL * 6;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    while std::time::Instant::now() < until {
        let (o, n) = (rng.gen_range(0..4096 * 510u64), rng.gen_range(1..8192usize));
        assert_eq!(&*pool.read(0, o, n).typed::<u8>(), &data[0][o as usize..o as usize + n]);
    }
    check_source(&pool, &data, 4096, 5, Some(&pool));
    assert_eq!(pool.stats().misses, 512, "nothing was evicted or re-read");
}

/// Committing frames ahead of use (`prefault.rs`) keeps the bytes already in them: frames being
/// filled while the thread runs must not be zeroed.
#[test]
fn populating_frames_keeps_their_bytes() {
    let mem = super::frames::FrameMemory::new(8, 4096, false).unwrap();
    // SAFETY: this test is the only user of the frames.
    let pattern: Vec<u8> = (0..4096u32).map(|i| (i * 7 % 251) as u8).collect();
    unsafe { mem.frame_mut(3) }.copy_from_slice(&pattern);
    assert!(mem.populate(0, 100), "MADV_POPULATE_WRITE refused (Linux 5.14+ expected)");
    // SAFETY: as above.
    assert_eq!(unsafe { mem.frame(3) }, &pattern[..]);
    assert!(unsafe { mem.frame(5) }.iter().all(|&b| b == 0));
}

/// Reads spanning pages that sit in adjacent frames (as a sequential scan leaves them) are served
/// from the frames without a copy, return the file's bytes, and release every pin; with 8
/// threads at once too.
#[test]
fn reads_spanning_adjacent_frames_are_zero_copy() {
    let dir = tempfile::tempdir().unwrap();
    let (files, data) = random_files(dir.path(), &[4096 * 256], 3);
    let pool = BufferPool::open(&files, 4096 * 256, 4096, "clock").unwrap();
    for p in 0..256 {
        drop(pool.read(0, p * 4096, 4096));
    }
    // SAFETY: only the address of the frame memory is used.
    let base = unsafe { pool.mem.frame(0) }.as_ptr() as usize;
    let frames = base..base + pool.frame_count() * 4096;
    let zero_copy = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for t in 0..8u64 {
            let (pool, data, frames, zero_copy) = (&pool, &data, &frames, &zero_copy);
            s.spawn(move || {
                let mut rng = Xoshiro256PlusPlus::seed_from_u64(t);
                for _ in 0..500 {
                    let offset = rng.gen_range(0..250 * 1024u64) * 4;
                    let len = rng.gen_range(4096..3 * 4096usize) / 4 * 4;
                    let got = pool.read(0, offset, len).typed::<u8>();
                    assert_eq!(&*got, &data[0][offset as usize..offset as usize + len]);
                    if frames.contains(&(got.as_ptr() as usize)) {
                        zero_copy.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                }
            });
        }
    });
    // Almost every frame holds the page after the previous frame's page.
    assert!(zero_copy.into_inner() > 8 * 500 * 9 / 10);
    pool.resident_pages();
    for (p, w) in pool.files[0].table.iter().enumerate() {
        let w = w.load(std::sync::atomic::Ordering::Relaxed);
        assert_eq!(super::table::state(w), 0, "page {p} still pinned");
    }
}

/// A `/proc/meminfo` counter of huge pages (`HugePages_Total`, `HugePages_Free`); 0 if absent.
fn huge_pages(counter: &str) -> u64 {
    let info = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    info.lines().find_map(|l| l.strip_prefix(counter)?.strip_prefix(':')?.trim().parse().ok()).unwrap_or(0)
}

/// The kernel page size, in KiB, of the mapping of this process that starts at `addr`
/// (`/proc/self/smaps`).
fn kernel_page_kib(addr: usize) -> Option<u64> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
    let mut lines = smaps.lines();
    let start = format!("{addr:x}-");
    lines.find(|l| l.starts_with(&start))?;
    lines.find_map(|l| l.strip_prefix("KernelPageSize:")?.trim().strip_suffix("kB")?.trim().parse().ok())
}

#[test]
fn frames_take_reserved_huge_pages_when_the_system_has_them() {
    use super::frames::FrameMemory;
    // 4 MiB + 3 frames: two huge pages and an ordinary tail, when reserved pages are free.
    let (count, size) = (1027, 4096);
    let mem = FrameMemory::new(count, size, false).unwrap();
    let reserved = mem.reserved_bytes();
    if huge_pages("HugePages_Total") == 0 {
        assert_eq!(reserved, 0, "no huge pages are reserved on this system");
    }
    assert!(reserved == 0 || reserved == 4 << 20, "reserved {reserved}");
    if reserved > 0 {
        // SAFETY: this test is the only user of the frames.
        let start = unsafe { mem.frame(0) }.as_ptr() as usize;
        assert_eq!(kernel_page_kib(start), Some(2048), "the head is on 2 MiB pages");
    }
    // Every frame, on either kind of page, keeps its own bytes.
    for f in 0..count {
        // SAFETY: this test is the only user of the frames.
        unsafe { mem.frame_mut(f) }.fill((f % 251) as u8);
    }
    for f in 0..count {
        // SAFETY: as above.
        let bytes = unsafe { mem.frame(f) };
        assert!(bytes.iter().all(|&b| b == (f % 251) as u8), "frame {f}");
    }
    println!(
        "reserved huge pages free: {}, frames' head on them: {reserved} bytes",
        huge_pages("HugePages_Free")
    );
}

/// A page that a thread of the parent held locked at a fork is never unlocked in the child: the
/// child's read of it fails after the stall time, naming the fork, rather than waiting forever.
#[test]
fn a_page_locked_at_a_fork_fails_the_childs_read() {
    use std::sync::atomic::Ordering;

    use super::table::{self, LOCKED};

    let dir = tempfile::tempdir().unwrap();
    let (files, _) = random_files(dir.path(), &[4096 * 4], 5);
    let pool = BufferPool::open(&files, 4 * 4096, 4096, "clock").unwrap();
    let entry = &pool.files[0].table[1];
    let w = entry.load(Ordering::Acquire);
    entry.store(table::with_state(w, LOCKED), Ordering::Release);
    // SAFETY: the child only reads through the pool (whose page is locked, as a loader of the
    // parent would leave it), formats the error and leaves with `_exit`.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let msg = catch_read_errors(|| drop(pool.read(0, 4096, 8))).err().map(|e| e.to_string());
        let named = msg.is_some_and(|m| m.contains("stayed locked") && m.contains("forked from process"));
        // SAFETY: ends the child without running the test harness's exit handlers.
        unsafe { libc::_exit(if named { 0 } else { 1 }) };
    }
    let mut status = 0;
    // SAFETY: waits for the child forked above.
    assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "child status {status}");
    // The parent's own read waits for the loader, which here is this test.
    entry.store(w, Ordering::Release);
    assert_eq!(pool.read(0, 4096, 8).typed::<u8>().len(), 8);
}
