//! [`import`]: an edge-list file to a graph directory.

use std::path::Path;

use super::builder::{BuildOptions, BuildReport, GraphBuilder};
use super::parse::binary::parse_records;
use super::parse::mtx::{self, MtxHeader};
use super::parse::source::{Input, LineBlocks, RecordBlocks};
use super::parse::{csv, is_integer, parse_block, text, LineCfg, Piece};
use super::progress::{Progress, Unit};
use super::relabel::Mapper;
use crate::error::{Error, Result};

/// The format of an input file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    /// Detect: gzip magic (then look inside), a `%%MatrixMarket` first line, `.csv` → CSV,
    /// `.bin`/`.u32` → Binary32, `.u64` → Binary64, anything else → text.
    Auto,
    /// SNAP-style text: `#`/`%` comments, `src dst [weight]` separated by tabs, spaces or commas.
    Text,
    /// CSV with a header line: `src,dst[,weight]`.
    Csv,
    /// MatrixMarket coordinate (1-based; `symmetric` means undirected).
    MatrixMarket,
    /// Little-endian `u32` (src, dst) pairs.
    Binary32,
    /// Little-endian `u64` (src, dst) pairs.
    Binary64,
}

/// How input ids become vertex ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relabel {
    /// Integer ids are the vertex ids (`n` = max id + 1). String ids are relabelled first-seen.
    None,
    /// Compact ids to `0..n` in order of first appearance.
    FirstSeen,
    /// Compact ids to `0..n` in ascending original order (numeric, or bytewise for strings);
    /// reads the input twice.
    Sorted,
}

/// How to import an edge list.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    /// The input format.
    pub format: InputFormat,
    /// How ids become vertex ids.
    pub relabel: Relabel,
    /// How to build the graph (a `symmetric` MatrixMarket file forces `directed: false`).
    pub build: BuildOptions,
    /// CSV: the columns to read, by their header names (a weight column makes the graph
    /// weighted).
    pub columns: Columns,
}

/// The header names of the columns of a CSV file that hold the source, the target and the
/// weight; `None` keeps the default (the first, the second, and the column named `weight` or
/// `w`, else the third).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Columns {
    /// The source column.
    pub source: Option<String>,
    /// The target column.
    pub target: Option<String>,
    /// The weight column.
    pub weight: Option<String>,
}

impl Columns {
    fn any(&self) -> bool {
        self.source.is_some() || self.target.is_some() || self.weight.is_some()
    }
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            format: InputFormat::Auto,
            relabel: Relabel::None,
            build: BuildOptions::default(),
            columns: Columns::default(),
        }
    }
}

/// Largest vertex id of a graph built without relabelling.
const MAX_ID: u64 = u32::MAX as u64 - 1;

/// What a scan of the input found.
struct Scan {
    edges: u64,
    lines: u64,
    strings: bool,
}

/// Imports the edge list at `input` into a new graph directory at `out`.
///
/// Errors name the input file and the 1-based line (text formats) or byte offset (binary);
/// on any error nothing is left at `out`.
pub fn import(
    input: &Path,
    out: &Path,
    opts: &ImportOptions,
    progress: &dyn Progress,
) -> Result<BuildReport> {
    let format = detect(input, opts.format)?;
    let mut build = opts.build.clone();
    if opts.columns.any() && format != InputFormat::Csv {
        return Err(Error::invalid(format!(
            "{}: columns are named only in CSV files with a header (this one reads as {format:?})",
            input.display()
        )));
    }
    if opts.columns.weight.is_some() {
        build.weighted = true;
    }
    let header = match format {
        InputFormat::MatrixMarket => Some(read_mtx_header(input)?),
        _ => None,
    };
    if let Some(h) = header.filter(|h| build.weighted && !h.has_values) {
        return Err(Error::input_line(
            input,
            h.header_lines,
            "the graph is weighted but this MatrixMarket file is 'pattern' (no values)",
        ));
    }
    if header.is_some_and(|h| h.symmetric) {
        build.directed = false;
    }
    if matches!(format, InputFormat::Binary32 | InputFormat::Binary64) && build.weighted {
        return Err(Error::invalid(format!("{}: binary edge lists carry no weights", input.display())));
    }
    if build.source.is_empty() {
        build.source = format!("{} ({format:?})", input.display());
    }
    let weighted = build.weighted;
    let mut builder = GraphBuilder::new(out, build)?;
    let max_id = if opts.relabel == Relabel::None { MAX_ID } else { u64::MAX };
    let scan_cfg = ScanCfg { format, columns: &opts.columns, weighted, max_id };
    let mut mapper = Mapper::new(opts.relabel);
    if opts.relabel == Relabel::Sorted {
        scan(input, &scan_cfg, progress, "relabel", |block, piece| {
            mapper.collect(block, piece);
            Ok(())
        })?;
        mapper.seal_sorted()?;
    }
    let (mut src, mut dst) = (Vec::new(), Vec::new());
    // Unweighted integer ids without relabelling go straight into the builder, in parallel.
    let direct = opts.relabel == Relabel::None && !weighted;
    let found = scan(input, &scan_cfg, progress, "parse", |block, piece| {
        if direct && piece.strs.is_empty() {
            let id = |k| piece.id(block, k) as u32;
            return builder.push_with(piece.edges(), |i| (id(2 * i), id(2 * i + 1)));
        }
        mapper.map(block, piece, &mut src, &mut dst)?;
        builder.push(&src, &dst, weighted.then_some(&piece.weights[..]))
    })?;
    let mut reserved = 0;
    if let Some(h) = header {
        if found.edges != h.entries {
            return Err(Error::input_line(
                input,
                found.lines.max(1),
                format!("the size line declares {} entries but the file has {}", h.entries, found.edges),
            ));
        }
        if opts.relabel == Relabel::None {
            if h.n > MAX_ID + 1 {
                return Err(Error::input_line(
                    input,
                    h.header_lines,
                    format!("{} vertices exceed the 32-bit id space", h.n),
                ));
            }
            reserved = h.n;
            builder.reserve_vertices(h.n);
        }
    }
    if found.edges == 0 && reserved == 0 {
        return Err(Error::Input { path: input.into(), line: None, offset: None, msg: "no edges".into() });
    }
    builder.finish(mapper.into_id_map(found.strings), progress)
}

