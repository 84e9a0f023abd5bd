//! Where a command may write: never inside the graph directory it reads, nor over a directory
//! holding it. An output file there would overwrite one of the graph's own files (`run --out
//! G/manifest`) or add one that the next writer's open removes as a stray; a replaced parent
//! (`pack G/sub G --force`) would take the graph with it. The place is refused before anything
//! is written.

use std::path::{Path, PathBuf};

use ocgraph_core::{Error, Result};

/// Refuses `out` (given as `what`, e.g. `--out`) when it lies inside the graph directory
/// `graph` or holds it, after following symbolic links. Paths that cannot be resolved yet (a missing
/// graph or output directory) pass: the command's own open or create names them.
pub(crate) fn refuse_inside_graph(graph: &Path, out: &Path, what: &str) -> Result<()> {
    let (Ok(graph_dir), Some(place)) = (graph.canonicalize(), resolve(out)) else {
        return Ok(());
    };
    if place.starts_with(&graph_dir) || graph_dir.starts_with(&place) {
        return Err(Error::invalid(format!(
            "{what} {}: overlaps the graph directory {} that this command reads; write it elsewhere",
            out.display(),
            graph.display()
        )));
    }
    Ok(())
}

/// Refuses `out` (given as `what`) when its directory does not exist, before a long command
/// runs only to fail at its end.
pub(crate) fn refuse_missing_directory(out: &Path, what: &str) -> Result<()> {
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        return Err(Error::invalid(format!(
            "{what} {}: the directory {} does not exist",
            out.display(),
            parent.display()
        )));
    }
    Ok(())
}

/// `path` with links followed: the path itself when it exists, else its resolved parent
/// joined with its file name; `None` when neither resolves.
fn resolve(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = path.canonicalize() {
        return Some(p);
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    Some(parent.canonicalize().ok()?.join(path.file_name()?))
}
