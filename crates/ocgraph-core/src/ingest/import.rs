//! [`import`]: an edge-list file to a graph directory.

use std::path::{Path, PathBuf};

use super::builder::{BuildOptions, BuildReport, GraphBuilder, LabelSource, MIN_BUILD_MEMORY};
use super::parse::binary::{parse_records, record_bytes};
use super::parse::mtx::{self, MtxHeader};
use super::parse::source::{block_for, parse_bytes_of, Input, LineBlocks, RecordBlocks};
use super::parse::{csv, is_integer, parse_block, show, text, LineCfg, Piece, MAX_ID};
use super::progress::{Progress, Unit};
use super::relabel::Mapper;
use crate::error::{Error, Result};
use crate::format::refuse_input_inside_replaced;

/// The format of an input file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    /// Detect: gzip magic (then look inside), a `%%MatrixMarket` first line or `.mtx` →
    /// MatrixMarket, `.csv` → CSV, `.bin`/`.u32` → Binary32, `.u64` → Binary64, `.u32w` →
    /// Binary32Weighted, `.u64w` → Binary64Weighted, anything else → text.
    Auto,
    /// SNAP-style text: `#`/`%` comments, `src dst [weight]` separated by tabs, spaces or commas.
    Text,
    /// CSV `src,dst[,weight]`, with a header line unless the first line starts with two
    /// integers.
    Csv,
    /// MatrixMarket coordinate (1-based; `symmetric` means undirected). A file without the
    /// banner (a size line, then the entries) is read as `general` and the report says so.
    MatrixMarket,
    /// Little-endian `u32` (src, dst) pairs.
    Binary32,
    /// Little-endian `u64` (src, dst) pairs.
    Binary64,
    /// Little-endian records `u32 src, u32 dst, f32 weight` (12 bytes).
    Binary32Weighted,
    /// Little-endian records `u64 src, u64 dst, f32 weight` (20 bytes).
    Binary64Weighted,
}

impl InputFormat {
    /// Binary formats: the bytes of an id and whether records carry a weight.
    fn binary(self) -> Option<(usize, bool)> {
        match self {
            InputFormat::Binary32 => Some((4, false)),
            InputFormat::Binary64 => Some((8, false)),
            InputFormat::Binary32Weighted => Some((4, true)),
            InputFormat::Binary64Weighted => Some((8, true)),
            _ => None,
        }
    }
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
    /// The vertex count of a graph that keeps the ids (no relabelling): ids must be below it,
    /// vertices without edges are isolated. Also lifts the sparse-id check.
    pub num_vertices: Option<u64>,
    /// Keep the ids even when the largest makes the graph mostly empty vertices (see
    /// [`sparse_ids_problem`]); otherwise such an import stops with an error.
    pub allow_sparse_ids: bool,
    /// A label file to store with the graph (`vertex label` lines over the input's ids, see
    /// [`crate::labels::read_label_file`]).
    pub labels: Option<PathBuf>,
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
    pub(crate) fn any(&self) -> bool {
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
            num_vertices: None,
            allow_sparse_ids: false,
            labels: None,
        }
    }
}

/// Offsets files up to this size are always written, whatever the edge count.
pub const SPARSE_IDS_MIN_BYTES: u64 = 64 << 20;

/// Beyond [`SPARSE_IDS_MIN_BYTES`], offsets files may take at most this many times the bytes of
/// the edges themselves (8 per edge: two 32-bit ids).
pub const SPARSE_IDS_MAX_RATIO: u64 = 16;

