//! [`MemoryDelta`]: the in-memory [`DeltaLog`], one array of operations per touched source
//! vertex (after seed 002's per-vertex edge arrays), all carved out of one arena.
//!
//! Each operation is a 12-byte entry `(dst, weight bits, seq)`; a vertex's entries are in
//! record order and their sequence numbers never decrease, so a reader as of `upto` takes the
//! prefix with `seq <= upto`. A removal is the weight bit pattern `0xFFFF_FFFF` (a NaN no caller
//! may store: weights are checked not to be NaN); `seq` is stored relative to the delta's first
//! batch. A vertex's array is a *block* of the arena: a header entry (vertex, length, capacity)
//! followed by `capacity` entries (at least [`MIN_CAP`], a power of two above that). A block that
//! fills up is copied to a block of twice the room at the end of the arena (the old one is left
//! unused: at most as many entries as are live). A block of at least [`FOLD_MIN`] entries that
//! fills up while at least half of its entries are superseded (the same arc added and removed
//! over and over) is *folded* instead: the new block starts with a link entry (the old block's
//! position and the newest sequence number `x` folded) and the old entries' net effect, one
//! entry per destination stamped `x`, then the batch's. A reader as of `x` or later reads the
//! new block; an older one follows the link to the old block, which is never overwritten. So a
//! vertex's read costs at most about twice its distinct destinations plus [`FOLD_MIN`], not its
//! whole history. Vertices find their block through an index
//! (`slot[v]`, 4 bytes per vertex) kept in chunks of 65,536 vertices, each allocated when one of
//! its vertices is first touched: its memory follows the touched ranges, not the largest id (an
//! update naming a vertex near 2^32 costs one chunk, not 16 GiB).
//!
//! Recording a batch: its operations are sorted by source (a stable radix sort, so each vertex's
//! keep their order), then each touched vertex costs one index lookup (in ascending order) and
//! one append of all its operations of the batch to its block; vertices touched for the first
//! time get consecutive blocks at the end of the arena. No allocation per vertex, no hashing.
//! A point read costs a read lock and a copy of the vertex's own block prefix, whatever the size
//! of the delta.
//!
//! Memory: the arena (12 bytes per entry, with the blocks' spare room and the blocks left
//! behind by growth and folds: at most about 4 times the operations), the index, 4 bytes
//! per touched vertex (its first sequence number) and, for the vertices of at least
//! [`INDEX_MIN`] entries, an [`ArcIndex`] (about 20 bytes per entry); [`DeltaLog::bytes`]
//! reports 16 bytes per operation (the unit the freeze threshold and a paged delta's capacity
//! are stated in).

use parking_lot::{Mutex, RwLock, RwLockUpgradableReadGuard};
use rustc_hash::FxHashMap;

use super::delta::{fold_ops, ArcOp, DeltaLog, VertexOpsFn};
use super::radix::sort_by_u32_key;
use crate::error::{Error, Result};
use crate::graph::Vertex;

const REMOVE_BITS: u32 = u32::MAX;

/// Bytes reported per operation (see the module docs).
const BYTES_PER_OP: u64 = 16;

/// The room of a vertex's first block, in entries.
pub const MIN_CAP: usize = 3;

/// A full block of at least this many entries is folded when half of them are superseded.
pub const FOLD_MIN: usize = 64;

/// A vertex whose current block holds this many entries gets an [`ArcIndex`] at its first
/// arc lookup.
pub const INDEX_MIN: usize = 256;

/// Set in a block header's capacity field when the block starts with a link to the block it
/// was folded from.
const FOLDED: u32 = 1 << 31;

#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    dst: Vertex,
    bits: u32,
    /// Batch sequence number minus the delta's first one.
    seq: u32,
}

impl Entry {
    fn op(&self) -> ArcOp {
        if self.bits == REMOVE_BITS {
            ArcOp::Remove
        } else {
            ArcOp::Add(f32::from_bits(self.bits))
        }
    }

    /// A block's header: its vertex, length, capacity and whether it starts with a link.
    fn header(v: Vertex, len: usize, cap: usize, folded: bool) -> Entry {
        Entry { dst: v, bits: len as u32, seq: cap as u32 | if folded { FOLDED } else { 0 } }
    }

    /// A header's entry count.
    fn len(&self) -> usize {
        self.bits as usize
    }

