//! Block-compressed copies of the adjacency files (`ocgraph layout compress`): a plain file
//! (`out.neighbors`, `in.neighbors`, `out.weights`, `in.weights`) cut into logical blocks of a
//! fixed size, each compressed on its own, with an index so that any logical byte maps to one
//! block. The buffer pool reads a block and decodes it into its frames; byte-by-byte layout in
//! docs/design.md, "Compressed adjacency".
//!
//! A compressed file is a 64-byte header, then one 16-byte index entry per block, then the
//! blocks back to back. Block `k` covers bytes `k * block_size ..` of the plain file as stored
//! (padded to 4096); its stored bytes are the plain bytes as they are when that is not larger,
//! otherwise the plane mask of [`encode_block`] (one byte) followed by the planes it lists
//! compressed as one LZ4 block (`lz4_flex::block`, no size prefix).

use std::path::Path;

use crate::error::{Error, Result};

/// Magic bytes of a compressed file.
pub const BLOCKS_MAGIC: &[u8; 8] = b"OCGBLKZ\0";
/// Version of the compressed files this build writes and reads.
pub const BLOCKS_VERSION: u32 = 1;
/// Bytes of the header.
pub const BLOCKS_HEADER_LEN: usize = 64;
/// Bytes of one index entry.
pub const BLOCKS_ENTRY_LEN: usize = 16;
/// Codec code of LZ4 (the only codec).
const CODEC_LZ4: u32 = 1;
/// The default logical block size (see docs/layouts.md for the measurement behind it).
pub const DEFAULT_BLOCK_SIZE: u32 = 16 << 10;
/// The largest logical block.
pub const MAX_BLOCK_SIZE: u32 = 1 << 20;

/// How a block's u32 words are transformed before LZ4.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transform {
    /// Byte planes only (weights).
    Planes,
    /// The zigzag code of each word minus the previous one (the first minus 0), then byte
    /// planes (neighbour ids, ascending within each list).
    DeltaPlanes,
}

impl Transform {
    fn code(self) -> u32 {
        match self {
            Transform::Planes => 0,
            Transform::DeltaPlanes => 1,
        }
    }

    fn from_code(code: u32) -> Option<Transform> {
        match code {
            0 => Some(Transform::Planes),
            1 => Some(Transform::DeltaPlanes),
            _ => None,
        }
    }
}

/// Zigzag code of a signed difference: `2d` for `d >= 0`, `-2d - 1` for `d < 0`.
fn zigzag(d: u32) -> u32 {
    (d << 1) ^ ((d as i32 >> 31) as u32)
}

/// Inverts [`zigzag`].
fn unzigzag(z: u32) -> u32 {
    (z >> 1) ^ 0u32.wrapping_sub(z & 1)
}

/// Transforms the u32 words of `raw` (a multiple of 4 bytes) for LZ4: with
/// [`Transform::DeltaPlanes`] each word becomes the zigzag code of its difference from the
/// previous one (the first from 0); then byte `j` of word `i` goes to plane `j`, at index `i`.
/// Returns the mask of the planes holding a non-zero byte (bit `j`: plane `j`) and those planes
/// back to back, so that the zero high bytes of small gaps cost nothing.
pub fn encode_block(raw: &[u8], transform: Transform) -> (u8, Vec<u8>) {
    let words = raw.len() / 4;
    let mut planes = vec![0u8; raw.len()];
    let mut prev = 0u32;
    for (i, w) in raw.chunks_exact(4).enumerate() {
        let w = u32::from_le_bytes(w.try_into().expect("4 bytes"));
        let v = match transform {
            Transform::Planes => w,
            Transform::DeltaPlanes => zigzag(w.wrapping_sub(prev)),
        };
        prev = w;
        for (j, b) in v.to_le_bytes().into_iter().enumerate() {
            planes[j * words + i] = b;
        }
    }
    let mut mask = 0u8;
    let mut out = Vec::with_capacity(raw.len());
    for (j, plane) in planes.chunks(words.max(1)).enumerate() {
        if plane.iter().any(|&b| b != 0) {
            mask |= 1 << j;
            out.extend_from_slice(plane);
        }
    }
    (mask, out)
}