/// Why a graph of `num_vertices` vertices (ids kept, `n` = largest id + 1) and `edges` edges is
/// refused, or `None`: its offsets files (8 bytes per vertex in each stored direction, two for
/// a directed graph) would exceed both [`SPARSE_IDS_MIN_BYTES`] and [`SPARSE_IDS_MAX_RATIO`]
/// times the 8 bytes per edge of the edges. A 376-byte file of 47 random u32 pairs, say, would
/// need 68 GB of offsets.
pub fn sparse_ids_problem(num_vertices: u64, edges: u64, directed: bool) -> Option<String> {
    let offsets = (num_vertices + 1).saturating_mul(if directed { 16 } else { 8 });
    let edge_bytes = edges.saturating_mul(8);
    if offsets <= SPARSE_IDS_MIN_BYTES || offsets <= edge_bytes.saturating_mul(SPARSE_IDS_MAX_RATIO) {
        return None;
    }
    Some(format!(
        "the largest vertex id is {} and there are {edges} edges: keeping the ids would write {} of \
         offsets for {} of edges; relabel the ids to 0..n (--relabel; in Python relabel=\"first-seen\" where the \
         function takes it, or np.unique(..., return_inverse=True) before from_edges), or to keep them \
         pass --allow-sparse-ids (allow_sparse_ids=True) or --num-vertices N",
        num_vertices.saturating_sub(1),
        crate::size::format_size(offsets),
        crate::size::format_size(edge_bytes)
    ))
}

/// What a scan of the input found.
struct Scan {
    edges: u64,
    lines: u64,
    strings: bool,
    /// What was taken as what (a CSV header, ignored columns).
    notices: Vec<String>,
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
    refuse_streams(input)?;
    let format = detect(input, opts.format)?;
    let gzip_allowed = format.binary().is_none();
    let mut notices = Vec::new();
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
    let keep_ids = opts.relabel == Relabel::None;
    check_num_vertices(opts)?;
    let header = match format {
        InputFormat::MatrixMarket => Some(read_mtx_header(Input::open(input, true)?)?),
        _ => None,
    };
    if let Some(h) = header {
        if h.rows != h.cols {
            notices.push(format!(
                "{}: a {} x {} matrix, not square: read as a graph of {} vertices (row i and column \
                 i are both vertex i - 1)",
                input.display(),
                h.rows,
                h.cols,
                h.n()
            ));
        }
        if !h.banner {
            notices.push(format!(
                "{}: no '%%MatrixMarket' banner: read as MatrixMarket coordinate {} general (1-based ids), \
                 line {} taken as the size line ({} vertices, {} entries)",
                input.display(),
                if h.has_values { "real" } else { "pattern" },
                h.header_lines,
                h.n(),
                h.entries
            ));
        }
        if build.weighted && !h.has_values {
            return Err(Error::input_line(
                input,
                h.header_lines,
                "the graph is weighted but this MatrixMarket file is 'pattern' (no values)",
            ));
        }
        if !build.weighted && h.has_values {
            notices.push(format!(
                "{}: the MatrixMarket values were ignored (an unweighted import; --weighted reads them)",
                input.display()
            ));
        }
    }
    if header.is_some_and(|h| h.symmetric) {
        build.directed = false;
    }
    if let Some((_, weights)) = format.binary() {
        if build.weighted && !weights {
            return Err(Error::invalid(format!(
                "{}: this binary edge list carries no weights (weighted binary formats: bin32w, bin64w)",
                input.display()
            )));
        }
        if weights && !build.weighted {
            notices.push(format!(
                "{}: the weights of the records were ignored (an unweighted import; --weighted reads them)",
                input.display()
            ));
        }
    }
    if build.source.is_empty() {
        build.source = format!("{} ({format:?})", input.display());
    }
    if build.overwrite {
        refuse_input_inside_replaced(out, input, "input")?;
        if let Some(path) = &opts.labels {
            refuse_input_inside_replaced(out, path, "labels")?;
        }
    }
    let weighted = build.weighted;
    let directed = build.directed;
    // The block of input read at a time and the edges parsed from it come out of the budget.
    let block_len = block_for(build.memory);
    let parsing = parse_bytes_of(block_len).min(build.memory / 2);
    build.memory = (build.memory - parsing).max(MIN_BUILD_MEMORY.min(build.memory));
    let mut builder = GraphBuilder::new(out, build)?;
    if let Some(path) = &opts.labels {
        builder.set_labels(LabelSource::File(path.clone()));
    }
    let max_id = match (keep_ids, opts.num_vertices) {
        (false, _) => u64::MAX,
        (true, Some(n)) => n - 1,
        (true, None) => MAX_ID,
    };
    let scan_cfg = ScanCfg { format, columns: &opts.columns, weighted, max_id };
    let mut mapper = Mapper::new(opts.relabel);
    if opts.relabel == Relabel::Sorted {
        scan(
            Input::open(input, gzip_allowed)?.with_block(block_len),
            &scan_cfg,
            progress,
            "relabel",
            |block, piece| {
                mapper.collect(block, piece);
                Ok(())
            },
        )?;
        mapper.seal_sorted()?;
    }
    let (mut src, mut dst) = (Vec::new(), Vec::new());
    // Unweighted integer ids without relabelling go straight into the builder, in parallel.
    let direct = keep_ids && !weighted;
    let found = scan(
        Input::open(input, gzip_allowed)?.with_block(block_len),
        &scan_cfg,
        progress,
        "parse",
        |block, piece| {
            if direct && piece.strs.is_empty() {
                let id = |k| piece.id(block, k) as u32;
                return builder.push_with(piece.edges(), |i| (id(2 * i), id(2 * i + 1)));
            }
            mapper.map(block, piece, &mut src, &mut dst)?;
            builder.push(&src, &dst, weighted.then_some(&piece.weights[..]))
        },
    )?;
    notices.extend(found.notices);
    let mut reserved = 0;
    if let Some(h) = header {
        if found.edges != h.entries {
            return Err(Error::input_line(
                input,
                found.lines.max(1),
                format!("the size line declares {} entries but the file has {}", h.entries, found.edges),
            ));
        }
        if let Some(n) = opts.num_vertices.filter(|&n| n < h.n()) {
            return Err(Error::input_line(
                input,
                h.header_lines,
                format!("the size line declares {} vertices, more than --num-vertices {n}", h.n()),
            ));
        }
        if keep_ids && opts.num_vertices.is_none() {
            if h.n() > MAX_ID + 1 {
                return Err(Error::input_line(
                    input,
                    h.header_lines,
                    format!("{} vertices exceed the 32-bit id space", h.n()),
                ));
            }
            reserved = h.n();
            builder.reserve_vertices(h.n());
        }
    }
    if let Some(n) = opts.num_vertices {
        if found.strings {
            return Err(num_vertices_with_string_ids(input));
        }
        reserved = n;
        builder.reserve_vertices(n);
    }
    if found.edges == 0 && reserved == 0 {
        // What was taken as what may be why (a lone CSV line is its header).
        let why = if notices.is_empty() { String::new() } else { format!(" ({})", notices.join("; ")) };
        return Err(Error::input(input, format!("no edges{why}")));
    }
    if keep_ids && !found.strings && opts.num_vertices.is_none() && !opts.allow_sparse_ids {
        if let Some(msg) = sparse_ids_problem(builder.num_vertices(), found.edges, directed) {
            return Err(Error::input(input, msg));
        }
    }
    let mut report = builder.finish(mapper.into_id_map(found.strings), progress)?;
    report.notices = notices;
    Ok(report)
}