/// Resolves [`InputFormat::Auto`].
fn detect(path: &Path, format: InputFormat) -> Result<InputFormat> {
    let mut input = Input::open(path)?;
    if format != InputFormat::Auto {
        return Ok(format);
    }
    let mut head = [0u8; 14];
    let k = input.fill(&mut head)?;
    if mtx::is_mtx(&head[..k]) {
        return Ok(InputFormat::MatrixMarket);
    }
    let name = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    let name = if input.gzip { name.strip_suffix(".gz").unwrap_or(&name).to_string() } else { name };
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    Ok(match ext {
        "csv" => InputFormat::Csv,
        "bin" | "u32" if !input.gzip => InputFormat::Binary32,
        "u64" if !input.gzip => InputFormat::Binary64,
        _ => InputFormat::Text,
    })
}

fn read_mtx_header(path: &Path) -> Result<MtxHeader> {
    let mut blocks = LineBlocks::new(Input::open(path)?);
    let first = blocks.next_block()?.unwrap_or(&[]);
    mtx::parse_header(path, first)
}

/// How [`scan`] reads an input.
struct ScanCfg<'a> {
    /// The resolved format (not `Auto`).
    format: InputFormat,
    /// CSV: the columns named in the header.
    columns: &'a Columns,
    /// Read a weight per edge.
    weighted: bool,
    /// Largest allowed id.
    max_id: u64,
}

/// Reads the whole input, calling `each(block, piece)` for every parsed piece in file order.
fn scan(
    path: &Path,
    cfg: &ScanCfg,
    progress: &dyn Progress,
    phase: &str,
    mut each: impl FnMut(&[u8], &Piece) -> Result<()>,
) -> Result<Scan> {
    let ScanCfg { format, columns, weighted, max_id } = *cfg;
    let input = Input::open(path)?;
    progress.phase(phase, (!input.gzip).then_some(input.file_len), Unit::Bytes);
    let mut found = Scan { edges: 0, lines: 0, strings: false };
    if let InputFormat::Binary32 | InputFormat::Binary64 = format {
        let wide = format == InputFormat::Binary64;
        let record = if wide { 16 } else { 8 };
        if !input.gzip && !input.file_len.is_multiple_of(record) {
            return Err(Error::input_offset(
                path,
                input.file_len / record * record,
                format!(
                    "truncated record: file length {} is not a multiple of {record} bytes",
                    input.file_len
                ),
            ));
        }
        let mut blocks = RecordBlocks::new(input, record as usize);
        while let Some((offset, block)) = blocks.next_block()? {
            let piece = parse_records(path, offset, block, wide, max_id)?;
            found.edges += piece.edges() as u64;
            each(block, &piece)?;
            progress.advance(block.len() as u64);
        }
        return Ok(found);
    }
    let mut blocks = LineBlocks::new(input);
    let mut line = 1u64;
    let mut header_done = false;
    let (mut src_col, mut dst_col, mut weight_col, mut mtx_size) = (0, 1, 2, None);
    let csv = format == InputFormat::Csv;
    let mut strings: Option<bool> = None;
    while let Some(block) = blocks.next_block()? {
        progress.advance(block.len() as u64);
        let mut data = block;
        if !header_done {
            header_done = true;
            let skip = match format {
                InputFormat::Csv => {
                    let h = csv::parse_header(path, block, columns)?;
                    (src_col, dst_col, weight_col) = (h.src_col, h.dst_col, h.weight_col);
                    line += h.header_lines;
                    h.header_bytes
                }
                InputFormat::MatrixMarket => {
                    let h = mtx::parse_header(path, block)?;
                    mtx_size = Some(h.n);
                    line += h.header_lines;
                    h.header_bytes
                }
                _ => 0,
            };
            data = &block[skip..];
        }
        // The first data token decides between integer and string ids.
        let is_strings = match strings {
            Some(s) => s,
            None if format == InputFormat::MatrixMarket => *strings.insert(false),
            None => match text::first_token(data, csv, src_col) {
                Some(tok) => *strings.insert(!is_integer(tok)),
                None => false,
            },
        };
        found.strings = is_strings;
        let cfg =
            LineCfg { csv, strings: is_strings, weighted, src_col, dst_col, weight_col, mtx_size, max_id };
        for piece in parse_block(path, data, line, &cfg)? {
            line += piece.lines;
            found.edges += piece.edges() as u64;
            each(data, &piece)?;
        }
    }
    found.lines = line.saturating_sub(1);
    Ok(found)
}