/// Inverts [`encode_block`]: the planes of `mask`, back to back in `present` (as
/// decompressed), into `out`; `zeros` stands for the absent planes (`out.len() / 4` zero
/// bytes). Any input decodes (wrapping arithmetic); a corrupted one gives wrong words, which
/// the block's checksum catches first.
pub fn decode_planes(mask: u8, present: &[u8], zeros: &[u8], transform: Transform, out: &mut [u8]) {
    let words = out.len() / 4;
    let mut next = present.chunks_exact(words.max(1));
    let mut plane = |j: u8| if mask & (1 << j) != 0 { next.next().unwrap_or(zeros) } else { zeros };
    let (p0, p1, p2, p3) = (plane(0), plane(1), plane(2), plane(3));
    let planes = p0[..words].iter().zip(&p1[..words]).zip(&p2[..words]).zip(&p3[..words]);
    let words = out.chunks_exact_mut(4).zip(planes);
    match transform {
        Transform::Planes => {
            for (o, (((&a, &b), &c), &d)) in words {
                o.copy_from_slice(&[a, b, c, d]);
            }
        }
        Transform::DeltaPlanes => {
            let mut prev = 0u32;
            for (o, (((&a, &b), &c), &d)) in words {
                prev = prev.wrapping_add(unzigzag(u32::from_le_bytes([a, b, c, d])));
                o.copy_from_slice(&prev.to_le_bytes());
            }
        }
    }
}

/// Compresses one logical block: the bytes to store for `raw` (the plain bytes when
/// compression would not make them smaller): the plane mask of [`encode_block`], then its
/// planes compressed as one LZ4 block.
pub fn compress_block(raw: &[u8], transform: Transform) -> Vec<u8> {
    let (mask, planes) = encode_block(raw, transform);
    let mut stored = vec![mask];
    stored.extend_from_slice(&lz4_flex::block::compress(&planes));
    if stored.len() >= raw.len() {
        raw.to_vec()
    } else {
        stored
    }
}

/// One block's place in the compressed file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockEntry {
    /// Offset of the stored bytes in the compressed file.
    pub offset: u64,
    /// Stored length; equal to the block's logical length when stored uncompressed.
    pub len: u32,
    /// CRC-32C of the stored bytes.
    pub crc32c: u32,
}

/// The verified header and index of a compressed file, read whole at open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockIndex {
    /// Logical block size in bytes (a multiple of 4096).
    pub block_size: u32,
    /// How the blocks' words are transformed.
    pub transform: Transform,
    /// Length of the plain file the blocks hold (its padded length on disk).
    pub logical_len: u64,
    /// One entry per block.
    pub blocks: Vec<BlockEntry>,
}

impl BlockIndex {
    /// Bytes of header and index for `blocks` blocks: where the first block starts.
    pub fn data_start(blocks: usize) -> u64 {
        (BLOCKS_HEADER_LEN + BLOCKS_ENTRY_LEN * blocks) as u64
    }

    /// Number of blocks covering `logical_len` bytes.
    pub fn block_count(logical_len: u64, block_size: u32) -> usize {
        logical_len.div_ceil(block_size as u64) as usize
    }

    /// Logical length of block `k` (the last one may be short).
    pub fn logical_block_len(&self, k: usize) -> usize {
        let start = k as u64 * self.block_size as u64;
        (self.logical_len - start).min(self.block_size as u64) as usize
    }

    /// Whether block `k` is stored uncompressed.
    pub fn is_raw(&self, k: usize) -> bool {
        self.blocks[k].len as usize == self.logical_block_len(k)
    }

