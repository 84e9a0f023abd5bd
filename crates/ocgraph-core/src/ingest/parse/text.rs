//! Line tokenizer shared by the text (SNAP), CSV and MatrixMarket data lines.

use std::borrow::Cow;

use super::{is_integer, parse_id, parse_weight, show, too_large, LineCfg, Piece, PieceError};

/// Most columns looked at in a line (a CSV header's names, the fields of a sampled line); a data
/// line is split only up to the last column the import reads.
pub(crate) const MAX_COLS: usize = 4096;

/// Whether a line (without its newline) carries no data: blank, or (text and MatrixMarket; in
/// CSV only before the first row, where the header parser skips them) a `#`/`%` comment.
pub(crate) fn is_skipped(line: &[u8], csv: bool) -> bool {
    match line.iter().position(|c| !c.is_ascii_whitespace()) {
        None => true,
        Some(i) => !csv && matches!(line[i], b'#' | b'%'),
    }
}

/// Splits `line` into up to `want` fields; returns how many were found. Fields are `(start,
/// end)` offsets within `line`. In CSV a field may be quoted (RFC 4180): the quotes are not part
/// of it, and it may hold commas and doubled quotes; a quoted field holding doubled quotes is
/// returned whole, quotes included, for [`unquote`] (an unquoted field never starts with a
/// quote). The error (CSV only) is an unclosed quote or text after a closing quote.
#[inline]
pub(crate) fn fields(
    line: &[u8],
    csv: bool,
    want: usize,
    out: &mut [(usize, usize)],
) -> std::result::Result<usize, String> {
    let want = want.min(out.len());
    let mut k = 0;
    let mut i = 0;
    let n = line.len();
    if csv {
        if memchr::memchr(b'"', line).is_some() {
            return quoted_fields(line, want, out);
        }
        while k < want && i <= n {
            let end = memchr::memchr(b',', &line[i..]).map_or(n, |j| i + j);
            out[k] = trim(line, i, end);
            k += 1;
            i = end + 1;
        }
        // A trailing empty field counts only if there was a comma before it.
        return Ok(k);
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
    Ok(k)
}

/// `line[a..b]` without leading and trailing whitespace, as offsets.
#[inline]
fn trim(line: &[u8], mut a: usize, mut b: usize) -> (usize, usize) {
    while a < b && line[a].is_ascii_whitespace() {
        a += 1;
    }
    while b > a && line[b - 1].is_ascii_whitespace() {
        b -= 1;
    }
    (a, b)
}

/// The CSV branch of [`fields`] for a line holding a quote.
fn quoted_fields(line: &[u8], want: usize, out: &mut [(usize, usize)]) -> std::result::Result<usize, String> {
    let mut k = 0;
    let mut i = 0;
    while k < want && i <= line.len() {
        let (field, end) = csv_field(line, i).map_err(|e| format!("column {}: {e}", k + 1))?;
        out[k] = field;
        k += 1;
        i = end + 1;
    }
    Ok(k)
}

/// The CSV field starting at `line[i..]`, as [`fields`] returns it, and the offset of the comma
/// ending it (or the line's length).
fn csv_field(line: &[u8], i: usize) -> std::result::Result<((usize, usize), usize), String> {
    let n = line.len();
    let (a, _) = trim(line, i, n);
    if line.get(a) != Some(&b'"') {
        let end = memchr::memchr(b',', &line[i..]).map_or(n, |j| i + j);
        return Ok((trim(line, i, end), end));
    }
    let close = closing_quote(line, a + 1).ok_or("a quoted field is not closed on its line")?;
    let (end, _) = trim(line, close + 1, n);
    if end < n && line[end] != b',' {
        let stray = memchr::memchr(b',', &line[end..]).map_or(n, |j| end + j);
        return Err(format!(
            "text after the closing quote of a quoted field: '{}' (a quote inside quotes is written \"\")",
            show(&line[close + 1..stray])
        ));
    }
    let doubled = memchr::memchr(b'"', &line[a + 1..close]).is_some();
    Ok((if doubled { (a, close + 1) } else { (a + 1, close) }, end))
}

/// The offset of the quote closing a quoted field whose text starts at `line[i..]` (`""` stands
/// for a quote inside the field), if the line has one.
fn closing_quote(line: &[u8], mut i: usize) -> Option<usize> {
    loop {
        let q = i + memchr::memchr(b'"', &line[i..])?;
        if line.get(q + 1) != Some(&b'"') {
            return Some(q);
        }
        i = q + 2;
    }
}

/// A CSV field as [`fields`] returns it, with a whole quoted field (one holding doubled quotes)
/// unquoted: without its outer quotes, and each `""` inside made one `"`.
pub(crate) fn unquote(tok: &[u8]) -> Cow<'_, [u8]> {
    let [b'"', inner @ .., b'"'] = tok else {
        return Cow::Borrowed(tok);
    };
    let mut s = Vec::with_capacity(inner.len());
    let mut quote = false;
    for &c in inner {
        // The second quote of each pair is dropped.
        if !(quote && c == b'"') {
            s.push(c);
        }
        quote = c == b'"' && !quote;
    }
    Cow::Owned(s)
}

