//! The result file of `ocgraph run --out`: a NumPy array (`.npy`) or text, one value a line;
//! with `--original-ids`, text naming every vertex by its original id.

use std::io::Write;
use std::path::Path;

use ocgraph_core::format::OutputFile;
use ocgraph_core::ids::{IdLookup, OriginalId};
use ocgraph_core::{Error, Result, Vertex};

use crate::float_text::FloatText;

/// A kernel's result as written to `--out`, in the dtype Python's method returns (vertex
/// ids and component labels uint32, depths and counts int64, scores float64).
pub(super) enum Values {
    U32(Vec<Vertex>),
    I64(Vec<i64>),
    F64(Vec<f64>),
}

/// What a kernel's values are, which says how `--original-ids` writes them.
#[derive(Clone, Copy, Debug)]
pub(super) enum Shape {
    /// One value per vertex, in vertex order (depths, distances, scores, y).
    PerVertex,
    /// One vertex per vertex: the vertex naming its component (WCC's labels).
    VertexPerVertex,
    /// A list of vertices (k-hop's set, a path).
    Vertices,
    /// A diameter estimate: the bound, then the two vertices it runs between.
    BoundAndEnds,
    /// Counts (triangles): no vertex in them.
    Counts,
}

/// Whether `path` names a NumPy file (`.npy`, any case).
pub(super) fn is_npy(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("npy"))
}

/// Writes `values` to `path`: NPY v1.0 when it ends in `.npy`, else text (one value a line).
/// With `ids` (text only), every vertex is written as its original id, and a per-vertex result
/// gets its vertex's id first on each line (`id value`).
pub(super) fn write_values(path: &Path, values: &Values, shape: Shape, ids: Option<&IdLookup>) -> Result<()> {
    let mut buf = Vec::new();
    match (ids, is_npy(path)) {
        (_, true) => write_npy(&mut buf, values),
        (None, false) => write_text(&mut buf, values),
        (Some(ids), false) => write_text_by_id(&mut buf, values, shape, ids)?,
    }
    OutputFile::write_whole(path, &buf)
}

fn write_npy(buf: &mut Vec<u8>, values: &Values) {
    match values {
        Values::U32(v) => {
            buf.extend(npy_header("<u4", v.len()));
            v.iter().for_each(|x| buf.extend(x.to_le_bytes()));
        }
        Values::I64(v) => {
            buf.extend(npy_header("<i8", v.len()));
            v.iter().for_each(|x| buf.extend(x.to_le_bytes()));
        }
        Values::F64(v) => {
            buf.extend(npy_header("<f8", v.len()));
            v.iter().for_each(|x| buf.extend(x.to_le_bytes()));
        }
    }
}

fn write_text(buf: &mut Vec<u8>, values: &Values) {
    // Writing to a Vec cannot fail.
    match values {
        Values::U32(v) => v.iter().for_each(|x| {
            let _ = writeln!(buf, "{x}");
        }),
        Values::I64(v) => v.iter().for_each(|x| {
            let _ = writeln!(buf, "{x}");
        }),
        Values::F64(v) => v.iter().for_each(|&x| {
            let _ = writeln!(buf, "{}", FloatText(x));
        }),
    }
}

/// Text with original ids: `id value` lines for per-vertex results (WCC's labels as ids too),
/// one id a line for vertex lists, the bound then two ids for a diameter, counts as they are.
fn write_text_by_id(buf: &mut Vec<u8>, values: &Values, shape: Shape, ids: &IdLookup) -> Result<()> {
    match (shape, values) {
        (Shape::PerVertex, Values::I64(v)) => write_per_vertex(buf, v.iter(), ids)?,
        (Shape::PerVertex, Values::F64(v)) => write_per_vertex(buf, v.iter().map(|&x| FloatText(x)), ids)?,
        (Shape::VertexPerVertex, Values::U32(v)) => {
            for (u, &l) in v.iter().enumerate() {
                let _ = writeln!(buf, "{} {}", text_id(ids, u as Vertex)?, text_id(ids, l)?);
            }
        }
        (Shape::Vertices, Values::U32(v)) => {
            for &u in v {
                let _ = writeln!(buf, "{}", text_id(ids, u)?);
            }
        }
        (Shape::BoundAndEnds, Values::I64(v)) => {
            let (bound, ends) = v.split_first().expect("a diameter estimate has its bound");
            let _ = writeln!(buf, "{bound}");
            for &u in ends {
                let _ = writeln!(buf, "{}", text_id(ids, u as Vertex)?);
            }
        }
        (Shape::Counts, values) => write_text(buf, values),
        (shape, _) => unreachable!("a {shape:?} result in another dtype"),
    }
    Ok(())
}

/// `id value` lines, vertex `u`'s value after its original id.
fn write_per_vertex<T: std::fmt::Display>(
    buf: &mut Vec<u8>,
    values: impl Iterator<Item = T>,
    ids: &IdLookup,
) -> Result<()> {
    for (u, x) in values.enumerate() {
        let _ = writeln!(buf, "{} {x}", text_id(ids, u as Vertex)?);
    }
    Ok(())
}

/// The original id of `v` as a text field: an id that is empty or holds white space would not
/// split back from its line, so it is refused.
fn text_id(ids: &IdLookup, v: Vertex) -> Result<OriginalId> {
    let id = ids.original(v);
    if let OriginalId::Str(s) = &id {
        if s.is_empty() || s.contains(char::is_whitespace) {
            return Err(Error::invalid(format!(
                "--original-ids: the original id {s:?} of vertex {v} is empty or holds white space, \
                 so an `id value` line would not split back; write without --original-ids (line i \
                 is vertex i) and map the vertices with `ocgraph export --original-ids` or Python's \
                 `to_series`"
            )));
        }
    }
    Ok(id)
}

/// The header of a 1-D little-endian NPY v1.0 file: magic, version 1.0, header length, and the
/// header dict padded with spaces and a newline so the data starts at a multiple of 64 bytes.
fn npy_header(descr: &str, len: usize) -> Vec<u8> {
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({len},), }}");
    let unpadded = 10 + dict.len() + 1;
    let total = unpadded.div_ceil(64) * 64;
    let mut h = Vec::with_capacity(total);
    h.extend(b"\x93NUMPY\x01\x00");
    h.extend(((total - 10) as u16).to_le_bytes());
    h.extend(dict.as_bytes());
    h.resize(total - 1, b' ');
    h.push(b'\n');
    h
}

#[cfg(test)]
mod tests {
    use super::npy_header;

    #[test]
    fn npy_header_is_aligned_and_well_formed() {
        for len in [0usize, 7, 123_456_789] {
            let h = npy_header("<f8", len);
            assert_eq!(h.len() % 64, 0);
            assert_eq!(&h[..8], b"\x93NUMPY\x01\x00");
            assert_eq!(u16::from_le_bytes([h[8], h[9]]) as usize, h.len() - 10);
            let dict = std::str::from_utf8(&h[10..]).unwrap();
            assert!(
                dict.starts_with(&format!("{{'descr': '<f8', 'fortran_order': False, 'shape': ({len},), }}"))
            );
            assert!(dict.ends_with('\n'));
        }
    }
}
