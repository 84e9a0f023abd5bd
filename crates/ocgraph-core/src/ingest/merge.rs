//! K-way merge of sorted runs (a binary heap over one reader per run). When there are more
//! runs than [`MAX_FANIN`], groups of runs are first merged into larger runs. Run files are
//! deleted as soon as they are merged.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::PathBuf;

use super::record::Record;
use super::runs::{RunReader, RunSet};
use crate::error::Result;

/// Most runs merged at once (bounds open files and reader buffers).
pub(crate) const MAX_FANIN: usize = 128;

/// Merges every run of `runs` in order into `sink`; `read_budget` bytes are shared by the
/// readers' block buffers (each gets between 64 KiB and 4 MiB). With `dedup`, duplicate arcs
/// are dropped while merging intermediate runs (the final sink does its own dedup).
pub(crate) fn merge_all<R: Record>(
    runs: &mut RunSet,
    read_budget: u64,
    dedup: bool,
    mut sink: impl FnMut(R) -> Result<()>,
) -> Result<()> {
    while runs.len() > MAX_FANIN {
        let all = runs.take();
        let (group, rest) = all.split_at(MAX_FANIN);
        for r in rest {
            runs.add(r.clone());
        }
        let mut w = runs.create_run()?;
        let mut block: Vec<R> = Vec::with_capacity(1 << 16);
        let mut last: Option<u64> = None;
        merge_group::<R>(group.to_vec(), read_budget, |r| {
            if dedup && last == Some(r.arc()) {
                return Ok(());
            }
            last = Some(r.arc());
            block.push(r);
            if block.len() == block.capacity() {
                w.write(&block)?;
                block.clear();
            }
            Ok(())
        })?;
        w.write(&block)?;
        runs.add(w.finish()?);
    }
    merge_group(runs.take(), read_budget, &mut sink)
}

/// Merges `paths` into `sink`, deleting each file once it is exhausted (and all of them on error).
fn merge_group<R: Record>(
    paths: Vec<PathBuf>,
    read_budget: u64,
    mut sink: impl FnMut(R) -> Result<()>,
) -> Result<()> {
    let guard = DeleteOnDrop(paths.clone());
    let per = (read_budget / paths.len().max(1) as u64).clamp(64 << 10, 4 << 20);
    let block = (per / std::mem::size_of::<R>() as u64) as usize;
    let mut readers = Vec::with_capacity(paths.len());
    let mut heap = BinaryHeap::with_capacity(paths.len());
    for p in &paths {
        let mut r = RunReader::<R>::open(p, None, block)?;
        if let Some(rec) = r.next_record()? {
            heap.push(Reverse((rec, readers.len())));
        } else {
            let _ = std::fs::remove_file(r.path());
        }
        readers.push(r);
    }
    while let Some(Reverse((rec, i))) = heap.pop() {
        sink(rec)?;
        match readers[i].next_record()? {
            Some(next) => heap.push(Reverse((next, i))),
            None => {
                let _ = std::fs::remove_file(readers[i].path());
            }
        }
    }
    drop(guard);
    Ok(())
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