/// Refuses a vertex count (`--num-vertices`) that cannot apply to `opts`: given with
/// relabelling, or outside `1..=2^32 - 1`.
pub fn check_num_vertices(opts: &ImportOptions) -> Result<()> {
    match opts.num_vertices {
        Some(_) if opts.relabel != Relabel::None => {
            Err(Error::invalid("--num-vertices applies to imports that keep the ids (no --relabel)"))
        }
        Some(n) if n == 0 || n > MAX_ID + 1 => {
            Err(Error::invalid(format!("--num-vertices {n} is not in 1..={}", MAX_ID + 1)))
        }
        _ => Ok(()),
    }
}

/// The error for a vertex count (`--num-vertices`) given for `input`, a file of string ids:
/// they are numbered as they come, so there is no id to reserve vertices up to.
pub fn num_vertices_with_string_ids(input: &Path) -> Error {
    Error::invalid(format!(
        "{}: --num-vertices applies to integer ids; this file has string ids (each gets a vertex \
         as it comes)",
        input.display()
    ))
}

/// Refuses an input that is not a regular file (a pipe, `/dev/stdin` from one, a device):
/// import reads its input more than once (to detect the format, to relabel, to parse), and a
/// pipe gives its first bytes to the first read only. `-`, which other tools read as standard
/// input, is refused as such when no file has that name.
fn refuse_streams(path: &Path) -> Result<()> {
    if path == Path::new("-") && !path.exists() {
        return Err(Error::input(
            path,
            "standard input is not read: import reads its input more than once, so write the \
             edges to a file first",
        ));
    }
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, "open", e))?;
    if meta.is_file() {
        return Ok(());
    }
    Err(Error::input(
        path,
        "not a regular file (a pipe or a device): import reads its input more than once, so write \
         the edges to a file first",
    ))
}

