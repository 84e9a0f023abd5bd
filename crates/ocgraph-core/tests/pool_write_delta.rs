//! `PagedDelta` through the public API: snapshot readers running while a writer records, over
//! a pool of a few frames (so pages are written back and read again), in both write-back modes.

use std::sync::atomic::{AtomicU64, Ordering};

use ocgraph_core::page::pool::WriteBack;
use ocgraph_core::update::{ArcOp, DeltaLog, PagedDelta, PagedDeltaOptions};

const OPS: u64 = 3000;

/// Operation `i` (batch `i + 1`): an arc from a scattered source to `i`.
fn src_of(i: u64) -> u32 {
    (i.wrapping_mul(0x9E37_79B9) % 97) as u32
}

/// What `ops(v, upto)` must return: the operations of batches `<= upto` out of `v`.
fn expected(v: u32, upto: u64) -> Vec<(u32, ArcOp)> {
    (0..upto.min(OPS))
        .filter(|&i| src_of(i) == v)
        .map(|i| (i as u32, if i % 5 == 0 { ArcOp::Remove } else { ArcOp::Add(i as f32) }))
        .collect()
}

#[test]
fn readers_see_exactly_the_published_batches_while_a_writer_records() {
    let dir = tempfile::tempdir().unwrap();
    for mode in WriteBack::ALL {
        let opts = PagedDeltaOptions {
            max_bytes: 1 << 20,
            capacity: 3 * 4096,
            page_size: 4096,
            policy: "clock".into(),
            write_back: mode,
        };
        let delta = PagedDelta::create(dir.path().join(format!("delta-{}", mode.name())), &opts).unwrap();
        let published = AtomicU64::new(0);
        std::thread::scope(|s| {
            for t in 0..2u32 {
                let (delta, published) = (&delta, &published);
                s.spawn(move || {
                    let mut out = Vec::new();
                    let mut v = t;
                    loop {
                        let upto = published.load(Ordering::Acquire);
                        out.clear();
                        delta.ops(v, upto, &mut out).unwrap();
                        assert_eq!(out, expected(v, upto), "vertex {v} as of {upto}");
                        if upto == OPS {
                            break;
                        }
                        v = (v + 7) % 97;
                        // Let the writer run: with 3 frames, readers that never pause keep
                        // evicting its pages and the test crawls on a loaded machine.
                        std::thread::sleep(std::time::Duration::from_micros(200));
                    }
                });
            }
            for i in 0..OPS {
                let op = if i % 5 == 0 { ArcOp::Remove } else { ArcOp::Add(i as f32) };
                delta.record(i + 1, src_of(i), i as u32, op).unwrap();
                published.store(i + 1, Ordering::Release);
            }
        });
        let s = delta.io_stats();
        assert!(s.pages_written > 0 && s.write_calls > 0, "{mode:?}: {s:?}");
        delta.flush().unwrap();
        assert_eq!(delta.touched(OPS), (0..97).collect::<Vec<u32>>());
        for v in 0..97 {
            let mut out = Vec::new();
            delta.ops(v, OPS, &mut out).unwrap();
            assert_eq!(out, expected(v, OPS));
        }
    }
}
