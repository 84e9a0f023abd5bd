//! [`Direction`]: one direction (out or in) of an opened graph, read through the page layer;
//! implements [`Adjacency`] over plain `u32` lists or packed ones ([`crate::format::packed`]).

use std::ops::Range;

use super::chunk_cursor::ChunkCursor;
use super::{Adjacency, Graph, Vertex};
use crate::format::packed::{self, DecodeError};
use crate::format::{FileRole, WeightRange};
use crate::page::{Advice, FileId, PageSource, PartitionCut, Slice};

/// Where a direction's neighbour lists are stored.
#[derive(Clone, Copy)]
pub(super) enum Lists {
    /// `u32` ids, `num_arcs` of them (`out.neighbors`).
    Plain(FileId),
    /// Packed lists (`out.packed`) and their byte offsets (`index`); `roles` = the files' roles.
    Packed { bytes: FileId, index: FileId, roles: [FileRole; 2] },
}

/// One direction (out or in) of an opened [`Graph`]; implements [`Adjacency`].
#[derive(Clone, Copy)]
pub struct Direction<'g> {
    pub(super) graph: &'g Graph,
    pub(super) offsets_role: FileRole,
    pub(super) offsets: FileId,
    pub(super) lists: Lists,
    /// Data bytes of the lists file.
    pub(super) lists_len: u64,
    pub(super) weights: Option<FileId>,
}

/// One vertex of a block scan: the vertex, two ranges read from two `u64` files in lockstep, and
/// the first file's value [`LOOKAHEAD`] vertices later (for prefetching; see
/// [`Direction::for_each_block`]).
type BlockStep = Option<(Vertex, [u64; 2], [u64; 2], u64)>;

/// How many vertices ahead a block scan gives the offset of (see [`BlockStep`]).
const LOOKAHEAD: usize = 8;

/// The first `k` positions of `range` (`last: false`) or its last `k`, within it.
fn part(range: Range<u64>, k: usize, last: bool) -> Range<u64> {
    let k = k as u64;
    if last {
        range.end.saturating_sub(k).max(range.start)..range.end
    } else {
        range.start..range.end.min(range.start.saturating_add(k))
    }
}

/// `list` cut to its [`part`].
fn keep_part(mut list: Vec<Vertex>, k: usize, last: bool) -> Vec<Vertex> {
    let r = part(0..list.len() as u64, k, last);
    list.truncate(r.end as usize);
    list.drain(..r.start as usize);
    list
}

