//! Policies driven without a pool, on hand-made reference strings.

use std::collections::HashMap;

use super::*;

/// A minimal cache driven by a policy: returns the pages evicted, in order.
struct Sim {
    policy: Box<dyn ReplacementPolicy>,
    frames: usize,
    page_of: Vec<Option<u64>>,
    frame_of: HashMap<u64, usize>,
    pinned: Vec<bool>,
    evicted: Vec<u64>,
}

impl Sim {
    fn new(name: &str, frames: usize) -> Sim {
        Sim {
            policy: policy_by_name(name, frames).unwrap(),
            frames,
            page_of: vec![None; frames],
            frame_of: HashMap::new(),
            pinned: vec![false; frames],
            evicted: Vec::new(),
        }
    }

    fn access(&mut self, page: u64) {
        if let Some(&f) = self.frame_of.get(&page) {
            self.policy.on_hit(f);
            return;
        }
        let free = (0..self.frames).find(|&f| self.page_of[f].is_none());
        let f = match free {
            Some(f) => f,
            None => {
                let pinned = self.pinned.clone();
                let f = self.policy.victim(page, &mut |f| !pinned[f]).expect("a victim");
                assert!(!self.pinned[f], "policy picked pinned frame {f}");
                let old = self.page_of[f].take().unwrap();
                self.frame_of.remove(&old);
                self.policy.on_evict(f);
                self.evicted.push(old);
                f
            }
        };
        self.page_of[f] = Some(page);
        self.frame_of.insert(page, f);
        self.policy.on_load(f, page);
    }

    fn run(mut self, refs: &[u64]) -> Vec<u64> {
        for &p in refs {
            self.access(p);
        }
        self.evicted
    }
}

#[test]
fn fifo_evicts_first_loaded() {
    assert_eq!(Sim::new("fifo", 3).run(&[1, 2, 3, 1, 4, 1, 5, 6]), vec![1, 2, 3, 4]);
}

#[test]
fn lifo_evicts_last_loaded() {
    assert_eq!(Sim::new("lifo", 3).run(&[1, 2, 3, 4, 5, 1, 2]), vec![3, 4]);
}

#[test]
fn lru_evicts_least_recent() {
    assert_eq!(Sim::new("lru", 3).run(&[1, 2, 3, 1, 4, 5, 2, 1]), vec![2, 3, 1, 4]);
}

#[test]
fn clock_gives_second_chance() {
    // 1,2,3 loaded with clear bits; the hit on 1 sets its bit, so 4 passes over 1 (clearing
    // it) and evicts 2; then 5 evicts 3 and 6 evicts 1 (its chance is used up).
    assert_eq!(Sim::new("clock", 3).run(&[1, 2, 3, 1, 4, 5, 6]), vec![2, 3, 1]);
    // Without the hit, CLOCK is FIFO.
    assert_eq!(Sim::new("clock", 3).run(&[1, 2, 3, 4, 5, 6]), vec![1, 2, 3]);
}

#[test]
fn pinned_frames_are_skipped() {
    for name in POLICY_NAMES {
        let mut sim = Sim::new(name, 3);
        for p in [1, 2, 3] {
            sim.access(p);
        }
        // Pin every frame but the one holding page 2.
        let keep = sim.frame_of[&2];
        for f in 0..3 {
            sim.pinned[f] = f != keep;
        }
        sim.access(4);
        assert_eq!(sim.evicted, vec![2], "{name}");
    }
}

#[test]
fn all_pinned_gives_none() {
    for name in POLICY_NAMES {
        let p = policy_by_name(name, 4).unwrap();
        for f in 0..4 {
            p.on_load(f, f as u64);
        }
        assert_eq!(p.victim(9, &mut |_| false), None, "{name}");
    }
}

#[test]
fn random_is_deterministic_and_avoids_pinned() {
    let refs: Vec<u64> = (0..200).map(|i| (i * 7919 % 31) as u64).collect();
    let a = Sim::new("random", 8).run(&refs);
    let b = Sim::new("random", 8).run(&refs);
    assert_eq!(a, b);
    assert!(a.len() > 50);
    // Only frame 5 is unpinned: it must be the one chosen, every time.
    let p = RandomPolicy::new(16, 3);
    for f in 0..16 {
        p.on_load(f, f as u64);
    }
    for _ in 0..50 {
        let mut offered = Vec::new();
        let v = p.victim(99, &mut |f| {
            offered.push(f);
            f == 5
        });
        assert_eq!(v, Some(5));
    }
}

#[test]
fn unknown_policy_lists_valid_names() {
    let err = policy_by_name("MRU", 4).err().unwrap().to_string();
    assert!(err.contains("'MRU'") && err.contains("clock, lru, fifo, lifo, random"), "{err}");
}

/// Names are taken in any case, as backend and advice names are; the policy is the same one.
#[test]
fn policy_names_ignore_case() {
    for (upper, lower) in
        [("LRU", "lru"), ("Fifo", "fifo"), ("GAC:Decay=0.5", "gac:decay=0.5"), ("S3FIFO", "s3fifo")]
    {
        assert_eq!(policy_by_name(upper, 4).unwrap().name(), policy_by_name(lower, 4).unwrap().name());
    }
    assert_eq!(Sim::new("LRU", 3).run(&[1, 2, 3, 1, 4, 5, 2, 1]), vec![2, 3, 1, 4]);
}

#[test]
fn page_keys_round_trip() {
    let k = page_key(5, 123_456_789);
    assert_eq!(split_page_key(k), (5, 123_456_789));
}

#[test]
fn lifo_keeps_pages_read_ahead_until_their_first_request() {
    // Frames 0-3: 0 and 1 loaded by requests, 2 and 3 read ahead. LIFO passes over the pages
    // read ahead while others remain (newest request first), then takes them newest first;
    // a page read ahead arrives at its first request and is then the newest.
    let lifo = super::lifo::Lifo::new(4);
    let p: &dyn ReplacementPolicy = &lifo;
    p.on_load(0, 10);
    p.on_load(1, 11);
    p.on_load_ahead(2, 12);
    p.on_load_ahead(3, 13);
    let mut order = Vec::new();
    let mut taken = [false; 4];
    for _ in 0..4 {
        let f = p.victim(0, &mut |f| !taken[f]).unwrap();
        taken[f] = true;
        order.push(f);
    }
    assert_eq!(order, vec![1, 0, 3, 2]);
    let lifo = super::lifo::Lifo::new(3);
    let p: &dyn ReplacementPolicy = &lifo;
    p.on_load(0, 10);
    p.on_load_ahead(1, 11);
    p.on_load(2, 12);
    p.on_hit(1); // first request of page 11: it arrives after page 12
    assert_eq!(p.victim(0, &mut |_| true), Some(1));
    p.on_evict(1);
    assert_eq!(p.victim(0, &mut |_| true), Some(2));
}

#[test]
fn lifo_spares_its_newest_arrivals_in_a_large_pool() {
    // 128 frames spare 128 / 64 = 2 arrivals: with frames 0..10 loaded in order, LIFO takes 7
    // (the third newest), then 6; when only the two spared are left, it takes them newest first.
    let lifo = super::lifo::Lifo::new(128);
    let p: &dyn ReplacementPolicy = &lifo;
    for f in 0..10 {
        p.on_load(f, f as u64);
    }
    let mut taken = [false; 10];
    let mut order = Vec::new();
    for _ in 0..10 {
        let f = p.victim(0, &mut |f| !taken[f]).unwrap();
        taken[f] = true;
        order.push(f);
    }
    assert_eq!(order, vec![7, 6, 5, 4, 3, 2, 1, 0, 9, 8]);
}
