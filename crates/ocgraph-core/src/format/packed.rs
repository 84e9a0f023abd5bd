//! Packed neighbour lists: each sorted list stored as bit-packed gaps, about half the bytes of
//! plain `u32` lists on Kronecker graphs (1.97 bytes per arc on kron22), so that a graph larger
//! than memory is read in about half the time, and decoded without a branch per value.
//!
//! The list of vertex `v` with `d >= 1` sorted neighbours `x0 <= x1 <= ...` is:
//! 1. `d` as a LEB128 varint (7 bits per byte, low bits first, bit 7 set on every byte but the
//!    last);
//! 2. `zigzag(x0 - v)` as a varint (`2e` for `e >= 0`, `-2e - 1` for `e < 0`: graphs whose
//!    neighbours are near their vertex, such as road networks, get small first values);
//! 3. the `d - 1` gaps `x(i) - x(i-1)` in blocks of [`BLOCK`] (the last block shorter): a width
//!    byte `w` (0..=32, the bits of the block's largest gap), then the block's `k` gaps as
//!    `w`-bit fields, the first at bit 0, packed little-endian into `ceil(k * w / 8)` bytes.
//!
//! An empty list is no bytes. Lists are concatenated in vertex order in `out.packed`;
//! `out.packed_index` holds the `n + 1` byte offsets where they start (the last = the file's
//! data length). The arc offsets (`out.offsets`) and weights stay as in a plain graph, so
//! degrees and weights are read without decoding. Byte layout: `docs/design.md`.

/// Gaps per block (one width byte each).
pub const BLOCK: usize = 16;

/// Appends the packed form of `v`'s sorted list `nbrs` to `out`.
pub fn encode_list(v: u32, nbrs: &[u32], out: &mut Vec<u8>) {
    let Some(&first) = nbrs.first() else { return };
    put_varint(nbrs.len() as u64, out);
    let e = i64::from(first) - i64::from(v);
    put_varint(if e >= 0 { (e as u64) << 1 } else { ((-e - 1) as u64) << 1 | 1 }, out);
    let gaps: Vec<u32> = nbrs.windows(2).map(|w| w[1] - w[0]).collect();
    for block in gaps.chunks(BLOCK) {
        let width = 32 - block.iter().fold(0, |a, &g| a | g).leading_zeros();
        out.push(width as u8);
        let (mut acc, mut bits) = (0u64, 0);
        for &g in block {
            acc |= u64::from(g) << bits;
            bits += width;
            while bits >= 8 {
                out.push(acc as u8);
                acc >>= 8;
                bits -= 8;
            }
        }
        if bits > 0 {
            out.push(acc as u8);
        }
    }
}

