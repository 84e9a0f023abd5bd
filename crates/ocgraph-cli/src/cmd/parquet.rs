//! Parquet edge tables in and out, through the `parquet` crate's Arrow reader and writer.
//!
//! Import reads only the named columns, one record batch at a time, into the budgeted graph
//! builder (integer ids are vertex ids unless relabelled; string ids are always relabelled,
//! first-seen unless sorted). Export writes `src`, `dst` (and `weight`) in row groups of
//! [`BATCH_ROWS`] rows.

use std::collections::HashMap;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float16Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type,
    UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef, Float32Array, RecordBatch, StringArray, UInt32Array, UInt64Array};
use arrow_schema::{DataType, Field, Schema};
use ocgraph_core::ids::{IdLookup, OriginalId};
use ocgraph_core::ingest::{
    check_num_vertices, has_parquet_magic, num_vertices_with_string_ids, BuildReport, GraphBuilder, IdMap,
    ImportOptions, LabelSource, Progress, Relabel, Unit,
};
use ocgraph_core::{Error, GraphView, Result, Vertex};
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use ocgraph_core::format::{refuse_input_inside_replaced, OutputFile};

/// Rows per record batch read or written.
const BATCH_ROWS: usize = 1 << 16;
/// Largest vertex id of a graph built without relabelling.
const MAX_ID: u64 = u32::MAX as u64 - 1;

/// Whether `path` is a Parquet file: by its extension, or by its magic bytes (the part files
/// Spark and Hive write have no extension).
pub(crate) fn is_parquet(path: &Path) -> bool {
    let named =
        path.extension().is_some_and(|e| e.eq_ignore_ascii_case("parquet") || e.eq_ignore_ascii_case("pq"));
    named || has_parquet_magic(path)
}

/// The names of the columns to read.
pub(crate) struct ColumnNames<'a> {
    /// Source ids.
    pub source: &'a str,
    /// Target ids.
    pub target: &'a str,
    /// Weights (a weighted graph), or none.
    pub weight: Option<&'a str>,
}

fn perr(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::input(path, e.to_string())
}

fn row_err(path: &Path, row: u64, msg: impl std::fmt::Display) -> Error {
    Error::input(path, format!("row {row}: {msg}"))
}

/// A reader of the named columns of `path`, and its number of rows.
fn reader(path: &Path, cols: &ColumnNames) -> Result<(ParquetRecordBatchReader, u64)> {
    let file = File::open(path).map_err(|e| Error::io(path, "open", e))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| perr(path, e))?;
    let rows = builder.metadata().file_metadata().num_rows().max(0) as u64;
    let schema = builder.schema().clone();
    let mut roots = Vec::new();
    let names: Vec<&str> =
        [Some(cols.source), Some(cols.target), cols.weight].into_iter().flatten().collect();
    for (k, &name) in names.iter().enumerate() {
        if names[..k].contains(&name) {
            return Err(Error::invalid(format!(
                "{}: column '{name}' is named for two of source, target and weight: each needs its own",
                path.display()
            )));
        }
        let all: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        let found: Vec<usize> = (0..all.len()).filter(|&i| all[i] == name).collect();
        match found[..] {
            [i] => roots.push(i),
            [] => return Err(perr(path, format!("no column '{name}' (columns: {})", all.join(", ")))),
            _ => {
                return Err(perr(
                    path,
                    format!("{} columns are named '{name}': rename all but one", found.len()),
                ))
            }
        }
    }
    let mask = ProjectionMask::roots(builder.parquet_schema(), roots);
    let r = builder.with_projection(mask).with_batch_size(BATCH_ROWS).build().map_err(|e| perr(path, e))?;
    Ok((r, rows))
}

/// The column `name` of a batch read by [`reader`]: the projection keeps the file's order of
/// columns, not the order they were asked for, so a column is found by its name.
fn column<'b>(batch: &'b RecordBatch, name: &str) -> &'b ArrayRef {
    batch.column_by_name(name).expect("the reader projects every named column")
}

/// The ids of one column of a batch: integers (checked non-negative) or strings (plain or
/// dictionary-encoded), the `i`-th read by the function.
enum Ids<'a> {
    Ints(Vec<u64>),
    Strs(Box<dyn Fn(usize) -> &'a str + 'a>),
}

