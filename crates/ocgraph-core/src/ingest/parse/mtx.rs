//! MatrixMarket coordinate files: `%%MatrixMarket matrix coordinate pattern|real|integer
//! general|symmetric`, then `%` comments, then the size line `rows cols entries`, then one
//! 1-based `row col [value]` line per entry. A file without the banner (a size line, then the
//! entries) is read as `general`, with values when its first entry has a third column; the
//! import reports that it was read so.

use std::path::Path;

use super::text::{data_lines, fields, is_skipped};
use crate::error::{Error, Result};

/// What the banner and size line say.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MtxHeader {
    /// Entries carry a value (`real` or `integer`).
    pub has_values: bool,
    /// The values are `integer`.
    pub integer: bool,
    /// `symmetric`: the graph is undirected.
    pub symmetric: bool,
    /// The size line's rows and columns (a graph's matrix is square; see [`MtxHeader::n`]).
    pub rows: u64,
    /// See `rows`.
    pub cols: u64,
    /// Declared number of entries.
    pub entries: u64,
    /// Bytes of the first block taken by the header lines.
    pub header_bytes: usize,
    /// Lines taken by the header.
    pub header_lines: u64,
    /// The file starts with the `%%MatrixMarket` banner (otherwise it was read without one).
    pub banner: bool,
}

impl MtxHeader {
    /// Vertex count: max(rows, cols).
    pub(crate) fn n(&self) -> u64 {
        self.rows.max(self.cols)
    }
}

/// Whether `data` starts with the MatrixMarket banner.
pub(crate) fn is_mtx(data: &[u8]) -> bool {
    data.len() >= 14 && data[..14].eq_ignore_ascii_case(b"%%MatrixMarket")
}

/// Parses the header at the start of the first block `data` of `path`: the banner (or none),
/// comments, the size line.
pub(crate) fn parse_header(path: &Path, data: &[u8]) -> Result<MtxHeader> {
    let mut pos = 0;
    let mut line_no = 0u64;
    let mut banner: Option<(bool, bool)> = None;
    let mut integer = false;
    let has_banner = is_mtx(data);
    while pos < data.len() {
        let nl = memchr::memchr(b'\n', &data[pos..]).map_or(data.len(), |i| pos + i);
        let line = &data[pos..nl];
        line_no += 1;
        let next = (nl + 1).min(data.len());
        let bad = |msg: String| Error::input_line(path, line_no, msg);
        if banner.is_none() && has_banner {
            let text = String::from_utf8_lossy(line).to_ascii_lowercase();
            let words: Vec<&str> = text.split_whitespace().collect();
            if words.len() < 5
                || words[0] != "%%matrixmarket"
                || words[1] != "matrix"
                || words[2] != "coordinate"
            {
                return Err(bad(format!(
                    "unsupported MatrixMarket banner '{}': only 'matrix coordinate' is supported",
                    text.trim()
                )));
            }
            integer = words[3] == "integer";
            let has_values = match words[3] {
                "pattern" => false,
                "real" | "integer" | "double" => true,
                f => {
                    return Err(bad(format!("unsupported MatrixMarket field '{f}' (pattern, real, integer)")))
                }
            };
            let symmetric = match words[4] {
                "general" => false,
                "symmetric" => true,
                s => {
                    return Err(bad(format!("unsupported MatrixMarket symmetry '{s}' (general, symmetric)")))
                }
            };
            banner = Some((has_values, symmetric));
        } else if !has_banner && is_mtx(line.trim_ascii_start()) {
            // Read as a comment, its symmetry and field would be lost (a symmetric matrix read
            // as directed): the format puts it first.
            return Err(bad(
                "the '%%MatrixMarket' banner must be the file's first line (a blank line, space or \
                 comment comes before it)"
                    .into(),
            ));
        } else if !is_skipped(line, false) {
            let without = if has_banner { "" } else { " (the file has no '%%MatrixMarket' banner)" };
            let mut f = [(0, 0); 16];
            let k = fields(line, false, 4, &mut f).map_err(bad)?;
            if k > 3 {
                return Err(bad(format!(
                    "bad MatrixMarket size line{without}: expected 'rows cols entries', found more numbers"
                )));
            }
            let mut nums = [0u64; 3];
            let words = ["rows", "columns", "entries"];
            for (i, num) in nums.iter_mut().enumerate().take(k) {
                let tok = &line[f[i].0..f[i].1];
                *num = std::str::from_utf8(tok).ok().and_then(|t| t.parse().ok()).ok_or_else(|| {
                    bad(format!(
                        "bad MatrixMarket size line{without}: its {} '{}' is not a count (an integer, 0 or more)",
                        words[i],
                        tok.escape_ascii()
                    ))
                })?;
            }
            if k != 3 {
                return Err(bad(format!(
                    "bad MatrixMarket size line{without}: expected 'rows cols entries', found {k} numbers"
                )));
            }
            // Without a banner: values when the first entry has a third column.
            let first_entry_cols = || data_lines(&data[next..], false, 1).first().map_or(0, |l| l.1.len());
            let (has_values, symmetric) = banner.unwrap_or_else(|| (first_entry_cols() >= 3, false));
            return Ok(MtxHeader {
                has_values,
                integer,
                symmetric,
                rows: nums[0],
                cols: nums[1],
                entries: nums[2],
                header_bytes: next,
                header_lines: line_no,
                banner: has_banner,
            });
        }
        pos = next;
        if nl == data.len() {
            break;
        }
    }
    Err(Error::input_line(path, line_no.max(1), "MatrixMarket file ends before its size line"))
}