fn put_varint(mut x: u64, out: &mut Vec<u8>) {
    while x >= 0x80 {
        out.push(x as u8 | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// Why a packed list did not decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodeError {
    /// The bytes ran out before the list's last value.
    Truncated,
    /// A varint longer than 5 bytes, a count of 0 or more than the bytes can hold, a width
    /// above 32, a value outside `u32`, or bytes left after the last value.
    Malformed,
    /// A neighbour id at or past the graph's vertex count (found by the reader, which knows it).
    OutOfRange,
}

/// Decodes the neighbours of `v` packed in exactly `bytes` into `out` (cleared first).
///
/// A whole block of [`BLOCK`] gaps of width `w` is exactly `2 * w` bytes; it is unpacked by a
/// function compiled for that width (shifts and masks are constants, no branch per value).
/// The last, shorter block of a list goes through [`unpack_tail`].
#[inline]
pub fn decode_list(v: u32, bytes: &[u8], out: &mut Vec<u32>) -> Result<(), DecodeError> {
    out.clear();
    if bytes.is_empty() {
        return Ok(());
    }
    let mut pos = 0;
    let d = get_varint(bytes, &mut pos)?;
    // A block of BLOCK gaps takes at least its width byte.
    if d == 0 || d > 1 + (BLOCK * bytes.len()) as u64 {
        return Err(DecodeError::Malformed);
    }
    let z = get_varint(bytes, &mut pos)?;
    let e = if z & 1 == 0 { (z >> 1) as i64 } else { -((z >> 1) as i64) - 1 };
    let mut x = u64::try_from(i64::from(v) + e).map_err(|_| DecodeError::Malformed)?;
    if x > u64::from(u32::MAX) {
        return Err(DecodeError::Malformed);
    }
    let d = d as usize;
    out.resize(d, 0);
    out[0] = x as u32;
    let mut done = 1;
    while done < d {
        let k = (d - done).min(BLOCK);
        let w = *bytes.get(pos).ok_or(DecodeError::Truncated)? as usize;
        if w > 32 {
            return Err(DecodeError::Malformed);
        }
        let len = (k * w).div_ceil(8);
        let src = bytes.get(pos + 1..pos + 1 + len).ok_or(DecodeError::Truncated)?;
        let dst = &mut out[done..done + k];
        if k == BLOCK {
            UNPACK[w](src, &mut x, dst);
        } else {
            unpack_tail(src, w, &mut x, dst);
        }
        if x > u64::from(u32::MAX) {
            return Err(DecodeError::Malformed);
        }
        pos += 1 + len;
        done += k;
    }
    if pos == bytes.len() {
        Ok(())
    } else {
        Err(DecodeError::Malformed)
    }
}

/// Unpacks one whole block of width `W` (`src` = its `2 * W` bytes) into `dst` (`BLOCK`
/// values), adding each gap to the running value `x`.
#[inline]
fn unpack_block<const W: usize>(src: &[u8], x: &mut u64, dst: &mut [u32]) {
    // Every field is one 8-byte load at byte `i * W / 8`: the buffer's 8 spare bytes keep the
    // loads of the last fields inside it.
    let mut buf = [0u8; BLOCK * 4 + 8];
    buf[..2 * W].copy_from_slice(&src[..2 * W]);
    let mask = (1u64 << W) - 1;
    let mut gaps = [0u64; BLOCK];
    for (i, g) in gaps.iter_mut().enumerate() {
        let bit = i * W;
        let word = u64::from_le_bytes(buf[bit / 8..bit / 8 + 8].try_into().expect("8 bytes"));
        *g = word >> (bit % 8) & mask;
    }
    for (out, g) in dst[..BLOCK].iter_mut().zip(gaps) {
        *x += g;
        *out = *x as u32;
    }
}

/// A block unpacker: the block's bytes, the running value, the `BLOCK` values out.
type Unpack = fn(&[u8], &mut u64, &mut [u32]);

/// [`unpack_block`] for each width 0..=32.
const UNPACK: [Unpack; 33] = {
    macro_rules! widths {
        ($($w:literal)*) => { [$(unpack_block::<$w>),*] };
    }
    widths!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32)
};

/// Unpacks the last block of a list: `dst.len() < BLOCK` fields of width `w` in `src`.
fn unpack_tail(src: &[u8], w: usize, x: &mut u64, dst: &mut [u32]) {
    let (mut acc, mut bits, mut bytes) = (0u64, 0, src.iter());
    let mask = (1u64 << w) - 1;
    for out in dst {
        while bits < w {
            acc |= u64::from(*bytes.next().unwrap_or(&0)) << bits;
            bits += 8;
        }
        *x += acc & mask;
        *out = *x as u32;
        acc >>= w;
        bits -= w;
    }
}

/// One varint of at most 5 bytes (35 bits) at `*pos`.
#[inline]
fn get_varint(bytes: &[u8], pos: &mut usize) -> Result<u64, DecodeError> {
    let mut x = 0u64;
    for shift in (0..35).step_by(7) {
        let b = *bytes.get(*pos).ok_or(DecodeError::Truncated)?;
        *pos += 1;
        x |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Ok(x);
        }
    }
    Err(DecodeError::Malformed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn hand_checked_bytes() {
        // v = 10, list [3, 10, 300]: count 3; zigzag(3 - 10) = 13; gaps 7 and 290 in one block
        // of width 9: 7 | 290 << 9 = 0x24407 over 18 bits, 3 bytes.
        let mut b = Vec::new();
        encode_list(10, &[3, 10, 300], &mut b);
        assert_eq!(b, vec![3, 13, 9, 0x07, 0x44, 0x02]);
        let mut out = Vec::new();
        decode_list(10, &b, &mut out).unwrap();
        assert_eq!(out, vec![3, 10, 300]);
        // Equal neighbours (width 0), a single one, and the extremes of the id space.
        for (v, list) in
            [(4, vec![5, 5, 5]), (7, vec![2]), (0, vec![u32::MAX]), (u32::MAX, vec![0, 0, u32::MAX])]
        {
            b.clear();
            encode_list(v, &list, &mut b);
            decode_list(v, &b, &mut out).unwrap();
            assert_eq!(out, list);
        }
        b.clear();
        encode_list(4, &[5, 5, 5], &mut b);
        assert_eq!(b, vec![3, 2, 0]);
    }

    #[test]
    fn bad_bytes_are_errors() {
        let mut out = Vec::new();
        let mut b = Vec::new();
        encode_list(5, &[1, 2, 1000], &mut b);
        assert_eq!(decode_list(5, &b[..b.len() - 1], &mut out), Err(DecodeError::Truncated));
        assert_eq!(decode_list(5, &b[..2], &mut out), Err(DecodeError::Truncated));
        let mut longer = b.clone();
        longer.push(0);
        assert_eq!(decode_list(5, &longer, &mut out), Err(DecodeError::Malformed));
        // A 6-byte varint, a count of 0, a count the bytes cannot hold, a width of 33.
        assert_eq!(decode_list(5, &[0xff; 6], &mut out), Err(DecodeError::Malformed));
        assert_eq!(decode_list(5, &[0, 2], &mut out), Err(DecodeError::Malformed));
        assert_eq!(decode_list(5, &[100, 2, 0], &mut out), Err(DecodeError::Malformed));
        assert_eq!(decode_list(5, &[2, 2, 33, 1, 1, 1, 1, 1], &mut out), Err(DecodeError::Malformed));
        // A first value below 0, and gaps summing past u32::MAX.
        assert_eq!(decode_list(0, &[1, 3], &mut out), Err(DecodeError::Malformed));
        let mut past = Vec::new();
        encode_list(0, &[u32::MAX - 1, u32::MAX], &mut past);
        // [count, 5 bytes of zigzag(MAX - 1), width 1, gap 1]: make the gap 2 (width 2).
        assert_eq!((past.len(), past[6], past[7]), (8, 1, 1));
        decode_list(0, &past, &mut out).unwrap();
        (past[6], past[7]) = (2, 2);
        assert_eq!(decode_list(0, &past, &mut out), Err(DecodeError::Malformed));
        decode_list(0, &[], &mut out).unwrap();
        assert!(out.is_empty());
    }

    proptest! {
        #[test]
        fn round_trips(v in any::<u32>(), mut list in proptest::collection::vec(any::<u32>(), 0..200),
                       bits in 1u32..=32) {
            // Values below 2^bits: gaps of every width, lists of every length.
            for x in &mut list {
                *x = (u64::from(*x) % (1u64 << bits)) as u32;
            }
            list.sort_unstable();
            let mut b = Vec::new();
            encode_list(v, &list, &mut b);
            let mut out = vec![7];
            decode_list(v, &b, &mut out).unwrap();
            prop_assert_eq!(out, list);
        }
    }
}
