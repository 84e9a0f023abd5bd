//! MatrixMarket coordinate files: `%%MatrixMarket matrix coordinate pattern|real|integer
//! general|symmetric`, then `%` comments, then the size line `rows cols entries`, then one
//! 1-based `row col [value]` line per entry.

use std::path::Path;

use super::text::{fields, is_blank_or_comment};
use crate::error::{Error, Result};

/// What the banner and size line say.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MtxHeader {
    /// Entries carry a value (`real` or `integer`).
    pub has_values: bool,
    /// `symmetric`: the graph is undirected.
    pub symmetric: bool,
    /// Vertex count: max(rows, cols).
    pub n: u64,
    /// Declared number of entries.
    pub entries: u64,
    /// Bytes of the first block taken by the header lines.
    pub header_bytes: usize,
    /// Lines taken by the header.
    pub header_lines: u64,
}

/// Whether `data` starts with the MatrixMarket banner.
pub(crate) fn is_mtx(data: &[u8]) -> bool {
    data.len() >= 14 && data[..14].eq_ignore_ascii_case(b"%%MatrixMarket")
}

/// Parses the header at the start of the first block `data` of `path`.
pub(crate) fn parse_header(path: &Path, data: &[u8]) -> Result<MtxHeader> {
    let mut pos = 0;
    let mut line_no = 0u64;
    let mut banner: Option<(bool, bool)> = None;
    while pos < data.len() {
        let nl = memchr::memchr(b'\n', &data[pos..]).map_or(data.len(), |i| pos + i);
        let line = &data[pos..nl];
        line_no += 1;
        let next = (nl + 1).min(data.len());
        let bad = |msg: String| Error::input_line(path, line_no, msg);
        if banner.is_none() {
            let text = String::from_utf8_lossy(line).to_ascii_lowercase();
            let words: Vec<&str> = text.split_whitespace().collect();
            if words.first() != Some(&"%%matrixmarket") {
                return Err(bad("expected the '%%MatrixMarket' banner".into()));
            }
            if words.len() < 5 || words[1] != "matrix" || words[2] != "coordinate" {
                return Err(bad(format!(
                    "unsupported MatrixMarket banner '{}': only 'matrix coordinate' is supported",
                    text.trim()
                )));
            }
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
        } else if !is_blank_or_comment(line) {
            let mut f = [(0, 0); 16];
            let k = fields(line, false, 3, &mut f);
            let mut nums = [0u64; 3];
            for (i, num) in nums.iter_mut().enumerate().take(k) {
                *num = super::parse_id(&line[f[i].0..f[i].1])
                    .map_err(|e| bad(format!("bad MatrixMarket size line: {e}")))?;
            }
            if k != 3 {
                return Err(bad(format!(
                    "bad MatrixMarket size line: expected 'rows cols entries', found {k} numbers"
                )));
            }
            let (has_values, symmetric) = banner.unwrap_or((false, false));
            return Ok(MtxHeader {
                has_values,
                symmetric,
                n: nums[0].max(nums[1]),
                entries: nums[2],
                header_bytes: next,
                header_lines: line_no,
            });
        }
        pos = next;
        if nl == data.len() {
            break;
        }
    }
    Err(Error::input_line(path, line_no.max(1), "MatrixMarket file ends before its size line"))
}
