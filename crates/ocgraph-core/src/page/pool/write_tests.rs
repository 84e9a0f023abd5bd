//! Tests of the pool's write path against a `Vec<u8>` model of each file.

use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::{BufferPool, WriteBack};
use crate::error::ErrorKind;
use crate::page::backend::{PageSource, PagedFile};
use crate::page::policy::POLICY_NAMES;

const PAGE: usize = 4096;

/// File 0 exists with random bytes (`pages0` pages); file 1 does not exist yet (`pages1`).
fn files(dir: &Path, pages0: usize, pages1: usize, seed: u64) -> (Vec<PagedFile>, Vec<Vec<u8>>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let first: Vec<u8> = (0..pages0 * PAGE).map(|_| rng.gen()).collect();
    let p0 = dir.join("f0");
    std::fs::write(&p0, &first).unwrap();
    let p1 = dir.join("f1");
    let _ = std::fs::remove_file(&p1);
    let specs = vec![
        PagedFile { path: p0, len: (pages0 * PAGE) as u64 },
        PagedFile { path: p1, len: (pages1 * PAGE) as u64 },
    ];
    (specs, vec![first, vec![0; pages1 * PAGE]])
}

/// A random write: sometimes whole aligned pages, sometimes spanning a page boundary.
fn random_write(rng: &mut impl Rng, model: &[Vec<u8>]) -> (u8, u64, Vec<u8>) {
    let file = rng.gen_range(0..model.len());
    let len = model[file].len();
    let (offset, n) = match rng.gen_range(0..3) {
        0 => {
            let pages = rng.gen_range(1..=3.min(len / PAGE));
            (rng.gen_range(0..=len / PAGE - pages) * PAGE, pages * PAGE)
        }
        1 => {
            let boundary = rng.gen_range(1..len / PAGE) * PAGE;
            let back = rng.gen_range(1..64);
            (boundary - back, back + rng.gen_range(1..64))
        }
        _ => {
            let o = rng.gen_range(0..len);
            (o, rng.gen_range(1..=(len - o).min(300)))
        }
    };
    (file as u8, offset as u64, (0..n).map(|_| rng.gen()).collect())
}

fn check_read(pool: &BufferPool, model: &[Vec<u8>], rng: &mut impl Rng) {
    let file = rng.gen_range(0..model.len());
    let len = model[file].len();
    let o = rng.gen_range(0..len);
    let n = rng.gen_range(0..=(len - o).min(2 * PAGE));
    let got = pool.read(file as u8, o as u64, n);
    assert_eq!(&*got.typed::<u8>(), &model[file][o..o + n], "file {file} offset {o} len {n}");
}

/// Random writes and reads against the model; then flush, and the files hold the model.
fn run_against_model(policy: &str, mode: WriteBack, frames: usize, seed: u64) {
    let dir = tempfile::tempdir().unwrap();
    let (specs, mut model) = files(dir.path(), 9, 7, seed);
    let pool = BufferPool::open_writable(&specs, (frames * PAGE) as u64, PAGE, policy, mode).unwrap();
    assert_eq!(pool.frame_count(), frames);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for i in 0..300 {
        if rng.gen_bool(0.5) {
            let (file, offset, data) = random_write(&mut rng, &model);
            pool.write_at(file, offset, &data).unwrap();
            model[file as usize][offset as usize..offset as usize + data.len()].copy_from_slice(&data);
        } else {
            check_read(&pool, &model, &mut rng);
        }
        if i == 150 {
            pool.flush().unwrap();
            assert_eq!(pool.dirty_pages(), 0);
        }
        assert!(pool.resident_pages() <= frames);
        pool.dirty_pages();
    }
    let s = pool.stats();
    assert_eq!(s.bytes_written, s.pages_written * PAGE as u64);
    assert!(s.random_writes <= s.write_calls && s.write_calls <= s.pages_written);
    pool.flush().unwrap();
    for (spec, want) in specs.iter().zip(&model) {
        assert!(
            std::fs::read(&spec.path).unwrap() == *want,
            "{policy} {mode:?} {frames}: {}",
            spec.path.display()
        );
    }
    // A fresh read-only pool reads the same bytes back.
    drop(pool);
    let ro = BufferPool::open(&specs, 4 * PAGE as u64, PAGE, policy).unwrap();
    for _ in 0..50 {
        check_read(&ro, &model, &mut rng);
    }
}

