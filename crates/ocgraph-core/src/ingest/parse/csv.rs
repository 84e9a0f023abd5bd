//! CSV edge lists: an optional header line, then data rows; fields may be quoted (RFC 4180). A
//! first line whose first two fields are integers is data (no header); any other first line is
//! the header (reported as such). By default the source and target are the columns the header
//! names `src` (else `source`) and `dst` (else `target`), case-insensitive, when it names both,
//! else the first two columns; the weight is the column named `weight` (else `w`) in the
//! header, else the first column after the source and target (the third when they are the
//! first two), else the first that is neither; [`Columns`](crate::ingest::Columns) picks them by their (unquoted) header names
//! instead (the first line is then always the header).

use std::borrow::Cow;
use std::path::Path;

use super::is_integer;
use super::text::{fields, is_skipped, unquote, MAX_COLS};
use crate::error::{Error, Result};
use crate::ingest::Columns;

/// The header of a CSV file.
#[derive(Debug, Clone)]
pub(crate) struct CsvHeader {
    /// Column index of the source.
    pub src_col: usize,
    /// Column index of the target.
    pub dst_col: usize,
    /// Column index of the weight.
    pub weight_col: usize,
    /// Bytes of the first block taken by blank and comment lines and the header line.
    pub header_bytes: usize,
    /// Lines taken by them.
    pub header_lines: u64,
    /// The header line (1-based line number, text), if the file has one.
    pub header: Option<(u64, String)>,
    /// How many columns the header names (0 without a header).
    pub columns: usize,
    /// The weight column's name when the header has one but names no weight column (neither
    /// `--weight-col` nor `weight`/`w`): a weighted import then reads the third column.
    pub unnamed_weight: Option<String>,
}

