//! A watched pattern's changes over several batches, netted: what a consumer that asks for
//! them now and then (Python's `Watch.changes()`) is told.
//!
//! Each batch's [`Changes`] list the matches that appeared, disappeared or changed labels in
//! that batch. Across batches a match may appear and disappear again, or disappear and come
//! back; [`NetChanges::take`] reports only the difference between the matches at the previous
//! take and now: added (absent then, present now), removed (present then, absent now) and
//! modified (present at both, with a data vertex whose label now differs from its label then).
//!
//! State: each change as recorded (its `k` vertices and a byte for its kind, as compact as the
//! batches' own lists), netted by one sort when taken, and the former label of each vertex
//! relabelled since.

use ocgraph_core::Vertex;
use rustc_hash::FxHashMap;

use super::watch::Changes;

/// What a batch said of a match.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Added,
    Removed,
    Modified,
}

/// Changes recorded batch by batch, netted when taken (see the module docs).
#[derive(Default)]
pub struct NetChanges {
    /// Data vertices per match.
    k: usize,
    /// The recorded matches, `k` vertices each, in the order recorded.
    rows: Vec<Vertex>,
    /// What the batch said of each recorded match.
    kinds: Vec<Kind>,
    /// The label at the last take of each vertex relabelled since.
    old_labels: FxHashMap<Vertex, u32>,
}

impl NetChanges {
    /// Nothing recorded, for matches of `k` data vertices.
    pub fn new(k: usize) -> NetChanges {
        NetChanges { k: k.max(1), ..NetChanges::default() }
    }

    /// Records one batch's changes (batches in the order they were applied).
    pub fn record(&mut self, batch: &Changes) {
        for (list, kind) in
            [(&batch.added, Kind::Added), (&batch.removed, Kind::Removed), (&batch.modified, Kind::Modified)]
        {
            self.rows.extend_from_slice(list);
            self.kinds.extend(std::iter::repeat_n(kind, list.len() / self.k));
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
        let (k, rows, kinds) = (self.k, std::mem::take(&mut self.rows), std::mem::take(&mut self.kinds));
        let old_labels = std::mem::take(&mut self.old_labels);
        let row = |i: usize| &rows[i * k..(i + 1) * k];
        // Equal matches together, each match's changes in the order recorded.
        let mut order: Vec<usize> = (0..kinds.len()).collect();
        order.sort_unstable_by(|&a, &b| row(a).cmp(row(b)).then(a.cmp(&b)));
        let mut out = Changes::default();
        for group in order.chunk_by(|&a, &b| row(a) == row(b)) {
            // Present at the last take unless first added; present now unless last removed.
            let before = kinds[group[0]] != Kind::Added;
            let after = kinds[group[group.len() - 1]] != Kind::Removed;
            let m = row(group[0]);
            let relabelled = || m.iter().any(|&v| old_labels.get(&v).is_some_and(|&o| o != label(v)));
            let list = match (before, after) {
                (false, true) => &mut out.added,
                (true, false) => &mut out.removed,
                (true, true) if relabelled() => &mut out.modified,
                _ => continue,
            };
            list.extend_from_slice(m);
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