#[test]
fn random_writes_and_reads_match_a_model_for_every_policy_and_mode() {
    for (i, policy) in POLICY_NAMES.iter().enumerate() {
        for mode in WriteBack::ALL {
            for frames in [2, 3, 16] {
                run_against_model(policy, mode, frames, i as u64 * 100 + frames as u64);
            }
        }
    }
}

#[test]
fn threads_writing_disjoint_ranges_while_others_read() {
    let dir = tempfile::tempdir().unwrap();
    for mode in WriteBack::ALL {
        let (specs, _) = files(dir.path(), 1, 32, 3);
        let pool = BufferPool::open_writable(&specs, (6 * PAGE) as u64, PAGE, "clock", mode).unwrap();
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let pool = &pool;
                s.spawn(move || {
                    // Thread t owns bytes [t * 8 pages, (t + 1) * 8 pages) of file 1.
                    let base = t * 8 * PAGE as u64;
                    let mut rng = Xoshiro256PlusPlus::seed_from_u64(t);
                    let mut mine = vec![0u8; 8 * PAGE];
                    for _ in 0..300 {
                        let o = rng.gen_range(0..mine.len() - 100);
                        let n = rng.gen_range(1..100);
                        let v = rng.gen::<u8>();
                        mine[o..o + n].fill(v);
                        pool.write_at(1, base + o as u64, &mine[o..o + n]).unwrap();
                        let o = rng.gen_range(0..mine.len() - 200);
                        let got = pool.read(1, base + o as u64, 200);
                        assert_eq!(&*got.typed::<u8>(), &mine[o..o + 200]);
                    }
                    let mut all = vec![0u8; mine.len()];
                    pool.read_into(1, base, &mut all);
                    assert!(all == mine);
                });
            }
        });
        pool.resident_pages();
        pool.dirty_pages();
        pool.flush().unwrap();
    }
}

#[test]
fn pinned_pages_are_never_evicted() {
    let dir = tempfile::tempdir().unwrap();
    for mode in WriteBack::ALL {
        let (specs, _) = files(dir.path(), 1, 16, 5);
        let pool = BufferPool::open_writable(&specs, (3 * PAGE) as u64, PAGE, "lru", mode).unwrap();
        pool.write_at(1, 0, &[7; 16]).unwrap();
        pool.write_at(1, PAGE as u64, &[8; 16]).unwrap();
        // Pin the dirty page 0 (in the run [0, 1], the longest one) and keep writing.
        let held = pool.read(1, 0, 16).typed::<u8>();
        for p in 2..16u64 {
            pool.write_at(1, p * PAGE as u64, &[p as u8; 16]).unwrap();
            assert!(pool.is_resident(1, 0), "{mode:?}: pinned page evicted at {p}");
        }
        assert_eq!(&*held, &[7; 16]);
        drop(held);
        pool.flush().unwrap();
        let bytes = std::fs::read(&specs[1].path).unwrap();
        for p in 0..16usize {
            let want = [7, 8].get(p).copied().unwrap_or(p as u8);
            assert_eq!(bytes[p * PAGE], want, "page {p}");
        }
    }
}

#[test]
fn clean_pages_are_evicted_before_dirty_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (specs, _) = files(dir.path(), 16, 1, 9);
    for mode in WriteBack::ALL {
        for policy in ["lru", "fifo", "clock"] {
            let pool = BufferPool::open_writable(&specs, (4 * PAGE) as u64, PAGE, policy, mode).unwrap();
            // Pages 0 and 1 dirty and least recently used; 2 and 3 clean.
            pool.write_at(0, 0, &[1; 8]).unwrap();
            pool.write_at(0, PAGE as u64, &[1; 8]).unwrap();
            for p in [2u64, 3, 4, 5, 6, 7] {
                drop(pool.read(0, p * PAGE as u64, 8));
                assert!(pool.is_resident(0, 0) && pool.is_resident(0, 1), "{policy} {mode:?} page {p}");
            }
            assert_eq!(pool.stats().pages_written, 0, "{policy} {mode:?}");
            assert_eq!(pool.dirty_pages(), 2);
        }
    }
}

