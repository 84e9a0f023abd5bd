//! Sorted runs of the external sort: a full edge buffer is sorted in parallel and written to a
//! scratch file; [`RunReader`] streams a run back in large blocks.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::record::Record;
use crate::error::{Error, Result};

/// Log2 of the number of buckets of the in-place radix partition (1024).
const BUCKET_BITS: u32 = 10;

/// Sorts `buf` and, when `dedup` is set, removes duplicate arcs keeping the smallest weight
/// (the first after sorting).
///
/// An in-place MSD radix partition (American flag sort) on the top [`BUCKET_BITS`] significant
/// bits of the records splits the buffer into up to 1024 buckets of increasing keys without
/// extra memory; the buckets, small enough to sort in cache, are then sorted in parallel.
pub(crate) fn sort_records<R: Record>(buf: &mut Vec<R>, dedup: bool) {
    let max = buf.par_iter().copied().max().unwrap_or_else(R::zeroed);
    let bits = R::BITS - max.leading_zeros();
    if buf.len() < 1 << 16 || bits <= BUCKET_BITS {
        buf.par_sort_unstable();
    } else {
        let shift = bits - BUCKET_BITS;
        let bucket = |r: &R| r.key_bits(shift) as usize;
        let mut counts = vec![0usize; 1 << BUCKET_BITS];
        for r in buf.iter() {
            counts[bucket(r)] += 1;
        }
        let mut ends = counts.clone();
        let mut starts = vec![0usize; counts.len()];
        let mut acc = 0;
        for (i, c) in counts.iter().enumerate() {
            starts[i] = acc;
            acc += c;
            ends[i] = acc;
        }
        // Cycle leader permutation: `heads[b]` is the next unplaced slot of bucket `b`.
        let mut heads = starts.clone();
        for b in 0..counts.len() {
            while heads[b] < ends[b] {
                let mut r = buf[heads[b]];
                let mut t = bucket(&r);
                while t != b {
                    std::mem::swap(&mut r, &mut buf[heads[t]]);
                    heads[t] += 1;
                    t = bucket(&r);
                }
                buf[heads[b]] = r;
                heads[b] += 1;
            }
        }
        let total = buf.len();
        let mut parts = Vec::with_capacity(counts.len());
        let mut rest = &mut buf[..];
        for c in counts {
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(c);
            parts.push(head);
            rest = tail;
        }
        parts.into_par_iter().for_each(|p| {
            if p.len() > total / 8 {
                p.par_sort_unstable();
            } else {
                p.sort_unstable();
            }
        });
    }
    if dedup {
        buf.dedup_by(|b, a| a.arc() == b.arc());
    }
}

/// The sorted run files of one external sort, in a scratch directory.
pub(crate) struct RunSet {
    dir: PathBuf,
    runs: Vec<PathBuf>,
    created: usize,
}

impl RunSet {
    /// A run set writing into `dir` (created on the first spill).
    pub(crate) fn new(dir: PathBuf) -> RunSet {
        RunSet { dir, runs: Vec::new(), created: 0 }
    }

    /// Number of runs currently on disk.
    pub(crate) fn len(&self) -> usize {
        self.runs.len()
    }

    /// Number of runs written so far (including merged-away intermediate ones).
    pub(crate) fn created(&self) -> usize {
        self.created
    }

    /// Takes the run paths out of the set.
    pub(crate) fn take(&mut self) -> Vec<PathBuf> {
        std::mem::take(&mut self.runs)
    }

    /// Opens a new run file for writing.
    pub(crate) fn create_run(&mut self) -> Result<RunWriter> {
        if self.created == 0 {
            std::fs::create_dir_all(&self.dir).map_err(|e| Error::io(&self.dir, "create directory", e))?;
        }
        let path = self.dir.join(format!("run-{:06}", self.created));
        self.created += 1;
        let f = File::create(&path).map_err(|e| Error::io(&path, "create", e))?;
        Ok(RunWriter { out: BufWriter::with_capacity(1 << 20, f), path })
    }

    /// Records a finished run.
    pub(crate) fn add(&mut self, path: PathBuf) {
        self.runs.push(path);
    }

    /// Sorts `buf` (deduplicating if asked), writes it as a new run and clears it.
    pub(crate) fn spill<R: Record>(&mut self, buf: &mut Vec<R>, dedup: bool) -> Result<()> {
        sort_records(buf, dedup);
        let mut w = self.create_run()?;
        w.write(buf)?;
        self.add(w.finish()?);
        buf.clear();
        Ok(())
    }
}

