//! A watched pattern's changes over several batches, netted: what a consumer that asks for
//! them now and then (Python's `Watch.changes()`) is told.
//!
//! Each batch's [`Changes`] list the matches that appeared, disappeared or changed labels in
//! that batch. Across batches a match may appear and disappear again, or disappear and come
//! back; [`NetChanges::take`] reports only the difference between the matches at the previous
//! take and now: added (absent then, present now), removed (present then, absent now) and
//! modified (present at both, with a data vertex whose label now differs from its label then).
//!
//! State: one entry per match changed since the last take (its `k` vertices and two flags),
//! and the former label of each vertex relabelled since.

use ocgraph_core::Vertex;
use rustc_hash::FxHashMap;

use super::watch::Changes;

/// Changes recorded batch by batch, netted when taken (see the module docs).
#[derive(Debug, Default)]
pub struct NetChanges {
    /// Data vertices per match.
    k: usize,
    /// Each match changed since the last take: whether it was present then, and whether it is
    /// present after the last batch recorded.
    matches: FxHashMap<Box<[Vertex]>, (bool, bool)>,
    /// The label at the last take of each vertex relabelled since.
    old_labels: FxHashMap<Vertex, u32>,
}

impl NetChanges {
    /// Nothing recorded, for matches of `k` data vertices.
    pub fn new(k: usize) -> NetChanges {
        NetChanges { k, ..NetChanges::default() }
    }

    /// Records one batch's changes (batches in the order they were applied).
    pub fn record(&mut self, batch: &Changes) {
        let lists =
            [(&batch.added, false, true), (&batch.removed, true, false), (&batch.modified, true, true)];
        for (list, before, after) in lists {
            for m in list.chunks_exact(self.k.max(1)) {
                self.matches.entry(m.into()).and_modify(|e| e.1 = after).or_insert((before, after));
            }
        }
    }

    /// Notes that vertex `v`'s label changes from `old` (its first change since the last take
    /// is the one kept).
    pub fn relabel(&mut self, v: Vertex, old: u32) {
        self.old_labels.entry(v).or_insert(old);
    }

    /// The net changes since the last take (each list's matches in increasing order), and a
    /// fresh start; `label(v)` is vertex `v`'s label now.
    pub fn take(&mut self, label: impl Fn(Vertex) -> u32) -> Changes {
        let old_labels = std::mem::take(&mut self.old_labels);
        let relabelled = |m: &[Vertex]| m.iter().any(|&v| old_labels.get(&v).is_some_and(|&o| o != label(v)));
        let mut matches: Vec<_> = std::mem::take(&mut self.matches).into_iter().collect();
        matches.sort_unstable();
        let mut out = Changes::default();
        for (m, presence) in matches {
            let list = match presence {
                (false, true) => &mut out.added,
                (true, false) => &mut out.removed,
                (true, true) if relabelled(&m) => &mut out.modified,
                _ => continue,
            };
            list.extend_from_slice(&m);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changes(added: &[Vertex], removed: &[Vertex], modified: &[Vertex]) -> Changes {
        Changes { added: added.to_vec(), removed: removed.to_vec(), modified: modified.to_vec() }
    }

    /// Hand-checked sequences of batches on matches of two vertices.
    #[test]
    fn batches_net_to_the_difference_since_the_last_take() {
        let mut net = NetChanges::new(2);
        // [0, 1] appears and disappears; [2, 3] disappears and comes back; [4, 5] appears;
        // [6, 7] disappears.
        net.record(&changes(&[0, 1, 4, 5], &[2, 3, 6, 7], &[]));
        net.record(&changes(&[2, 3], &[0, 1], &[]));
        assert_eq!(net.take(|_| 0), changes(&[4, 5], &[6, 7], &[]));
        assert_eq!(net.take(|_| 0), Changes::default(), "a take starts afresh");
        // Labels: vertex 8 changes 1 -> 2 -> 1 (no net change), vertex 9 changes 1 -> 3.
        net.record(&changes(&[], &[], &[8, 9, 10, 11]));
        net.relabel(8, 1);
        net.relabel(9, 1);
        net.record(&changes(&[], &[], &[8, 12]));
        net.relabel(8, 2);
        let now = |v: Vertex| if v == 9 { 3 } else { 1 };
        assert_eq!(net.take(now), changes(&[], &[], &[8, 9]));
        // A match removed, relabelled while absent and added back is modified.
        net.record(&changes(&[], &[20, 21], &[]));
        net.relabel(21, 5);
        net.record(&changes(&[20, 21], &[], &[]));
        assert_eq!(net.take(|_| 6), changes(&[], &[], &[20, 21]));
    }
}