/// Dirty pages 0, 2, 1, 3 (written in that order), then four whole-page writes of pages
/// 10..14 with a four-frame FIFO pool (hot window: the last page written). Batch: page 10
/// finds every frame dirty and writes the run 0..4 except its hot end, page 3, in one call
/// (0..3, freeing three frames); page 13 writes the run 10..12 (12 is hot) in one call, not
/// where the previous write ended; page 3 stays resident and dirty throughout. Single-page
/// writes each page in FIFO order, three of them not where the previous write ended.
#[test]
fn batch_mode_issues_fewer_write_calls_than_single_page() {
    let dir = tempfile::tempdir().unwrap();
    let (specs, _) = files(dir.path(), 16, 1, 1);
    let mut got = Vec::new();
    for mode in WriteBack::ALL {
        let pool = BufferPool::open_writable(&specs, (4 * PAGE) as u64, PAGE, "fifo", mode).unwrap();
        pool.set_read_ahead(0, 0);
        pool.disable_background_flush();
        for p in [0u64, 2, 1, 3] {
            pool.write_at(0, p * PAGE as u64, &[9; PAGE]).unwrap();
        }
        assert_eq!(pool.stats().read_calls, 0, "whole-page writes read nothing");
        for p in 10..14u64 {
            pool.write_at(0, p * PAGE as u64, &[10; PAGE]).unwrap();
        }
        let s = pool.stats();
        assert_eq!(s.bytes_written, s.pages_written * PAGE as u64);
        got.push((s.pages_written, s.write_calls, s.random_writes, pool.dirty_pages()));
        if mode != WriteBack::SinglePage {
            assert!(pool.is_resident(0, 3), "the hot end of the run stays resident");
        }
    }
    assert_eq!(got, vec![(5, 2, 1, 3), (4, 4, 3, 4), (5, 2, 1, 3)]);
}

#[test]
fn flush_coalesces_contiguous_pages_and_partial_writes_read_only_when_needed() {
    let dir = tempfile::tempdir().unwrap();
    let (specs, mut model) = files(dir.path(), 12, 12, 2);
    let pool =
        BufferPool::open_writable(&specs, (16 * PAGE) as u64, PAGE, "clock", WriteBack::Batch).unwrap();
    pool.set_read_ahead(0, 0);
    // A partial write to a page past the old end of a file needs no read (it is zeros).
    for p in [5usize, 6, 7, 9] {
        pool.write_at(1, (p * PAGE + 10) as u64, &[3; 5]).unwrap();
        model[1][p * PAGE + 10..p * PAGE + 15].fill(3);
    }
    assert_eq!(pool.stats().read_calls, 0);
    // A partial write to an existing page reads it first.
    pool.write_at(0, 100, &[4; 5]).unwrap();
    model[0][100..105].fill(4);
    assert_eq!(pool.stats().read_calls, 1);
    pool.reset_stats();
    pool.flush().unwrap();
    let s = pool.stats();
    // Runs: file 0 page 0 (starts where file 0's previous write ended: offset 0), file 1
    // pages 5..8, file 1 page 9.
    assert_eq!((s.write_calls, s.pages_written, s.random_writes), (3, 5, 2));
    assert_eq!(pool.dirty_pages(), 0);
    // Flushing again writes nothing.
    pool.flush().unwrap();
    assert_eq!(pool.stats().write_calls, 3);
    for (spec, want) in specs.iter().zip(&model) {
        assert!(std::fs::read(&spec.path).unwrap() == *want);
    }
}