/// The strings of `a` (plain, large or as dictionary values), `None` when `a` holds none.
fn strings<'a>(a: &'a ArrayRef) -> Option<Box<dyn Fn(usize) -> &'a str + 'a>> {
    match a.data_type() {
        DataType::Utf8 => {
            let v = a.as_string::<i32>();
            Some(Box::new(move |i| v.value(i)))
        }
        DataType::LargeUtf8 => {
            let v = a.as_string::<i64>();
            Some(Box::new(move |i| v.value(i)))
        }
        DataType::Dictionary(_, value) if matches!(**value, DataType::Utf8 | DataType::LargeUtf8) => {
            // What pandas writes for a categorical column.
            let d = a.as_any_dictionary();
            if d.values().is_empty() {
                return Some(Box::new(|_| ""));
            }
            let keys = d.normalized_keys();
            let values = strings(d.values())?;
            Some(Box::new(move |i| values(keys[i])))
        }
        _ => None,
    }
}

/// The first null of `a`, as a row of the file.
fn check_nulls(path: &Path, a: &dyn Array, name: &str, first_row: u64) -> Result<()> {
    if a.null_count() > 0 {
        let i = (0..a.len()).find(|&i| a.is_null(i)).unwrap_or(0);
        return Err(row_err(path, first_row + i as u64, format!("column '{name}' is null")));
    }
    Ok(())
}

fn ids<'a>(path: &Path, a: &'a ArrayRef, name: &str, first_row: u64) -> Result<Ids<'a>> {
    check_nulls(path, a, name, first_row)?;
    // Integers, plain or dictionary-encoded (a pandas categorical of integers): the value of
    // each row, then checked non-negative naming the row.
    let values: Option<Vec<i128>> = match a.data_type() {
        DataType::Dictionary(_, value) if value.is_integer() => {
            let d = a.as_any_dictionary();
            let distinct = integers(d.values()).expect("integer dictionary values");
            Some(d.normalized_keys().iter().map(|&k| distinct[k]).collect())
        }
        _ => integers(a),
    };
    if let Some(values) = values {
        let mut out = Vec::with_capacity(values.len());
        for (i, x) in values.into_iter().enumerate() {
            if x < 0 {
                return Err(row_err(
                    path,
                    first_row + i as u64,
                    format!("column '{name}' has the negative id {x}"),
                ));
            }
            out.push(x as u64);
        }
        return Ok(Ids::Ints(out));
    }
    match strings(a) {
        Some(s) => match (0..a.len()).find(|&i| s(i).is_empty()) {
            // As the text and CSV importers: a graph's ids must survive a text export.
            Some(i) => Err(row_err(path, first_row + i as u64, format!("column '{name}' has an empty id"))),
            None => Ok(Ids::Strs(s)),
        },
        None => {
            Err(perr(path, format!("column '{name}' must hold integers or strings, found {}", a.data_type())))
        }
    }
}

/// The values of an array of any integer type, widened; `None` for other types.
fn integers(a: &ArrayRef) -> Option<Vec<i128>> {
    macro_rules! widen {
        ($t:ty) => {
            a.as_primitive::<$t>().values().iter().map(|&x| x as i128).collect()
        };
    }
    Some(match a.data_type() {
        DataType::Int8 => widen!(Int8Type),
        DataType::Int16 => widen!(Int16Type),
        DataType::Int32 => widen!(Int32Type),
        DataType::Int64 => widen!(Int64Type),
        DataType::UInt8 => widen!(UInt8Type),
        DataType::UInt16 => widen!(UInt16Type),
        DataType::UInt32 => widen!(UInt32Type),
        DataType::UInt64 => widen!(UInt64Type),
        _ => return None,
    })
}

/// The weights of one column of a batch, any integer or float type (plain or
/// dictionary-encoded), each finite, within the range of an `f32` (the stored weight) and not so
/// small that it would be stored as 0, else an error naming the row.
fn weights(path: &Path, a: &ArrayRef, name: &str, first_row: u64) -> Result<Vec<f32>> {
    check_nulls(path, a, name, first_row)?;
    let Some(values) = numbers(a) else {
        return Err(perr(path, format!("column '{name}' must hold numbers, found {}", a.data_type())));
    };
    values
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let w = x as f32;
            if w.is_finite() && (w != 0.0 || x == 0.0) {
                Ok(w)
            } else {
                Err(row_err(
                    path,
                    first_row + i as u64,
                    format!("column '{name}' has the weight {x:e}, not a finite f32 (nonzero weights below about 7e-46 would be stored as 0)"),
                ))
            }
        })
        .collect()
}

