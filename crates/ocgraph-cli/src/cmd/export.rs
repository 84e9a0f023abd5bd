//! `ocgraph export`: write a graph as an edge list (text `src dst [weight]`, binary pairs, or
//! binary records with weights).

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use ocgraph_core::format::{FileRole, OutputFile};
use ocgraph_core::ids::{IdLookup, OriginalId};
use ocgraph_core::ingest::{is_integer, Progress, Unit};
use ocgraph_core::{with_adjacency, Adjacency, Error, GraphView, Result, Vertex};

use crate::backend_args::BackendArgs;
use crate::float_text::FloatText;
use crate::progress::CliProgress;

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// One `src dst [weight]` line per edge.
    Text,
    /// A header row `src,dst[,weight]`, then one row per edge: `import` reads it back as CSV.
    Csv,
    /// Little-endian u32 `(src, dst)` pairs (weights are not written).
    Bin32,
    /// Little-endian u64 `(src, dst)` pairs (weights are not written).
    Bin64,
    /// A Parquet table with columns `src`, `dst` (and `weight`), snappy-compressed.
    Parquet,
    /// Little-endian `(u32 src, u32 dst, f32 weight)` records, 12 bytes (weight 1 when unweighted).
    Bin32w,
    /// Little-endian `(u64 src, u64 dst, f32 weight)` records, 20 bytes (weight 1 when unweighted).
    Bin64w,
}

/// Arguments of `ocgraph export`.
#[derive(Args)]
pub struct ExportArgs {
    /// Graph directory.
    graph: PathBuf,
    /// Output file: written beside it and renamed over it, so it appears whole or not at all;
    /// an existing symlink, pipe or device (`/dev/stdout`) is written through instead; `-` is
    /// standard output.
    out: PathBuf,
    /// Output format (default: from OUT's extension: .bin/.u32 = bin32, .u64 = bin64,
    /// .u32w = bin32w, .u64w = bin64w, .parquet = parquet, .csv = csv, else text).
    #[arg(long, value_enum)]
    format: Option<ExportFormat>,
    /// Write the original ids of the input (relabelled graphs) instead of vertex ids.
    #[arg(long)]
    original_ids: bool,
    #[command(flatten)]
    backend: BackendArgs,
}

impl ExportFormat {
    fn from_extension(path: &Path) -> ExportFormat {
        match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("bin" | "u32") => ExportFormat::Bin32,
            Some("u64") => ExportFormat::Bin64,
            Some("parquet" | "pq") => ExportFormat::Parquet,
            Some("u32w") => ExportFormat::Bin32w,
            Some("u64w") => ExportFormat::Bin64w,
            Some("csv") => ExportFormat::Csv,
            _ => ExportFormat::Text,
        }
    }
}

/// Writes a u32 in decimal followed by `end` (faster than `write!`).
#[inline]
fn put_u32(buf: &mut Vec<u8>, mut x: u32, end: u8) {
    let mut tmp = [0u8; 10];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (x % 10) as u8;
        x /= 10;
        if x == 0 {
            break;
        }
    }
    buf.extend_from_slice(&tmp[i..]);
    buf.push(end);
}

/// Calls `f(u, v, w)` for every exported edge: every arc of a directed graph, each undirected
/// edge once (`u <= v`).
pub(crate) fn for_each_edge(
    g: &GraphView,
    mut f: impl FnMut(Vertex, Vertex, Option<f32>) -> Result<()>,
) -> Result<()> {
    let n = g.num_vertices() as Vertex;
    let directed = g.is_directed();
    let mut result = Ok(());
    with_adjacency!(g, |out, _inn| {
        out.for_each_weighted_in_range(0..n, |u, nbrs, ws| {
        if result.is_err() {
            return;
        }
        let start = if directed { 0 } else { nbrs.partition_point(|&v| v < u) };
        for (&v, &w) in nbrs[start..].iter().zip(&ws[start..]) {
            if v >= n {
                // Only a corrupted list holds such an id; `check` finds which file.
                let role = if g.base().manifest().is_packed() { FileRole::OutPacked } else { FileRole::OutNeighbors };
                result = Err(Error::format(
                    g.base().data_path().join(role.file_name()),
                    format!("vertex {u} lists neighbour {v}, but the graph has {n} vertices: the file is corrupted"),
                ));
                return;
            }
            if let Err(e) = f(u, v, g.is_weighted().then_some(w)) {
                result = Err(e);
                return;
            }
        }
    })
    });
    result
}

/// Runs `ocgraph export` (a corrupted file it panics on is reported, see
/// [`super::reporting_corruption`]).
pub fn run(args: &ExportArgs) -> Result<()> {
    super::reporting_corruption(&args.graph, || run_export(args))
}

