//! Packed arc records sorted by the builder: `u64` (`src << 32 | dst`) for unweighted graphs,
//! `u128` (`src << 64 | dst << 32 | ordered weight bits`) for weighted ones, so that the natural
//! integer order is (source, destination, weight ascending).

/// Maps an `f32` to a `u32` whose unsigned order is the float order (for finite values).
pub(crate) fn weight_key(w: f32) -> u32 {
    let b = w.to_bits();
    if b >> 31 == 1 {
        !b
    } else {
        b | 0x8000_0000
    }
}

/// Inverse of [`weight_key`].
pub(crate) fn key_weight(k: u32) -> f32 {
    if k >> 31 == 1 {
        f32::from_bits(k & 0x7fff_ffff)
    } else {
        f32::from_bits(!k)
    }
}

/// An arc record; its integer order is (source, destination, weight).
pub(crate) trait Record: Copy + Ord + Send + Sync + bytemuck::Pod + 'static {
    /// One entry of a neighbour list: the destination (and weight), ordered the same way.
    type Entry: Copy + Ord + Send + Sync + bytemuck::Pod + Default;
    /// Whether records carry weights.
    const WEIGHTED: bool;
    /// Bits in a record.
    const BITS: u32;
    /// Leading zero bits of the record as an integer.
    fn leading_zeros(self) -> u32;
    /// The record shifted right by `shift` bits, truncated to 64 bits.
    fn key_bits(self, shift: u32) -> u64;
    /// Packs an arc.
    fn new(src: u32, dst: u32, w: f32) -> Self;
    /// The source vertex.
    fn src(self) -> u32;
    /// The destination vertex.
    fn dst(self) -> u32;
    /// The arc in the other direction (same weight).
    fn reversed(self) -> Self;
    /// The arc without its weight: `src << 32 | dst` (equal for duplicate arcs).
    fn arc(self) -> u64;
    /// The neighbour-list entry (destination, weight).
    fn entry(self) -> Self::Entry;
    /// Destination of an entry.
    fn entry_dst(e: Self::Entry) -> u32;
    /// Weight of an entry (1.0 when unweighted).
    fn entry_weight(e: Self::Entry) -> f32;
    /// An entry with destination `dst` and weight `w`.
    fn make_entry(dst: u32, w: f32) -> Self::Entry;
}

impl Record for u64 {
    type Entry = u32;
    const WEIGHTED: bool = false;
    const BITS: u32 = 64;
    fn leading_zeros(self) -> u32 {
        u64::leading_zeros(self)
    }
    fn key_bits(self, shift: u32) -> u64 {
        self >> shift
    }
    fn new(src: u32, dst: u32, _w: f32) -> Self {
        (src as u64) << 32 | dst as u64
    }
    fn src(self) -> u32 {
        (self >> 32) as u32
    }
    fn dst(self) -> u32 {
        self as u32
    }
    fn reversed(self) -> Self {
        self.rotate_left(32)
    }
    fn arc(self) -> u64 {
        self
    }
    fn entry(self) -> u32 {
        self as u32
    }
    fn entry_dst(e: u32) -> u32 {
        e
    }
    fn entry_weight(_e: u32) -> f32 {
        1.0
    }
    fn make_entry(dst: u32, _w: f32) -> u32 {
        dst
    }
}

impl Record for u128 {
    type Entry = u64;
    const WEIGHTED: bool = true;
    const BITS: u32 = 128;
    fn leading_zeros(self) -> u32 {
        u128::leading_zeros(self)
    }
    fn key_bits(self, shift: u32) -> u64 {
        (self >> shift) as u64
    }
    fn new(src: u32, dst: u32, w: f32) -> Self {
        (src as u128) << 64 | (dst as u128) << 32 | weight_key(w) as u128
    }
    fn src(self) -> u32 {
        (self >> 64) as u32
    }
    fn dst(self) -> u32 {
        (self >> 32) as u32
    }
    fn reversed(self) -> Self {
        (self.dst() as u128) << 64 | (self.src() as u128) << 32 | self as u32 as u128
    }
    fn arc(self) -> u64 {
        (self >> 32) as u64
    }
    fn entry(self) -> u64 {
        self as u64
    }
    fn entry_dst(e: u64) -> u32 {
        (e >> 32) as u32
    }
    fn entry_weight(e: u64) -> f32 {
        key_weight(e as u32)
    }
    fn make_entry(dst: u32, w: f32) -> u64 {
        (dst as u64) << 32 | weight_key(w) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weight_key_orders_like_floats() {
        let ws = [-3.5f32, -1.0, -0.0, 0.0, 1e-30, 0.5, 2.0, 1e30];
        for pair in ws.windows(2) {
            assert!(weight_key(pair[0]) <= weight_key(pair[1]), "{pair:?}");
        }
        for w in ws {
            assert_eq!(key_weight(weight_key(w)).to_bits(), w.to_bits());
        }
    }
}