/// The values of an array of any integer or float type, plain or dictionary-encoded, as `f64`;
/// `None` for other types.
fn numbers(a: &ArrayRef) -> Option<Vec<f64>> {
    macro_rules! as_f64 {
        ($t:ty) => {
            a.as_primitive::<$t>().values().iter().map(|&x| x as f64).collect()
        };
    }
    Some(match a.data_type() {
        DataType::Float16 => a.as_primitive::<Float16Type>().values().iter().map(|x| x.to_f64()).collect(),
        DataType::Float32 => as_f64!(Float32Type),
        DataType::Float64 => as_f64!(Float64Type),
        DataType::Dictionary(_, _) => {
            let d = a.as_any_dictionary();
            let distinct = numbers(d.values())?;
            d.normalized_keys().iter().map(|&k| distinct[k]).collect()
        }
        _ => integers(a)?.into_iter().map(|x| x as f64).collect(),
    })
}

/// Maps original ids to vertex ids (first-seen, or sorted after a first pass).
#[derive(Default)]
struct Mapper {
    ints: HashMap<u64, u32>,
    int_ids: Vec<u64>,
    strs: HashMap<String, u32>,
    str_ids: Vec<String>,
    sealed: bool,
}

impl Mapper {
    fn int(&mut self, x: u64) -> Result<u32> {
        if let Some(&v) = self.ints.get(&x) {
            return Ok(v);
        }
        self.new_id(self.int_ids.len())?;
        let v = self.int_ids.len() as u32;
        self.ints.insert(x, v);
        self.int_ids.push(x);
        Ok(v)
    }

    fn str(&mut self, x: &str) -> Result<u32> {
        if let Some(&v) = self.strs.get(x) {
            return Ok(v);
        }
        self.new_id(self.str_ids.len())?;
        let v = self.str_ids.len() as u32;
        self.strs.insert(x.to_string(), v);
        self.str_ids.push(x.to_string());
        Ok(v)
    }

    fn new_id(&self, n: usize) -> Result<()> {
        if self.sealed {
            return Err(Error::invalid("an id not seen in the first pass (the file changed while read)"));
        }
        if n as u64 > MAX_ID {
            return Err(Error::invalid("more than 2^32 - 1 distinct vertex ids"));
        }
        Ok(())
    }

    /// Numbers the ids collected so far in ascending order and refuses new ones.
    fn seal_sorted(&mut self) {
        self.int_ids.sort_unstable();
        self.int_ids.dedup();
        self.ints = self.int_ids.iter().enumerate().map(|(i, &x)| (x, i as u32)).collect();
        self.str_ids.sort_unstable();
        self.str_ids.dedup();
        self.strs = self.str_ids.iter().enumerate().map(|(i, x)| (x.clone(), i as u32)).collect();
        self.sealed = true;
    }

    fn id_map(self) -> IdMap {
        if self.str_ids.is_empty() {
            IdMap::U64(self.int_ids)
        } else {
            IdMap::Strings(self.str_ids)
        }
    }
}

/// Pushes integer ids kept as vertex ids onto `out`, each checked against the 32-bit id space.
fn push_vertex_ids(path: &Path, ids: &[u64], name: &str, first_row: u64, out: &mut Vec<u32>) -> Result<()> {
    for (i, &x) in ids.iter().enumerate() {
        if x > MAX_ID {
            return Err(row_err(
                path,
                first_row + i as u64,
                format!("column '{name}' has the id {x}, beyond 2^32 - 2 (import with --relabel)"),
            ));
        }
        out.push(x as u32);
    }
    Ok(())
}

