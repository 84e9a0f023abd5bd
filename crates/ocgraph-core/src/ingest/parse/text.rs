//! Line tokenizer shared by the text (SNAP), CSV and MatrixMarket data lines.

use super::{parse_id, parse_weight, too_large, LineCfg, Piece, PieceError};

/// Most columns looked at in a line.
pub(crate) const MAX_COLS: usize = 16;

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

/// The first `want` data lines (not blank, not comments) of `data`: each with its 0-based line
/// index in `data` and its fields (at most [`MAX_COLS`]).
pub(crate) fn data_lines(data: &[u8], csv: bool, want: usize) -> Vec<(u64, Vec<&[u8]>)> {
    let mut f = [(0, 0); MAX_COLS];
    let mut found = Vec::new();
    for (i, line) in data.split(|&c| c == b'\n').enumerate() {
        if found.len() == want {
            break;
        }
        if is_blank_or_comment(line) {
            continue;
        }
        let k = fields(line, csv, MAX_COLS, &mut f);
        found.push((i as u64, f[..k].iter().map(|&(a, b)| &line[a..b]).collect()));
    }
    found
}

/// Parses the lines of `block[start..end]`.
pub(crate) fn parse_lines(
    block: &[u8],
    start: usize,
    end: usize,
    cfg: &LineCfg,
) -> std::result::Result<Piece, PieceError> {
    let mut p = Piece::default();
    let ids_want = cfg.src_col.max(cfg.dst_col) + 1;
    let want = if cfg.weighted { (cfg.weight_col + 1).max(ids_want) } else { ids_want };
    // Plain `src dst` integer lines are read by a single scan; anything else takes the
    // general path (which also produces the errors).
    let fast = !cfg.strings && !cfg.weighted && !cfg.csv;
    let mut f = [(0, 0); MAX_COLS];
    let mut pos = start;
    let mut line_no = 0u64;
    while pos < end {
        let nl = memchr::memchr(b'\n', &block[pos..end]).map_or(end, |i| pos + i);
        let line = &block[pos..nl];
        let err = |msg: String| (line_no, msg);
        let id_of = |mut id: u64| {
            if let Some(n) = cfg.mtx_size {
                if id == 0 {
                    return Err(err("vertex id 0 in a 1-based MatrixMarket file".into()));
                }
                if id > n {
                    return Err(err(format!(
                        "vertex id {id} is beyond the {n} rows/columns declared by the size line"
                    )));
                }
                id -= 1;
            }
            if id > cfg.max_id {
                return Err(err(too_large(id, cfg.max_id)));
            }
            Ok(id)
        };
        if let Some((a, b)) = fast.then(|| two_ids(line)).flatten() {
            p.ints.push(id_of(a)?);
            p.ints.push(id_of(b)?);
        } else if !is_blank_or_comment(line) {
            let k = fields(line, cfg.csv, want, &mut f);
            if k < ids_want {
                return Err(err(if ids_want == 2 {
                    format!("expected at least 2 columns (source, target), found {k}")
                } else {
                    format!(
                        "expected at least {ids_want} columns (source in column {}, target in column {}), found {k}",
                        cfg.src_col + 1,
                        cfg.dst_col + 1
                    )
                }));
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
            for (a, b) in [f[cfg.src_col], f[cfg.dst_col]] {
                if cfg.strings {
                    if a == b {
                        return Err(err("empty vertex id".into()));
                    }
                    if let Err(e) = std::str::from_utf8(&line[a..b]) {
                        return Err(err(format!(
                            "vertex id '{}' is not valid UTF-8 (byte {} of the id); string ids must be UTF-8",
                            line[a..b.min(a + 64)].escape_ascii(),
                            e.valid_up_to()
                        )));
                    }
                    p.strs.push((pos + a, pos + b));
                } else {
                    p.ints.push(id_of(parse_id(&line[a..b]).map_err(err)?)?);
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

/// A line that is exactly `digits sep digits` optionally followed by a separator and anything
/// (separators: spaces, tabs, commas; at most 19 digits, so no overflow): the two ids.
#[inline]
fn two_ids(line: &[u8]) -> Option<(u64, u64)> {
    let (a, i) = digits(line, 0)?;
    let mut j = i;
    while j < line.len() && matches!(line[j], b' ' | b'\t' | b',') {
        j += 1;
    }
    if j == i {
        return None;
    }
    let (b, k) = digits(line, j)?;
    if k < line.len() && !matches!(line[k], b' ' | b'\t' | b',' | b'\r') {
        return None;
    }
    Some((a, b))
}

/// The decimal number of 1 to 19 digits at `line[start..]` and the index after it.
#[inline]
fn digits(line: &[u8], start: usize) -> Option<(u64, usize)> {
    let mut v = 0u64;
    let mut i = start;
    while i < line.len() && i - start < 19 {
        let d = line[i].wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        v = v * 10 + d as u64;
        i += 1;
    }
    if i == start || line.get(i).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    Some((v, i))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> LineCfg {
        LineCfg {
            csv: false,
            strings: false,
            weighted: false,
            src_col: 0,
            dst_col: 1,
            weight_col: 2,
            mtx_size: None,
            max_id: u32::MAX as u64 - 1,
        }
    }

    /// Lines on and off the single-scan path give the ids (or errors) of the general tokenizer.
    #[test]
    fn fast_and_general_lines_agree() {
        let text = b"1 2\n3\t4\t9.5\n5,6\r\n  7 8\n# c 1 2\n\n9 10 x\n+11 12\n0013 14\n";
        let p = parse_lines(text, 0, text.len(), &cfg()).unwrap();
        assert_eq!(p.ints, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
        assert_eq!(p.lines, 9);
        assert_eq!(two_ids(b"1 2"), Some((1, 2)));
        assert_eq!(two_ids(b"1 2x"), None);
        assert_eq!(two_ids(b"12"), None);
        assert_eq!(two_ids(b" 1 2"), None);
        for (line, msg) in [
            (&b"1 x\n"[..], "expected an integer vertex id, found 'x'"),
            (b"1\n", "expected at least 2 columns (source, target), found 1"),
            (b"1 99999999999999999999\n", "overflows 64 bits"),
            (b"1 4294967295\n", "exceeds the largest id"),
            (b"1 -2\n", "negative vertex id"),
        ] {
            let e = parse_lines(line, 0, line.len(), &cfg()).err().unwrap();
            assert!(e.1.contains(msg), "{:?}: {}", String::from_utf8_lossy(line), e.1);
        }
    }
}
