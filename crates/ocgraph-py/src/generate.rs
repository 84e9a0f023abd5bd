//! `_generate`: a synthetic graph (Kronecker, Erdős–Rényi, road grid) into a graph directory.

use std::path::PathBuf;

use ocgraph_core::generate::{self, ErdosRenyiSize, Generator};
use ocgraph_core::ingest::{BuildOptions, BuildReport, GraphBuilder, IdMap, NoProgress};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::build::report;
use crate::errors::{invalid, run, IntoPy};
use crate::options::BuildMemory;

/// Streams a generator into a new graph at `out`.
fn build_generated(
    generator: &dyn Generator,
    out: &std::path::Path,
    opts: BuildOptions,
) -> ocgraph_core::Result<BuildReport> {
    let mut b = GraphBuilder::new(out, opts)?;
    generate::generate_into(&mut b, generator, &NoProgress)?;
    b.finish(IdMap::Identity, &NoProgress)
}

/// Generates a graph into `out`. `kind`: "kronecker" (scale, edge_factor), "erdos-renyi"
/// (n and m or p), "road" (rows, cols). Kronecker and Erdős–Rényi graphs are undirected unless
/// `directed`; road grids are undirected (`directed` is refused for them).
#[pyfunction]
#[pyo3(signature = (kind, out, scale, edge_factor, n, m, p, rows, cols, seed, directed, weighted, dedup, memory, overwrite))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn _generate<'py>(
    py: Python<'py>,
    kind: &str,
    out: PathBuf,
    scale: Option<u32>,
    edge_factor: u64,
    n: Option<u64>,
    m: Option<u64>,
    p: Option<f64>,
    rows: Option<u64>,
    cols: Option<u64>,
    seed: u64,
    directed: bool,
    weighted: bool,
    dedup: bool,
    memory: BuildMemory,
    overwrite: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let generator: Box<dyn Generator> = match kind.to_ascii_lowercase().as_str() {
        "kronecker" | "rmat" => {
            let scale = scale.ok_or_else(|| invalid("kronecker needs scale="))?;
            Box::new(generate::kronecker(scale, edge_factor, seed).py()?.weighted(weighted))
        }
        "erdos-renyi" | "erdos_renyi" | "er" | "gnm" | "gnp" => {
            let n = n.ok_or_else(|| invalid("erdos-renyi needs n="))?;
            let size = match (m, p) {
                (Some(m), None) => ErdosRenyiSize::Edges(m),
                (None, Some(p)) => ErdosRenyiSize::Probability(p),
                _ => return Err(invalid("erdos-renyi needs exactly one of m= or p=")),
            };
            Box::new(generate::erdos_renyi(n, size, seed).py()?.weighted(weighted).directed(directed))
        }
        "road" | "road-grid" | "road_grid" | "grid" => {
            let (rows, cols) = match (rows, cols) {
                (Some(r), Some(c)) => (r, c),
                _ => return Err(invalid("road needs rows= and cols=")),
            };
            Box::new(generate::road_grid(rows, cols, seed).py()?)
        }
        other => {
            return Err(invalid(format!(
                "unknown generator '{other}' (expected kronecker, erdos-renyi or road)"
            )))
        }
    };
    let road = matches!(kind.to_ascii_lowercase().as_str(), "road" | "road-grid" | "road_grid" | "grid");
    if road && directed {
        return Err(invalid("road grids are undirected (directed= applies to kronecker and erdos-renyi)"));
    }
    let opts = BuildOptions {
        directed,
        weighted: weighted || road,
        dedup,
        // As `ocgraph generate`, which always does both: `dedup=True` gives the CLI's graph.
        drop_self_loops: dedup,
        memory: memory.0,
        overwrite,
        source: generator.describe(),
    };
    let r = run(py, || build_generated(&*generator, &out, opts).py())?;
    report(py, &r)
}
