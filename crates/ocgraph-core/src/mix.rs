//! A 64-bit mixer for choices that must look random yet be reproducible: generators' seeds,
//! the buffer pool's sampling groups, a maintained tree's choice among equal parents.

/// SplitMix64's finaliser (Steele, Lea and Flood, OOPSLA 2014): a bijection of `u64` under
/// which neighbouring numbers map to unrelated ones.
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
