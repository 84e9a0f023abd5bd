//! Sorted runs of the external sort: a full edge buffer is sorted in parallel and written to a
//! scratch file; [`RunReader`] streams a run back in large blocks.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use rayon::slice::ParallelSliceMut;

use super::record::Record;
use crate::error::{Error, Result};

/// Sorts `buf` in parallel and, when `dedup` is set, removes duplicate arcs keeping the
/// smallest weight (the first after sorting).
pub(crate) fn sort_records<R: Record>(buf: &mut Vec<R>, dedup: bool) {
    buf.par_sort_unstable();
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
        if self.pos == self.block.len() {
            if self.remaining == 0 {
                return Ok(None);
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
        let r = self.block[self.pos];
        self.pos += 1;
        Ok(Some(r))
    }

    /// The run file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}
