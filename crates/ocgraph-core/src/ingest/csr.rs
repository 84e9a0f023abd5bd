//! Streaming CSR writer: takes arcs in (source, destination, weight) order and streams `offsets`, `neighbors` and `weights` into the graph's files.
//! Offsets are streamed as well, so nothing per vertex is held in memory.

use super::record::Record;
use crate::error::Result;
use crate::format::{FileRole, FileWriter, GraphWriter};

const FLUSH: usize = 1 << 16;

/// The files of one direction.
#[derive(Clone, Copy)]
pub(crate) struct CsrRoles {
    pub offsets: FileRole,
    pub neighbors: FileRole,
    pub weights: FileRole,
}

/// Out-direction files.
pub(crate) const OUT: CsrRoles = CsrRoles {
    offsets: FileRole::OutOffsets,
    neighbors: FileRole::OutNeighbors,
    weights: FileRole::OutWeights,
};
/// In-direction files.
pub(crate) const IN: CsrRoles =
    CsrRoles { offsets: FileRole::InOffsets, neighbors: FileRole::InNeighbors, weights: FileRole::InWeights };

/// Counts of a written direction.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CsrCounts {
    /// Arcs written.
    pub arcs: u64,
    /// Self-loops among them.
    pub loops: u64,
}

/// Streams one CSR direction of `n` vertices.
pub(crate) struct CsrSink<R: Record> {
    roles: CsrRoles,
    offsets: FileWriter,
    neighbors: FileWriter,
    weights: Option<FileWriter>,
    n: u64,
    next_v: u64,
    counts: CsrCounts,
    dedup: bool,
    last: Option<u64>,
    obuf: Vec<u64>,
    nbuf: Vec<u32>,
    wbuf: Vec<f32>,
    _r: std::marker::PhantomData<R>,
}

impl<R: Record> CsrSink<R> {
    /// Opens the files of `roles` in `w`; with `dedup`, repeated arcs pushed through
    /// [`CsrSink::push`] are dropped (the first one, of smallest weight, is kept).
    pub(crate) fn new(w: &GraphWriter, roles: CsrRoles, n: u64, dedup: bool) -> Result<CsrSink<R>> {
        Ok(CsrSink {
            roles,
            offsets: w.file(roles.offsets)?,
            neighbors: w.file(roles.neighbors)?,
            weights: if R::WEIGHTED { Some(w.file(roles.weights)?) } else { None },
            n,
            next_v: 0,
            counts: CsrCounts::default(),
            dedup,
            last: None,
            obuf: Vec::with_capacity(FLUSH),
            nbuf: Vec::with_capacity(FLUSH),
            wbuf: Vec::with_capacity(if R::WEIGHTED { FLUSH } else { 0 }),
            _r: std::marker::PhantomData,
        })
    }

    /// Emits the start offsets of vertices up to and including `v`.
    fn start_vertex(&mut self, v: u64) -> Result<()> {
        while self.next_v <= v {
            self.obuf.push(self.counts.arcs);
            self.next_v += 1;
            if self.obuf.len() >= FLUSH {
                self.offsets.write_slice(&self.obuf)?;
                self.obuf.clear();
            }
        }
        Ok(())
    }

    fn push_entry(&mut self, src: u32, e: R::Entry) -> Result<()> {
        let dst = R::entry_dst(e);
        self.nbuf.push(dst);
        if R::WEIGHTED {
            self.wbuf.push(R::entry_weight(e));
        }
        self.counts.arcs += 1;
        self.counts.loops += (src == dst) as u64;
        if self.nbuf.len() >= FLUSH {
            self.flush_arcs()?;
        }
        Ok(())
    }

    fn flush_arcs(&mut self) -> Result<()> {
        self.neighbors.write_slice(&self.nbuf)?;
        self.nbuf.clear();
        if let Some(w) = &mut self.weights {
            w.write_slice(&self.wbuf)?;
            self.wbuf.clear();
        }
        Ok(())
    }

    /// Appends one arc; arcs must arrive in record order.
    pub(crate) fn push(&mut self, r: R) -> Result<()> {
        if self.dedup && self.last == Some(r.arc()) {
            return Ok(());
        }
        self.last = Some(r.arc());
        self.start_vertex(r.src() as u64)?;
        self.push_entry(r.src(), r.entry())
    }

    /// Writes the remaining offsets, finishes the files and adds them to `w`.
    pub(crate) fn finish(mut self, w: &mut GraphWriter) -> Result<CsrCounts> {
        self.start_vertex(self.n)?;
        self.offsets.write_slice(&self.obuf)?;
        self.flush_arcs()?;
        w.add(self.roles.offsets, self.offsets)?;
        w.add(self.roles.neighbors, self.neighbors)?;
        if let Some(wt) = self.weights {
            w.add(self.roles.weights, wt)?;
        }
        Ok(self.counts)
    }
}