    /// A header's room for entries (the link not counted).
    fn cap(&self) -> usize {
        (self.seq & !FOLDED) as usize
    }

    /// Whether a header's block starts with a link.
    fn folded(&self) -> bool {
        self.seq & FOLDED != 0
    }

    /// A folded block's link: the block it was folded from (its header's position) and the
    /// newest sequence number folded.
    fn link(from: usize, x: u32) -> Entry {
        Entry { dst: from as u32, bits: 0, seq: x }
    }
}

/// Bits of a vertex id that select its place in a [`SlotIndex`] chunk.
const CHUNK_BITS: u32 = 16;

/// A vertex id's place in its [`SlotIndex`] chunk.
const CHUNK_MASK: Vertex = (1 << CHUNK_BITS) - 1;

/// `slot[v]` for every vertex, in chunks of `2^CHUNK_BITS` allocated when one of their vertices
/// is first set (see the module docs).
#[derive(Default)]
struct SlotIndex {
    chunks: Vec<Option<Box<[u32]>>>,
}

impl SlotIndex {
    /// `slot[v]` (0 when never set).
    #[inline]
    fn get(&self, v: Vertex) -> u32 {
        match self.chunks.get((v >> CHUNK_BITS) as usize) {
            Some(Some(c)) => c[(v & CHUNK_MASK) as usize],
            _ => 0,
        }
    }

    /// Sets `slot[v]`, allocating its chunk when needed.
    fn set(&mut self, v: Vertex, s: u32) {
        let i = (v >> CHUNK_BITS) as usize;
        if self.chunks.len() <= i {
            self.chunks.resize_with(i + 1, || None);
        }
        let chunk = self.chunks[i].get_or_insert_with(|| vec![0; 1 << CHUNK_BITS].into_boxed_slice());
        chunk[(v & CHUNK_MASK) as usize] = s;
    }

    /// The number of slots in allocated chunks.
    fn allocated(&self) -> usize {
        self.chunks.iter().flatten().count() << CHUNK_BITS
    }

    /// The vertices whose slot is set, ascending (a scan of the allocated chunks).
    fn touched(&self) -> Vec<Vertex> {
        let mut out = Vec::new();
        for (i, c) in self.chunks.iter().enumerate() {
            let Some(c) = c else { continue };
            let first = (i as u64) << CHUNK_BITS;
            out.extend(c.iter().enumerate().filter(|e| *e.1 > 0).map(|(j, _)| (first + j as u64) as Vertex));
        }
        out
    }
}

#[derive(Default)]
struct Lists {
    /// Sequence number of the first batch recorded (entries store `seq - base`).
    base: Option<u64>,
    /// `slot[v]`: one more than the arena position of `v`'s block header; 0 when untouched.
    slot: SlotIndex,
    /// The blocks (see the module docs).
    arena: Vec<Entry>,
    /// The touched vertices in first-touch order (ascending within each batch).
    order: Vec<Vertex>,
    /// The sequence number of each vertex of `order`'s first operation (non-decreasing).
    first_seq: Vec<u32>,
    /// The arc indexes of the vertices of at least [`INDEX_MIN`] entries that an arc lookup
    /// read: built and brought up to date by the lookups (under the read lock, so behind their
    /// own lock), dropped by a fold (which moves the entries). Writers never pay for them.
    indexes: Mutex<FxHashMap<Vertex, ArcIndex>>,
    entries: u64,
}

/// No position, in an [`ArcIndex`].
const NONE: u32 = u32::MAX;

/// Where each operation on one destination is in a vertex's block, for a vertex with many
/// operations whose arcs are looked up (a hub gaining arcs one batch at a time, under a
/// maintained PageRank): a lookup of one arc is a hash probe and a walk back over its
/// operations newer than the reader, not a scan of the vertex's history.
#[derive(Default)]
struct ArcIndex {
    /// Position in the block's entries of the newest operation on each destination.
    newest: FxHashMap<Vertex, u32>,
    /// For each position, the position of the previous operation on the same destination
    /// ([`NONE`]: none).
    prev: Vec<u32>,
}

impl ArcIndex {
    /// Adds the block's next entry, an operation on `dst`.
    fn push(&mut self, dst: Vertex) {
        let at = self.prev.len() as u32;
        self.prev.push(self.newest.insert(dst, at).unwrap_or(NONE));
    }
}