/// Refuses a carriage return not ending a line in `data` (whose first line is line `line`):
/// lines ended by CR alone (old Mac files) would read as one line of many columns. Refuses a
/// NUL byte too: no text edge list has one, and a binary file read as text would give vertices
/// named by its bytes.
fn refuse_bad_bytes(path: &Path, data: &[u8], line: u64) -> Result<()> {
    let line_of = |i: usize| line + data[..i].iter().filter(|&&c| c == b'\n').count() as u64;
    if let Some(i) = memchr::memchr(0, data) {
        return Err(Error::input_line(
            path,
            line_of(i),
            "a NUL byte: this is not a text edge list (binary edge lists are read with --format \
             bin32, bin64, bin32w or bin64w, Parquet with --format parquet)",
        ));
    }
    let bare = memchr::memchr_iter(b'\r', data).find(|&i| data.get(i + 1).is_some_and(|&c| c != b'\n'));
    match bare {
        None => Ok(()),
        Some(i) => Err(Error::input_line(
            path,
            line_of(i),
            "a carriage return inside a line: are its lines ended by CR alone (old Mac files)? \
             convert them to LF or CRLF",
        )),
    }
}

/// Lines (neither blank nor comments) the first block of a file holds whole, unless the file
/// ends first: the header line of a format that has one, and the first data lines, which the
/// header and column checks look at (9 of them), so that what they decide does not depend on
/// where the block ends (its size follows the memory budget).
const FIRST_BLOCK_LINES: usize = 10;

/// Whether `block` (whole lines) holds `k` lines that are neither blank nor comments (`#` or
/// `%` first): a CSV header or a MatrixMarket size line, and the data lines after it.
fn holds_data_lines(block: &[u8], k: usize) -> bool {
    let block = block.strip_prefix(UTF8_BOM).unwrap_or(block);
    let data = |line: &&[u8]| {
        let line = line.trim_ascii();
        !line.is_empty() && !line.starts_with(b"#") && !line.starts_with(b"%")
    };
    block.split(|&c| c == b'\n').filter(data).take(k).count() == k
}

/// Resolves [`InputFormat::Auto`].
fn detect(path: &Path, format: InputFormat) -> Result<InputFormat> {
    if format != InputFormat::Auto {
        Input::open(path, format.binary().is_none())?;
        return Ok(format);
    }
    let name = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    // A binary edge list is never gzip'd: its first bytes may be gzip's magic by chance.
    match name.rsplit_once('.').map_or("", |(_, e)| e) {
        "bin" | "u32" => return Ok(InputFormat::Binary32),
        "u64" => return Ok(InputFormat::Binary64),
        "u32w" => return Ok(InputFormat::Binary32Weighted),
        "u64w" => return Ok(InputFormat::Binary64Weighted),
        _ => {}
    }
    let mut input = Input::open(path, true)?;
    let mut head = [0u8; 17];
    let k = input.fill(&mut head)?;
    if mtx::is_mtx(head[..k].strip_prefix(UTF8_BOM).unwrap_or(&head[..k])) {
        return Ok(InputFormat::MatrixMarket);
    }
    // The tail is read only when the head has the magic.
    if !input.gzip && head[..k].starts_with(PARQUET_MAGIC) && has_parquet_magic(path) {
        return Err(Error::input_offset(
            path,
            0,
            "a Parquet file (it starts and ends with PAR1): import it as Parquet (--format parquet)",
        ));
    }
    let name = if input.gzip { name.strip_suffix(".gz").unwrap_or(&name).to_string() } else { name };
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    Ok(match ext {
        "csv" => InputFormat::Csv,
        "mtx" => InputFormat::MatrixMarket,
        // A gzip'd binary name (`x.u32.gz`) reads as text: binary lists are read uncompressed.
        _ => InputFormat::Text,
    })
}

