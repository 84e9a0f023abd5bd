//! Line tokenizer shared by the text (SNAP), CSV and MatrixMarket data lines.

use super::{parse_id, parse_weight, too_large, LineCfg, Piece, PieceError};

/// Most columns looked at in a line.
const MAX_COLS: usize = 16;

/// Whether a line (without its newline) carries no data: blank, or a `#`/`%` comment.
pub(crate) fn is_blank_or_comment(line: &[u8]) -> bool {
    match line.iter().position(|c| !c.is_ascii_whitespace()) {
        None => true,
        Some(i) => matches!(line[i], b'#' | b'%'),
    }
}

/// Splits `line` into up to `want` fields; returns how many were found. Fields are `(start,
/// end)` offsets within `line`.
#[inline]
pub(crate) fn fields(line: &[u8], csv: bool, want: usize, out: &mut [(usize, usize); MAX_COLS]) -> usize {
    let want = want.min(MAX_COLS);
    let mut k = 0;
    let mut i = 0;
    let n = line.len();
    if csv {
        while k < want && i <= n {
            let end = memchr::memchr(b',', &line[i..]).map_or(n, |j| i + j);
            let (mut a, mut b) = (i, end);
            while a < b && line[a].is_ascii_whitespace() {
                a += 1;
            }
            while b > a && line[b - 1].is_ascii_whitespace() {
                b -= 1;
            }
            if b - a >= 2 && line[a] == b'"' && line[b - 1] == b'"' {
                a += 1;
                b -= 1;
            }
            out[k] = (a, b);
            k += 1;
            i = end + 1;
        }
        // A trailing empty field counts only if there was a comma before it.
        return k;
    }
    while k < want {
        while i < n && matches!(line[i], b' ' | b'\t' | b',' | b'\r') {
            i += 1;
        }
        if i >= n {
            break;
        }
        let s = i;
        while i < n && !matches!(line[i], b' ' | b'\t' | b',' | b'\r') {
            i += 1;
        }
        out[k] = (s, i);
        k += 1;
    }
    k
}

/// The first field of the first data line of `data`, if any (decides integer vs string ids).
pub(crate) fn first_token(data: &[u8], csv: bool) -> Option<&[u8]> {
    let mut f = [(0, 0); MAX_COLS];
    for line in data.split(|&c| c == b'\n') {
        if is_blank_or_comment(line) {
            continue;
        }
        if fields(line, csv, 1, &mut f) == 1 {
            return Some(&line[f[0].0..f[0].1]);
        }
    }
    None
}

/// Parses the lines of `block[start..end]`.
pub(crate) fn parse_lines(
    block: &[u8],
    start: usize,
    end: usize,
    cfg: &LineCfg,
) -> std::result::Result<Piece, PieceError> {
    let mut p = Piece::default();
    let want = if cfg.weighted { (cfg.weight_col + 1).max(2) } else { 2 };
    let mut f = [(0, 0); MAX_COLS];
    let mut pos = start;
    let mut line_no = 0u64;
    while pos < end {
        let nl = memchr::memchr(b'\n', &block[pos..end]).map_or(end, |i| pos + i);
        let line = &block[pos..nl];
        let err = |msg: String| (line_no, msg);
        if !is_blank_or_comment(line) {
            let k = fields(line, cfg.csv, want, &mut f);
            if k < 2 {
                return Err(err(format!("expected at least 2 columns (source, target), found {k}")));
            }
            if cfg.weighted {
                if k <= cfg.weight_col || f[cfg.weight_col].0 == f[cfg.weight_col].1 {
                    return Err(err(format!(
                        "missing weight in column {} (the graph is weighted)",
                        cfg.weight_col + 1
                    )));
                }
                let (a, b) = f[cfg.weight_col];
                p.weights.push(parse_weight(&line[a..b]).map_err(err)?);
            }
            for &(a, b) in &f[..2] {
                if cfg.strings {
                    if a == b {
                        return Err(err("empty vertex id".into()));
                    }
                    p.strs.push((pos + a, pos + b));
                } else {
                    let mut id = parse_id(&line[a..b]).map_err(err)?;
                    if cfg.one_based {
                        if id == 0 {
                            return Err(err("vertex id 0 in a 1-based MatrixMarket file".into()));
                        }
                        id -= 1;
                    }
                    if id > cfg.max_id {
                        return Err(err(too_large(id, cfg.max_id)));
                    }
                    p.ints.push(id);
                }
            }
        }
        if nl < end {
            line_no += 1;
        }
        pos = nl + 1;
    }
    p.lines = line_no;
    Ok(p)
}
