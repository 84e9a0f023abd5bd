//! Where a command may write: never inside the graph directory it reads, nor over a directory
//! holding it. An output file there would overwrite one of the graph's own files (`run --out
//! G/manifest`) or add one that the next writer's open removes as a stray; a replaced parent
//! (`pack G/sub G --force`) would take the graph with it. The place is refused before anything
//! is written. Nor may a replaced graph hold the input a command reads (`import --force
//! G/edges.txt G` would delete its own input).

use std::path::{Path, PathBuf};

use super::output_file::names_standard_output;
use crate::{Error, Result};

/// Refuses `out` (given as `what`, e.g. `--out`) when it lies inside the graph directory
/// `graph` or holds it, after following symbolic links. Paths that cannot be resolved yet (a missing
/// graph or output directory) pass: the command's own open or create names them.
pub fn refuse_inside_graph(graph: &Path, out: &Path, what: &str) -> Result<()> {
    if !names_standard_output(out) && overlaps(graph, out) {
        return Err(Error::invalid(format!(
            "{what} {}: overlaps the graph directory {} that this command reads; write it elsewhere",
            out.display(),
            graph.display()
        )));
    }
    Ok(())
}

/// Refuses a result file `out` (given as `what`) of a command that reads the graph at `graph`
/// when it lies inside the graph directory, in a directory that does not exist, or is itself a
/// directory: before the command does its work (and, for `ocgraph stream`, applies its
/// updates), not at its end.
pub fn refuse_output_place(graph: &Path, out: &Path, what: &str) -> Result<()> {
    // A directory is named as one first: `--out DIR/` holding the graph is no file to write.
    refuse_missing_directory(out, what)?;
    refuse_inside_graph(graph, out, what)
}

/// Refuses `out` (given as `what`) when its directory does not exist or it is a directory,
/// before a long command runs only to fail at its end.
pub fn refuse_missing_directory(out: &Path, what: &str) -> Result<()> {
    if names_standard_output(out) {
        if crate::process::stdout_was_closed() {
            return Err(Error::io(out, "write", super::output_file::closed_stdout()));
        }
        return Ok(());
    }
    if out.is_dir() {
        return Err(Error::invalid(format!("{what} {}: is a directory", out.display())));
    }
    if out.as_os_str().as_encoded_bytes().ends_with(b"/") {
        return Err(Error::invalid(format!("{what} {}: names a directory, not a file", out.display())));
    }
    if std::fs::metadata(out).is_ok_and(|m| m.is_file() && m.permissions().readonly()) {
        return Err(Error::invalid(format!("{what} {}: the file is read-only", out.display())));
    }
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
    // A link to a file not there yet is written through: the file it names is created, in a
    // directory that must exist too.
    if let (Err(_), Ok(target)) = (std::fs::metadata(out), std::fs::read_link(out)) {
        let target = parent.join(target);
        if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty() && !d.is_dir()) {
            return Err(Error::invalid(format!(
                "{what} {}: a link to {}, whose directory {} does not exist",
                out.display(),
                target.display(),
                dir.display()
            )));
        }
    }
    Ok(())
}

/// Refuses an input file `input` (given as `what`) that lies inside the graph directory `out`
/// which the command is about to replace: the replace would delete it.
pub fn refuse_input_inside_replaced(out: &Path, input: &Path, what: &str) -> Result<()> {
    // A destination that is not a directory is refused by the replace itself.
    if out.is_dir() && overlaps(out, input) {
        return Err(Error::invalid(format!(
            "{what} {}: lies inside the graph directory {} that this command replaces; move it out first",
            input.display(),
            out.display()
        )));
    }
    Ok(())
}

/// Whether the paths `a` and `b` name one file, existing or not yet (links followed, hard links
/// included): one command's two files that are one would lose data (a trace written over the
/// results, or over the workload being read). Standard output (`-`) and devices such as
/// `/dev/null` are no file here: writing twice to them replaces nothing.
pub fn one_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    if names_standard_output(a) || names_standard_output(b) {
        return false;
    }
    if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
        return x.is_file() && (x.dev(), x.ino()) == (y.dev(), y.ino());
    }
    match (resolve(a), resolve(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// A file a command reads or writes, for [`refuse_one_file_twice`]: its path (if given), the
/// option that names it (`--out`), and whether the command writes it.
pub type CommandFile<'a> = (Option<&'a Path>, &'a str, bool);

/// Refuses, before any work, a file the command writes that is also another of its files (an
/// input it reads, or another output): the write would replace it (`query --workload W
/// --answers W`, `run --out F --trace F`). Errors name the written file's option first.
pub fn refuse_one_file_twice(files: &[CommandFile]) -> Result<()> {
    for (j, &(b, what_b, writes_b)) in files.iter().enumerate() {
        for &(a, what_a, writes_a) in &files[..j] {
            let (Some(a), Some(b)) = (a, b) else { continue };
            if !(writes_a || writes_b) || !one_file(a, b) {
                continue;
            }
            let (path, written, other) = if writes_b { (b, what_b, what_a) } else { (a, what_a, what_b) };
            return Err(Error::invalid(format!(
                "{written} {}: is also the {other} file, which it would replace",
                path.display()
            )));
        }
    }
    Ok(())
}

/// Whether `path` lies inside the existing directory `dir` or holds it, links followed.
fn overlaps(dir: &Path, path: &Path) -> bool {
    let (Ok(dir), Some(place)) = (dir.canonicalize(), resolve(path)) else {
        return false;
    };
    place.starts_with(&dir) || dir.starts_with(&place)
}

/// `path` with links followed: the path itself when it exists, else its resolved parent
/// joined with its file name; `None` when neither resolves. A link to a file not there yet
/// (which a write would create) resolves to where it points.
fn resolve(path: &Path) -> Option<PathBuf> {
    let mut path = path.to_path_buf();
    // Links to links: as many as the kernel follows (ELOOP past 40).
    for _ in 0..40 {
        if let Ok(p) = path.canonicalize() {
            return Some(p);
        }
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        match std::fs::read_link(&path) {
            // A dangling link: where it points, relative to the link's directory.
            Ok(target) => path = parent.join(target),
            Err(_) => return Some(parent.canonicalize().ok()?.join(path.file_name()?)),
        }
    }
    None
}