impl Lists {
    /// `upto` relative to `base`, or `None` when no recorded batch is `<= upto`.
    fn rel(&self, upto: u64) -> Option<u32> {
        let base = self.base?;
        (upto >= base).then(|| (upto - base).min(u32::MAX as u64) as u32)
    }

    /// Appends to `out` the operations of `v` of batches `<= rel` (the net effect of a folded
    /// prefix, then the rest in record order), following links back past the folds newer
    /// than `rel`.
    fn push_visible(&self, v: Vertex, rel: u32, out: &mut Vec<(Vertex, ArcOp)>) {
        let mut p = match self.slot.get(v) {
            0 => return,
            s => s as usize - 1,
        };
        loop {
            let h = self.arena[p];
            let mut body = p + 1;
            if h.folded() {
                let link = self.arena[body];
                if rel < link.seq {
                    p = link.dst as usize;
                    continue;
                }
                body += 1;
            }
            let entries = &self.arena[body..body + h.len()];
            out.extend(entries.iter().take_while(|e| e.seq <= rel).map(|e| (e.dst, e.op())));
            return;
        }
    }

    /// The vertices touched by a batch `<= rel`, ascending.
    fn touched(&self, rel: u32) -> Vec<Vertex> {
        // First-touch order has non-decreasing first sequence numbers: a prefix qualifies.
        let k = self.first_seq.partition_point(|&s| s <= rel);
        if k == self.order.len() && self.slot.allocated() <= 16 * k {
            // Most of the index is touched: one scan of it beats sorting.
            return self.slot.touched();
        }
        let mut vs = self.order[..k].to_vec();
        vs.sort_unstable();
        vs
    }

    /// The header of `v`'s block, if any.
    #[inline]
    fn header(&self, v: Vertex) -> Option<Entry> {
        let s = self.slot.get(v);
        (s > 0).then(|| self.arena[s as usize - 1])
    }

    /// Appends the entries of `es` (operations of one batch on `v`, in record order) to `v`'s
    /// block, whose header is `header` (`None`: no block yet), moving the block to the end of
    /// the arena, folded or not, when it lacks room.
    fn append(&mut self, v: Vertex, header: Option<Entry>, es: &[(Vertex, Entry)]) -> Result<()> {
        let Some(h) = header else {
            self.order.push(v);
            self.first_seq.push(es[0].1.seq);
            return self.new_block(v, None, Kept::Image(&[]), es, false);
        };
        let p = self.slot.get(v) as usize - 1;
        let body = p + 1 + h.folded() as usize;
        let (len, new_len) = (h.len(), h.len() + es.len());
        if new_len <= h.cap() {
            for (slot, e) in self.arena[body + len..body + new_len].iter_mut().zip(es) {
                *slot = e.1;
            }
            self.arena[p].bits = new_len as u32;
            return Ok(());
        }
        let old = &self.arena[body..body + len];
        if len >= FOLD_MIN && few_destinations(old) {
            let ops: Vec<(Vertex, ArcOp)> = old.iter().map(|e| (e.dst, e.op())).collect();
            let net = fold_ops(&ops);
            if 2 * net.len() <= len {
                let x = old[len - 1].seq;
                let image: Vec<Entry> =
                    net.iter().map(|&(dst, op)| Entry { dst, bits: op_bits(op), seq: x }).collect();
                self.new_block(v, Some(Entry::link(p, x)), Kept::Image(&image), es, true)?;
                self.indexes.get_mut().remove(&v);
                return Ok(());
            }
        }
        let link = h.folded().then(|| self.arena[p + 1]);
        self.new_block(v, link, Kept::Arena(body..body + len), es, false)
    }

    /// Where the entries of `v`'s current block are in the arena (after its link, if any).
    fn body(&self, v: Vertex) -> std::ops::Range<usize> {
        match self.slot.get(v) {
            0 => 0..0,
            s => {
                let h = self.arena[s as usize - 1];
                let start = s as usize + h.folded() as usize;
                start..start + h.len()
            }
        }
    }