/// [`run`] without the check after a panic.
fn run_export(args: &ExportArgs) -> Result<()> {
    ocgraph_core::format::refuse_output_place(&args.graph, &args.out, "OUT")?;
    args.backend.refuse_shared_files(&[(Some(args.out.as_path()), "OUT", true)])?;
    let g = args.backend.open_view(&args.graph)?;
    let format = args.format.unwrap_or_else(|| ExportFormat::from_extension(&args.out));
    if g.is_weighted() && matches!(format, ExportFormat::Bin32 | ExportFormat::Bin64) {
        eprintln!("note: binary pair formats carry no weights; weights are not exported (bin32w and bin64w carry them)");
    }
    // Written whole or not at all; a symlink, pipe or device (such as /dev/stdout) is written
    // through, never replaced (see `OutputFile`).
    let mut file = OutputFile::create(&args.out)?;
    // A graph that kept no id map: its original ids are its vertex ids (uint32 in Parquet, as
    // `to_arrow` gives them).
    let ids = if args.original_ids && g.base().manifest().keeps_ids() { Some(g.ids()?) } else { None };
    let progress = CliProgress::new(false);
    let written = match format {
        ExportFormat::Parquet => super::parquet::export(&g, &mut file, ids.as_ref(), &progress),
        _ => {
            progress.phase("write", Some(g.num_edges()), Unit::Edges);
            write_edges(&g, &mut file, format, ids.as_ref(), &progress)
        }
    };
    progress.finish();
    let count = written?;
    // Checked before the file is installed: offsets damaged after the import (which `open`
    // checks only at their ends) list other edges than the graph has; reading the degrees
    // again panics on such offsets, which `run` reports as the damaged file.
    let isolated = vertices_without_edges(&g);
    if matches!(g, GraphView::Stored(_)) && count != g.num_edges() {
        return Err(Error::format(
            &args.graph,
            format!(
                "the lists hold {count} edges where the graph has {}: a file is damaged (run `ocgraph check`)",
                g.num_edges()
            ),
        ));
    }
    file.commit()?;
    eprintln!("exported {count} edges to {}", args.out.display());
    if isolated > 0 {
        let n = g.num_vertices();
        let keep = if ids.is_none() {
            format!("; import with --num-vertices {n} to keep them")
        } else {
            String::new()
        };
        eprintln!("note: {isolated} of the {n} vertices have no edges and are not in the edge list{keep}");
    }
    args.backend.report_stats(g.base())?;
    Ok(())
}

/// Vertices without an arc in either direction: an edge list cannot name them.
fn vertices_without_edges(g: &GraphView) -> usize {
    let n = g.num_vertices() as Vertex;
    with_adjacency!(g, |out, inn| (0..n).filter(|&v| out.degree(v) == 0 && inn.degree(v) == 0).count())
}

/// The original integer id of `v` for a binary format holding ids up to `max`.
fn binary_id(ids: &IdLookup, v: Vertex, max: u64, path: &Path) -> Result<u64> {
    match ids.original(v) {
        OriginalId::Int(i) if i <= max => Ok(i),
        id => Err(Error::invalid(format!(
            "{}: original id {} of vertex {v} does not fit this binary format; export as Parquet, \
             which holds every id (or as text, which holds ids without whitespace, commas or a \
             leading # or %)",
            path.display(),
            match &id {
                OriginalId::Int(i) => i.to_string(),
                OriginalId::Str(s) => format!("\"{}\"", s.escape_debug()),
            }
        ))),
    }
}

/// The original id of `v` for a text edge list, which splits lines at whitespace and commas,
/// skips lines starting with `#` or `%`, and refuses a NUL byte (a binary file read as text): a
/// string id that would not read back as itself is refused. `source`: the id starts its line,
/// where a comment mark would make the line a comment (a target may start with one).
fn text_id(ids: &IdLookup, v: Vertex, source: bool) -> Result<OriginalId> {
    let id = ids.original(v);
    if let OriginalId::Str(s) = &id {
        if !reads_back_from_text(s, source) {
            return Err(Error::invalid(format!(
                "export: original id {s:?} of vertex {v} would not read back from a text edge list \
                 (empty, whitespace, a comma or a NUL byte, or a comment mark first in a line); \
                 export as Parquet or without --original-ids"
            )));
        }
    }
    Ok(id)
}

/// Whether the string id `s` reads back as itself from a line of a text edge list or label
/// file (fields split at white space and commas, `#` or `%` first in a line for a comment, a NUL
/// refused); `first`: it starts its line.
pub(super) fn reads_back_from_text(s: &str, first: bool) -> bool {
    !(s.is_empty()
        || s.contains(|c: char| c.is_whitespace() || c == ',' || c == '\0')
        || (first && s.starts_with(['#', '%'])))
}

