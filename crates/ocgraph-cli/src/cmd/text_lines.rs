//! Reading the CLI's small text inputs (update files, pattern files, label files) line by
//! line, with errors that name the file and the 1-based line.

use std::io::{BufRead, BufReader};
use std::path::Path;

use ocgraph_core::{Error, Result};

/// Calls `f(line number, line)` on every line of `path` (1-based numbers; the line without its
/// `\n` or `\r\n`). A line that is not UTF-8 text is an error naming it.
pub(crate) fn for_each_text_line(path: &Path, f: impl FnMut(u64, &str) -> Result<()>) -> Result<()> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, "open", e))?;
    text_lines(path, BufReader::new(file), f)
}

/// [`for_each_text_line`] over `reader`, the content of `path`.
fn text_lines(
    path: &Path,
    mut reader: impl BufRead,
    mut f: impl FnMut(u64, &str) -> Result<()>,
) -> Result<()> {
    let mut buf = Vec::new();
    for no in 1.. {
        buf.clear();
        if reader.read_until(b'\n', &mut buf).map_err(|e| Error::io(path, "read", e))? == 0 {
            break;
        }
        let line = std::str::from_utf8(&buf).map_err(|e| {
            Error::input_line(path, no, format!("not UTF-8 text (byte {} of the line)", e.valid_up_to() + 1))
        })?;
        f(no, line.trim_end_matches(['\n', '\r']))?;
    }
    Ok(())
}

/// Calls `f(line number, trimmed text)` on every line of `path` that is not blank or a `#` or
/// `%` comment (the update files' lines); errors name the file and line.
pub(crate) fn for_each_line(path: &Path, f: impl FnMut(u64, &str) -> Result<()>) -> Result<()> {
    for_each_text_line(path, content(f))
}

/// [`for_each_line`] over `bytes`, the whole file at `path` read already (once: a pipe cannot
/// be read again).
pub(crate) fn for_each_line_in(
    path: &Path,
    bytes: &[u8],
    f: impl FnMut(u64, &str) -> Result<()>,
) -> Result<()> {
    text_lines(path, bytes, content(f))
}

/// `f` on the lines that are not blank or comments, trimmed.
fn content(mut f: impl FnMut(u64, &str) -> Result<()>) -> impl FnMut(u64, &str) -> Result<()> {
    move |no, line| {
        let text = line.trim();
        if text.is_empty() || text.starts_with('#') || text.starts_with('%') {
            return Ok(());
        }
        f(no, text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines keep their numbers across blank and comment lines; a line that is not UTF-8 is
    /// refused with its number.
    #[test]
    fn lines_are_numbered_and_bad_bytes_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("u.txt");
        std::fs::write(&path, b"+ 0 1\r\n\n# note\n- 1 2\n+ 0 \xff\n").unwrap();
        let mut seen = Vec::new();
        let err = for_each_line(&path, |no, text| {
            seen.push((no, text.to_string()));
            Ok(())
        })
        .unwrap_err()
        .to_string();
        assert_eq!(seen, [(1, "+ 0 1".to_string()), (4, "- 1 2".to_string())]);
        assert!(err.contains("u.txt") && err.contains('5') && err.contains("UTF-8"), "{err}");
    }
}