    /// The newest operation of `v` on the arc to `dst` of a batch `<= rel`: through `v`'s arc
    /// index when `rel` reads its current block of at least [`INDEX_MIN`] entries (the index
    /// first takes in the entries appended since its last lookup), else by a scan of what
    /// `rel` reads.
    fn arc_op(&self, v: Vertex, dst: Vertex, rel: u32) -> Option<ArcOp> {
        let s = self.slot.get(v);
        if s == 0 {
            return None;
        }
        let p = s as usize - 1;
        let current = !self.arena[p].folded() || rel >= self.arena[p + 1].seq;
        let body = &self.arena[self.body(v)];
        if current && body.len() >= INDEX_MIN {
            let mut indexes = self.indexes.lock();
            let index = indexes.entry(v).or_default();
            body[index.prev.len()..].iter().for_each(|e| index.push(e.dst));
            let mut at = index.newest.get(&dst).copied().unwrap_or(NONE);
            while at != NONE && body[at as usize].seq > rel {
                at = index.prev[at as usize];
            }
            return (at != NONE).then(|| body[at as usize].op());
        }
        let mut ops = Vec::new();
        self.push_visible(v, rel, &mut ops);
        ops.iter().rev().find(|o| o.0 == dst).map(|o| o.1)
    }

    /// Writes a block for `v` at the end of the arena: `link` (if any), `kept`, then the
    /// entries of `es`, and points `v` at it. Its room is the next power of two, at least twice
    /// the entries when `spare` (a fold, so that the next one is at least as many operations
    /// away as this one copied).
    #[inline]
    fn new_block(
        &mut self,
        v: Vertex,
        link: Option<Entry>,
        kept: Kept<'_>,
        es: &[(Vertex, Entry)],
        spare: bool,
    ) -> Result<()> {
        let kept_len = match &kept {
            Kept::Arena(r) => r.len(),
            Kept::Image(i) => i.len(),
        };
        let len = kept_len + es.len();
        let cap = (len << spare as u32).next_power_of_two().max(MIN_CAP);
        let at = self.arena.len();
        if at + 2 + cap >= FOLDED as usize {
            return Err(Error::invalid(
                "delta: more than 2^31 entries in memory; freeze the delta into a level more often",
            ));
        }
        self.arena.push(Entry::header(v, len, cap, link.is_some()));
        self.arena.extend(link);
        match kept {
            Kept::Arena(r) => self.arena.extend_from_within(r),
            Kept::Image(i) => self.arena.extend_from_slice(i),
        }
        self.arena.extend(es.iter().map(|e| e.1));
        self.arena.resize(self.arena.len() + cap - len, Entry::default());
        self.slot.set(v, at as u32 + 1);
        Ok(())
    }
}

/// Whether `entries` may name at most about half as many destinations as they are, by linear
/// counting (Whang et al., TODS 1990) over 4,096 hashed bits: one pass with no sort, so that a
/// block that grows with distinct destinations (the usual case) is not sorted at each doubling
/// only to find it cannot be folded. An estimate within 30% of half lets the exact fold decide.
#[inline(never)]
fn few_destinations(entries: &[Entry]) -> bool {
    const BITS: usize = 4096;
    let mut bits = [0u64; BITS / 64];
    for e in entries {
        // MurmurHash3's finaliser: linear counting needs hash values that collide as random
        // ones do (a multiplicative hash spreads consecutive ids with no collision at all).
        let mut h = e.dst as u64;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^= h >> 33;
        h >>= 52;
        bits[h as usize / 64] |= 1 << (h % 64);
    }
    let zeros = BITS - bits.iter().map(|w| w.count_ones() as usize).sum::<usize>();
    // Saturated: about BITS * ln(BITS) (34,000) destinations or more, half of a block only
    // from about twice that: there the exact fold decides.
    if zeros == 0 {
        return entries.len() > 2 * BITS * 9;
    }
    let estimate = -(BITS as f64) * (zeros as f64 / BITS as f64).ln();
    estimate <= 0.65 * entries.len() as f64
}

/// The entries a new block starts with: the old block's, copied within the arena, or a fold.
enum Kept<'a> {
    Arena(std::ops::Range<usize>),
    Image(&'a [Entry]),
}

/// An operation's weight bits ([`REMOVE_BITS`] for a removal).
fn op_bits(op: ArcOp) -> u32 {
    match op {
        ArcOp::Add(w) => w.to_bits(),
        ArcOp::Remove => REMOVE_BITS,
    }
}