/// The original id of `v` for a CSV file, whose reader takes one line a row and refuses an
/// empty id and a NUL byte: an id that is empty or holds a line break or a NUL is refused.
fn csv_id(ids: &IdLookup, v: Vertex) -> Result<OriginalId> {
    let id = ids.original(v);
    if let OriginalId::Str(s) = &id {
        if s.is_empty() || s.contains(['\n', '\r', '\0']) {
            return Err(Error::invalid(format!(
                "export: original id {s:?} of vertex {v} would not read back from a CSV file \
                 (empty, a line break or a NUL byte); export as Parquet or without --original-ids"
            )));
        }
    }
    Ok(id)
}

/// An id as a CSV field: quoted as RFC 4180 (inner quotes doubled) when it holds a quote (which
/// the CSV reader would otherwise take as quoting), a comma, or white space (which it trims
/// around unquoted fields).
fn csv_field(id: &OriginalId) -> String {
    match id {
        OriginalId::Str(s) if s.contains(|c: char| c == '"' || c == ',' || c.is_whitespace()) => {
            format!("\"{}\"", s.replace('"', "\"\""))
        }
        id => id.to_string(),
    }
}

/// A text edge list or CSV file reads as string ids when its first line's source or target is
/// not an integer: string ids whose first line's are both integer-looking (`007 7`) would read
/// back as integers (`007` and `7` one vertex), so they are refused. `what` names the format.
fn refuse_integer_looking_first_line(a: &OriginalId, b: &OriginalId, what: &str) -> Result<()> {
    // The importers' own rule (an optional sign, then digits), so that `-1` and ids past 64
    // bits count too.
    let integer_like = |id: &OriginalId| match id {
        OriginalId::Str(s) => is_integer(s.as_bytes()),
        OriginalId::Int(_) => false,
    };
    if integer_like(a) && integer_like(b) {
        return Err(Error::invalid(format!(
            "export: the string ids of the first edge ({a} {b}) look like integers, so {what} \
             would read them back as integers; export as Parquet or without --original-ids"
        )));
    }
    Ok(())
}

/// The text importer takes a first line of words (neither id integer-looking) above lines of
/// integer ids (up to [`HEADER_LOOKAHEAD`] looked at) for a header and refuses it: string ids
/// whose first edge is words and whose next ones all look like integers are refused here for that
/// reason (a first edge with one integer-looking id, `x 1`, reads back as an edge).
struct HeaderLookalike {
    /// Lines seen (up to the lookahead).
    lines: usize,
    /// Neither id of the first line looks like an integer.
    first_words: bool,
    /// Every line after the first has integer-looking ids.
    rest_integers: bool,
}

/// Data lines the text importer reads to decide whether the first is a header.
const HEADER_LOOKAHEAD: usize = 9;

impl HeaderLookalike {
    fn new() -> Self {
        HeaderLookalike { lines: 0, first_words: false, rest_integers: true }
    }

    /// Notes the next line's ids; an error once the lines seen would read back as a header.
    fn line(&mut self, a: &OriginalId, b: &OriginalId) -> Result<()> {
        let integer_like = |id: &OriginalId| matches!(id, OriginalId::Str(s) if is_integer(s.as_bytes()));
        match self.lines {
            0 => {
                refuse_integer_looking_first_line(a, b, "a text edge list")?;
                self.first_words = !integer_like(a) && !integer_like(b);
                // The importers skip a byte-order mark at the start of a file.
                if let OriginalId::Str(s) = a {
                    if s.starts_with('\u{feff}') {
                        return Err(Error::invalid(format!(
                            "export: the original id {s:?} of the first edge starts with a \
                             byte-order mark, which a text edge list would read back without it; \
                             export as CSV or Parquet"
                        )));
                    }
                }
            }
            n if n < HEADER_LOOKAHEAD => self.rest_integers &= integer_like(a) && integer_like(b),
            _ => return Ok(()),
        }
        self.lines += 1;
        if self.lines == HEADER_LOOKAHEAD {
            return self.finish();
        }
        Ok(())
    }

    /// The error for a first line that would read back as a header, once every line is seen.
    fn finish(&self) -> Result<()> {
        if self.lines >= 2 && self.first_words && self.rest_integers {
            return Err(Error::invalid(
                "export: the string ids of the first edge are words and those of the next ones look \
                 like integers, so a text edge list would read the first line back as a header; \
                 export as CSV or Parquet",
            ));
        }
        Ok(())
    }
}