/// Builds a graph at `out` from the Parquet file `input` with the relabelling, build options,
/// vertex count, sparse-id check and labels of `opts`, as [`ocgraph_core::ingest::import`]
/// does for edge-list files (`opts.format` and `opts.columns` are not used: `cols` names the
/// columns).
pub(crate) fn import(
    input: &Path,
    out: &Path,
    cols: &ColumnNames,
    opts: &ImportOptions,
    progress: &dyn Progress,
) -> Result<BuildReport> {
    let (relabel, num_vertices, allow_sparse_ids) = (opts.relabel, opts.num_vertices, opts.allow_sparse_ids);
    check_num_vertices(opts)?;
    let mut build = opts.build.clone();
    if build.overwrite {
        refuse_input_inside_replaced(out, input, "input")?;
        if let Some(path) = &opts.labels {
            refuse_input_inside_replaced(out, path, "labels")?;
        }
    }
    build.weighted = cols.weight.is_some();
    let directed = build.directed;
    if build.source.is_empty() {
        build.source = format!("{} (Parquet)", input.display());
    }
    // Read before the build: the note is about the input as it was.
    let ignored_weight = if cols.weight.is_none() { weight_column(input)? } else { None };
    let mut mapper = (relabel != Relabel::None).then(Mapper::default);
    if relabel == Relabel::Sorted {
        let m = mapper.as_mut().expect("a mapper for sorted relabelling");
        let (r, rows) = reader(input, cols)?;
        progress.phase("relabel", Some(rows), Unit::Edges);
        let mut row = 0u64;
        for batch in r {
            let batch = batch.map_err(|e| perr(input, e))?;
            for name in [cols.source, cols.target] {
                match ids(input, column(&batch, name), name, row)? {
                    Ids::Ints(v) => m.int_ids.extend_from_slice(&v),
                    Ids::Strs(s) => m.str_ids.extend((0..batch.num_rows()).map(|i| s(i).to_string())),
                }
            }
            row += batch.num_rows() as u64;
            progress.advance(batch.num_rows() as u64);
            if m.int_ids.len() > 1 << 24 || m.str_ids.len() > 1 << 22 {
                m.int_ids.sort_unstable();
                m.int_ids.dedup();
                m.str_ids.sort_unstable();
                m.str_ids.dedup();
            }
        }
        m.seal_sorted();
    }
    let mut builder = GraphBuilder::new(out, build)?;
    if let Some(path) = &opts.labels {
        builder.set_labels(LabelSource::File(path.clone()));
    }
    let (r, rows) = reader(input, cols)?;
    progress.phase("parse", Some(rows), Unit::Edges);
    let (mut src, mut dst) = (Vec::new(), Vec::new());
    let mut row = 0u64;
    for batch in r {
        let batch = batch.map_err(|e| perr(input, e))?;
        let n = batch.num_rows();
        let s = ids(input, column(&batch, cols.source), cols.source, row)?;
        let d = ids(input, column(&batch, cols.target), cols.target, row)?;
        src.clear();
        dst.clear();
        // First-seen numbering goes edge by edge, the source before the target (as from text).
        match (&s, &d) {
            (Ids::Strs(a), Ids::Strs(b)) => {
                if num_vertices.is_some() {
                    return Err(num_vertices_with_string_ids(input));
                }
                // String ids are always relabelled (first-seen unless sorted).
                let m = mapper.get_or_insert_with(Mapper::default);
                for i in 0..n {
                    src.push(m.str(a(i))?);
                    dst.push(m.str(b(i))?);
                }
            }
            (Ids::Ints(a), Ids::Ints(b)) => match mapper.as_mut() {
                Some(m) => {
                    for (&x, &y) in a.iter().zip(b) {
                        src.push(m.int(x)?);
                        dst.push(m.int(y)?);
                    }
                }
                None => {
                    push_vertex_ids(input, a, cols.source, row, &mut src)?;
                    push_vertex_ids(input, b, cols.target, row, &mut dst)?;
                }
            },
            _ => {
                return Err(perr(
                    input,
                    format!("columns '{}' and '{}' hold different id types", cols.source, cols.target),
                ))
            }
        }
        let w = match cols.weight {
            Some(name) => Some(weights(input, column(&batch, name), name, row)?),
            None => None,
        };
        builder.push(&src, &dst, w.as_deref())?;
        row += n as u64;
        progress.advance(n as u64);
    }
    // No edges build a graph only of the vertices --num-vertices asks for (as from text).
    if row == 0 && num_vertices.unwrap_or(0) == 0 {
        return Err(perr(input, "no edges"));
    }
    let id_map = match mapper {
        Some(m) => {
            let n = m.int_ids.len().max(m.str_ids.len()) as u64;
            builder.reserve_vertices(n);
            m.id_map()
        }
        None => {
            let found = builder.num_vertices();
            match num_vertices {
                Some(n) if found > n => {
                    return Err(perr(input, format!("an id is {}, not below --num-vertices {n}", found - 1)));
                }
                Some(n) => builder.reserve_vertices(n),
                None if !allow_sparse_ids => {
                    if let Some(msg) = ocgraph_core::ingest::sparse_ids_problem(found, row, directed) {
                        return Err(perr(input, msg));
                    }
                }
                None => {}
            }
            IdMap::Identity
        }
    };
    let mut report = builder.finish(id_map, progress)?;
    if let Some(name) = ignored_weight {
        report.notices.push(format!(
            "{}: column '{name}' was ignored (an unweighted import; --weight-col {name} reads it)",
            input.display()
        ));
    }
    Ok(report)
}

