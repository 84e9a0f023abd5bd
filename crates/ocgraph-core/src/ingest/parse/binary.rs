//! Binary edge lists: little-endian `u32` or `u64` (source, target) pairs, no header.

use std::path::Path;

use rayon::prelude::*;

use super::{too_large, Piece};
use crate::error::{Error, Result};

/// Checks a block of records starting at byte `offset` and returns a piece reading its ids in
/// place; ids above `max_id` are an error naming the offset of their record.
pub(crate) fn parse_records(
    path: &Path,
    offset: u64,
    block: &[u8],
    wide: bool,
    max_id: u64,
) -> Result<Piece> {
    let width = if wide { 8 } else { 4 };
    let piece = Piece { raw_width: width, raw_edges: block.len() / (2 * width), ..Piece::default() };
    const CHUNK: usize = 1 << 16;
    let ids = block.len() / width;
    let bad = (0..ids.div_ceil(CHUNK)).into_par_iter().find_map_first(|c| {
        (c * CHUNK..((c + 1) * CHUNK).min(ids)).map(|k| (k, piece.id(block, k))).find(|&(_, id)| id > max_id)
    });
    if let Some((k, id)) = bad {
        return Err(Error::input_offset(path, offset + (k / 2 * 2 * width) as u64, too_large(id, max_id)));
    }
    Ok(piece)
}