/// An in-memory, multiversioned delta (see the module docs for its layout and memory use).
#[derive(Default)]
pub struct MemoryDelta {
    lists: RwLock<Lists>,
}

impl MemoryDelta {
    /// An empty delta.
    pub fn new() -> MemoryDelta {
        MemoryDelta::default()
    }
}

impl DeltaLog for MemoryDelta {
    fn record(&self, seq: u64, src: Vertex, dst: Vertex, op: ArcOp) -> Result<()> {
        self.record_batch(seq, &[(src, dst, op)])
    }

    fn record_batch(&self, seq: u64, ops: &[(Vertex, Vertex, ArcOp)]) -> Result<()> {
        if ops.is_empty() {
            return Ok(());
        }
        // Readers (snapshots' point reads) go on while the batch is sorted and the headers read:
        // the lock is upgraded to a write lock only for the appends.
        let l = self.lists.upgradable_read();
        let base = l.base.unwrap_or(seq);
        let rel = seq.checked_sub(base).filter(|&d| d <= u32::MAX as u64).ok_or_else(|| {
            Error::invalid(format!("delta: batch {seq} is out of range of the delta's first batch {base}"))
        })? as u32;
        let mut items: Vec<(Vertex, Entry)> =
            ops.iter().map(|&(src, dst, op)| (src, Entry { dst, bits: op_bits(op), seq: rel })).collect();
        let top = items.iter().map(|e| e.0).max().expect("non-empty");
        sort_by_u32_key(&mut items, top, |e| e.0);
        let groups: Vec<&[(Vertex, Entry)]> = items.chunk_by(|a, b| a.0 == b.0).collect();
        // One cache miss per touched vertex (its block's header) is most of the cost: a first
        // tight pass reads every header, so the misses overlap, and the appends find them cached.
        let headers: Vec<Option<Entry>> = groups.iter().map(|g| l.header(g[0].0)).collect();
        let mut l = RwLockUpgradableReadGuard::upgrade(l);
        l.base.get_or_insert(base);
        for (group, header) in groups.iter().zip(headers) {
            l.append(group[0].0, header, group)?;
        }
        l.entries += ops.len() as u64;
        Ok(())
    }

    fn ops(&self, src: Vertex, upto: u64, out: &mut Vec<(Vertex, ArcOp)>) -> Result<()> {
        let l = self.lists.read();
        if let Some(rel) = l.rel(upto) {
            l.push_visible(src, rel, out);
        }
        Ok(())
    }

    fn arc_op(&self, src: Vertex, dst: Vertex, upto: u64) -> Result<Option<ArcOp>> {
        let l = self.lists.read();
        Ok(l.rel(upto).and_then(|rel| l.arc_op(src, dst, rel)))
    }

    fn touched(&self, upto: u64) -> Vec<Vertex> {
        let l = self.lists.read();
        let Some(rel) = l.rel(upto) else { return Vec::new() };
        l.touched(rel)
    }

    fn has_ops_upto(&self, upto: u64) -> bool {
        let l = self.lists.read();
        // First-touch order has non-decreasing first sequence numbers (see `Lists::touched`).
        l.rel(upto).is_some_and(|rel| l.first_seq.first().is_some_and(|&s| s <= rel))
    }

    /// Reads the index entries of `vertices`, then their blocks' headers, each in a tight pass.
    fn warm(&self, vertices: &[Vertex]) {
        let l = self.lists.read();
        for &v in vertices {
            std::hint::black_box(l.slot.get(v));
        }
        for &v in vertices {
            std::hint::black_box(l.header(v));
        }
    }

    fn for_each_vertex(&self, upto: u64, f: &mut VertexOpsFn<'_>) -> Result<()> {
        let l = self.lists.read();
        let Some(rel) = l.rel(upto) else { return Ok(()) };
        let mut ops = Vec::new();
        for v in l.touched(rel) {
            ops.clear();
            l.push_visible(v, rel, &mut ops);
            f(v, &ops)?;
        }
        Ok(())
    }

    /// The batch's `(src, entry)` items and the radix sort's copy of them, a slice and a
    /// header per touched vertex (at most one per operation), and the entries appended.
    fn record_memory(&self, ops: usize) -> u64 {
        let item = std::mem::size_of::<(Vertex, Entry)>() as u64;
        let group = (std::mem::size_of::<&[(Vertex, Entry)]>() + std::mem::size_of::<Option<Entry>>()) as u64;
        ops as u64 * (2 * item + group + BYTES_PER_OP)
    }