/// The file's column named `weight` or `w` (any case), if it has one.
fn weight_column(path: &Path) -> Result<Option<String>> {
    let file = File::open(path).map_err(|e| Error::io(path, "open", e))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| perr(path, e))?;
    let names = builder.schema().fields().iter().map(|f| f.name().clone());
    Ok(names.into_iter().find(|n| n.eq_ignore_ascii_case("weight") || n.eq_ignore_ascii_case("w")))
}

/// The column of ids of the vertices `vs`: vertex ids, or the original ids.
fn id_column(vs: &[Vertex], ids: Option<&IdLookup>) -> ArrayRef {
    match ids {
        None => Arc::new(UInt32Array::from(vs.to_vec())),
        Some(ids) => match vs.first().map(|&v| ids.original(v)) {
            Some(OriginalId::Str(_)) => {
                Arc::new(StringArray::from_iter_values(vs.iter().map(|&v| ids.original(v).to_string())))
            }
            _ => Arc::new(UInt64Array::from_iter_values(vs.iter().map(|&v| match ids.original(v) {
                OriginalId::Int(i) => i,
                OriginalId::Str(_) => 0,
            }))),
        },
    }
}

/// Writes the edges of `g` (each undirected edge once) as a Parquet file into `out`; returns
/// the number of edges.
pub(crate) fn export(
    g: &GraphView,
    out: &mut OutputFile,
    ids: Option<&IdLookup>,
    progress: &dyn Progress,
) -> Result<u64> {
    let path = out.path().to_path_buf();
    let path = path.as_path();
    let id_type = match ids.map(|ids| (ids.is_empty(), ids.original(0))) {
        None | Some((true, _)) => DataType::UInt32,
        Some((false, OriginalId::Str(_))) => DataType::Utf8,
        Some((false, OriginalId::Int(_))) => DataType::UInt64,
    };
    let ids = ids.filter(|_| id_type != DataType::UInt32);
    let mut fields = vec![Field::new("src", id_type.clone(), false), Field::new("dst", id_type, false)];
    if g.is_weighted() {
        fields.push(Field::new("weight", DataType::Float32, false));
    }
    let schema = Arc::new(Schema::new(fields));
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_row_count(Some(1 << 20))
        .build();
    let werr = |e: parquet::errors::ParquetError| Error::io(path, "write", io_error_of(e));
    let mut writer = ArrowWriter::try_new(out, schema.clone(), Some(props)).map_err(werr)?;
    progress.phase("write", Some(g.num_edges()), Unit::Edges);
    let (mut us, mut vs, mut ws) = (Vec::new(), Vec::new(), Vec::new());
    let mut count = 0u64;
    let mut flush = |us: &mut Vec<Vertex>, vs: &mut Vec<Vertex>, ws: &mut Vec<f32>| -> Result<()> {
        let mut cols = vec![id_column(us, ids), id_column(vs, ids)];
        if g.is_weighted() {
            cols.push(Arc::new(Float32Array::from(std::mem::take(ws))));
        }
        let batch = RecordBatch::try_new(schema.clone(), cols).map_err(|e| Error::invalid(e.to_string()))?;
        writer.write(&batch).map_err(werr)?;
        progress.advance(us.len() as u64);
        us.clear();
        vs.clear();
        Ok(())
    };
    super::export::for_each_edge(g, |u, v, w| {
        us.push(u);
        vs.push(v);
        if let Some(w) = w {
            ws.push(w);
        }
        count += 1;
        if us.len() == BATCH_ROWS * 16 {
            flush(&mut us, &mut vs, &mut ws)?;
        }
        Ok(())
    })?;
    if !us.is_empty() {
        flush(&mut us, &mut vs, &mut ws)?;
    }
    writer.into_inner().map_err(werr)?;
    Ok(count)
}

/// The I/O error a Parquet write failed with (the writer wraps it as `External`, which would
/// hide a closed pipe from the exit status and make ENOSPC a generic error); any other error
/// wrapped as one.
fn io_error_of(e: parquet::errors::ParquetError) -> std::io::Error {
    match e {
        parquet::errors::ParquetError::External(inner) => match inner.downcast::<std::io::Error>() {
            Ok(io) => *io,
            Err(other) => std::io::Error::other(other),
        },
        other => std::io::Error::other(other),
    }
}
