//! Mapping original vertex ids to compact ids `0..n`.
//!
//! Memory per vertex: integer ids take a hash-map entry (about 16 B, at most 2x over-allocated)
//! plus 8 B in the id list; string ids take the string twice (map key and id list) plus about
//! 40 B of bookkeeping.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::builder::IdMap;
use super::import::Relabel;
use super::parse::Piece;
use crate::error::{Error, Result};

/// A fast multiplicative hasher for ids (not DoS-resistant; ids are the user's own data).
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }
    fn write(&mut self, bytes: &[u8]) {
        for c in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            self.write_u64(u64::from_le_bytes(b));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

type Map<K> = HashMap<K, u32, BuildHasherDefault<IdHasher>>;

/// The integer ids of a piece (read out of the block for a binary piece).
fn int_ids<'a>(block: &[u8], piece: &'a Piece) -> std::borrow::Cow<'a, [u64]> {
    if piece.raw_width == 0 {
        std::borrow::Cow::Borrowed(&piece.ints)
    } else {
        std::borrow::Cow::Owned((0..2 * piece.raw_edges).map(|k| piece.id(block, k)).collect())
    }
}

/// Largest number of vertices.
const MAX_VERTICES: usize = u32::MAX as usize;

/// Maps the ids of parsed pieces to vertex ids.
pub(crate) struct Mapper {
    relabel: Relabel,
    ints: Map<u64>,
    int_ids: Vec<u64>,
    strs: Map<String>,
    str_ids: Vec<String>,
}

impl Mapper {
    /// A mapper for `relabel` (string ids are always relabelled, first-seen unless sorted).
    pub(crate) fn new(relabel: Relabel) -> Mapper {
        Mapper {
            relabel,
            ints: Map::default(),
            int_ids: Vec::new(),
            strs: Map::default(),
            str_ids: Vec::new(),
        }
    }

    /// First pass of a sorted relabel: records the distinct ids of `piece`.
    pub(crate) fn collect(&mut self, block: &[u8], piece: &Piece) {
        for &id in &*int_ids(block, piece) {
            self.ints.entry(id).or_insert(0);
        }
        for k in 0..piece.strs.len() {
            let s = piece.str_id(block, k);
            if !self.strs.contains_key(&*String::from_utf8_lossy(s)) {
                self.strs.insert(String::from_utf8_lossy(s).into_owned(), 0);
            }
        }
    }

    /// Ends the first pass: numbers the collected ids in ascending order.
    pub(crate) fn seal_sorted(&mut self) -> Result<()> {
        if self.ints.len() > MAX_VERTICES || self.strs.len() > MAX_VERTICES {
            return Err(Error::invalid("more than 2^32 - 1 distinct vertex ids"));
        }
        let mut ids: Vec<u64> = self.ints.keys().copied().collect();
        ids.sort_unstable();
        for (i, id) in ids.iter().enumerate() {
            self.ints.insert(*id, i as u32);
        }
        self.int_ids = ids;
        let mut strs: Vec<String> = self.strs.keys().cloned().collect();
        strs.sort_unstable();
        for (i, s) in strs.iter().enumerate() {
            if let Some(slot) = self.strs.get_mut(s) {
                *slot = i as u32;
            }
        }
        self.str_ids = strs;
        Ok(())
    }

    /// Maps the edges of `piece` into `src`/`dst` (cleared first).
    pub(crate) fn map(
        &mut self,
        block: &[u8],
        piece: &Piece,
        src: &mut Vec<u32>,
        dst: &mut Vec<u32>,
    ) -> Result<()> {
        src.clear();
        dst.clear();
        let sorted = matches!(self.relabel, Relabel::Sorted);
        if !piece.strs.is_empty() {
            for i in 0..piece.strs.len() {
                let s = String::from_utf8_lossy(piece.str_id(block, i));
                let v = match self.strs.get(&*s) {
                    Some(&v) => v,
                    None if sorted => {
                        return Err(Error::invalid(format!("id '{s}' not seen in the first pass")))
                    }
                    None => {
                        if self.str_ids.len() >= MAX_VERTICES {
                            return Err(Error::invalid("more than 2^32 - 1 distinct vertex ids"));
                        }
                        let v = self.str_ids.len() as u32;
                        self.strs.insert(s.clone().into_owned(), v);
                        self.str_ids.push(s.into_owned());
                        v
                    }
                };
                if i & 1 == 0 {
                    src.push(v)
                } else {
                    dst.push(v)
                }
            }
            return Ok(());
        }
        let ints = int_ids(block, piece);
        match self.relabel {
            Relabel::None => {
                // Ids were checked against the 32-bit limit by the parser.
                for p in ints.chunks_exact(2) {
                    src.push(p[0] as u32);
                    dst.push(p[1] as u32);
                }
            }
            Relabel::Sorted => {
                for (i, id) in ints.iter().enumerate() {
                    let v = *self
                        .ints
                        .get(id)
                        .ok_or_else(|| Error::invalid(format!("id {id} not seen in the first pass")))?;
                    if i & 1 == 0 {
                        src.push(v)
                    } else {
                        dst.push(v)
                    }
                }
            }
            Relabel::FirstSeen => {
                for (i, &id) in ints.iter().enumerate() {
                    let next = self.int_ids.len();
                    let v = *self.ints.entry(id).or_insert(next as u32);
                    if v as usize == next {
                        if next >= MAX_VERTICES {
                            return Err(Error::invalid("more than 2^32 - 1 distinct vertex ids"));
                        }
                        self.int_ids.push(id);
                    }
                    if i & 1 == 0 {
                        src.push(v)
                    } else {
                        dst.push(v)
                    }
                }
            }
        }
        Ok(())
    }

    /// The id map to store (identity for unrelabelled integer ids).
    pub(crate) fn into_id_map(self, strings: bool) -> IdMap {
        if strings {
            IdMap::Strings(self.str_ids)
        } else if matches!(self.relabel, Relabel::None) {
            IdMap::Identity
        } else {
            IdMap::U64(self.int_ids)
        }
    }
}
