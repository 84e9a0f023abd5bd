//! A stable LSD radix sort on a `u32` key, for the update path's per-batch sorts (operations by
//! source vertex, net arc changes by source and destination): a few linear passes instead of a
//! comparison sort of tens of thousands of entries.

/// Slices shorter than this are sorted by comparison.
const RADIX_MIN: usize = 256;

/// Bits per pass.
const RADIX_BITS: u32 = 11;

/// Sorts `items` stably by `key`, every key being at most `top`.
pub(crate) fn sort_by_u32_key<T: Copy>(items: &mut Vec<T>, top: u32, key: impl Fn(&T) -> u32) {
    if items.len() < RADIX_MIN {
        items.sort_by_key(&key);
        return;
    }
    let bits = u32::BITS - top.leading_zeros();
    let mut buf = items.clone();
    let mut shift = 0;
    while shift < bits {
        let digit = |e: &T| (key(e) >> shift) as usize & ((1 << RADIX_BITS) - 1);
        let mut at = vec![0usize; 1 << RADIX_BITS];
        for e in items.iter() {
            at[digit(e)] += 1;
        }
        let mut sum = 0;
        for c in at.iter_mut() {
            (*c, sum) = (sum, sum + *c);
        }
        for e in items.iter() {
            let d = digit(e);
            buf[at[d]] = *e;
            at[d] += 1;
        }
        std::mem::swap(items, &mut buf);
        shift += RADIX_BITS;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// Equals the standard library's stable sort, on short and long inputs and on keys of
    /// one to three passes.
    #[test]
    fn matches_a_stable_comparison_sort() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        for (len, top) in [(0, 0), (10, 5), (300, 0), (1000, 7), (5000, 3000), (4000, u32::MAX)] {
            let items: Vec<(u32, u32)> = (0..len).map(|i| (rng.gen_range(0..=top), i)).collect();
            let mut want = items.clone();
            want.sort_by_key(|e| e.0);
            let mut got = items;
            sort_by_u32_key(&mut got, top, |e| e.0);
            assert_eq!(got, want, "len {len}, top {top}");
        }
    }
}