    fn bytes(&self) -> u64 {
        self.lists.read().entries * BYTES_PER_OP
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::update::delta::fold_ops;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    #[test]
    fn reads_as_of_a_sequence_number() {
        let d = MemoryDelta::new();
        d.record(1, 3, 7, ArcOp::Add(1.5)).unwrap();
        d.record(2, 3, 7, ArcOp::Remove).unwrap();
        d.record(2, 70, 1, ArcOp::Add(1.0)).unwrap();
        d.record(5, 1, 2, ArcOp::Add(2.0)).unwrap();
        let mut out = Vec::new();
        d.ops(3, 1, &mut out).unwrap();
        assert_eq!(out, vec![(7, ArcOp::Add(1.5))]);
        out.clear();
        d.ops(3, 9, &mut out).unwrap();
        assert_eq!(out, vec![(7, ArcOp::Add(1.5)), (7, ArcOp::Remove)]);
        out.clear();
        d.ops(3, 0, &mut out).unwrap();
        assert!(out.is_empty());
        assert_eq!(d.touched(0), Vec::<Vertex>::new());
        assert_eq!(d.touched(2), vec![3, 70]);
        assert_eq!(d.touched(5), vec![1, 3, 70]);
        assert_eq!(d.bytes(), 4 * 16);
    }

    /// A vertex near 2^32 costs one chunk of the index, not an index up to it (which took
    /// 16 GiB, so that the batch, already logged, aborted every later open of the graph).
    #[test]
    fn the_index_grows_with_the_touched_ranges_not_the_largest_id() {
        let d = MemoryDelta::new();
        let top = Vertex::MAX - 1;
        d.record_batch(
            1,
            &[(top, 0, ArcOp::Add(1.0)), (0, top, ArcOp::Add(1.0)), (70_000, 5, ArcOp::Remove)],
        )
        .unwrap();
        let mut out = Vec::new();
        d.ops(top, 1, &mut out).unwrap();
        assert_eq!(out, vec![(0, ArcOp::Add(1.0))]);
        assert_eq!(d.touched(1), vec![0, 70_000, top]);
        let l = d.lists.read();
        assert_eq!(l.slot.allocated(), 3 << CHUNK_BITS);
        assert_eq!(l.slot.touched(), vec![0, 70_000, top]);
        assert_eq!(l.slot.get(top - 1), 0);
    }

    /// Many batches of random operations (on few vertices, so arrays grow) read back as a brute-force
    /// log of `(seq, src, dst, op)` does, at every `upto`.
    #[test]
    fn per_vertex_arrays_match_a_plain_log() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let d = MemoryDelta::new();
        let mut log: Vec<(u64, Vertex, Vertex, ArcOp)> = Vec::new();
        for seq in 10..60u64 {
            // Small batches on few vertices (blocks grow) and large ones (the radix sort).
            let (k, span) =
                if seq % 5 == 0 { (rng.gen_range(256..900), 3000) } else { (rng.gen_range(0..40), 20) };
            let batch: Vec<(Vertex, Vertex, ArcOp)> = (0..k)
                .map(|_| {
                    let op = if rng.gen_bool(0.3) {
                        ArcOp::Remove
                    } else {
                        ArcOp::Add(rng.gen_range(1..9) as f32)
                    };
                    (rng.gen_range(0..span), rng.gen_range(0..20), op)
                })
                .collect();
            d.record_batch(seq, &batch).unwrap();
            log.extend(batch.iter().map(|&(s, t, op)| (seq, s, t, op)));
        }
        for upto in [0, 9, 10, 33, 59, 100] {
            let mut want_touched: Vec<Vertex> = log.iter().filter(|e| e.0 <= upto).map(|e| e.1).collect();
            want_touched.sort_unstable();
            want_touched.dedup();
            assert_eq!(d.touched(upto), want_touched);
            let mut seen = Vec::new();
            d.for_each_vertex(upto, &mut |v, ops| {
                seen.push((v, ops.to_vec()));
                Ok(())
            })
            .unwrap();
            assert_eq!(seen.len(), want_touched.len());
            for (v, ops) in seen {
                let want: Vec<(Vertex, ArcOp)> =
                    log.iter().filter(|e| e.0 <= upto && e.1 == v).map(|e| (e.2, e.3)).collect();
                // Folded blocks give the net effect of a prefix instead of its operations.
                assert_eq!(fold_ops(&ops), fold_ops(&want));
                let mut got = Vec::new();
                d.ops(v, upto, &mut got).unwrap();
                assert_eq!(got, ops);
            }
        }
    }