/// The first `want` data lines (not blank, not comments) of `data`: each with its 0-based line
/// index in `data` and its fields (at most [`MAX_COLS`], as [`fields`] returns them). Stops at a
/// malformed line, which the parse reports.
pub(crate) fn data_lines(data: &[u8], csv: bool, want: usize) -> Vec<(u64, Vec<&[u8]>)> {
    let mut f = vec![(0, 0); MAX_COLS];
    let mut found = Vec::new();
    for (i, line) in data.split(|&c| c == b'\n').enumerate() {
        if found.len() == want {
            break;
        }
        if is_skipped(line, csv) {
            continue;
        }
        let Ok(k) = fields(line, csv, MAX_COLS, &mut f) else {
            break;
        };
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
    let mut f = vec![(0, 0); want];
    let mut pos = start;
    let mut line_no = 0u64;
    while pos < end {
        let nl = memchr::memchr(b'\n', &block[pos..end]).map_or(end, |i| pos + i);
        let line = &block[pos..nl];
        let err = |msg: String| (line_no, msg);
        // `end`: 0 for the row (source), 1 for the column (target), checked against its own
        // dimension of a MatrixMarket size line.
        let id_of = |mut id: u64, end: usize| {
            if let Some(dims) = cfg.mtx_size {
                if id == 0 {
                    return Err(err("vertex id 0 in a 1-based MatrixMarket file".into()));
                }
                if id > dims[end] {
                    let what = ["row", "column"][end];
                    return Err(err(format!(
                        "{what} {id} is beyond the {} {what}s declared by the size line",
                        dims[end]
                    )));
                }
                id -= 1;
            }
            if id > cfg.max_id {
                return Err(err(too_large(id, cfg.max_id)));
            }
            Ok(id)
        };
        if let Some((a, b, wide)) = fast.then(|| two_ids(line)).flatten() {
            p.ints.push(id_of(a, 0)?);
            p.ints.push(id_of(b, 1)?);
            if wide && p.wide_line.is_none() {
                p.wide_line = Some(line_no);
            }
        } else if !is_skipped(line, cfg.csv) {
            let k = fields(line, cfg.csv, want, &mut f).map_err(err)?;
            let wide = k > 0
                && if cfg.weighted {
                    cfg.note_wide && k == want && more_fields(&line[f[k - 1].1..], cfg.csv)
                } else {
                    k > 2 || more_fields(&line[f[k - 1].1..], cfg.csv)
                };
            if wide && p.wide_line.is_none() {
                p.wide_line = Some(line_no);
            }
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
                if cfg.mtx_integer && !is_integer(&line[a..b]) {
                    return Err(err(format!(
                        "the value '{}' is not an integer (the MatrixMarket field is 'integer')",
                        show(&line[a..b])
                    )));
                }
                p.weights.push(parse_weight(&line[a..b]).map_err(err)?);
            }
            for (end, (a, b)) in [f[cfg.src_col], f[cfg.dst_col]].into_iter().enumerate() {
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
                    p.strs.push(str_range(block, &mut p.unquoted, cfg.csv, (pos + a, pos + b)));
                } else {
                    p.ints.push(id_of(parse_id(&line[a..b]).map_err(err)?, end)?);
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

/// Where [`Piece::str_id`] finds the string id at `block[a..b]`: there, or for a CSV field
/// that needs [`unquote`], at its unquoted text appended to `unquoted` (the range then shifted
/// by the block's length).
fn str_range(block: &[u8], unquoted: &mut Vec<u8>, csv: bool, (a, b): (usize, usize)) -> (usize, usize) {
    if csv {
        if let Cow::Owned(s) = unquote(&block[a..b]) {
            let start = block.len() + unquoted.len();
            unquoted.extend_from_slice(&s);
            return (start, start + s.len());
        }
    }
    (a, b)
}

/// Whether `rest`, what follows a line's last field read, holds another field: a comma in CSV
/// (fields after it are not parsed, so a bad quote there is not an error of an unweighted
/// import), anything but separators otherwise.
fn more_fields(rest: &[u8], csv: bool) -> bool {
    if csv {
        memchr::memchr(b',', rest).is_some()
    } else {
        rest.iter().any(|c| !matches!(c, b' ' | b'\t' | b',' | b'\r'))
    }
}

/// A line that is exactly `digits sep digits` optionally followed by a separator and anything
/// (separators: spaces, tabs, commas; at most 19 digits, so no overflow): the two ids, and
/// whether anything but separators follows them (columns an unweighted import ignores).
#[inline]
fn two_ids(line: &[u8]) -> Option<(u64, u64, bool)> {
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
    Some((a, b, more_fields(&line[k..], false)))
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
            mtx_integer: false,
            max_id: u32::MAX as u64 - 1,
            note_wide: false,
        }
    }

    /// Lines on and off the single-scan path give the ids (or errors) of the general tokenizer.
    #[test]
    fn fast_and_general_lines_agree() {
        let text = b"1 2\n3\t4\t9.5\n5,6\r\n  7 8\n# c 1 2\n\n9 10 x\n+11 12\n0013 14\n";
        let p = parse_lines(text, 0, text.len(), &cfg()).unwrap();
        assert_eq!(p.ints, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
        assert_eq!(p.lines, 9);
        assert_eq!(p.wide_line, Some(1), "`3 4 9.5` has a third column");
        assert_eq!(two_ids(b"1 2"), Some((1, 2, false)));
        assert_eq!(two_ids(b"1 2 \r"), Some((1, 2, false)));
        assert_eq!(two_ids(b"1 2 x"), Some((1, 2, true)));
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

    /// The CSV configuration of [`cfg`], with string or integer ids.
    fn csv_cfg(strings: bool) -> LineCfg {
        LineCfg { csv: true, strings, ..cfg() }
    }

    /// The string ids a CSV text parses to.
    fn csv_ids(text: &[u8]) -> Vec<String> {
        let p = parse_lines(text, 0, text.len(), &csv_cfg(true)).unwrap();
        (0..p.strs.len()).map(|k| String::from_utf8_lossy(p.str_id(text, k)).into_owned()).collect()
    }

    /// The error (line within the text, message) of a CSV text.
    fn csv_error(text: &[u8], strings: bool) -> (u64, String) {
        parse_lines(text, 0, text.len(), &csv_cfg(strings)).err().unwrap()
    }

    /// Quoted CSV fields may hold commas and whitespace; the quotes are not part of the id.
    #[test]
    fn csv_quoted_ids_with_commas() {
        let text = b"\"Smith, J\",\"Doe, A\"\n \"Doe, A\" , Lee\r\n\"a b\",\"\xc3\xa9\",x\n";
        assert_eq!(csv_ids(text), ["Smith, J", "Doe, A", "Doe, A", "Lee", "a b", "\u{e9}"]);
        // Unquoted lines are split as before.
        assert_eq!(csv_ids(b"a b, c\n"), ["a b", "c"]);
    }

    /// `""` inside quotes is one quote.
    #[test]
    fn csv_doubled_quotes() {
        let text = b"\"Doe \"\"Jr\"\"\",\"\"\"\"\"\"\"\"\"\"\n\"\"\"\",x\n";
        assert_eq!(csv_ids(text), ["Doe \"Jr\"", "\"\"\"\"", "\"", "x"]);
        assert_eq!(unquote(b"\"a\"\"b\""), &b"a\"b"[..]);
        assert_eq!(unquote(b"ab"), &b"ab"[..]);
        // An empty quoted id is still an empty id.
        assert!(csv_error(b"\"\",x\n", true).1.contains("empty vertex id"));
    }

    /// Quoted numbers are numbers.
    #[test]
    fn csv_quoted_numbers() {
        let text = b"\"1\",\"2\"\n3, \"4\" \n\"5\",6,\"7,8\"\n";
        let p = parse_lines(text, 0, text.len(), &csv_cfg(false)).unwrap();
        assert_eq!(p.ints, [1, 2, 3, 4, 5, 6]);
        let weighted = LineCfg { weighted: true, ..csv_cfg(false) };
        let text = b"1,2,\"0.5\"\n";
        assert_eq!(parse_lines(text, 0, text.len(), &weighted).unwrap().weights, [0.5]);
    }

    /// A quoted field not closed on its line is an error on that line (0-based in the piece).
    #[test]
    fn csv_unterminated_quote_is_an_error() {
        for strings in [true, false] {
            let (line, msg) = csv_error(b"1,2\n3,\"4\n5\",6\n", strings);
            assert_eq!(line, 1);
            assert!(msg.contains("column 2") && msg.contains("not closed"), "{msg}");
        }
        assert_eq!(csv_error(b"a,b\n\"a\"\"\n", true).0, 1);
    }

    /// Text after a closing quote (before the next comma) is an error.
    #[test]
    fn csv_text_after_closing_quote_is_an_error() {
        let (line, msg) = csv_error(b"a,b\nc,d\n\"Smith\" J,b\n", true);
        assert_eq!(line, 2);
        assert!(
            msg.contains("column 1") && msg.contains("text after the closing quote") && msg.contains("' J'"),
            "{msg}"
        );
        assert_eq!(csv_error(b"\"a\"\"b\"c,d\n", true).0, 0);
    }

    /// Outside CSV a quote is an ordinary character.
    #[test]
    fn quotes_are_plain_in_text_lines() {
        let text = b"\"a\" \"b,c\"\n";
        let p = parse_lines(text, 0, text.len(), &LineCfg { strings: true, ..cfg() }).unwrap();
        let ids: Vec<&[u8]> = (0..p.strs.len()).map(|k| p.str_id(text, k)).collect();
        assert_eq!(ids, [&b"\"a\""[..], b"\"b"]);
    }
}
