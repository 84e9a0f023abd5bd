//! CSV edge lists: an optional header line, then `source,target[,weight]` rows. A first line
//! whose first two fields are integers is data (no header); any other first line is the header
//! (reported as such). The weight column is the one named `weight` (or `w`, case-insensitive)
//! in the header, else the third column.

use super::is_integer;
use super::text::{fields, is_blank_or_comment};

/// The header of a CSV file.
#[derive(Debug, Clone)]
pub(crate) struct CsvHeader {
    /// Column index of the weight.
    pub weight_col: usize,
    /// Bytes of the first block taken by comments and the header line.
    pub header_bytes: usize,
    /// Lines taken by them.
    pub header_lines: u64,
    /// The header line (1-based line number, text), if the file has one.
    pub header: Option<(u64, String)>,
}

/// Finds the header line at the start of `data` (the first non-blank, non-comment line, unless
/// it starts with two integer ids).
pub(crate) fn parse_header(data: &[u8]) -> CsvHeader {
    let mut pos = 0;
    let mut lines = 0;
    while pos < data.len() {
        let nl = memchr::memchr(b'\n', &data[pos..]).map_or(data.len(), |i| pos + i);
        let line = &data[pos..nl];
        lines += 1;
        let next = (nl + 1).min(data.len());
        if !is_blank_or_comment(line) {
            let mut f = [(0, 0); 16];
            let k = fields(line, true, 16, &mut f);
            let field = |i: usize| &line[f[i].0..f[i].1];
            if k >= 2 && is_integer(field(0)) && is_integer(field(1)) {
                return CsvHeader { weight_col: 2, header_bytes: pos, header_lines: lines - 1, header: None };
            }
            let weight_col = (0..k)
                .position(|i| field(i).eq_ignore_ascii_case(b"weight") || field(i).eq_ignore_ascii_case(b"w"))
                .unwrap_or(2);
            let text = String::from_utf8_lossy(line).trim().to_string();
            return CsvHeader {
                weight_col,
                header_bytes: next,
                header_lines: lines,
                header: Some((lines, text)),
            };
        }
        pos = next;
    }
    CsvHeader { weight_col: 2, header_bytes: data.len(), header_lines: lines, header: None }
}
