//! Binary edge lists: little-endian `u32` or `u64` (source, target) pairs, no header.

use std::path::Path;

use rayon::prelude::*;

use super::{too_large, Piece};
use crate::error::{Error, Result};

/// Converts a block of records starting at byte `offset` into a piece; ids above `max_id` are
/// an error naming the offset of their record.
pub(crate) fn parse_records(
    path: &Path,
    offset: u64,
    block: &[u8],
    wide: bool,
    max_id: u64,
) -> Result<Piece> {
    let width = if wide { 8 } else { 4 };
    let mut ints = vec![0u64; block.len() / width];
    const CHUNK: usize = 1 << 16;
    let bad = ints.par_chunks_mut(CHUNK).enumerate().find_map_first(|(c, out)| {
        let base = c * CHUNK * width;
        for (i, slot) in out.iter_mut().enumerate() {
            let p = base + i * width;
            let id = if wide {
                u64::from_le_bytes(block[p..p + 8].try_into().unwrap_or_default())
            } else {
                u32::from_le_bytes(block[p..p + 4].try_into().unwrap_or_default()) as u64
            };
            if id > max_id {
                return Some((p / (2 * width) * 2 * width, id));
            }
            *slot = id;
        }
        None
    });
    if let Some((p, id)) = bad {
        return Err(Error::input_offset(path, offset + p as u64, too_large(id, max_id)));
    }
    Ok(Piece { ints, ..Piece::default() })
}
