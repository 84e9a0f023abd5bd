//! Opening an input (plain or gzip, detected by the magic bytes `1f 8b`) and reading it in large
//! blocks that end at line boundaries (text) or record boundaries (binary).

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use flate2::read::MultiGzDecoder;

use crate::error::{Error, Result};

/// Bytes per block at most.
pub(crate) const BLOCK: usize = 16 << 20;

/// Bytes per block at least (a longer line grows its block).
const MIN_BLOCK: usize = 64 << 10;

/// What a block of `block` bytes and the edges parsed from it may take at most: the block, and
/// 16 bytes of ids and 4 of weight per edge, at least 4 bytes a line (`1 2\n`).
pub(crate) fn parse_bytes_of(block: usize) -> u64 {
    5 * block as u64
}

/// Bytes per block of an import whose budget is `memory`: the block and its parsed edges
/// ([`parse_bytes_of`]) take at most a third of the budget, within 64 KiB and [`BLOCK`].
pub(crate) fn block_for(memory: u64) -> usize {
    ((memory / 3 / parse_bytes_of(1)) as usize).clamp(MIN_BLOCK, BLOCK)
}

/// An opened input stream.
pub(crate) struct Input {
    path: PathBuf,
    reader: Box<dyn Read + Send>,
    /// Whether the file is gzip-compressed.
    pub gzip: bool,
    /// Size of the file on disk.
    pub file_len: u64,
    /// Bytes per block read ([`BLOCK`]; smaller for an input in memory).
    block: usize,
    /// Bytes read so far (decompressed): where a damaged gzip stream is reported.
    read: u64,
}

/// The first two bytes of a gzip member.
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// A buffered reader of the text file at `path`, decompressed when it is gzip'd (known by its
/// magic): the small line files (labels, updates, patterns) read as the edge lists are.
pub fn text_reader(path: &Path) -> Result<Box<dyn BufRead>> {
    let file = File::open(path).map_err(|e| Error::io(path, "open", e))?;
    let mut reader = BufReader::new(file);
    let gzip = reader.fill_buf().map_err(|e| Error::io(path, "read", e))?.starts_with(&GZIP_MAGIC);
    Ok(if gzip { Box::new(BufReader::new(MultiGzDecoder::new(reader))) } else { Box::new(reader) })
}

/// Whether the file at `path` starts with the gzip magic bytes.
pub(crate) fn is_gzip(path: &Path) -> Result<bool> {
    let mut f = File::open(path).map_err(|e| Error::io(path, "open", e))?;
    let mut magic = [0u8; 2];
    let mut got = 0;
    while got < 2 {
        match f.read(&mut magic[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io(path, "read", e)),
        }
    }
    Ok(got == 2 && magic == GZIP_MAGIC)
}

impl Input {
    /// Opens `path`, decompressing gzip transparently when `gzip_allowed` (text, CSV and
    /// MatrixMarket; a binary edge list is read as it is, whatever its first bytes).
    pub(crate) fn open(path: &Path, gzip_allowed: bool) -> Result<Input> {
        let gzip = gzip_allowed && is_gzip(path)?;
        let f = File::open(path).map_err(|e| Error::io(path, "open", e))?;
        let file_len = f.metadata().map_err(|e| Error::io(path, "stat", e))?.len();
        let reader: Box<dyn Read + Send> = if gzip {
            Box::new(MultiGzDecoder::new(BufReader::with_capacity(1 << 20, f)))
        } else {
            Box::new(f)
        };
        Ok(Input { path: path.to_path_buf(), reader, gzip, file_len, block: BLOCK, read: 0 })
    }

    /// An input reading `bytes` (gzip'd when they start with the magic bytes) as if from `path`,
    /// in blocks of 4 KiB (so that lines and records cross blocks).
    #[cfg(feature = "fuzzing")]
    pub(crate) fn from_bytes(path: &Path, bytes: Vec<u8>) -> Input {
        let gzip = bytes.starts_with(&GZIP_MAGIC);
        let file_len = bytes.len() as u64;
        let cursor = std::io::Cursor::new(bytes);
        let reader: Box<dyn Read + Send> =
            if gzip { Box::new(MultiGzDecoder::new(cursor)) } else { Box::new(cursor) };
        Input { path: path.to_path_buf(), reader, gzip, file_len, block: 4096, read: 0 }
    }

    /// Reads blocks of `block` bytes (lines longer than that still read whole).
    pub(crate) fn with_block(mut self, block: usize) -> Input {
        self.block = block;
        self
    }

