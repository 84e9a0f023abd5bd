//! Page-access trace files (`ocgraph cache-sim`, `Trace::read`) replayed through the cache
//! simulator: the input is `frames, policy, [spec \0] file`; policy % 9 picks one of the
//! replacement policies (8: `gac:` followed by the spec, up to a zero byte, so that GAC's
//! parameter parser is fed too); policy bit 7 prepends a valid header. Ends in an error or
//! counts that add up, with Belady's optimum never below the policy's hits, and LRU and FIFO
//! equal to brute-force replays.
#![no_main]

mod common;

use std::collections::VecDeque;

use libfuzzer_sys::fuzz_target;
use ocgraph_core::page::policy::{PageKey, POLICY_NAMES};
use ocgraph_core::page::sim::{simulate, simulate_opt, DenseTrace, SimStats};
use ocgraph_core::page::trace::{Trace, TRACE_MAGIC, TRACE_VERSION};

/// Hits of an LRU (or, `fifo`, FIFO) cache of `frames` pages.
fn brute(keys: &[PageKey], frames: usize, fifo: bool) -> u64 {
    let mut q: VecDeque<PageKey> = VecDeque::new();
    let mut hits = 0;
    for &k in keys {
        if let Some(i) = q.iter().position(|&x| x == k) {
            hits += 1;
            if !fifo {
                q.remove(i);
                q.push_back(k);
            }
            continue;
        }
        if q.len() == frames {
            q.pop_front();
        }
        q.push_back(k);
    }
    hits
}

fn check(s: &SimStats, requests: usize, distinct: usize) {
    assert_eq!(s.requests, requests as u64);
    assert_eq!(s.cold_misses, distinct as u64);
    assert_eq!(s.hits + s.cold_misses + s.capacity_misses, s.requests);
    let r = s.hit_ratio();
    assert!((0.0..=1.0).contains(&r), "hit ratio {r}");
}

fuzz_target!(|data: &[u8]| {
    common::inline_rayon();
    let [fr, pol, rest @ ..] = data else { return };
    let frames = (*fr % 24) as usize;
    let (name, file) = if (pol & 0x7f) % 9 == 8 {
        let cut = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
        let spec = String::from_utf8_lossy(&rest[..cut]).into_owned();
        (format!("gac:{spec}"), rest.get(cut + 1..).unwrap_or(&[]))
    } else {
        (POLICY_NAMES[((pol & 0x7f) % 9) as usize].to_string(), rest)
    };
    let mut bytes = Vec::new();
    if pol & 0x80 != 0 {
        bytes.extend_from_slice(TRACE_MAGIC);
        bytes.extend_from_slice(&TRACE_VERSION.to_le_bytes());
        bytes.extend_from_slice(&4096u32.to_le_bytes());
    }
    bytes.extend_from_slice(file);
    let path = common::scratch().join("trace.bin");
    std::fs::write(&path, &bytes).expect("write trace");
    let Ok(trace) = Trace::read(&path) else { return };
    assert_eq!(trace.records.len(), (bytes.len() - 16) / 8);
    for (i, r) in trace.records.iter().enumerate() {
        let word = u64::from_le_bytes(bytes[16 + 8 * i..24 + 8 * i].try_into().unwrap());
        assert_eq!(r.pack(), word, "record {i} does not pack back");
    }
    let keys = trace.keys();
    let dense = DenseTrace::new(keys.clone());
    let opt = simulate_opt(&dense, frames);
    check(&opt, keys.len(), dense.distinct);
    let Ok(s) = simulate(&name, &dense, frames) else { return };
    check(&s, keys.len(), dense.distinct);
    assert!(opt.hits >= s.hits, "{name}: {} hits, Belady's optimum {} ({frames} frames)", s.hits, opt.hits);
    if name == "lru" || name == "fifo" {
        assert_eq!(s.hits, brute(&keys, frames.max(1), name == "fifo"), "{name}, {frames} frames");
    }
});
