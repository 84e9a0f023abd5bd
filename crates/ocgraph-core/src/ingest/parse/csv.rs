//! CSV edge lists: a header line, then `source,target[,weight]` rows. The weight column is the
//! one named `weight` (or `w`, case-insensitive) in the header, else the third column.

use super::text::{fields, is_blank_or_comment};

/// The header of a CSV file.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CsvHeader {
    /// Column index of the weight.
    pub weight_col: usize,
    /// Bytes of the first block taken by comments and the header line.
    pub header_bytes: usize,
    /// Lines taken by them.
    pub header_lines: u64,
}

/// Finds the header line at the start of `data` (the first non-blank, non-comment line).
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
            let weight_col = f[..k]
                .iter()
                .position(|&(a, b)| {
                    let name = &line[a..b];
                    name.eq_ignore_ascii_case(b"weight") || name.eq_ignore_ascii_case(b"w")
                })
                .unwrap_or(2);
            return CsvHeader { weight_col, header_bytes: next, header_lines: lines };
        }
        pos = next;
    }
    CsvHeader { weight_col: 2, header_bytes: data.len(), header_lines: lines }
}