    /// The path errors name.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Reads until `buf` is full or the input ends; returns the bytes read.
    pub(crate) fn fill(&mut self, buf: &mut [u8]) -> Result<usize> {
        let mut got = 0;
        while got < buf.len() {
            match self.reader.read(&mut buf[got..]) {
                Ok(0) => break,
                Ok(k) => {
                    got += k;
                    self.read += k as u64;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                // A damaged or cut gzip stream is the file's content, not a failing device.
                Err(e) if self.gzip && e.raw_os_error().is_none() => {
                    return Err(Error::input(
                        &self.path,
                        format!("damaged gzip data after {} decompressed bytes: {e}", self.read),
                    ));
                }
                Err(e) => {
                    let op = if self.gzip { "decompress" } else { "read" };
                    return Err(Error::io(&self.path, op, e));
                }
            }
        }
        Ok(got)
    }
}

/// Reads an [`Input`] in blocks of whole lines.
pub(crate) struct LineBlocks {
    input: Input,
    buf: Vec<u8>,
    filled: usize,
    consumed: usize,
    eof: bool,
}

impl LineBlocks {
    /// Starts reading `input`.
    pub(crate) fn new(input: Input) -> LineBlocks {
        let buf = vec![0; input.block];
        LineBlocks { input, buf, filled: 0, consumed: 0, eof: false }
    }

    /// The next block of whole lines (the last may lack its newline) that satisfies `enough`
    /// (read further, the block growing, until it does or the input ends), or `None` at the
    /// end. A header after more comment lines than a block holds is so read whole.
    pub(crate) fn next_block_holding(&mut self, enough: impl Fn(&[u8]) -> bool) -> Result<Option<&[u8]>> {
        self.buf.copy_within(self.consumed..self.filled, 0);
        self.filled -= self.consumed;
        self.consumed = 0;
        if self.buf.len() > self.input.block && self.filled <= self.input.block {
            // Back to the block size after a long line or header.
            self.buf.truncate(self.input.block);
            self.buf.shrink_to_fit();
        }
        loop {
            if !self.eof && self.filled < self.buf.len() {
                let k = self.input.fill(&mut self.buf[self.filled..])?;
                self.filled += k;
                self.eof = k == 0 || self.filled < self.buf.len();
            }
            if self.eof {
                self.consumed = self.filled;
                return Ok(if self.filled == 0 { None } else { Some(&self.buf[..self.filled]) });
            }
            if let Some(i) =
                memchr::memrchr(b'\n', &self.buf[..self.filled]).filter(|&i| enough(&self.buf[..i + 1]))
            {
                self.consumed = i + 1;
                return Ok(Some(&self.buf[..i + 1]));
            }
            // One line longer than the buffer, or not enough lines: grow it.
            let len = self.buf.len() * 2;
            self.buf.resize(len, 0);
        }
    }
}

/// Reads an [`Input`] in blocks of whole fixed-size records.
pub(crate) struct RecordBlocks {
    input: Input,
    buf: Vec<u8>,
    record: usize,
    offset: u64,
}

impl RecordBlocks {
    /// Starts reading records of `record` bytes.
    pub(crate) fn new(input: Input, record: usize) -> RecordBlocks {
        let buf = vec![0; (input.block / record).max(1) * record];
        RecordBlocks { input, buf, record, offset: 0 }
    }

    /// The next block and the byte offset of its start, or `None` at the end. A trailing
    /// partial record is an error naming its offset.
    pub(crate) fn next_block(&mut self) -> Result<Option<(u64, &[u8])>> {
        let k = {
            let mut b = std::mem::take(&mut self.buf);
            let k = self.input.fill(&mut b);
            self.buf = b;
            k?
        };
        if k == 0 {
            return Ok(None);
        }
        let whole = k / self.record * self.record;
        if whole != k {
            return Err(Error::input_offset(
                &self.input.path,
                self.offset + whole as u64,
                format!("truncated record: {} trailing bytes, records are {} bytes", k - whole, self.record),
            ));
        }
        let start = self.offset;
        self.offset += k as u64;
        Ok(Some((start, &self.buf[..k])))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_and_its_parsed_edges_take_a_third_of_the_budget() {
        for memory in [1u64 << 10, 4 << 20, 100 << 20, 1 << 30, 1 << 40] {
            let block = block_for(memory);
            assert!((MIN_BLOCK..=BLOCK).contains(&block), "{memory}: {block}");
            assert!(block == MIN_BLOCK || parse_bytes_of(block) <= memory / 3, "{memory}: {block}");
        }
        assert_eq!(block_for(1 << 30), BLOCK);
    }
}