#[test]
fn bad_writes_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let (specs, _) = files(dir.path(), 2, 2, 4);
    let ro = BufferPool::open(&specs[..1], 2 * PAGE as u64, PAGE, "clock").unwrap();
    assert_eq!(ro.write_at(0, 0, &[1]).unwrap_err().kind(), ErrorKind::InvalidArgument);
    assert_eq!(ro.flush().unwrap_err().kind(), ErrorKind::InvalidArgument);
    let pool = BufferPool::open_writable(&specs, 2 * PAGE as u64, PAGE, "clock", WriteBack::Batch).unwrap();
    let err = pool.write_at(1, 2 * PAGE as u64 - 1, &[1, 2]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    assert!(err.to_string().contains("f1"), "{err}");
    assert_eq!(pool.write_at(2, 0, &[1]).unwrap_err().kind(), ErrorKind::InvalidArgument);
    let odd = [PagedFile { path: dir.path().join("odd"), len: 5000 }];
    let err =
        BufferPool::open_writable(&odd, 2 * PAGE as u64, PAGE, "clock", WriteBack::Batch).err().unwrap();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    assert_eq!(WriteBack::by_name("batch").unwrap(), WriteBack::Batch);
    assert_eq!(WriteBack::by_name("single").unwrap(), WriteBack::SinglePage);
    assert_eq!(WriteBack::by_name("batch-bg").unwrap(), WriteBack::BatchBackground);
    assert!(WriteBack::by_name("lru").is_err());
}

/// A page read that fails inside `try_read_into` (here: the file was cut short under the pool)
/// is an error naming the file, not a panic; the pool gives the frame back and reads the page
/// once the file is whole again.
#[test]
fn a_failed_read_in_try_read_into_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let (specs, model) = files(dir.path(), 4, 1, 9);
    let pool = BufferPool::open_writable(&specs, 2 * PAGE as u64, PAGE, "clock", WriteBack::Batch).unwrap();
    std::fs::OpenOptions::new().write(true).open(&specs[0].path).unwrap().set_len(PAGE as u64).unwrap();
    let mut buf = vec![0u8; 100];
    let err = pool.try_read_into(0, 3 * PAGE as u64 + 7, &mut buf).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Io);
    assert!(err.to_string().contains("f0"), "{err}");
    std::fs::write(&specs[0].path, &model[0]).unwrap();
    pool.try_read_into(0, 3 * PAGE as u64 + 7, &mut buf).unwrap();
    assert_eq!(buf, model[0][3 * PAGE + 7..3 * PAGE + 107]);
}

/// Batch mode with the background flusher: once more than half of the 16 frames are dirty, the
/// flusher writes the cold part of the dirty run and leaves its pages resident and clean (no
/// eviction). Every page it cleaned is on disk as written, and after a flush the files equal
/// the model.
#[test]
fn background_flusher_cleans_cold_pages_without_losing_data() {
    let dir = tempfile::tempdir().unwrap();
    let (specs, mut model) = files(dir.path(), 4, 32, 11);
    let pool =
        BufferPool::open_writable(&specs, (16 * PAGE) as u64, PAGE, "clock", WriteBack::BatchBackground)
            .unwrap();
    pool.set_read_ahead(0, 0);
    for p in 0..12usize {
        let byte = 20 + p as u8;
        pool.write_at(1, (p * PAGE) as u64, &[byte; PAGE]).unwrap();
        model[1][p * PAGE..(p + 1) * PAGE].fill(byte);
    }
    // `dirty_pages` waits for the flusher to finish.
    let dirty = pool.dirty_pages();
    let s = pool.stats();
    assert!(dirty <= 8 && s.pages_written == 12 - dirty, "dirty {dirty}, {s:?}");
    assert_eq!(s.evictions, 0, "the flusher evicts nothing");
    assert_eq!(pool.resident_pages(), 12);
    // The hot end (the last 4 pages written) is still dirty.
    assert!((8..12u64).all(|p| pool.is_dirty_page(1, p)));
    let disk = std::fs::read(&specs[1].path).unwrap();
    for p in (0..12u64).filter(|&p| !pool.is_dirty_page(1, p)) {
        let r = p as usize * PAGE..(p as usize + 1) * PAGE;
        assert!(disk[r.clone()] == model[1][r], "cleaned page {p} not on disk");
    }
    // Reads of clean and dirty pages see the writes; after a flush the files equal the model.
    for p in 0..12u64 {
        assert_eq!(pool.read(1, p * PAGE as u64, 1).typed::<u8>()[0], 20 + p as u8);
    }
    pool.flush().unwrap();
    assert_eq!(pool.dirty_pages(), 0);
    for (spec, want) in specs.iter().zip(&model) {
        assert!(std::fs::read(&spec.path).unwrap() == *want);
    }
}