impl<'g> Direction<'g> {
    fn src(&self) -> &'g dyn PageSource {
        &*self.graph.source
    }

    /// Value `i` of the `u64` file `file` (offsets or a packed index).
    pub(super) fn read_u64(&self, file: FileId, i: u64) -> u64 {
        let mut o = [0u64; 1];
        self.src().read_into(file, i * 8, bytemuck::cast_slice_mut(&mut o));
        o[0]
    }

    /// The CSR offset of vertex `v` (`v == num_vertices` gives the arc count).
    pub fn offset_at(&self, v: u64) -> u64 {
        self.read_u64(self.offsets, v)
    }

    /// Offsets `lo..=hi` (so `hi - lo + 1` values).
    pub fn offsets(&self, lo: Vertex, hi: Vertex) -> Slice<'g, u64> {
        self.read_u64s(self.offsets, lo, hi)
    }

    fn read_u64s(&self, file: FileId, lo: Vertex, hi: Vertex) -> Slice<'g, u64> {
        let n = (hi - lo) as usize + 1;
        self.src().read(file, lo as u64 * 8, n * 8).typed()
    }

    /// Whether the lists are packed ([`crate::format::packed`]).
    pub fn is_packed(&self) -> bool {
        matches!(self.lists, Lists::Packed { .. })
    }

    /// The sorted neighbour list of `v` ([`Adjacency::neighbors`], borrowing the graph rather
    /// than this value).
    pub fn list(&self, v: Vertex) -> Slice<'g, Vertex> {
        match self.lists {
            Lists::Plain(file) => {
                let (a, b) = self.bounds(v);
                self.ids(file, a, b)
            }
            Lists::Packed { .. } => Slice::owned(self.packed_list(v)),
        }
    }

    /// Arcs `[a, b)` of the plain lists file `file`.
    fn ids(&self, file: FileId, a: u64, b: u64) -> Slice<'g, Vertex> {
        self.src().read(file, a * 4, ((b - a) * 4) as usize).typed()
    }

    /// The first neighbours of `v` (`last: false`) or its last ones, at most `k`; on a plain
    /// graph only those arcs are read (a hub's whole list is not copied).
    pub fn neighbors_part(&self, v: Vertex, k: usize, last: bool) -> Slice<'g, Vertex> {
        match self.lists {
            Lists::Plain(file) => {
                let (a, b) = self.bounds(v);
                let r = part(a..b, k, last);
                self.ids(file, r.start, r.end)
            }
            Lists::Packed { .. } => Slice::owned(keep_part(self.packed_list(v), k, last)),
        }
    }

    /// [`Direction::neighbors_part`] when every page it needs is in memory, `None` otherwise:
    /// no I/O on the pool (on mmap it reads as `neighbors_part` does: residency is the kernel's).
    /// For prefetchers, which must not load pages on a query's behalf.
    pub fn cached_neighbors_part(&self, v: Vertex, k: usize, last: bool) -> Option<Vec<Vertex>> {
        match self.lists {
            Lists::Plain(file) => {
                let (a, b) = self.cached_pair(self.offsets, v)?;
                self.checked_degree(v, a, b);
                let r = part(a..b, k, last);
                let mut ids = vec![0 as Vertex; (r.end - r.start) as usize];
                self.src()
                    .read_cached_into(file, r.start * 4, bytemuck::cast_slice_mut(&mut ids))
                    .then_some(ids)
            }
            Lists::Packed { bytes, index, .. } => {
                let (a, b) = self.cached_pair(index, v)?;
                let len = b.checked_sub(a).unwrap_or_else(|| self.corrupt(v, a, DecodeError::Malformed));
                let mut raw = vec![0u8; len as usize];
                if !self.src().read_cached_into(bytes, a, &mut raw) {
                    return None;
                }
                let mut all = Vec::new();
                self.decode(v, &raw, a, &mut all);
                Some(keep_part(all, k, last))
            }
        }
    }

    /// [`Direction::pair`] when its page is in memory, `None` otherwise (no I/O).
    fn cached_pair(&self, file: FileId, v: Vertex) -> Option<(u64, u64)> {
        assert!((v as usize) < self.graph.num_vertices(), "vertex {v} out of range");
        let mut o = [0u64; 2];
        self.src()
            .read_cached_into(file, v as u64 * 8, bytemuck::cast_slice_mut(&mut o))
            .then_some((o[0], o[1]))
    }

    /// Bytes per page of [`Direction::keep_bounds_page`], whatever the backend's page size.
    pub const HINT_PAGE: u64 = 4096;
    /// Vertex-table entries per such page: the list bounds of vertex `v` (bytes `8v..8v + 16`
    /// of the offsets, or of the packed index) start on page `v / BOUNDS_PER_PAGE`.
    pub const BOUNDS_PER_PAGE: u64 = Self::HINT_PAGE / 8;

    /// Counts a use of page `page` of the list bounds for the replacement policy when it is in
    /// memory, and returns whether it was; never loads it ([`PageSource::keep_cached`]).
    pub fn keep_bounds_page(&self, page: u64) -> bool {
        self.src().keep_cached(self.bounds_file(), page * Self::HINT_PAGE)
    }

    /// Protects page `page` ([`Direction::HINT_PAGE`] bytes) of the list bounds (`list:
    /// false`) or of the lists from eviction (`on: true`), or ends its protection; never loads
    /// it ([`PageSource::protect`]).
    pub fn set_protected(&self, page: u64, list: bool, on: bool) {
        let file = if list { self.lists_file() } else { self.bounds_file() };
        if on {
            self.src().protect(file, page * Self::HINT_PAGE)
        } else {
            self.src().unprotect(file, page * Self::HINT_PAGE)
        }
    }

    /// Whether [`Direction::set_protected`] locks pages in memory (mmap:
    /// [`PageSource::protection_locks`]).
    pub fn protection_locks(&self) -> bool {
        self.src().protection_locks()
    }

    /// The page ([`Direction::HINT_PAGE`] bytes) of the lists file on which `v`'s list starts,
    /// when `v`'s bounds are in memory and its list is not empty; `None` otherwise (no I/O).
    pub fn cached_list_page(&self, v: Vertex) -> Option<u64> {
        let r = self.cached_list_range(v)?;
        (r.end > r.start).then_some(r.start / Self::HINT_PAGE)
    }

    /// [`Direction::list_bytes`] when `v`'s bounds are in memory, `None` otherwise (no I/O).
    pub fn cached_list_range(&self, v: Vertex) -> Option<Range<u64>> {
        match self.lists {
            Lists::Plain(_) => self.cached_pair(self.offsets, v).map(|(a, b)| a * 4..b * 4),
            Lists::Packed { index, .. } => self.cached_pair(index, v).map(|(a, b)| a..b),
        }
    }

    /// Hints that page `page` of the list bounds will be read soon (as
    /// [`Direction::will_need_list_bytes`]).
    pub fn will_need_bounds_page(&self, page: u64) {
        let len = (self.graph.num_vertices() as u64 + 1) * 8;
        let start = page * Self::HINT_PAGE;
        if start < len {
            let n = Self::HINT_PAGE.min(len - start);
            self.src().advise(self.bounds_file(), start, n, Advice::WillNeed);
        }
    }

    /// Where the partitions of a scan cut at vertices `cuts` meet in this direction's files
    /// (cuts at 0 or past the last vertex are skipped): the list bounds of a cut vertex are read
    /// by both partitions; its list, and its weights, start where the previous partition's end.
    /// Reads the cut vertices' bounds.
    fn partition_cuts(&self, cuts: &[Vertex]) -> Vec<PartitionCut> {
        let n = self.graph.num_vertices() as u64;
        let span = |file, next_start, prev_end| PartitionCut { file, next_start, prev_end };
        let mut out = Vec::new();
        for &c in cuts.iter().filter(|&&c| c > 0 && (c as u64) < n) {
            let bound = c as u64 * 8;
            out.push(span(self.bounds_file(), bound, bound + 8));
            if let Lists::Packed { .. } = self.lists {
                out.push(span(self.offsets, bound, bound + 8));
            }
            let list = self.list_bytes(c).start;
            out.push(span(self.lists_file(), list, list));
            if let Some(w) = self.weights {
                let at = self.arc_range(c).start * 4;
                out.push(span(w, at, at));
            }
        }
        out
    }

    /// Arcs stored in this direction (the graph's [`Graph::num_arcs`]).
    pub fn num_arcs(&self) -> u64 {
        self.graph.num_arcs()
    }

    /// Hints that the whole of the list bounds (the vertex table) will be read soon (as
    /// [`Direction::will_need_list_bytes`]). Returns the bytes advised.
    pub fn will_need_bounds(&self) -> u64 {
        let len = (self.graph.num_vertices() as u64 + 1) * 8;
        self.src().advise(self.bounds_file(), 0, len, Advice::WillNeed);
        len
    }

    /// The file of the list bounds: the offsets, or the packed index.
    fn bounds_file(&self) -> FileId {
        match self.lists {
            Lists::Plain(_) => self.offsets,
            Lists::Packed { index, .. } => index,
        }
    }

    /// Weights of arcs `[start, end)`, when the graph is weighted.
    pub fn arc_weights(&self, start: u64, end: u64) -> Option<Slice<'g, f32>> {
        self.weights.map(|w| self.src().read(w, start * 4, ((end - start) * 4) as usize).typed())
    }

    /// The arc range `[start, end)` of `v` in the neighbours file (no pin held afterwards).
    pub fn arc_range(&self, v: Vertex) -> Range<u64> {
        let (a, b) = self.bounds(v);
        a..b
    }

    /// The byte range of `v`'s list in its lists file (`out.neighbors` or `out.packed`).
    pub fn list_bytes(&self, v: Vertex) -> Range<u64> {
        match self.lists {
            Lists::Plain(_) => {
                let (a, b) = self.bounds(v);
                a * 4..b * 4
            }
            Lists::Packed { index, .. } => {
                let (a, b) = self.pair(index, v);
                a..b
            }
        }
    }

    /// Hints that bytes `[start, end)` of the lists file will be read soon:
    /// `madvise(MADV_WILLNEED)` on mmap, a background load into free or evictable frames on the
    /// pool. Never blocks on the I/O.
    pub fn will_need_list_bytes(&self, start: u64, end: u64) {
        let end = end.min(self.lists_len);
        if end > start {
            self.src().advise(self.lists_file(), start, end - start, Advice::WillNeed);
        }
    }

    /// Hints that the offsets of vertex `v` (and, packed, its index entries) will be read soon
    /// (as [`Direction::will_need_list_bytes`]).
    pub fn will_need_offsets(&self, v: Vertex) {
        self.src().advise(self.bounds_file(), v as u64 * 8, 16, Advice::WillNeed);
    }

    /// Advises the access pattern of this direction's offsets and lists files as a whole,
    /// e.g. [`Advice::Random`] for random queries: no read-ahead on mmap (`MADV_RANDOM`), none
    /// in the buffer pool either (see the pool's `advise`).
    pub fn advise_files(&self, advice: Advice) {
        let n = self.graph.num_vertices() as u64;
        self.src().advise(self.offsets, 0, (n + 1) * 8, advice);
        if let Lists::Packed { index, .. } = self.lists {
            self.src().advise(index, 0, (n + 1) * 8, advice);
        }
        self.src().advise(self.lists_file(), 0, self.lists_len, advice);
    }

    fn lists_file(&self) -> FileId {
        match self.lists {
            Lists::Plain(file) => file,
            Lists::Packed { bytes, .. } => bytes,
        }
    }

    /// The arc range of `v`: its two offsets, copied out (no pin is held afterwards, so the
    /// neighbour read that follows needs one pin at a time), checked to lie within the arcs
    /// ([`Direction::checked_degree`]): the lists file's padding past them is no list.
    #[inline]
    fn bounds(&self, v: Vertex) -> (u64, u64) {
        let (a, b) = self.offsets_of(v);
        self.checked_degree(v, a, b);
        (a, b)
    }

    /// [`Direction::bounds`] unchecked.
    #[inline]
    fn offsets_of(&self, v: Vertex) -> (u64, u64) {
        let Some(dir) = self.predicting() else { return self.pair(self.offsets, v) };
        assert!((v as usize) < self.graph.num_vertices(), "vertex {v} out of range");
        let mut o = [0u64; 2];
        let dst = bytemuck::cast_slice_mut(&mut o);
        let predicted = self.predicted_list(dir, v);
        match self.companion(dir, predicted) {
            Some(next) => self.src().read_into_then(self.offsets, v as u64 * 8, dst, next),
            None => self.src().read_into(self.offsets, v as u64 * 8, dst),
        }
        self.learn(dir, v, o[0], predicted);
        (o[0], o[1])
    }

    /// While list-start prediction is on ([`Graph::predict_list_starts`]) and the lists are
    /// plain: this direction's index among the predictions (0 out, 1 in).
    #[inline]
    fn predicting(&self) -> Option<usize> {
        let on =
            matches!(self.lists, Lists::Plain(_)) && self.lists_len > 0 && self.graph.list_starts.enabled();
        on.then_some(usize::from(self.offsets_role != FileRole::OutOffsets))
    }

    /// The byte where `v`'s list is predicted to start, in the lists file (see
    /// [`Direction::predicting`]).
    fn predicted_list(&self, dir: usize, v: Vertex) -> Option<u64> {
        let start = self.graph.list_starts.predict(dir, v)?;
        Some(self.list_byte(start))
    }

    /// The byte of the lists file where a list starting at arc `start` begins (the last byte
    /// for an empty list at the end).
    fn list_byte(&self, start: u64) -> u64 {
        (start * 4).min(self.lists_len - 1)
    }

    /// The companion of a bounds read (`PageSource::read_then`): the predicted byte, while this
    /// direction's predictions are trusted.
    fn companion(&self, dir: usize, predicted: Option<u64>) -> Option<(FileId, u64)> {
        let byte = predicted?;
        self.graph.list_starts.trusted(dir).then(|| (self.lists_file(), byte))
    }

    /// Records that `v`'s list starts at arc `start`, and checks the prediction made for it
    /// (same 4 KiB page).
    fn learn(&self, dir: usize, v: Vertex, start: u64, predicted: Option<u64>) {
        let ls = &self.graph.list_starts;
        ls.observe(dir, v, start);
        if let Some(byte) = predicted {
            ls.check(dir, byte / 4096 == self.list_byte(start) / 4096);
        }
    }

    /// Values `v` and `v + 1` of the `u64` file `file`, copied out.
    #[inline]
    fn pair(&self, file: FileId, v: Vertex) -> (u64, u64) {
        assert!((v as usize) < self.graph.num_vertices(), "vertex {v} out of range");
        let mut o = [0u64; 2];
        self.src().read_into(file, v as u64 * 8, bytemuck::cast_slice_mut(&mut o));
        (o[0], o[1])
    }

    /// The degree of `v`, whose offsets are `a` and `b`. A reversed range or one past the arcs
    /// panics: only a corrupted offsets file gets here (open checks the first and last offsets,
    /// and of a small graph every byte), and the callers' panic handlers name it. Read as a
    /// degree, it would be taken silently where the lists come from elsewhere (packed copies).
    fn checked_degree(&self, v: Vertex, a: u64, b: u64) -> usize {
        let arcs = self.graph.num_arcs();
        assert!(a <= b && b <= arcs, "offsets of vertex {v} run from {a} to {b}, not within 0..={arcs}");
        (b - a) as usize
    }

    /// The decoded list of `v` in a packed graph.
    fn packed_list(&self, v: Vertex) -> Vec<Vertex> {
        let Lists::Packed { bytes, index, .. } = self.lists else { unreachable!("packed lists only") };
        let (a, b) = self.pair(index, v);
        let len = b.checked_sub(a).unwrap_or_else(|| self.corrupt(v, a, DecodeError::Malformed));
        let mut out = Vec::new();
        self.decode(v, &self.src().read(bytes, a, len as usize).typed::<u8>(), a, &mut out);
        out
    }

    /// Decodes `v`'s packed list `bytes` (at byte `at` of the packed file) into `out`.
    #[inline]
    fn decode(&self, v: Vertex, bytes: &[u8], at: u64, out: &mut Vec<Vertex>) {
        if let Err(e) = packed::decode_list(v, bytes, out) {
            self.corrupt(v, at, e);
        }
        // A flipped bit can decode to ids past the graph: refused as a list that does not decode.
        let n = self.graph.num_vertices() as Vertex;
        if out.iter().fold(0, |m, &u| m.max(u)) >= n && !out.is_empty() {
            self.corrupt(v, at, DecodeError::OutOfRange);
        }
    }

    /// A packed list that does not decode: the file is corrupted (reads of graph data have no
    /// error path, as for an I/O error; `ocgraph check` finds it with a proper error).
    #[cold]
    fn corrupt(&self, v: Vertex, at: u64, e: DecodeError) -> ! {
        let Lists::Packed { roles, .. } = self.lists else { unreachable!("packed lists only") };
        let path = self.graph.manifest.data_path(&self.graph.dir).join(roles[0].file_name());
        panic!(
            "ocgraph: corrupted packed list of vertex {v} in {} at byte {at} ({e:?}); run `ocgraph check`",
            path.display()
        )
    }

    /// A cursor over this direction's offsets file.
    fn offsets_cursor(&self) -> ChunkCursor<'g, u64> {
        ChunkCursor::new(self.src(), self.offsets, self.graph.num_vertices() as u64 + 1)
    }

    /// The arc range of `v`, read through `offs` (the offsets file, or a packed index).
    fn bounds_via(&self, offs: &mut ChunkCursor<'g, u64>, v: Vertex) -> (u64, u64) {
        assert!((v as usize) < self.graph.num_vertices(), "vertex {v} out of range");
        let Some(dir) = self.predicting() else {
            let o = offs.get(v as u64, v as u64 + 2);
            return (o[0], o[1]);
        };
        let predicted = self.predicted_list(dir, v);
        let o = offs.get_then(v as u64, v as u64 + 2, self.companion(dir, predicted));
        let (a, b) = (o[0], o[1]);
        self.learn(dir, v, a, predicted);
        (a, b)
    }

    /// Calls `f(Some((v, [a, b], [c, d], ahead)))` for every `v` in `vertices`: `[a, b]` the
    /// values `v` and `v + 1` of the `u64` file `file` (offsets, or a packed index), `[c, d]`
    /// those of `second` (or zeros), `ahead` the value [`LOOKAHEAD`] vertices later (or the
    /// block's last). The files are read in blocks aligned to the backend's scan chunk
    /// (copied, so no pin is held while `f` runs). Before reading each block it calls `f(None)`:
    /// the caller drops its pins then, so a scan never holds more than two pins (lists and
    /// weights chunks) and works with a pool of two frames.
    fn for_each_block(
        &self,
        vertices: Range<Vertex>,
        file: FileId,
        second: Option<FileId>,
        mut f: impl FnMut(BlockStep),
    ) {
        assert!(
            vertices.end as usize <= self.graph.num_vertices() || vertices.is_empty(),
            "vertex range {vertices:?} out of range"
        );
        let per_block = (self.src().scan_chunk() / 8) as u64;
        let (mut first, mut other): (Vec<u64>, Vec<u64>) = (Vec::new(), Vec::new());
        let mut a = vertices.start as u64;
        let end = vertices.end as u64;
        while a < end {
            let b = ((a / per_block + 1) * per_block).min(end);
            f(None);
            first.clear();
            first.extend_from_slice(&self.read_u64s(file, a as Vertex, b as Vertex));
            other.clear();
            match second {
                Some(s) => other.extend_from_slice(&self.read_u64s(s, a as Vertex, b as Vertex)),
                None => other.resize(first.len(), 0),
            }
            let last = first.len() - 1;
            for (i, v) in (a..b).enumerate() {
                let ahead = first[(i + LOOKAHEAD).min(last)];
                f(Some((v as Vertex, [first[i], first[i + 1]], [other[i], other[i + 1]], ahead)));
            }
            a = b;
        }
    }

    /// The scan of [`Adjacency::for_each_selected_in_range`] over packed lists.
    fn packed_selected_in_range(
        &self,
        vertices: Range<Vertex>,
        bytes: FileId,
        index: FileId,
        select: &mut impl FnMut(Vertex) -> bool,
        f: &mut impl FnMut(Vertex, &[Vertex]),
    ) {
        let mut lists = ChunkCursor::<u8>::new(self.src(), bytes, self.lists_len);
        let mut buf = Vec::new();
        self.for_each_block(vertices, index, None, |step| match step {
            Some((v, [a, b], _, _)) => {
                if select(v) {
                    self.decode(v, lists.get(a, b), a, &mut buf);
                    f(v, &buf)
                }
            }
            None => lists.release(),
        });
    }
}

