//! Reading the CLI's small text inputs (update files, pattern files, label files) line by
//! line, with errors that name the file and the 1-based line. As for the importers' text, a file
//! may be gzip'd (known by its magic) and may start with a UTF-8 byte-order mark (skipped).

use std::borrow::Cow;
use std::io::{BufRead, Read};
use std::path::Path;

use flate2::bufread::MultiGzDecoder;
use ocgraph_core::ingest::{text_reader, GZIP_MAGIC};
use ocgraph_core::labels::NO_LABEL;
use ocgraph_core::{Error, Result};

/// Calls `f(line number, line)` on every line of `path` (1-based numbers; the line without its
/// `\n` or `\r\n`). A line that is not UTF-8 text is an error naming it.
pub(crate) fn for_each_text_line(path: &Path, f: impl FnMut(u64, &str) -> Result<()>) -> Result<()> {
    text_lines(path, text_reader(path)?, f)
}

/// [`for_each_text_line`] over `reader`, the content of `path` (uncompressed).
fn text_lines(
    path: &Path,
    mut reader: impl BufRead,
    mut f: impl FnMut(u64, &str) -> Result<()>,
) -> Result<()> {
    let mut buf = Vec::new();
    for no in 1.. {
        buf.clear();
        // A damaged gzip stream is a read error, named with the file.
        if reader.read_until(b'\n', &mut buf).map_err(|e| Error::io(path, "read", e))? == 0 {
            break;
        }
        let text = if no == 1 { buf.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&buf) } else { &buf };
        let line = std::str::from_utf8(text).map_err(|e| {
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
    text_lines(path, &*gunzipped(path, bytes)?, content(f))
}

/// `bytes`, the whole file at `path`, uncompressed when it is gzip'd (known by its magic).
pub(crate) fn gunzipped<'a>(path: &Path, bytes: &'a [u8]) -> Result<Cow<'a, [u8]>> {
    if !bytes.starts_with(&GZIP_MAGIC) {
        return Ok(Cow::Borrowed(bytes));
    }
    let mut plain = Vec::new();
    // A damaged or cut stream is the file's content: the error says where the text stopped
    // (what was decompressed before the damage is kept in `plain`).
    MultiGzDecoder::new(bytes).read_to_end(&mut plain).map_err(|e| {
        let line = plain.iter().filter(|&&b| b == b'\n').count() + 1;
        Error::input(
            path,
            format!("damaged gzip data after {} decompressed bytes (in line {line}): {e}", plain.len()),
        )
    })?;
    Ok(Cow::Owned(plain))
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

/// A label of a text file: an unsigned integer below `NO_LABEL`, or `-` for none (`NO_LABEL`).
/// `NO_LABEL` written as its value is refused, as `import --labels` refuses it: a line that
/// means to set a label does not remove one. The error says what a label is.
pub(crate) fn parse_label(text: &str) -> std::result::Result<u32, String> {
    if text == "-" {
        return Ok(NO_LABEL);
    }
    text.parse().ok().filter(|&l| l != NO_LABEL).ok_or_else(|| {
        format!("bad label '{}': a label is an integer below {NO_LABEL}, or - for none", text.escape_debug())
    })
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

    /// A byte-order mark opening the file is skipped (not one later); a gzip'd file is read as
    /// its text, from a path and from bytes read already; a damaged one is an error naming it.
    #[test]
    fn byte_order_marks_are_skipped_and_gzip_is_read() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let text = "\u{feff}+ 0 1\n\u{feff}- 1 2\n";
        let plain = dir.path().join("u.txt");
        std::fs::write(&plain, text).unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(text.as_bytes()).unwrap();
        let gz = gz.finish().unwrap();
        let zipped = dir.path().join("u.txt.gz");
        std::fs::write(&zipped, &gz).unwrap();
        let expected = [(1, "+ 0 1".to_string()), (2, "\u{feff}- 1 2".to_string())];
        let collect = |seen: &mut Vec<(u64, String)>, no: u64, text: &str| {
            seen.push((no, text.to_string()));
            Ok(())
        };
        let (mut from_plain, mut from_zipped, mut from_bytes) = (Vec::new(), Vec::new(), Vec::new());
        for_each_line(&plain, |no, text| collect(&mut from_plain, no, text)).unwrap();
        for_each_line(&zipped, |no, text| collect(&mut from_zipped, no, text)).unwrap();
        for_each_line_in(&zipped, &gz, |no, text| collect(&mut from_bytes, no, text)).unwrap();
        assert_eq!(from_plain, expected);
        assert_eq!(from_zipped, expected);
        assert_eq!(from_bytes, expected);
        let cut = dir.path().join("cut.gz");
        std::fs::write(&cut, &gz[..gz.len() - 12]).unwrap();
        let err = for_each_line(&cut, |_, _| Ok(())).unwrap_err().to_string();
        assert!(err.contains("cut.gz"), "{err}");
        // Read whole first (a stream's update file): where the text stopped, by bytes and line.
        let long: String = (0..2000).map(|i| format!("+ {i} {}\n", i + 1)).collect();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(long.as_bytes()).unwrap();
        let gz = gz.finish().unwrap();
        let cut = &gz[..gz.len() / 2];
        let err = for_each_line_in(&zipped, cut, |_, _| Ok(())).unwrap_err().to_string();
        let got: usize =
            err.split("after ").nth(1).and_then(|t| t.split(' ').next()).unwrap().parse().unwrap();
        let line = long.as_bytes()[..got].iter().filter(|&&b| b == b'\n').count() + 1;
        assert!(got > 0 && got < long.len(), "{err}");
        assert!(err.contains("u.txt.gz") && err.contains(&format!("(in line {line})")), "{err}");
    }
}
