//! The WAL frame: one batch of update items, checksummed (byte layout in docs/design.md).
//!
//! ```text
//! offset  size  field
//! 0       4     magic "OCWB"
//! 4       4     item count (u32 LE)
//! 8       8     batch sequence number (u64 LE)
//! 16      4     payload length in bytes (u32 LE) = 13 * item count
//! 20      4     flags (u32 LE): bit 0 = [`FLAG_UNSYNCED`]; the other bits zero
//! 24      ..    items, 13 bytes each: op (u8), a (u32 LE), b (u32 LE), weight (f32 LE)
//! 24+len  4     CRC-32C of bytes [0, 24 + len) (u32 LE)
//! ```

use crate::error::{Error, Result};
use crate::graph::Vertex;

/// Magic bytes opening every frame.
pub const FRAME_MAGIC: &[u8; 4] = b"OCWB";
/// Frame flag: the frame was written under durability `none`, so what the writer put in side
/// files before it (the names of the vertices it adds, in the id log) was not fsynced first, and
/// a crash may keep the frame but lose them. Recovery may drop such a batch, with every batch
/// after it, where it would refuse an unflagged one (see [`crate::update::Replay`]).
pub const FLAG_UNSYNCED: u32 = 1;
/// Bytes of the frame header.
pub const HEADER_LEN: usize = 24;
/// Bytes of one encoded item.
pub const ITEM_LEN: usize = 13;
/// Bytes of the trailer (the checksum).
pub const TRAILER_LEN: usize = 4;
/// Largest payload accepted when decoding (guards against a corrupt length field).
pub const MAX_PAYLOAD: usize = 1 << 30;
/// Most items one batch may hold: its frame's payload is at most [`MAX_PAYLOAD`], so a batch
/// that is logged can always be replayed.
pub const MAX_BATCH_ITEMS: usize = MAX_PAYLOAD / ITEM_LEN;

/// Checks that a batch of `len` items fits in one frame; `what` names the caller in the error.
pub(crate) fn check_batch_len(len: usize, what: &str) -> Result<()> {
    if len > MAX_BATCH_ITEMS {
        return Err(Error::invalid(format!(
            "{what}: a batch holds at most {MAX_BATCH_ITEMS} items (its log frame is at most 1 GiB); \
             this one has {len}: split it"
        )));
    }
    Ok(())
}

/// One logged update.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WalItem {
    /// Add (or re-weight) the edge `src -> dst` (op code 1).
    AddEdge {
        /// Source vertex.
        src: Vertex,
        /// Destination vertex.
        dst: Vertex,
        /// Weight (1.0 on unweighted graphs).
        weight: f32,
    },
    /// Remove the edge `src -> dst` if present (op code 2).
    RemoveEdge {
        /// Source vertex.
        src: Vertex,
        /// Destination vertex.
        dst: Vertex,
    },
    /// Set the weight of the edge `src -> dst` if present (op code 3).
    SetWeight {
        /// Source vertex.
        src: Vertex,
        /// Destination vertex.
        dst: Vertex,
        /// New weight.
        weight: f32,
    },
    /// Append `count` new isolated vertices (op code 4; `a` = count).
    AddVertices {
        /// Number of vertices added.
        count: u32,
    },
    /// Remove every edge incident to `v` (op code 5; `a` = v).
    RemoveVertex {
        /// The vertex.
        v: Vertex,
    },
    /// Set the label of `v` (op code 6; `a` = v, `b` = label; [`NO_LABEL`] removes it).
    ///
    /// [`NO_LABEL`]: crate::labels::NO_LABEL
    SetLabel {
        /// The vertex.
        v: Vertex,
        /// Its label from this batch on.
        label: u32,
    },
}

impl WalItem {
    /// Appends the item's [`ITEM_LEN`] bytes: op (u8), a (u32 LE), b (u32 LE), weight (f32 LE).
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        let (op, a, b, w) = match *self {
            WalItem::AddEdge { src, dst, weight } => (1u8, src, dst, weight),
            WalItem::RemoveEdge { src, dst } => (2, src, dst, 0.0),
            WalItem::SetWeight { src, dst, weight } => (3, src, dst, weight),
            WalItem::AddVertices { count } => (4, count, 0, 0.0),
            WalItem::RemoveVertex { v } => (5, v, 0, 0.0),
            WalItem::SetLabel { v, label } => (6, v, label, 0.0),
        };
        out.push(op);
        out.extend_from_slice(&a.to_le_bytes());
        out.extend_from_slice(&b.to_le_bytes());
        out.extend_from_slice(&w.to_le_bytes());
    }

    /// The item encoded in the first [`ITEM_LEN`] bytes of `b`; `None` for an unknown op code.
    pub(crate) fn decode(b: &[u8]) -> Option<WalItem> {
        let u = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
        let (a, d, w) = (u(1), u(5), f32::from_bits(u(9)));
        Some(match b[0] {
            1 => WalItem::AddEdge { src: a, dst: d, weight: w },
            2 => WalItem::RemoveEdge { src: a, dst: d },
            3 => WalItem::SetWeight { src: a, dst: d, weight: w },
            4 => WalItem::AddVertices { count: a },
            5 => WalItem::RemoveVertex { v: a },
            6 => WalItem::SetLabel { v: a, label: d },
            _ => return None,
        })
    }
}

/// Encodes the frame of batch `seq` with `flags` into `out` (cleared first).
pub fn encode_frame(seq: u64, flags: u32, items: &[WalItem], out: &mut Vec<u8>) {
    out.clear();
    out.reserve(HEADER_LEN + items.len() * ITEM_LEN + TRAILER_LEN);
    out.extend_from_slice(FRAME_MAGIC);
    out.extend_from_slice(&(items.len() as u32).to_le_bytes());
    out.extend_from_slice(&seq.to_le_bytes());
    out.extend_from_slice(&((items.len() * ITEM_LEN) as u32).to_le_bytes());
    out.extend_from_slice(&flags.to_le_bytes());
    for it in items {
        it.encode(out);
    }
    let crc = crc32c::crc32c(out);
    out.extend_from_slice(&crc.to_le_bytes());
}