fn write_edges(
    g: &GraphView,
    out: &mut OutputFile,
    format: ExportFormat,
    ids: Option<&IdLookup>,
    progress: &dyn Progress,
) -> Result<u64> {
    let path = out.path().to_path_buf();
    let path = path.as_path();
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 16);
    let sep = if format == ExportFormat::Csv { ',' } else { ' ' };
    if format == ExportFormat::Csv {
        buf.extend_from_slice(if g.is_weighted() { b"src,dst,weight\n" } else { b"src,dst\n" });
    }
    let mut count = 0u64;
    let mut header = HeaderLookalike::new();
    let io = |e| Error::io(path, "write", e);
    for_each_edge(g, |u, v, w| {
        if let Some(ids) = ids {
            match format {
                ExportFormat::Text | ExportFormat::Csv => {
                    let (a, b) = match format {
                        ExportFormat::Csv => (csv_id(ids, u)?, csv_id(ids, v)?),
                        _ => (text_id(ids, u, true)?, text_id(ids, v, false)?),
                    };
                    if format == ExportFormat::Text {
                        header.line(&a, &b)?;
                    } else if count == 0 {
                        refuse_integer_looking_first_line(&a, &b, "a CSV file")?;
                    }
                    if format == ExportFormat::Csv {
                        write!(buf, "{}{sep}{}", csv_field(&a), csv_field(&b)).expect("write to Vec");
                    } else {
                        write!(buf, "{a}{sep}{b}").expect("write to Vec");
                    }
                    match w {
                        Some(w) => writeln!(buf, "{sep}{}", FloatText(w)).expect("write to Vec"),
                        None => buf.push(b'\n'),
                    }
                }
                ExportFormat::Bin32 | ExportFormat::Bin32w => {
                    for x in [u, v] {
                        buf.extend_from_slice(
                            &(binary_id(ids, x, u32::MAX as u64, path)? as u32).to_le_bytes(),
                        );
                    }
                }
                ExportFormat::Parquet => unreachable!("Parquet is written by parquet::export"),
                ExportFormat::Bin64 | ExportFormat::Bin64w => {
                    for x in [u, v] {
                        buf.extend_from_slice(&binary_id(ids, x, u64::MAX, path)?.to_le_bytes());
                    }
                }
            }
        } else {
            match format {
                ExportFormat::Text | ExportFormat::Csv => {
                    put_u32(&mut buf, u, sep as u8);
                    match w {
                        Some(w) => {
                            put_u32(&mut buf, v, sep as u8);
                            writeln!(buf, "{}", FloatText(w)).expect("write to Vec");
                        }
                        None => put_u32(&mut buf, v, b'\n'),
                    }
                }
                ExportFormat::Bin32 | ExportFormat::Bin32w => {
                    buf.extend_from_slice(&u.to_le_bytes());
                    buf.extend_from_slice(&v.to_le_bytes());
                }
                ExportFormat::Parquet => unreachable!("Parquet is written by parquet::export"),
                ExportFormat::Bin64 | ExportFormat::Bin64w => {
                    buf.extend_from_slice(&(u as u64).to_le_bytes());
                    buf.extend_from_slice(&(v as u64).to_le_bytes());
                }
            }
        }
        if matches!(format, ExportFormat::Bin32w | ExportFormat::Bin64w) {
            buf.extend_from_slice(&w.unwrap_or(1.0).to_le_bytes());
        }
        count += 1;
        if buf.len() >= 1 << 16 {
            out.write_all(&buf).map_err(io)?;
            buf.clear();
        }
        if count.is_multiple_of(1 << 16) {
            progress.advance(1 << 16);
        }
        Ok(())
    })?;
    if ids.is_some() && format == ExportFormat::Text {
        header.finish()?;
    }
    out.write_all(&buf).map_err(io)?;
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_formatting() {
        let mut b = Vec::new();
        for x in [0u32, 7, 10, 4_294_967_295, 123_456] {
            put_u32(&mut b, x, b',');
        }
        assert_eq!(String::from_utf8(b).unwrap(), "0,7,10,4294967295,123456,");
    }

    #[test]
    fn format_from_extension() {
        assert_eq!(ExportFormat::from_extension(Path::new("a.bin")), ExportFormat::Bin32);
        assert_eq!(ExportFormat::from_extension(Path::new("a.u64")), ExportFormat::Bin64);
        assert_eq!(ExportFormat::from_extension(Path::new("a.u32w")), ExportFormat::Bin32w);
        assert_eq!(ExportFormat::from_extension(Path::new("a.u64w")), ExportFormat::Bin64w);
        assert_eq!(ExportFormat::from_extension(Path::new("a.txt")), ExportFormat::Text);
        assert_eq!(ExportFormat::from_extension(Path::new("a.csv")), ExportFormat::Csv);
    }
}