/// Finds the header line at the start of `data` (the first line neither blank nor a `#`/`%`
/// comment, unless no columns are named and it starts with two integer ids) and the columns
/// named by `cols` in it (an error naming the file and the header line when a name is not there,
/// or names two columns of those read: the source, the target and, when `weighted`, the weight).
pub(crate) fn parse_header(path: &Path, data: &[u8], cols: &Columns, weighted: bool) -> Result<CsvHeader> {
    let mut pos = 0;
    let mut lines = 0;
    while pos < data.len() {
        let nl = memchr::memchr(b'\n', &data[pos..]).map_or(data.len(), |i| pos + i);
        let line = &data[pos..nl];
        lines += 1;
        let next = (nl + 1).min(data.len());
        // `#` and `%` lines before the first row are a preamble (after it they are rows).
        if !is_skipped(line, false) {
            // The header's names (the first `MAX_COLS`), looked up by the columns asked for.
            let mut f = vec![(0, 0); MAX_COLS];
            let k = fields(line, true, MAX_COLS, &mut f).map_err(|e| Error::input_line(path, lines, e))?;
            let names: Vec<Cow<[u8]>> = f[..k].iter().map(|&(a, b)| unquote(&line[a..b])).collect();
            if !cols.any() && k >= 2 && is_integer(&names[0]) && is_integer(&names[1]) {
                return Ok(CsvHeader {
                    src_col: 0,
                    dst_col: 1,
                    weight_col: 2,
                    header_bytes: pos,
                    header_lines: lines - 1,
                    header: None,
                    columns: 0,
                    unnamed_weight: None,
                });
            }
            let find = |name: &Option<String>, default: Option<usize>| -> Result<usize> {
                match name {
                    None => Ok(default.unwrap_or(2)),
                    Some(n) => names.iter().position(|c| **c == *n.as_bytes()).ok_or_else(|| {
                        // A wide header is named by its first columns: the error stays a line.
                        const SHOWN: usize = 16;
                        let mut header: Vec<String> =
                            names.iter().take(SHOWN).map(|c| String::from_utf8_lossy(c).into()).collect();
                        if names.len() > SHOWN {
                            header.push(format!("... {} more", names.len() - SHOWN));
                        }
                        Error::input_line(
                            path,
                            lines,
                            format!(
                                "no column '{n}' in the header (columns: {}; at most {MAX_COLS} are read)",
                                header.join(", ")
                            ),
                        )
                    }),
                }
            };
            // The first column of the first name of `options` that the header has (`weight`
            // before `w`, wherever each is).
            let named_any = |options: &[&[u8]]| {
                options.iter().find_map(|o| names.iter().position(|name| name.eq_ignore_ascii_case(o)))
            };
            let default_weight = named_any(&[b"weight", b"w"]);
            // Columns named as a source and a target are those, wherever they are.
            let (default_src, default_dst, ends_named) =
                match (named_any(&[b"src", b"source"]), named_any(&[b"dst", b"target"])) {
                    (Some(s), Some(d)) if s != d => (s, d, true),
                    _ => (0, 1, false),
                };
            // Named columns say the file has a header: no notice for it then.
            let text = (!cols.any()).then(|| (lines, String::from_utf8_lossy(line).trim().to_string()));
            let (src_col, dst_col) =
                (find(&cols.source, Some(default_src))?, find(&cols.target, Some(default_dst))?);
            let at = |msg: String| Err(Error::input_line(path, lines, msg));
            let name = |k: usize| String::from_utf8_lossy(&names[k]).to_string();
            if src_col == dst_col {
                // Say which of the two was not named, and where its column came from.
                let defaulted = match (&cols.source, &cols.target) {
                    (Some(_), None) => {
                        format!(" (the target, not named, defaults to column {})", dst_col + 1)
                    }
                    (None, Some(_)) => {
                        format!(" (the source, not named, defaults to column {})", src_col + 1)
                    }
                    _ => String::new(),
                };
                return at(format!(
                    "source and target are the same column '{}'{defaulted}; name both with --source-col \
                     and --target-col",
                    name(src_col)
                ));
            }
            // No column named as the weight: the first after the source and the target (the
            // third when they are the first two), else the first that is neither.
            let unnamed_weight_col = (src_col.max(dst_col) + 1..k)
                .chain(0..k)
                .find(|&c| c != src_col && c != dst_col)
                .unwrap_or(2);
            let weight_col = find(&cols.weight, default_weight.or(Some(unnamed_weight_col)))?;
            // A column read by its name is the only one of that name (as in Parquet files): a
            // name given exactly, a default name (`src`, `weight`, ...) in any case.
            let by_name = [
                (src_col, cols.source.is_some(), ends_named),
                (dst_col, cols.target.is_some(), ends_named),
                (weight_col, weighted && cols.weight.is_some(), weighted && default_weight.is_some()),
            ];
            for (k, given, default) in by_name {
                let same = match (given, default) {
                    (true, _) => names.iter().filter(|n| n[..] == names[k][..]).count(),
                    (false, true) => names.iter().filter(|n| n.eq_ignore_ascii_case(&names[k])).count(),
                    (false, false) => 1,
                };
                if same > 1 {
                    return at(format!("{same} columns are named '{}': rename all but one", name(k)));
                }
            }
            let unnamed_weight = (cols.weight.is_none() && default_weight.is_none())
                .then(|| names.get(weight_col).map(|n| String::from_utf8_lossy(n).to_string()))
                .flatten();
            return Ok(CsvHeader {
                unnamed_weight,
                src_col,
                dst_col,
                weight_col,
                header_bytes: next,
                header_lines: lines,
                header: text,
                columns: k,
            });
        }
        pos = next;
    }
    if cols.any() {
        return Err(Error::input_line(path, lines.max(1), "no header line naming the columns"));
    }
    Ok(CsvHeader {
        src_col: 0,
        dst_col: 1,
        weight_col: 2,
        header_bytes: data.len(),
        header_lines: lines,
        header: None,
        columns: 0,
        unnamed_weight: None,
    })
}