    /// The same arcs added and removed over and over: every sequence number reads the net
    /// effect of the batches up to it (older snapshots follow the folds' links back), and a
    /// read of the newest state holds at most about twice the distinct arcs plus `FOLD_MIN`
    /// entries, not the whole history.
    #[test]
    fn a_long_history_of_few_arcs_is_folded_and_reads_every_version() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let d = MemoryDelta::new();
        let mut log: Vec<(u64, Vertex, Vertex, ArcOp)> = Vec::new();
        for seq in 1..=5000u64 {
            let k = if seq % 100 == 0 { 40 } else { rng.gen_range(1..4) };
            let batch: Vec<(Vertex, Vertex, ArcOp)> = (0..k)
                .map(|_| {
                    let op = if rng.gen_bool(0.5) {
                        ArcOp::Remove
                    } else {
                        ArcOp::Add(rng.gen_range(1..9) as f32)
                    };
                    // Vertex 0 toggles 3 arcs; vertex 1 has 200 destinations, too many to fold often.
                    if rng.gen_bool(0.8) {
                        (0, rng.gen_range(0..3), op)
                    } else {
                        (1, rng.gen_range(0..200), op)
                    }
                })
                .collect();
            d.record_batch(seq, &batch).unwrap();
            log.extend(batch.iter().map(|&(s, t, op)| (seq, s, t, op)));
        }
        for upto in (0..=5001u64).step_by(37).chain([5000]) {
            for v in [0, 1] {
                let want: Vec<(Vertex, ArcOp)> =
                    log.iter().filter(|e| e.0 <= upto && e.1 == v).map(|e| (e.2, e.3)).collect();
                let mut got = Vec::new();
                d.ops(v, upto, &mut got).unwrap();
                assert_eq!(fold_ops(&got), fold_ops(&want), "vertex {v} as of {upto}");
                // One arc at a time: through vertex 1's arc index (its block passes INDEX_MIN
                // entries between folds) or a scan.
                for dst in [0, 1, 2, 57, 199, 300] {
                    let newest = want.iter().rev().find(|o| o.0 == dst).map(|o| o.1);
                    assert_eq!(d.arc_op(v, dst, upto).unwrap(), newest, "{v} -> {dst} as of {upto}");
                }
            }
        }
        assert!(d.lists.read().indexes.lock().contains_key(&1));
        let mut newest = Vec::new();
        d.ops(0, 5000, &mut newest).unwrap();
        assert!(newest.len() <= 2 * 3 + 2 * FOLD_MIN, "{} operations read for 3 arcs", newest.len());
        assert!(log.iter().filter(|e| e.1 == 0).count() > 8_000);
    }

    /// The estimate never rules out a block that folds to half or less (it would keep reads of
    /// a toggled vertex long), and rules out blocks of mostly distinct destinations.
    #[test]
    fn the_destination_estimate_lets_every_foldable_block_through() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        for len in [64usize, 100, 1000, 5000, 20_000, 100_000] {
            for distinct in [1, 3, len / 8, len / 3, len / 2, 2 * len / 3, len] {
                let span = distinct.max(1) as Vertex;
                // Every destination of the span once, then random repeats.
                let entries: Vec<Entry> = (0..len)
                    .map(|i| Entry {
                        dst: if i < span as usize { i as Vertex } else { rng.gen_range(0..span) },
                        ..Entry::default()
                    })
                    .collect();
                let exact = fold_ops(&entries.iter().map(|e| (e.dst, e.op())).collect::<Vec<_>>()).len();
                if 2 * exact <= len {
                    assert!(few_destinations(&entries), "{len} entries, {exact} destinations");
                }
                if exact == len && len <= 20_000 {
                    assert!(!few_destinations(&entries), "{len} distinct destinations let through");
                }
            }
        }
    }
}