fn read_mtx_header(input: Input) -> Result<MtxHeader> {
    let path = input.path().to_path_buf();
    let mut blocks = LineBlocks::new(input);
    let first = blocks.next_block_holding(|b| holds_data_lines(b, 1))?.unwrap_or(&[]);
    mtx::parse_header(&path, first.strip_prefix(UTF8_BOM).unwrap_or(first))
}

/// Parses `bytes` (gzip'd or not) as an edge list in `format` the way [`import`] does (header,
/// notices, ids, weights, relabelling), without building a graph; returns the edges read.
/// For the fuzz targets.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub fn parse_bytes(bytes: Vec<u8>, format: InputFormat, weighted: bool, relabel: Relabel) -> Result<u64> {
    let path = Path::new("fuzz-input");
    if format == InputFormat::MatrixMarket {
        read_mtx_header(Input::from_bytes(path, bytes.clone()))?;
    }
    let max_id = if relabel == Relabel::None { MAX_ID } else { u64::MAX };
    let mut mapper = Mapper::new(relabel);
    let (mut src, mut dst) = (Vec::new(), Vec::new());
    let input = Input::from_bytes(path, bytes);
    let columns = Columns::default();
    let cfg = ScanCfg { format, columns: &columns, weighted, max_id };
    let found = scan(input, &cfg, &super::NoProgress, "parse", |block, piece| {
        mapper.map(block, piece, &mut src, &mut dst)?;
        if weighted && piece.weights.len() != src.len() {
            return Err(Error::invalid("a weight per edge"));
        }
        Ok(())
    })?;
    Ok(found.edges)
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

/// The UTF-8 byte-order mark some editors and spreadsheets write first.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";
/// The first and last four bytes of a Parquet file.
const PARQUET_MAGIC: &[u8; 4] = b"PAR1";

/// Whether the file at `path` starts and ends with Parquet's magic bytes (false when it cannot
/// be read: the import then reports why). Spark's and Hive's part files have no extension.
pub fn has_parquet_magic(path: &Path) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    let (mut head, mut tail) = ([0u8; 4], [0u8; 4]);
    let read = |head: &mut [u8; 4], tail: &mut [u8; 4]| -> std::io::Result<()> {
        let mut f = std::fs::File::open(path)?;
        f.read_exact(head)?;
        f.seek(SeekFrom::End(-4))?;
        f.read_exact(tail)
    };
    // Only a regular file is opened: opening a named pipe would wait for a writer (the import
    // then refuses it as a stream).
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
        && read(&mut head, &mut tail).is_ok()
        && &head == PARQUET_MAGIC
        && &tail == PARQUET_MAGIC
}

/// The note on the columns an unweighted import ignores, first met at `path:line` (which has
/// `columns`, e.g. "3 columns"), with the 0-based columns of the source, target and weight.
fn ignored_columns(
    path: &Path,
    line: u64,
    columns: &str,
    (src, dst, weight): (usize, usize, usize),
) -> String {
    format!(
        "{}:{line}: {columns}: columns {} and {} are the edge, the rest were ignored (an unweighted \
         import; --weighted reads column {} as the weight)",
        path.display(),
        src + 1,
        dst + 1,
        weight + 1
    )
}