impl Drop for RunSet {
    fn drop(&mut self) {
        for r in &self.runs {
            let _ = std::fs::remove_file(r);
        }
    }
}

/// Writes one run file.
pub(crate) struct RunWriter {
    out: BufWriter<File>,
    path: PathBuf,
}

impl RunWriter {
    /// Appends records.
    pub(crate) fn write<R: Record>(&mut self, recs: &[R]) -> Result<()> {
        self.out.write_all(bytemuck::cast_slice(recs)).map_err(|e| Error::io(&self.path, "write", e))
    }

    /// Flushes and returns the path of the run.
    pub(crate) fn finish(mut self) -> Result<PathBuf> {
        self.out.flush().map_err(|e| Error::io(&self.path, "write", e))?;
        Ok(self.path)
    }
}

/// Streams the values of a run file (or of any file of plain values) in blocks.
pub(crate) struct RunReader<R: bytemuck::Pod> {
    path: PathBuf,
    file: File,
    remaining: u64,
    block: Vec<R>,
    pos: usize,
}

impl<R: bytemuck::Pod> RunReader<R> {
    /// Opens `path`, reading `block_records` values at a time; `count` values are read (all
    /// whole values of the file when `None`).
    pub(crate) fn open(path: &Path, count: Option<u64>, block_records: usize) -> Result<RunReader<R>> {
        let file = File::open(path).map_err(|e| Error::io(path, "open", e))?;
        let remaining = match count {
            Some(c) => c,
            None => {
                file.metadata().map_err(|e| Error::io(path, "stat", e))?.len()
                    / std::mem::size_of::<R>() as u64
            }
        };
        Ok(RunReader {
            path: path.to_path_buf(),
            file,
            remaining,
            block: Vec::with_capacity(block_records.max(1)),
            pos: 0,
        })
    }

    /// The next value, or `None` at the end.
    pub(crate) fn next_record(&mut self) -> Result<Option<R>> {
        if !self.refill()? {
            return Ok(None);
        }
        let r = self.block[self.pos];
        self.pos += 1;
        Ok(Some(r))
    }

    /// Reads the next block if the current one is used up; false at the end of the run.
    pub(crate) fn refill(&mut self) -> Result<bool> {
        if self.pos == self.block.len() {
            if self.remaining == 0 {
                return Ok(false);
            }
            let k = (self.block.capacity() as u64).min(self.remaining) as usize;
            self.block.clear();
            self.block.resize(k, R::zeroed());
            self.file
                .read_exact(bytemuck::cast_slice_mut(&mut self.block))
                .map_err(|e| Error::io(&self.path, "read", e))?;
            self.remaining -= k as u64;
            self.pos = 0;
        }
        Ok(true)
    }

    /// The unread values of the current block.
    pub(crate) fn rest(&self) -> &[R] {
        &self.block[self.pos..]
    }

    /// Marks `k` values of [`RunReader::rest`] as read.
    pub(crate) fn consume(&mut self, k: usize) {
        self.pos += k;
    }

    /// The run file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};

    use super::*;

    /// The radix path (large buffers) against the standard sort, skewed keys and duplicates.
    #[test]
    fn sort_records_matches_std_sort() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        for dedup in [false, true] {
            let plain: Vec<u64> = (0..200_000)
                .map(|_| {
                    let src = if rng.gen_bool(0.3) { rng.gen_range(0..4u32) } else { rng.gen_range(0..5000) };
                    u64::new(src, rng.gen_range(0..300), 1.0)
                })
                .collect();
            let mut got = plain.clone();
            sort_records(&mut got, dedup);
            let mut want = plain;
            want.sort_unstable();
            if dedup {
                want.dedup();
            }
            assert_eq!(got, want);
            let weighted: Vec<u128> = (0..100_000)
                .map(|_| u128::new(rng.gen_range(0..900), rng.gen_range(0..50), rng.gen_range(-2..3) as f32))
                .collect();
            let mut got = weighted.clone();
            sort_records(&mut got, dedup);
            let mut want = weighted;
            want.sort_unstable();
            if dedup {
                want.dedup_by(|b, a| a.arc() == b.arc());
            }
            assert_eq!(got, want);
        }
    }
}
