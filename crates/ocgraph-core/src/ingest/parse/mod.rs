//! Edge-list parsers. Input is read as a stream (a plain file or a gzip decoder, detected by
//! magic bytes) in large blocks ending at line boundaries; each block is split into pieces at
//! line boundaries that are parsed in parallel with rayon. Every piece counts its lines, so
//! errors name the exact 1-based line.

pub(crate) mod binary;
pub(crate) mod csv;
pub(crate) mod mtx;
pub(crate) mod source;
pub(crate) mod text;

use std::path::Path;

use rayon::prelude::*;

use crate::error::{Error, Result};

/// Edges parsed from one piece of a block.
#[derive(Default)]
pub(crate) struct Piece {
    /// Integer mode: `src, dst` pairs, interleaved.
    pub ints: Vec<u64>,
    /// String mode: `(start, end)` byte ranges of `src, dst`, interleaved: in the block, or, at
    /// or past the block's length, in `unquoted` (read them with [`Piece::str_id`]).
    pub strs: Vec<(usize, usize)>,
    /// String mode: the ids that are not as such in the block (CSV fields with doubled quotes),
    /// unquoted and concatenated.
    pub unquoted: Vec<u8>,
    /// One weight per edge (weighted parsing only).
    pub weights: Vec<f32>,
    /// Newlines in the piece.
    pub lines: u64,
    /// Binary mode: the ids are read in place from the block, little-endian, of this many bytes
    /// (4 or 8; 0 when not binary).
    pub raw_width: usize,
    /// Binary mode: bytes per record (two ids, plus a 4-byte weight in weighted records).
    pub raw_stride: usize,
    /// Binary mode: number of edges in the block.
    pub raw_edges: usize,
    /// The first line of the piece (0-based) with columns that are ignored: past the edge's
    /// (unweighted), past the weight's (weighted, with [`LineCfg::note_wide`]).
    pub wide_line: Option<u64>,
}

impl Piece {
    /// Number of edges in the piece.
    pub(crate) fn edges(&self) -> usize {
        (self.ints.len() + self.strs.len()) / 2 + self.raw_edges
    }

    /// The `k`-th integer id (`2i` is the source, `2i + 1` the target of edge `i`) of a piece
    /// parsed from `block`.
    #[inline]
    pub(crate) fn id(&self, block: &[u8], k: usize) -> u64 {
        let at = k / 2 * self.raw_stride + k % 2 * self.raw_width;
        match self.raw_width {
            8 => u64::from_le_bytes(block[at..at + 8].try_into().unwrap_or_default()),
            4 => u32::from_le_bytes(block[at..at + 4].try_into().unwrap_or_default()) as u64,
            _ => self.ints[k],
        }
    }

    /// The `k`-th string id (`2i` is the source, `2i + 1` the target of edge `i`) of a piece
    /// parsed from `block`.
    #[inline]
    pub(crate) fn str_id<'a>(&'a self, block: &'a [u8], k: usize) -> &'a [u8] {
        let (a, b) = self.strs[k];
        match a.checked_sub(block.len()) {
            Some(at) => &self.unquoted[at..at + (b - a)],
            None => &block[a..b],
        }
    }
}

/// How data lines are split and read.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LineCfg {
    /// CSV: fields separated by commas only (and trimmed), which may be quoted (RFC 4180);
    /// otherwise tabs, spaces or commas.
    pub csv: bool,
    /// Ids are strings (kept as byte ranges) rather than integers.
    pub strings: bool,
    /// Read a weight from column `weight_col`.
    pub weighted: bool,
    /// Column of the source (0-based).
    pub src_col: usize,
    /// Column of the target (0-based).
    pub dst_col: usize,
    /// Column of the weight (0-based).
    pub weight_col: usize,
    /// MatrixMarket: ids are 1-based (one is subtracted), rows (sources) at most the size line's
    /// rows and columns (targets) at most its columns.
    pub mtx_size: Option<[u64; 2]>,
    /// MatrixMarket `integer` field: a value must be an integer.
    pub mtx_integer: bool,
    /// Largest allowed id (after the 1-based shift); larger ids are an error suggesting relabel.
    pub max_id: u64,
    /// Weighted: a line with columns past those read is noted in [`Piece::wide_line`] (`0 1
    /// 2,5` is a decimal comma); off where a CSV header names such columns.
    pub note_wide: bool,
}

/// An error inside a piece: the 0-based line within the piece, and the message.
pub(crate) type PieceError = (u64, String);

/// Parses the data lines of `block` (whose first line is line `first_line`, 1-based) in
/// parallel pieces.
pub(crate) fn parse_block(path: &Path, block: &[u8], first_line: u64, cfg: &LineCfg) -> Result<Vec<Piece>> {
    let bounds = split_lines(block, rayon::current_num_threads() * 4);
    let results: Vec<std::result::Result<Piece, PieceError>> =
        bounds.par_windows(2).map(|w| text::parse_lines(block, w[0], w[1], cfg)).collect();
    let mut line = first_line;
    let mut pieces = Vec::with_capacity(results.len());
    for r in results {
        match r {
            Ok(p) => {
                line += p.lines;
                pieces.push(p);
            }
            Err((local, msg)) => return Err(Error::input_line(path, line + local, msg)),
        }
    }
    Ok(pieces)
}