/// The result of decoding bytes at some offset of a segment.
#[derive(Debug, PartialEq)]
pub enum Decoded {
    /// A valid frame of `len` bytes.
    Frame {
        /// Batch sequence number.
        seq: u64,
        /// The frame's flags ([`FLAG_UNSYNCED`]).
        flags: u32,
        /// The items.
        items: Vec<WalItem>,
        /// Encoded length of the frame.
        len: usize,
    },
    /// The bytes end before the frame does (a torn write at the tail).
    Truncated,
    /// The bytes are not a valid frame (bad magic, length, checksum or op code).
    Invalid(String),
}

/// Decodes the frame starting at `buf[0]`.
pub fn decode_frame(buf: &[u8]) -> Decoded {
    if buf.len() < HEADER_LEN {
        return if buf.iter().all(|&b| b == 0) || FRAME_MAGIC.starts_with(&buf[..buf.len().min(4)]) {
            Decoded::Truncated
        } else {
            Decoded::Invalid("bad frame magic".into())
        };
    }
    if &buf[0..4] != FRAME_MAGIC {
        return Decoded::Invalid("bad frame magic".into());
    }
    let count = u32::from_le_bytes(buf[4..8].try_into().unwrap()) as usize;
    let seq = u64::from_le_bytes(buf[8..16].try_into().unwrap());
    let payload = u32::from_le_bytes(buf[16..20].try_into().unwrap()) as usize;
    let flags = u32::from_le_bytes(buf[20..24].try_into().unwrap());
    if payload != count * ITEM_LEN || payload > MAX_PAYLOAD {
        return Decoded::Invalid(format!("payload length {payload} does not match {count} items"));
    }
    let len = HEADER_LEN + payload + TRAILER_LEN;
    if buf.len() < len {
        return Decoded::Truncated;
    }
    let stored = u32::from_le_bytes(buf[len - 4..len].try_into().unwrap());
    let crc = crc32c::crc32c(&buf[..len - 4]);
    if crc != stored {
        return Decoded::Invalid(format!("checksum mismatch (stored {stored:#010x}, computed {crc:#010x})"));
    }
    if flags & !FLAG_UNSYNCED != 0 {
        return Decoded::Invalid(format!("unknown frame flags {flags:#x}"));
    }
    let mut items = Vec::with_capacity(count);
    for chunk in buf[HEADER_LEN..HEADER_LEN + payload].chunks_exact(ITEM_LEN) {
        match WalItem::decode(chunk) {
            Some(it) => items.push(it),
            None => return Decoded::Invalid(format!("unknown op code {}", chunk[0])),
        }
    }
    Decoded::Frame { seq, flags, items, len }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_is_refused_where_its_frame_would_not_decode() {
        assert!(check_batch_len(MAX_BATCH_ITEMS, "add_edges").is_ok());
        let e = check_batch_len(MAX_BATCH_ITEMS + 1, "add_edges").unwrap_err();
        assert!(e.to_string().contains("add_edges: a batch holds at most 82595524 items"), "{e}");
        // The largest batch's header passes decoding's length check (the payload is not read
        // before the header is accepted).
        let mut header = Vec::new();
        let items = [WalItem::AddVertices { count: 1 }];
        encode_frame(1, 0, &items, &mut header);
        header[4..8].copy_from_slice(&(MAX_BATCH_ITEMS as u32).to_le_bytes());
        header[16..20].copy_from_slice(&((MAX_BATCH_ITEMS * ITEM_LEN) as u32).to_le_bytes());
        assert_eq!(decode_frame(&header), Decoded::Truncated);
        header[4..8].copy_from_slice(&(MAX_BATCH_ITEMS as u32 + 1).to_le_bytes());
        header[16..20].copy_from_slice(&((MAX_BATCH_ITEMS + 1) as u32 * ITEM_LEN as u32).to_le_bytes());
        assert!(matches!(decode_frame(&header), Decoded::Invalid(_)));
    }

    #[test]
    fn round_trip_and_corruption() {
        let items = vec![
            WalItem::AddEdge { src: 1, dst: 2, weight: 0.5 },
            WalItem::RemoveEdge { src: 3, dst: 4 },
            WalItem::SetWeight { src: 5, dst: 6, weight: 2.0 },
            WalItem::AddVertices { count: 7 },
            WalItem::RemoveVertex { v: 8 },
            WalItem::SetLabel { v: 9, label: 10 },
        ];
        let mut buf = Vec::new();
        encode_frame(42, FLAG_UNSYNCED, &items, &mut buf);
        assert_eq!(buf.len(), HEADER_LEN + 6 * ITEM_LEN + TRAILER_LEN);
        assert_eq!(
            decode_frame(&buf),
            Decoded::Frame { seq: 42, flags: FLAG_UNSYNCED, items: items.clone(), len: buf.len() }
        );
        for cut in 0..buf.len() {
            assert_eq!(decode_frame(&buf[..cut]), Decoded::Truncated, "cut at {cut}");
        }
        let mut bad = buf.clone();
        bad[30] ^= 1;
        assert!(matches!(decode_frame(&bad), Decoded::Invalid(_)));
        // A flag this version does not know is refused even under a valid checksum.
        encode_frame(42, 2, &items, &mut buf);
        assert_eq!(decode_frame(&buf), Decoded::Invalid("unknown frame flags 0x2".into()));
    }
}
