//! Binary edge lists, no header: little-endian `u32` or `u64` (source, target) pairs, and the
//! weighted variants whose records end with a little-endian `f32` weight (12 or 20 bytes).

use std::path::Path;

use rayon::prelude::*;

use super::{too_large, Piece};
use crate::error::{Error, Result};

/// Bytes of a record: two ids of `width` bytes, and a 4-byte weight when `weighted`.
pub(crate) fn record_bytes(width: usize, weighted: bool) -> usize {
    2 * width + if weighted { 4 } else { 0 }
}

/// Checks a block of whole records starting at byte `offset` and returns a piece reading its
/// ids in place (and holding the weights when `read_weights`); ids above `max_id` and weights
/// that are not finite are an error naming the offset of their record. Weighted records read
/// without `read_weights` have their weights ignored.
pub(crate) fn parse_records(
    path: &Path,
    offset: u64,
    block: &[u8],
    width: usize,
    weighted: bool,
    read_weights: bool,
    max_id: u64,
) -> Result<Piece> {
    let stride = record_bytes(width, weighted);
    let mut piece =
        Piece { raw_width: width, raw_stride: stride, raw_edges: block.len() / stride, ..Piece::default() };
    const CHUNK: usize = 1 << 16;
    let ids = 2 * piece.raw_edges;
    let bad = (0..ids.div_ceil(CHUNK)).into_par_iter().find_map_first(|c| {
        (c * CHUNK..((c + 1) * CHUNK).min(ids)).map(|k| (k, piece.id(block, k))).find(|&(_, id)| id > max_id)
    });
    if let Some((k, id)) = bad {
        return Err(Error::input_offset(path, offset + (k / 2 * stride) as u64, too_large(id, max_id)));
    }
    if weighted && read_weights {
        piece.weights = block
            .chunks_exact(stride)
            .map(|r| f32::from_le_bytes(r[2 * width..].try_into().unwrap_or_default()))
            .collect();
        if let Some(i) = piece.weights.iter().position(|w| !w.is_finite()) {
            return Err(Error::input_offset(
                path,
                offset + (i * stride) as u64,
                format!("weight {} is not a finite number", piece.weights[i]),
            ));
        }
    }
    Ok(piece)
}