/// Reads the whole input, calling `each(block, piece)` for every parsed piece in file order.
fn scan(
    input: Input,
    cfg: &ScanCfg,
    progress: &dyn Progress,
    phase: &str,
    mut each: impl FnMut(&[u8], &Piece) -> Result<()>,
) -> Result<Scan> {
    let ScanCfg { format, columns, weighted, max_id } = *cfg;
    let path = &input.path().to_path_buf();
    progress.phase(phase, (!input.gzip).then_some(input.file_len), Unit::Bytes);
    let mut found = Scan { edges: 0, lines: 0, strings: false, notices: Vec::new() };
    if let Some((width, has_weights)) = format.binary() {
        let record = record_bytes(width, has_weights) as u64;
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
            let piece = parse_records(path, offset, block, width, has_weights, weighted, max_id)?;
            found.edges += piece.edges() as u64;
            each(block, &piece)?;
            progress.advance(block.len() as u64);
        }
        return Ok(found);
    }
    let mut blocks = LineBlocks::new(input);
    let mut line = 1u64;
    let mut header_done = false;
    let (mut src_col, mut dst_col, mut weight_col, mut mtx_size, mut mtx_integer) = (0, 1, 2, None, false);
    let csv = format == InputFormat::Csv;
    // A CSV file without a header line: its weight is the third column by position.
    let mut headerless_csv = false;
    let mut strings: Option<bool> = None;
    // Named columns say which are read: other columns are no news then.
    let unnamed = !columns.any();
    // Whether columns an unweighted import ignores were reported (once, at the first line
    // that has them).
    let mut wide_noted = !weighted && (format == InputFormat::MatrixMarket || !unnamed);
    // Whether a weighted import notes the first line with columns past the weight's (`0,1,2,5`
    // under `src,dst,weight` is a decimal comma): not where the columns are named, or a CSV
    // header names more columns than are read.
    let mut note_wide = weighted && unnamed;
    let mut mtx_pattern = false;
    let first_lines = |b: &[u8]| holds_data_lines(b, FIRST_BLOCK_LINES);
    while let Some(block) = blocks.next_block_holding(|b| header_done || first_lines(b))? {
        progress.advance(block.len() as u64);
        let mut data = block;
        if !header_done {
            header_done = true;
            // A UTF-8 byte-order mark (spreadsheet exports) is not part of the first line.
            let block = block.strip_prefix(UTF8_BOM).unwrap_or(block);
            let skip = match format {
                InputFormat::Csv => {
                    let h = csv::parse_header(path, block, columns, weighted)?;
                    (src_col, dst_col, weight_col) = (h.src_col, h.dst_col, h.weight_col);
                    if weighted && (weight_col == src_col || weight_col == dst_col) {
                        return Err(Error::input_line(
                            path,
                            line - 1 + h.header_lines,
                            format!(
                                "the weight is column {}, which is also the {} column (name the \
                                 columns with --source-col, --target-col and --weight-col)",
                                weight_col + 1,
                                if weight_col == src_col { "source" } else { "target" }
                            ),
                        ));
                    }
                    if let Some(name) = h.unnamed_weight.as_ref().filter(|_| weighted) {
                        found.notices.push(format!(
                            "{}:{}: no column is named weight or w: the weight is column {} ('{name}') \
                             (name one with --weight-col)",
                            path.display(),
                            line - 1 + h.header_lines,
                            weight_col + 1
                        ));
                    }
                    line += h.header_lines;
                    headerless_csv = h.header.is_none();
                    if h.columns > src_col.max(dst_col).max(weight_col) + 1 {
                        note_wide = false;
                    }
                    if let Some((at, text)) = h.header {
                        // Columns the header named as the source and target, when not the first two.
                        let named = match (src_col, dst_col) {
                            (0, 1) => String::new(),
                            (s, d) => format!(
                                " (by their names, the source is column {} and the target {})",
                                s + 1,
                                d + 1
                            ),
                        };
                        found.notices.push(format!(
                            "{}:{at}: taken as the CSV header: '{}'{named}",
                            path.display(),
                            show(text.as_bytes())
                        ));
                    }
                    h.header_bytes
                }
                InputFormat::MatrixMarket => {
                    let h = mtx::parse_header(path, block)?;
                    mtx_size = Some([h.rows, h.cols]);
                    mtx_integer = h.integer;
                    // A 'pattern' entry is `row col`: a value there is reported, once.
                    mtx_pattern = !h.has_values;
                    wide_noted = !weighted && h.has_values;
                    line += h.header_lines;
                    h.header_bytes
                }
                _ => 0,
            };
            data = &block[skip..];
            refuse_bad_bytes(path, data, line)?;
            let first = text::data_lines(data, csv, 9);
            if let Some((at, cols)) = first.first().filter(|(_, c)| unnamed && !weighted && c.len() > 2) {
                if format != InputFormat::MatrixMarket {
                    wide_noted = true;
                    let columns = format!("{} columns", cols.len());
                    found.notices.push(ignored_columns(
                        path,
                        line + at,
                        &columns,
                        (src_col, dst_col, weight_col),
                    ));
                }
            }
            // A text line splits at commas too: `0 1 1,5` is four columns, not a weight of 1.5.
            if let Some((at, cols)) = first.first().filter(|(_, c)| weighted && c.len() > 3) {
                let why = match format {
                    InputFormat::Text => Some(" (a decimal comma? weights are read with a decimal point)"),
                    InputFormat::Csv if headerless_csv && unnamed => Some(" (no header names the columns)"),
                    _ => None,
                };
                if let Some(why) = why {
                    wide_noted = true;
                    found.notices.push(format!(
                        "{}:{}: {} columns: the first two are the edge and the third its weight, the \
                         rest were ignored{why}",
                        path.display(),
                        line + at,
                        cols.len()
                    ));
                }
            }
            // A first line of words above lines of integer ids (up to 8 looked at) is a header,
            // which a text edge list cannot have. A first line with one integer id (`1 x`) is an
            // edge: string ids are chosen by a first line holding one.
            let int_line = |c: &Vec<&[u8]>| c.len() >= 2 && is_integer(c[0]) && is_integer(c[1]);
            let words = |c: &Vec<&[u8]>| c.len() >= 2 && !is_integer(c[0]) && !is_integer(c[1]);
            if let [(at, a), rest @ ..] = &first[..] {
                if format == InputFormat::Text
                    && words(a)
                    && !rest.is_empty()
                    && rest.iter().all(|(_, c)| int_line(c))
                {
                    // The line as written (`a,b` was quoted as `a b`).
                    let raw = data.split(|&c| c == b'\n').nth(*at as usize).unwrap_or_default();
                    return Err(Error::input_line(
                        path,
                        line + at,
                        format!(
                            "'{}' looks like a header (the lines after it have integer ids): \
                             comment it out with '#' (or, in a file of comma-separated columns, \
                             import it as CSV: --format csv)",
                            show(raw.trim_ascii())
                        ),
                    ));
                }
            }
        } else {
            refuse_bad_bytes(path, data, line)?;
        }
        // The first data line decides between integer and string ids: string ids when its
        // source or target is not an integer.
        if strings.is_none() {
            strings = if format == InputFormat::MatrixMarket {
                Some(false)
            } else {
                text::data_lines(data, csv, 1).first().map(|(_, c)| {
                    [src_col, dst_col].iter().any(|&k| c.get(k).is_some_and(|t| !is_integer(t)))
                })
            };
        }
        let is_strings = strings.unwrap_or(false);
        found.strings = is_strings;
        let cfg = LineCfg {
            csv,
            strings: is_strings,
            weighted,
            src_col,
            dst_col,
            weight_col,
            mtx_size,
            mtx_integer,
            max_id,
            note_wide,
        };
        for piece in parse_block(path, data, line, &cfg)? {
            if let Some(at) = piece.wide_line.filter(|_| !wide_noted) {
                wide_noted = true;
                let cols = (src_col, dst_col, weight_col);
                found.notices.push(if mtx_pattern {
                    format!(
                        "{}:{}: more than 2 columns in a 'pattern' MatrixMarket file (its entries \
                         are 'row col'): the rest were ignored",
                        path.display(),
                        line + at
                    )
                } else if weighted {
                    let read = src_col.max(dst_col).max(weight_col) + 1;
                    format!(
                        "{}:{}: more than {read} columns: the weight is column {}, the rest were \
                         ignored (a decimal comma? weights are read with a decimal point)",
                        path.display(),
                        line + at,
                        weight_col + 1
                    )
                } else {
                    ignored_columns(path, line + at, "more than 2 columns", cols)
                });
            }
            line += piece.lines;
            found.edges += piece.edges() as u64;
            each(data, &piece)?;
        }
    }
    found.lines = line.saturating_sub(1);
    Ok(found)
}
