//! K-way merge of sorted runs, in batches: with one block in memory per run, every record up
//! to the smallest of the blocks' last records can be emitted, so that batch (the sorted pieces
//! of all runs) is cut at common pivots into parts merged in parallel (a stable sort finds and
//! merges the pieces). When there are more runs than [`MAX_FANIN`], groups of runs are first
//! merged into larger runs. Run files are deleted as soon as they are merged.

use std::path::PathBuf;

use rayon::prelude::*;

use super::record::Record;
use super::runs::{RunReader, RunSet};
use crate::error::Result;

/// Most runs merged at once (bounds open files and reader buffers).
pub(crate) const MAX_FANIN: usize = 128;

/// Merges every run of `runs` in order into `sink` (called with sorted batches); `read_budget` bytes are shared by the
/// readers' block buffers (each gets between 4 KiB and 4 MiB). With `dedup`, duplicate arcs
/// are dropped while merging intermediate runs (the final sink does its own dedup).
pub(crate) fn merge_all<R: Record>(
    runs: &mut RunSet,
    read_budget: u64,
    dedup: bool,
    mut sink: impl FnMut(&[R]) -> Result<()>,
) -> Result<()> {
    while runs.len() > MAX_FANIN {
        let all = runs.take();
        let (group, rest) = all.split_at(MAX_FANIN);
        for r in rest {
            runs.add(r.clone());
        }
        let mut w = runs.create_run()?;
        let mut block: Vec<R> = Vec::new();
        let mut last: Option<u64> = None;
        merge_group::<R>(group.to_vec(), read_budget, |batch| {
            block.clear();
            for &r in batch {
                if !(dedup && last == Some(r.arc())) {
                    block.push(r);
                }
                last = Some(r.arc());
            }
            w.write(&block)
        })?;
        runs.add(w.finish()?);
    }
    merge_group(runs.take(), read_budget, &mut sink)
}

/// Merges `paths` into `sink`, deleting each file once it is exhausted (and all of them on error).
fn merge_group<R: Record>(
    paths: Vec<PathBuf>,
    read_budget: u64,
    mut sink: impl FnMut(&[R]) -> Result<()>,
) -> Result<()> {
    let guard = DeleteOnDrop(paths.clone());
    // Half of the budget for the readers' blocks, half for the batch they make up.
    let per = (read_budget / 2 / paths.len().max(1) as u64).clamp(4 << 10, 4 << 20);
    let block = (per / std::mem::size_of::<R>() as u64) as usize;
    let mut readers = Vec::with_capacity(paths.len());
    for p in &paths {
        let mut r = RunReader::<R>::open(p, None, block)?;
        if r.refill()? {
            readers.push(r);
        } else {
            let _ = std::fs::remove_file(r.path());
        }
    }
    let mut batch: Vec<R> = Vec::new();
    while !readers.is_empty() {
        let bound = readers.iter().filter_map(|r| r.rest().last().copied()).min().unwrap_or_else(R::zeroed);
        let takes: Vec<usize> = readers.iter().map(|r| r.rest().partition_point(|x| *x <= bound)).collect();
        let pieces: Vec<&[R]> = readers.iter().zip(&takes).map(|(r, &k)| &r.rest()[..k]).collect();
        merge_pieces(&pieces, &mut batch);
        sink(&batch)?;
        for (r, &k) in readers.iter_mut().zip(&takes) {
            r.consume(k);
        }
        let mut i = 0;
        while i < readers.len() {
            if readers[i].refill()? {
                i += 1;
            } else {
                let r = readers.swap_remove(i);
                let _ = std::fs::remove_file(r.path());
            }
        }
    }
    drop(guard);
    Ok(())
}

/// Merges sorted `pieces` into `out` (replacing its contents): the pieces are cut at pivots
/// taken from the longest one, and each part is merged by a stable sort, in parallel.
fn merge_pieces<R: Record>(pieces: &[&[R]], out: &mut Vec<R>) {
    let total: usize = pieces.iter().map(|p| p.len()).sum();
    let longest = pieces.iter().copied().max_by_key(|p| p.len()).unwrap_or(&[]);
    let parts = if total < 1 << 16 { 1 } else { 2 * rayon::current_num_threads() };
    let mut pivots: Vec<R> = (1..parts).map(|j| longest[j * longest.len() / parts]).collect();
    pivots.dedup();
    // cuts[i][j]: where piece i starts part j.
    let cuts: Vec<Vec<usize>> = pieces
        .iter()
        .map(|p| {
            let mut c = Vec::with_capacity(pivots.len() + 2);
            c.push(0);
            c.extend(pivots.iter().map(|pv| p.partition_point(|x| x < pv)));
            c.push(p.len());
            c
        })
        .collect();
    out.clear();
    out.resize(total, R::zeroed());
    let mut jobs = Vec::with_capacity(pivots.len() + 1);
    let mut rest = &mut out[..];
    for j in 0..=pivots.len() {
        let len: usize = cuts.iter().map(|c| c[j + 1] - c[j]).sum();
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(len);
        jobs.push((j, head));
        rest = tail;
    }
    jobs.into_par_iter().for_each(|(j, dst)| {
        let mut at = 0;
        for (p, c) in pieces.iter().zip(&cuts) {
            let src = &p[c[j]..c[j + 1]];
            dst[at..at + src.len()].copy_from_slice(src);
            at += src.len();
        }
        dst.sort();
    });
}

/// Removes files when dropped (success or error).
struct DeleteOnDrop(Vec<PathBuf>);

impl Drop for DeleteOnDrop {
    fn drop(&mut self) {
        for p in &self.0 {
            let _ = std::fs::remove_file(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};

    use super::*;

    /// The parallel cut-and-sort merge against sorting the concatenation (duplicates straddling
    /// the pivots, an empty piece, unequal lengths).
    #[test]
    fn merge_pieces_matches_sorting() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        for lens in [[0usize, 5, 70_000, 3], [40_000, 40_000, 1, 90_000], [10, 0, 0, 20]] {
            let pieces: Vec<Vec<u64>> = lens
                .iter()
                .map(|&l| {
                    let mut p: Vec<u64> = (0..l).map(|_| rng.gen_range(0..500)).collect();
                    p.sort_unstable();
                    p
                })
                .collect();
            let refs: Vec<&[u64]> = pieces.iter().map(|p| &p[..]).collect();
            let mut got = vec![7u64; 3];
            merge_pieces(&refs, &mut got);
            let mut want: Vec<u64> = pieces.concat();
            want.sort_unstable();
            assert_eq!(got, want);
        }
    }
}
