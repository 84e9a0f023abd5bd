//! The dirty pages of a writable pool as disjoint runs of contiguous page numbers (seed 004's
//! "core set"), kept so that the longest run over all files is found in O(log n).
//!
//! Per file, a `BTreeMap` from run start to run length; across files, one `BTreeSet` of
//! `(length, file, start)` whose last element is the longest run (ties: the highest file, then
//! the highest start). Inserting page `p` merges with the run ending at `p - 1` and the run
//! starting at `p + 1`; removing a page splits its run. Every operation is a constant number of
//! B-tree operations: O(log n) in the number of runs. Memory: about 2 B-tree entries (16 + 24
//! bytes plus node overhead) per run, independent of the run's length.

use std::collections::{BTreeMap, BTreeSet};

use crate::page::FileId;

/// A run: `(file, first page, number of pages)`.
pub(super) type Run = (FileId, u64, u64);

/// Disjoint runs of dirty pages (see the module documentation).
#[derive(Debug, Default)]
pub(super) struct DirtyRuns {
    /// Per file: run start -> run length.
    starts: Vec<BTreeMap<u64, u64>>,
    /// Every run as `(length, file, start)`, ordered so the last is the longest.
    by_len: BTreeSet<(u64, FileId, u64)>,
}

impl DirtyRuns {
    /// An empty set for `files` files.
    pub(super) fn new(files: usize) -> DirtyRuns {
        DirtyRuns { starts: vec![BTreeMap::new(); files], by_len: BTreeSet::new() }
    }

    /// Number of dirty pages.
    #[cfg(test)]
    pub(super) fn pages(&self) -> u64 {
        self.by_len.iter().map(|r| r.0).sum()
    }

    /// Number of runs.
    #[cfg(test)]
    pub(super) fn runs(&self) -> usize {
        self.by_len.len()
    }

    /// The run containing `page` of `file`, if any.
    fn run_of(&self, file: FileId, page: u64) -> Option<(u64, u64)> {
        let (&s, &l) = self.starts[file as usize].range(..=page).next_back()?;
        (page < s + l).then_some((s, l))
    }

    /// Whether `page` of `file` is in a run.
    #[cfg(test)]
    pub(super) fn contains(&self, file: FileId, page: u64) -> bool {
        self.run_of(file, page).is_some()
    }

    fn add_run(&mut self, file: FileId, start: u64, len: u64) {
        self.starts[file as usize].insert(start, len);
        self.by_len.insert((len, file, start));
    }

    fn remove_run(&mut self, file: FileId, start: u64, len: u64) {
        self.starts[file as usize].remove(&start);
        self.by_len.remove(&(len, file, start));
    }

    /// Adds `page` of `file`, merging with the neighbouring runs; returns false if it was
    /// already present.
    pub(super) fn insert(&mut self, file: FileId, page: u64) -> bool {
        if self.run_of(file, page).is_some() {
            return false;
        }
        let (mut start, mut len) = (page, 1);
        if let Some(p) = page.checked_sub(1) {
            if let Some((s, l)) = self.run_of(file, p) {
                self.remove_run(file, s, l);
                start = s;
                len += l;
            }
        }
        if let Some(&l) = self.starts[file as usize].get(&(page + 1)) {
            self.remove_run(file, page + 1, l);
            len += l;
        }
        self.add_run(file, start, len);
        true
    }

    /// Removes `page` of `file`, splitting its run; returns false if it was absent.
    pub(super) fn remove(&mut self, file: FileId, page: u64) -> bool {
        let Some((s, l)) = self.run_of(file, page) else { return false };
        self.remove_run(file, s, l);
        if page > s {
            self.add_run(file, s, page - s);
        }
        if page + 1 < s + l {
            self.add_run(file, page + 1, s + l - page - 1);
        }
        true
    }

    /// The longest run (ties: highest file, then highest start).
    pub(super) fn longest(&self) -> Option<Run> {
        self.by_len.last().map(|&(l, f, s)| (f, s, l))
    }