/// Splits `block` into about `parts` ranges ending just after a newline (or at the end).
fn split_lines(block: &[u8], parts: usize) -> Vec<usize> {
    let mut bounds = vec![0];
    let step = (block.len() / parts.max(1)).max(1 << 16);
    let mut pos = 0;
    while pos < block.len() {
        let target = pos + step;
        if target >= block.len() {
            break;
        }
        match memchr::memchr(b'\n', &block[target..]) {
            Some(i) => pos = target + i + 1,
            None => break,
        }
        if pos < block.len() {
            bounds.push(pos);
        }
    }
    bounds.push(block.len());
    bounds
}

/// Parses an unsigned decimal id; the error says what is wrong.
#[inline]
pub(crate) fn parse_id(tok: &[u8]) -> std::result::Result<u64, String> {
    let digits = match tok.first() {
        Some(b'+') => &tok[1..],
        Some(b'-') if tok.len() > 1 && tok[1..].iter().all(u8::is_ascii_digit) => {
            return Err(format!("negative vertex id '{}'", show(tok)))
        }
        _ => tok,
    };
    if digits.is_empty() {
        return Err(format!("expected an integer vertex id, found '{}'", show(tok)));
    }
    let mut v: u64 = 0;
    for &c in digits {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return Err(format!("expected an integer vertex id, found '{}'", show(tok)));
        }
        v = match v.checked_mul(10).and_then(|x| x.checked_add(d as u64)) {
            Some(x) => x,
            None => return Err(format!("vertex id '{}' overflows 64 bits", show(tok))),
        };
    }
    Ok(v)
}

/// Whether `tok` looks like an integer (optional sign, digits): decides integer vs string ids.
pub fn is_integer(tok: &[u8]) -> bool {
    let d = match tok.first() {
        Some(b'+' | b'-') => &tok[1..],
        _ => tok,
    };
    !d.is_empty() && d.iter().all(u8::is_ascii_digit)
}

/// Parses a finite weight that is stored as an `f32` without becoming infinite or, when it is
/// not zero, zero.
pub fn parse_weight(tok: &[u8]) -> std::result::Result<f32, String> {
    let bad = || format!("bad weight '{}' (expected a finite number)", show(tok));
    let text = std::str::from_utf8(tok).map_err(|_| bad())?;
    // Parsed as an f32 directly (correctly rounded); the f64 reading only tells a value past
    // f32's range (infinite) or below its smallest (0) from `inf` and `0` themselves.
    let w = text.parse::<f32>().map_err(|_| bad())?;
    if w.is_finite() && w != 0.0 {
        return Ok(w);
    }
    let wide = text.parse::<f64>().map_err(|_| bad())?;
    if !wide.is_finite() {
        return Err(bad());
    }
    // A nonzero mantissa read as 0 underflowed even f64 (`1e-400`): not a zero weight either.
    let mantissa = text.split(['e', 'E']).next().unwrap_or("");
    let underflow = mantissa.bytes().any(|b| (b'1'..=b'9').contains(&b));
    if w.is_infinite() || wide != 0.0 || underflow {
        return Err(format!(
            "weight '{}' is not a finite 32-bit float (0, or magnitudes from about 7e-46, stored as 1.4e-45, to 3.4e38)",
            show(tok)
        ));
    }
    Ok(w)
}

/// A token for an error message (lossy, shortened).
pub(crate) fn show(tok: &[u8]) -> String {
    let s = String::from_utf8_lossy(&tok[..tok.len().min(64)]).into_owned();
    if tok.len() > 64 {
        s + "..."
    } else {
        s
    }
}

/// Largest vertex id of a graph built without relabelling.
pub(crate) const MAX_ID: u64 = u32::MAX as u64 - 1;

/// The error for an id above `max`: the limit of a graph without relabelling ([`MAX_ID`]), or
/// the last id of a vertex count the user gave.
pub(crate) fn too_large(id: u64, max: u64) -> String {
    if max >= MAX_ID {
        format!(
            "vertex id {id} exceeds the largest id {max} of a 32-bit graph; use --relabel to compact the ids"
        )
    } else {
        format!("vertex id {id} is not below the {} vertices given (--num-vertices)", max + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::parse_weight;

    #[test]
    fn weights_are_rounded_once_and_refused_outside_f32() {
        // Halfway-adjacent decimals round to the nearest f32 directly (through f64 they were
        // rounded twice and came out one ulp off).
        let t = "1.000000059604644776257986737988403547205962240695953369140625";
        assert_eq!(parse_weight(t.as_bytes()), Ok(t.parse::<f32>().unwrap()));
        assert!(parse_weight(t.as_bytes()).unwrap() > 1.0);
        for ok in ["0", "-0", "1e-40", "3.4e38", "0.5", "0.000", "0e999", "-0.0E-400"] {
            assert_eq!(parse_weight(ok.as_bytes()), Ok(ok.parse::<f32>().unwrap()), "{ok}");
        }
        // Below f64's smallest too (they read as 0.0 there as well).
        for out in ["1e-50", "-1e-46", "1e39", "1e-330", "1e-400", "0.001e-999", "-5E-400"] {
            assert!(parse_weight(out.as_bytes()).unwrap_err().contains("not a finite 32-bit float"), "{out}");
        }
        for bad in ["inf", "nan", "-inf", "x", ""] {
            assert!(parse_weight(bad.as_bytes()).unwrap_err().contains("bad weight"), "{bad}");
        }
    }
}
