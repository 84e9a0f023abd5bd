//! Test helper: drives a policy over a reference string (no pins) and lists the evictions.

use std::collections::HashMap;

use super::ReplacementPolicy;

/// The pages evicted, in order, when `refs` runs through `policy` with `frames` frames (free
/// frames are used lowest index first, as the pool does).
pub(super) fn evictions(policy: &dyn ReplacementPolicy, frames: usize, refs: &[u64]) -> Vec<u64> {
    let mut frame_of: HashMap<u64, usize> = HashMap::new();
    let mut page_of: Vec<Option<u64>> = vec![None; frames];
    let mut out = Vec::new();
    for &p in refs {
        if let Some(&f) = frame_of.get(&p) {
            policy.on_hit(f);
            continue;
        }
        let f = match (0..frames).find(|&f| page_of[f].is_none()) {
            Some(f) => f,
            None => {
                let f = policy.victim(p, &mut |_| true).expect("a victim");
                let old = page_of[f].take().expect("victim frame is loaded");
                frame_of.remove(&old);
                policy.on_evict(f);
                out.push(old);
                f
            }
        };
        page_of[f] = Some(p);
        frame_of.insert(p, f);
        policy.on_load(f, p);
    }
    out
}