impl Adjacency for Direction<'_> {
    fn num_vertices(&self) -> usize {
        self.graph.num_vertices()
    }

    /// `v`'s bounds and the pages of the first and last entries of its list are in memory.
    fn in_memory(&self, v: Vertex) -> bool {
        match self.cached_list_range(v) {
            None => false,
            Some(r) if r.is_empty() => true,
            Some(r) => {
                let src = self.src();
                src.keep_cached(self.lists_file(), r.start) && src.keep_cached(self.lists_file(), r.end - 1)
            }
        }
    }

    fn memory_budget(&self) -> Option<u64> {
        self.graph.memory_budget()
    }

    /// Reports the pages shared by two partitions to the page backend
    /// ([`PageSource::share_pages`]) when it wants them (the buffer pool under GAC): finding
    /// them reads the cut vertices' bounds.
    fn mark_partition_cuts(&self, cuts: &[Vertex]) {
        if self.src().wants_shared_pages() {
            self.src().share_pages(&self.partition_cuts(cuts));
        }
    }

    fn num_arcs(&self) -> u64 {
        self.graph.num_arcs()
    }

    fn degree(&self, v: Vertex) -> usize {
        let (a, b) = self.offsets_of(v);
        self.checked_degree(v, a, b)
    }

    fn neighbors(&self, v: Vertex) -> Slice<'_, Vertex> {
        self.list(v)
    }

    /// Exact: reads the offsets through one cursor (consecutive vertices in the same chunk of
    /// the offsets file share one pin).
    fn estimated_degree_sum(&self, vertices: &[Vertex]) -> u64 {
        let mut offs = self.offsets_cursor();
        vertices
            .iter()
            .map(|&v| {
                let (a, b) = self.bounds_via(&mut offs, v);
                b - a
            })
            .sum()
    }

    /// Reads offsets (a packed graph: its index) and lists through one cursor each (at most two
    /// pins held, so a pool of two frames still works).
    fn for_each_of<F: FnMut(Vertex, &[Vertex])>(&self, vertices: &[Vertex], mut f: F) {
        match self.lists {
            Lists::Plain(file) => {
                let mut offs = self.offsets_cursor();
                let mut nbrs = ChunkCursor::new(self.src(), file, self.graph.num_arcs());
                for &v in vertices {
                    let (a, b) = self.bounds_via(&mut offs, v);
                    f(v, nbrs.get(a, b));
                }
            }
            Lists::Packed { bytes, index, .. } => {
                let mut idx = ChunkCursor::new(self.src(), index, self.graph.num_vertices() as u64 + 1);
                let mut lists = ChunkCursor::<u8>::new(self.src(), bytes, self.lists_len);
                let mut buf = Vec::new();
                for &v in vertices {
                    let (a, b) = self.bounds_via(&mut idx, v);
                    self.decode(v, lists.get(a, b), a, &mut buf);
                    f(v, &buf);
                }
            }
        }
    }

    /// Reads the bounds of all `vertices` first, through one cursor over the offsets (a packed
    /// graph: and one over its index), then their lists and weights through one cursor each: at
    /// most two pins held at a time, as [`Direction::for_each_of`].
    fn for_each_weighted_of<F: FnMut(Vertex, &[Vertex], &[f32])>(&self, vertices: &[Vertex], mut f: F) {
        let Some(w) = self.weights else {
            let mut ones = Vec::new();
            return self.for_each_of(vertices, |v, n| {
                if ones.len() < n.len() {
                    ones.resize(n.len(), 1.0);
                }
                f(v, n, &ones[..n.len()])
            });
        };
        let arcs = {
            let mut offs = self.offsets_cursor();
            vertices.iter().map(|&v| self.bounds_via(&mut offs, v)).collect::<Vec<_>>()
        };
        let mut wts = ChunkCursor::new(self.src(), w, self.graph.num_arcs());
        match self.lists {
            Lists::Plain(file) => {
                let mut nbrs = ChunkCursor::new(self.src(), file, self.graph.num_arcs());
                for (&v, &(a, b)) in vertices.iter().zip(&arcs) {
                    f(v, nbrs.get(a, b), wts.get(a, b));
                }
            }
            Lists::Packed { bytes, index, .. } => {
                let packed = {
                    let mut idx = ChunkCursor::new(self.src(), index, self.graph.num_vertices() as u64 + 1);
                    vertices.iter().map(|&v| self.bounds_via(&mut idx, v)).collect::<Vec<_>>()
                };
                let mut lists = ChunkCursor::<u8>::new(self.src(), bytes, self.lists_len);
                let mut buf = Vec::new();
                for ((&v, &(s, e)), &(a, b)) in vertices.iter().zip(&arcs).zip(&packed) {
                    self.decode(v, lists.get(a, b), a, &mut buf);
                    // The offsets are at hand here (for the weights): the count must match.
                    if buf.len() as u64 != e.wrapping_sub(s) {
                        self.corrupt(v, a, DecodeError::Malformed);
                    }
                    f(v, &buf, wts.get(s, e));
                }
            }
        }
    }

    fn lists_id(&self) -> Option<(usize, FileId)> {
        Some((self.graph as *const Graph as usize, self.lists_file()))
    }

    /// Announces the bounds of all `vertices` first, then (waiting for the bounds as they
    /// arrive) their lists: the page layer loads them in the background, many at once.
    fn will_need_lists(&self, vertices: &[Vertex]) {
        for &v in vertices {
            self.will_need_offsets(v);
        }
        for &v in vertices {
            let r = self.list_bytes(v);
            self.will_need_list_bytes(r.start, r.end);
        }
    }

    fn weights(&self, v: Vertex) -> Option<Slice<'_, f32>> {
        let (a, b) = self.bounds(v);
        self.arc_weights(a, b)
    }

    fn is_weighted(&self) -> bool {
        self.weights.is_some()
    }

    /// The manifest's range: the in-weights are the out-weights in another order.
    fn weight_range(&self) -> Option<WeightRange> {
        self.weights.and(self.graph.manifest().weight_range)
    }

    /// Scans block by block: the offsets of a block of vertices (one backend chunk of them) are
    /// copied once, and neighbour lists are handed out as sub-slices of the lists chunk pinned
    /// once per chunk (packed lists are decoded from it); only lists spanning two chunks are
    /// copied.
    fn for_each_in_range<F: FnMut(Vertex, &[Vertex])>(&self, vertices: Range<Vertex>, f: F) {
        self.for_each_selected_in_range(vertices, |_| true, f);
    }

    /// Reads the offsets only, block by block.
    fn for_each_degree_in_range<F: FnMut(Vertex, usize)>(&self, vertices: Range<Vertex>, mut f: F) {
        self.for_each_block(vertices, self.offsets, None, |step| {
            if let Some((v, [s, e], _, _)) = step {
                f(v, self.checked_degree(v, s, e))
            }
        });
    }

    /// The scan of [`Direction::for_each_in_range`], fetching only the selected lists (the
    /// offsets are read for the whole range).
    fn for_each_selected_in_range<S: FnMut(Vertex) -> bool, F: FnMut(Vertex, &[Vertex])>(
        &self,
        vertices: Range<Vertex>,
        mut select: S,
        mut f: F,
    ) {
        let file = match self.lists {
            Lists::Plain(file) => file,
            Lists::Packed { bytes, index, .. } => {
                return self.packed_selected_in_range(vertices, bytes, index, &mut select, &mut f)
            }
        };
        let mut nbrs = ChunkCursor::new(self.src(), file, self.graph.num_arcs());
        self.for_each_block(vertices, self.offsets, None, |step| match step {
            Some((v, [s, e], _, ahead)) => {
                // The list a few vertices on is likely the next this scan reads (or lies between).
                nbrs.prefetch(ahead);
                if select(v) {
                    f(v, nbrs.get(s, e))
                }
            }
            None => nbrs.release(),
        });
    }

    /// Like the unweighted scan, with a second cursor over the weights file.
    fn for_each_weighted_in_range<F: FnMut(Vertex, &[Vertex], &[f32])>(
        &self,
        vertices: Range<Vertex>,
        mut f: F,
    ) {
        let Some(w) = self.weights else {
            let mut ones = Vec::new();
            return self.for_each_in_range(vertices, |v, n| {
                if ones.len() < n.len() {
                    ones.resize(n.len(), 1.0);
                }
                f(v, n, &ones[..n.len()])
            });
        };
        let mut wts = ChunkCursor::new(self.src(), w, self.graph.num_arcs());
        match self.lists {
            Lists::Plain(file) => {
                let mut nbrs = ChunkCursor::new(self.src(), file, self.graph.num_arcs());
                self.for_each_block(vertices, self.offsets, None, |step| match step {
                    Some((v, [s, e], _, _)) => f(v, nbrs.get(s, e), wts.get(s, e)),
                    None => {
                        nbrs.release();
                        wts.release();
                    }
                });
            }
            Lists::Packed { bytes, index, .. } => {
                let mut lists = ChunkCursor::<u8>::new(self.src(), bytes, self.lists_len);
                let mut buf = Vec::new();
                self.for_each_block(vertices, index, Some(self.offsets), |step| match step {
                    Some((v, [a, b], [s, e], _)) => {
                        self.decode(v, lists.get(a, b), a, &mut buf);
                        // The offsets are at hand here (for the weights): the count must match.
                        if buf.len() as u64 != e.wrapping_sub(s) {
                            self.corrupt(v, a, DecodeError::Malformed);
                        }
                        f(v, &buf, wts.get(s, e))
                    }
                    None => {
                        lists.release();
                        wts.release();
                    }
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::part;

    #[test]
    fn part_takes_a_prefix_or_a_suffix_within_the_range() {
        assert_eq!(part(10..20, 3, false), 10..13);
        assert_eq!(part(10..20, 3, true), 17..20);
        assert_eq!(part(10..20, 30, false), 10..20);
        assert_eq!(part(10..20, 30, true), 10..20);
        // However large `k` is: the whole range (a prefix of `usize::MAX` wrapped around).
        assert_eq!(part(10..20, usize::MAX, false), 10..20);
        assert_eq!(part(10..20, usize::MAX, true), 10..20);
    }
}