    /// Header and index bytes of this index.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut entries = Vec::with_capacity(BLOCKS_ENTRY_LEN * self.blocks.len());
        for b in &self.blocks {
            entries.extend_from_slice(&b.offset.to_le_bytes());
            entries.extend_from_slice(&b.len.to_le_bytes());
            entries.extend_from_slice(&b.crc32c.to_le_bytes());
        }
        let mut out = Vec::with_capacity(BLOCKS_HEADER_LEN + entries.len());
        out.extend_from_slice(BLOCKS_MAGIC);
        out.extend_from_slice(&BLOCKS_VERSION.to_le_bytes());
        out.extend_from_slice(&CODEC_LZ4.to_le_bytes());
        out.extend_from_slice(&self.transform.code().to_le_bytes());
        out.extend_from_slice(&self.block_size.to_le_bytes());
        out.extend_from_slice(&self.logical_len.to_le_bytes());
        out.extend_from_slice(&(self.blocks.len() as u64).to_le_bytes());
        out.extend_from_slice(&crc32c::crc32c(&entries).to_le_bytes());
        out.resize(BLOCKS_HEADER_LEN, 0);
        out.extend_from_slice(&entries);
        out
    }

    /// Reads and verifies the header and index of the compressed file at `path`, whose data
    /// length is `data_len` (the manifest's), holding the plain file of `logical_len` bytes as
    /// stored. Checks magic, version, codec, transform, block size, lengths, the index's
    /// checksum, and that the blocks follow each other from the end of the index to
    /// `data_len`, none longer than its logical length.
    pub fn read(path: &Path, data_len: u64, logical_len: u64) -> Result<BlockIndex> {
        use std::io::Read;
        let bad = |offset: u64, msg: String| Error::Format { path: path.into(), offset: Some(offset), msg };
        let mut f = std::fs::File::open(path).map_err(|e| Error::io(path, "open", e))?;
        let mut head = [0u8; BLOCKS_HEADER_LEN];
        if data_len < BLOCKS_HEADER_LEN as u64 {
            return Err(bad(0, format!("{data_len} bytes, shorter than the 64-byte header")));
        }
        f.read_exact(&mut head).map_err(|e| Error::io(path, "read", e))?;
        let u32_at = |o: usize| u32::from_le_bytes(head[o..o + 4].try_into().expect("4 bytes"));
        let u64_at = |o: usize| u64::from_le_bytes(head[o..o + 8].try_into().expect("8 bytes"));
        if &head[..8] != BLOCKS_MAGIC {
            return Err(bad(0, "bad magic: not a compressed adjacency file".into()));
        }
        if u32_at(8) != BLOCKS_VERSION {
            return Err(bad(8, format!("version {} (this build reads {BLOCKS_VERSION})", u32_at(8))));
        }
        if u32_at(12) != CODEC_LZ4 {
            return Err(bad(12, format!("unknown codec {}", u32_at(12))));
        }
        let transform = Transform::from_code(u32_at(16))
            .ok_or_else(|| bad(16, format!("unknown transform {}", u32_at(16))))?;
        let block_size = u32_at(20);
        if block_size == 0 || !block_size.is_multiple_of(4096) || block_size > MAX_BLOCK_SIZE {
            return Err(bad(
                20,
                format!("block size {block_size} is not a multiple of 4096 up to {MAX_BLOCK_SIZE}"),
            ));
        }
        if u64_at(24) != logical_len {
            return Err(bad(24, format!("holds {} bytes, the plain file has {logical_len}", u64_at(24))));
        }
        let count = Self::block_count(logical_len, block_size);
        if u64_at(32) != count as u64 {
            return Err(bad(32, format!("{} blocks, expected {count}", u64_at(32))));
        }
        let start = Self::data_start(count);
        if start > data_len {
            return Err(bad(0, format!("{data_len} bytes, shorter than its {start}-byte index")));
        }
        let mut entries = vec![0u8; count * BLOCKS_ENTRY_LEN];
        f.read_exact(&mut entries).map_err(|e| Error::io(path, "read", e))?;
        let crc = crc32c::crc32c(&entries);
        if crc != u32_at(40) {
            return Err(bad(
                40,
                format!("index checksum mismatch (stored {:#010x}, computed {crc:#010x})", u32_at(40)),
            ));
        }
        let mut index = BlockIndex { block_size, transform, logical_len, blocks: Vec::with_capacity(count) };
        let mut at = start;
        for (k, e) in entries.chunks_exact(BLOCKS_ENTRY_LEN).enumerate() {
            let entry = BlockEntry {
                offset: u64::from_le_bytes(e[..8].try_into().expect("8 bytes")),
                len: u32::from_le_bytes(e[8..12].try_into().expect("4 bytes")),
                crc32c: u32::from_le_bytes(e[12..].try_into().expect("4 bytes")),
            };
            let pos = (BLOCKS_HEADER_LEN + k * BLOCKS_ENTRY_LEN) as u64;
            if entry.offset != at {
                return Err(bad(pos, format!("block {k} starts at {}, expected {at}", entry.offset)));
            }
            index.blocks.push(entry);
            if entry.len as usize > index.logical_block_len(k) {
                return Err(bad(
                    pos + 8,
                    format!("block {k} stores {} bytes, more than its plain length", entry.len),
                ));
            }
            at += entry.len as u64;
        }
        if at != data_len {
            return Err(bad(data_len.min(at), format!("blocks end at byte {at}, the file holds {data_len}")));
        }
        Ok(index)
    }

    /// Decodes block `k` from its `stored` bytes into `out` (its logical length), using
    /// `planes` (at least 5/4 of that long) as scratch. Checks the stored bytes' checksum, the
    /// plane mask and the decompressed length; the error message names the block (the caller
    /// adds the file and offset).
    pub fn decode(
        &self,
        k: usize,
        stored: &[u8],
        planes: &mut [u8],
        out: &mut [u8],
    ) -> std::result::Result<(), String> {
        let e = self.blocks[k];
        let crc = crc32c::crc32c(stored);
        if crc != e.crc32c {
            return Err(format!("block {k}: checksum mismatch (index {:#010x}, data {crc:#010x})", e.crc32c));
        }
        if self.is_raw(k) {
            out.copy_from_slice(stored);
            return Ok(());
        }
        let (&mask, packed) = stored.split_first().ok_or_else(|| format!("block {k}: empty"))?;
        if mask > 0xf {
            return Err(format!("block {k}: bad plane mask {mask:#04x}"));
        }
        let words = out.len() / 4;
        let want = mask.count_ones() as usize * words;
        let (present, zeros) = planes[..out.len() + words].split_at_mut(out.len());
        match lz4_flex::block::decompress_into(packed, &mut present[..want]) {
            Ok(n) if n == want => {}
            Ok(n) => return Err(format!("block {k}: decompresses to {n} bytes, expected {want}")),
            Err(err) => return Err(format!("block {k}: LZ4 data does not decode: {err}")),
        }
        zeros.fill(0);
        decode_planes(mask, &present[..want], zeros, self.transform, out);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delta_planes_layout_and_round_trip() {
        // Words 5, 7, 7, 3 (a new list starting lower): differences 5, 2, 0, -4, zigzag
        // 10, 4, 0, 7: only plane 0 is not zero.
        let words = [5u32, 7, 7, 3];
        let raw: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let (mask, planes) = encode_block(&raw, Transform::DeltaPlanes);
        assert_eq!((mask, &planes[..]), (0b0001, &[10u8, 4, 0, 7][..]));
        let zeros = [0u8; 4];
        let mut back = vec![0u8; raw.len()];
        decode_planes(mask, &planes, &zeros, Transform::DeltaPlanes, &mut back);
        assert_eq!(back, raw);
        // Weights 1.0 and 2.5 (0x3f800000, 0x40200000): planes 2 and 3.
        let raw: Vec<u8> = [1.0f32, 2.5].iter().flat_map(|w| w.to_le_bytes()).collect();
        let (mask, planes) = encode_block(&raw, Transform::Planes);
        assert_eq!((mask, &planes[..]), (0b1100, &[0x80u8, 0x20, 0x3f, 0x40][..]));
        decode_planes(mask, &planes, &zeros, Transform::Planes, &mut back[..8]);
        assert_eq!(&back[..8], &raw[..]);
        // Extremes: the largest jumps both ways.
        let raw: Vec<u8> = [0u32, u32::MAX, 0, 1 << 31].iter().flat_map(|w| w.to_le_bytes()).collect();
        let (mask, planes) = encode_block(&raw, Transform::DeltaPlanes);
        decode_planes(mask, &planes, &zeros, Transform::DeltaPlanes, &mut back);
        assert_eq!(back, raw);
    }

    #[test]
    fn index_round_trips_and_rejects_bad_entries() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.lz4");
        let block = 4096u32;
        let plain: Vec<u8> = (0..3 * 4096u32 / 4).flat_map(|i| (i / 3).to_le_bytes()).collect();
        let mut index = BlockIndex {
            block_size: block,
            transform: Transform::DeltaPlanes,
            logical_len: plain.len() as u64,
            blocks: vec![],
        };
        let mut at = BlockIndex::data_start(3);
        let mut data = Vec::new();
        for chunk in plain.chunks(block as usize) {
            let s = compress_block(chunk, Transform::DeltaPlanes);
            index.blocks.push(BlockEntry { offset: at, len: s.len() as u32, crc32c: crc32c::crc32c(&s) });
            at += s.len() as u64;
            data.extend_from_slice(&s);
        }
        let mut file = index.to_bytes();
        file.extend_from_slice(&data);
        std::fs::write(&path, &file).unwrap();
        let read = BlockIndex::read(&path, file.len() as u64, plain.len() as u64).unwrap();
        assert_eq!(read, index);
        for k in 0..3 {
            let e = read.blocks[k];
            let stored = &file[e.offset as usize..(e.offset + e.len as u64) as usize];
            let (mut planes, mut out) = (vec![0u8; 5120], vec![0u8; 4096]);
            read.decode(k, stored, &mut planes, &mut out).unwrap();
            assert_eq!(out, &plain[k * 4096..(k + 1) * 4096]);
            let mut bad = stored.to_vec();
            bad[0] ^= 1;
            assert!(read.decode(k, &bad, &mut planes, &mut out).unwrap_err().contains("checksum"));
        }
        // A flipped index byte: the index checksum.
        let mut bad = file.clone();
        bad[BLOCKS_HEADER_LEN + 9] ^= 1;
        std::fs::write(&path, &bad).unwrap();
        let err = BlockIndex::read(&path, file.len() as u64, plain.len() as u64).unwrap_err();
        assert!(err.to_string().contains("index checksum"), "{err}");
        // A length that disagrees with the plain file.
        std::fs::write(&path, &file).unwrap();
        assert!(BlockIndex::read(&path, file.len() as u64, 4096).is_err());
        assert!(BlockIndex::read(&path, file.len() as u64 - 1, plain.len() as u64).is_err());
    }
}
