//! Packed neighbour lists: each sorted list stored as variable-length integers, about half the
//! bytes of the plain `u32` lists on Kronecker graphs (2.2 bytes per arc on kron22), so that a
//! graph larger than memory is read in about half the time.
//!
//! The list of vertex `v` with sorted neighbours `x0 <= x1 <= ...` is the LEB128 varints (7 bits
//! per byte, low bits first, high bit set on every byte but the last) of
//! `zigzag(x0 - v)` (`2d` for `d >= 0`, `-2d - 1` for `d < 0`: graphs whose neighbours are near
//! their vertex, such as road networks, get small first values) and then of each gap
//! `x(i) - x(i-1)`. Lists are concatenated in vertex order in `out.packed`; `out.packed_index`
//! holds the `n + 1` byte offsets where they start (the last = the file's data length). The
//! arc offsets (`out.offsets`) and weights stay as in a plain graph, so degrees and weights
//! are read without decoding. Byte layout: `docs/design.md`.

/// Appends the packed form of `v`'s sorted list `nbrs` to `out`.
pub fn encode_list(v: u32, nbrs: &[u32], out: &mut Vec<u8>) {
    let Some(&first) = nbrs.first() else { return };
    let d = i64::from(first) - i64::from(v);
    put_varint(if d >= 0 { (d as u64) << 1 } else { ((-d - 1) as u64) << 1 | 1 }, out);
    for w in nbrs.windows(2) {
        put_varint(u64::from(w[1] - w[0]), out);
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
    /// The bytes ran out before `count` values.
    Truncated,
    /// A varint longer than 5 bytes, or a value outside `u32`.
    Malformed,
}

/// Decodes the neighbours of `v` packed in exactly `bytes` into `out` (cleared first); a list
/// ends with its bytes. (One load per 8 bytes, splitting each word at its stop bits, ran no
/// faster on kron22: about 3.2 ns per value either way on this machine.)
#[inline]
pub fn decode_list(v: u32, bytes: &[u8], out: &mut Vec<u32>) -> Result<(), DecodeError> {
    out.clear();
    if bytes.is_empty() {
        return Ok(());
    }
    let mut pos = 0;
    let z = get_varint(bytes, &mut pos)?;
    let d = if z & 1 == 0 { (z >> 1) as i64 } else { -((z >> 1) as i64) - 1 };
    let mut x = u32::try_from(i64::from(v) + d).map_err(|_| DecodeError::Malformed)?;
    out.push(x);
    while pos < bytes.len() {
        let gap = get_varint(bytes, &mut pos)?;
        x = u32::try_from(u64::from(x) + gap).map_err(|_| DecodeError::Malformed)?;
        out.push(x);
    }
    Ok(())
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
        // v = 10, list [3, 10, 300]: zigzag(3 - 10) = 13; gaps 7 and 290 = 0b10_0100010.
        let mut b = Vec::new();
        encode_list(10, &[3, 10, 300], &mut b);
        assert_eq!(b, vec![13, 7, 0x80 | 0x22, 0x02]);
        let mut out = Vec::new();
        decode_list(10, &b, &mut out).unwrap();
        assert_eq!(out, vec![3, 10, 300]);
        // The extremes of the id space.
        b.clear();
        encode_list(0, &[u32::MAX], &mut b);
        decode_list(0, &b, &mut out).unwrap();
        assert_eq!(out, vec![u32::MAX]);
        b.clear();
        encode_list(u32::MAX, &[0, 0, u32::MAX], &mut b);
        decode_list(u32::MAX, &b, &mut out).unwrap();
        assert_eq!(out, vec![0, 0, u32::MAX]);
    }

    #[test]
    fn bad_bytes_are_errors() {
        let mut out = Vec::new();
        let mut b = Vec::new();
        encode_list(5, &[1, 2, 1000], &mut b);
        assert_eq!(decode_list(5, &b[..b.len() - 1], &mut out), Err(DecodeError::Truncated));
        assert_eq!(decode_list(5, &[0xff; 6], &mut out), Err(DecodeError::Malformed));
        // A first value below 0 and a sum past u32::MAX.
        assert_eq!(decode_list(0, &[3], &mut out), Err(DecodeError::Malformed));
        assert_eq!(decode_list(0, &[0xfe, 0xff, 0xff, 0xff, 0x1f, 2], &mut out), Err(DecodeError::Malformed));
        // The same faults after the first value: a 6-byte varint, a sum past u32::MAX.
        let long = [2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0, 0];
        assert_eq!(decode_list(0, &long, &mut out), Err(DecodeError::Malformed));
        let past = [0xfe, 0xff, 0xff, 0xff, 0x1f, 2, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(decode_list(0, &past, &mut out), Err(DecodeError::Malformed));
        decode_list(0, &[], &mut out).unwrap();
        assert!(out.is_empty());
    }

    proptest! {
        #[test]
        fn round_trips(v in any::<u32>(), mut list in proptest::collection::vec(any::<u32>(), 0..200),
                       bits in 1u32..=32) {
            // Values below 2^bits: gaps of every varint length, lists of every length.
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