    /// Removes and returns the longest run.
    pub(super) fn take_longest(&mut self) -> Option<Run> {
        let (f, s, l) = self.longest()?;
        self.remove_run(f, s, l);
        Some((f, s, l))
    }

    /// Removes and returns every run, sorted by file and start.
    pub(super) fn take_all(&mut self) -> Vec<Run> {
        let mut out = Vec::with_capacity(self.by_len.len());
        for (f, m) in self.starts.iter_mut().enumerate() {
            out.extend(std::mem::take(m).into_iter().map(|(s, l)| (f as FileId, s, l)));
        }
        self.by_len.clear();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn all(r: &DirtyRuns) -> Vec<Run> {
        let mut v: Vec<Run> = r.by_len.iter().map(|&(l, f, s)| (f, s, l)).collect();
        v.sort();
        v
    }

    #[test]
    fn insert_merges_with_both_neighbours() {
        let mut r = DirtyRuns::new(2);
        assert!(r.insert(0, 5));
        assert!(r.insert(0, 7));
        assert_eq!(all(&r), vec![(0, 5, 1), (0, 7, 1)]);
        assert!(r.insert(0, 6));
        assert_eq!(all(&r), vec![(0, 5, 3)]);
        assert!(!r.insert(0, 6));
        assert!(r.insert(0, 4) && r.insert(0, 8) && r.insert(0, 0));
        assert_eq!(all(&r), vec![(0, 0, 1), (0, 4, 5)]);
        // Another file's page 9 does not merge with file 0's run.
        assert!(r.insert(1, 9));
        assert_eq!(all(&r), vec![(0, 0, 1), (0, 4, 5), (1, 9, 1)]);
        assert_eq!(r.pages(), 7);
    }

    #[test]
    fn remove_splits_and_longest_is_found() {
        let mut r = DirtyRuns::new(2);
        for p in 10..20 {
            r.insert(1, p);
        }
        for p in 0..4 {
            r.insert(0, p);
        }
        assert_eq!(r.longest(), Some((1, 10, 10)));
        assert!(r.remove(1, 13));
        assert!(!r.remove(1, 13));
        assert!(!r.remove(0, 4));
        assert_eq!(all(&r), vec![(0, 0, 4), (1, 10, 3), (1, 14, 6)]);
        assert_eq!(r.take_longest(), Some((1, 14, 6)));
        assert!(r.remove(0, 0) && r.remove(0, 3));
        assert_eq!(all(&r), vec![(0, 1, 2), (1, 10, 3)]);
        assert_eq!(r.take_longest(), Some((1, 10, 3)));
        assert_eq!(r.take_all(), vec![(0, 1, 2)]);
        assert_eq!((r.longest(), r.pages(), r.runs()), (None, 0, 0));
    }

    proptest! {
        /// Random inserts and removes against a set of pages: the runs are exactly the maximal
        /// runs of the set, and the longest is the longest of a brute-force scan.
        #[test]
        fn runs_match_a_brute_force_scan(ops in prop::collection::vec((0u8..2, 0u64..40, any::<bool>()), 0..200)) {
            let mut r = DirtyRuns::new(2);
            let mut model = BTreeSet::new();
            for (f, p, ins) in ops {
                if ins {
                    prop_assert_eq!(r.insert(f, p), model.insert((f, p)));
                } else {
                    prop_assert_eq!(r.remove(f, p), model.remove(&(f, p)));
                }
                let mut runs: Vec<Run> = Vec::new();
                for &(f, p) in &model {
                    match runs.last_mut() {
                        Some(last) if last.0 == f && last.1 + last.2 == p => last.2 += 1,
                        _ => runs.push((f, p, 1)),
                    }
                }
                prop_assert_eq!(all(&r), runs.clone());
                prop_assert_eq!(r.pages(), model.len() as u64);
                let best = runs.iter().map(|x| x.2).max();
                prop_assert_eq!(r.longest().map(|x| x.2), best);
                for p in 0..41 {
                    prop_assert_eq!(r.contains(f, p), model.contains(&(f, p)));
                }
            }
        }
    }
}
