//! The range of a graph's arc weights, recorded in the manifest when the weights are written so
//! that kernels need not scan them: SSSP must refuse negative weights and derives its default
//! bucket width from the smallest positive and the largest weight, and scanning every weight
//! for that reads as many bytes as the search itself. Whether every weight is a whole number
//! lets it keep distances as 32-bit integers, half the bytes of its random accesses.

use serde::{Deserialize, Serialize};

/// The range of the out-weights file. Recorded only when every weight is finite and
/// non-negative (a graph with other weights has none, and kernels scan it to name the arc).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WeightRange {
    /// The smallest positive weight; `None` when no weight is positive.
    pub min_positive: Option<f32>,
    /// The largest weight (0 when there are none).
    pub max: f32,
    /// Every weight is a whole number (sums of them are exact in integer arithmetic). `false`
    /// also when not known: manifests written before the field say nothing.
    #[serde(default)]
    pub whole: bool,
}

impl WeightRange {
    /// Why this range cannot describe weights, if it cannot.
    pub(crate) fn invalid(&self) -> Option<String> {
        let ok = self.max.is_finite()
            && self.max >= 0.0
            && self.min_positive.is_none_or(|m| m.is_finite() && m > 0.0 && m <= self.max);
        if !ok {
            return Some(format!("weight range {self:?} is not a range of finite non-negative weights"));
        }
        let fraction = self.max.fract() != 0.0 || self.min_positive.is_some_and(|m| m.fract() != 0.0);
        (self.whole && fraction)
            .then(|| format!("weight range {self:?} says whole weights but a bound is not whole"))
    }
}

/// Accumulates a [`WeightRange`] over little-endian `f32` bytes as they are written.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WeightTally {
    min_positive: f32,
    max: f32,
    /// Every weight so far is finite and non-negative, and every write held a whole number of
    /// weights (4 bytes each).
    clean: bool,
    /// Every weight so far is a whole number.
    whole: bool,
}

impl WeightTally {
    pub(crate) fn new() -> WeightTally {
        WeightTally { min_positive: f32::INFINITY, max: 0.0, clean: true, whole: true }
    }

    /// Adds the weights in `bytes`; a length that is not a whole number of weights spoils the
    /// tally (no range is then recorded).
    pub(crate) fn add(&mut self, bytes: &[u8]) {
        if !bytes.len().is_multiple_of(4) {
            self.clean = false;
            return;
        }
        let (mut lo, mut hi, mut clean, mut whole) = (self.min_positive, self.max, true, true);
        for c in bytes.chunks_exact(4) {
            let w = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            // NaN fails both comparisons.
            clean &= (0.0..f32::INFINITY).contains(&w);
            whole &= w.trunc() == w;
            hi = hi.max(w);
            lo = lo.min(if w > 0.0 { w } else { f32::INFINITY });
        }
        (self.min_positive, self.max) = (lo, hi);
        self.clean &= clean;
        self.whole &= whole;
    }

    /// The range of the weights added, when they were all finite and non-negative.
    pub(crate) fn finish(&self) -> Option<WeightRange> {
        self.clean.then_some(WeightRange {
            min_positive: self.min_positive.is_finite().then_some(self.min_positive),
            max: self.max,
            whole: self.whole,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(ws: &[f32]) -> Option<WeightRange> {
        let mut t = WeightTally::new();
        // In two writes, as a writer streams them.
        let (a, b) = ws.split_at(ws.len() / 2);
        t.add(bytemuck::cast_slice(a));
        t.add(bytemuck::cast_slice(b));
        t.finish()
    }

    #[test]
    fn ranges_of_hand_checked_weights() {
        assert_eq!(tally(&[]), Some(WeightRange { min_positive: None, max: 0.0, whole: true }));
        assert_eq!(tally(&[0.0, -0.0]), Some(WeightRange { min_positive: None, max: 0.0, whole: true }));
        let range = WeightRange { min_positive: Some(0.25), max: 7.5, whole: false };
        assert_eq!(tally(&[3.0, 0.0, 0.25, 7.5]), Some(range));
        let range = WeightRange { min_positive: Some(2.0), max: 16777216.0, whole: true };
        assert_eq!(tally(&[3.0, 0.0, 2.0, 16777216.0]), Some(range));
        let range = WeightRange { min_positive: Some(3.0), max: 4.5, whole: false };
        assert_eq!(tally(&[3.0, 4.0, 4.5, 4.0]), Some(range), "a fraction in the second write");
        for bad in [-1.0, f32::NAN, f32::INFINITY, -f32::INFINITY] {
            assert_eq!(tally(&[1.0, bad, 2.0]), None, "{bad}");
        }
        let mut t = WeightTally::new();
        t.add(&[0, 0, 128]);
        assert_eq!(t.finish(), None, "a partial weight");
    }

    #[test]
    fn invalid_ranges_are_named() {
        assert!(WeightRange { min_positive: Some(1.0), max: 2.0, whole: false }.invalid().is_none());
        assert!(WeightRange { min_positive: None, max: 0.0, whole: false }.invalid().is_none());
        assert!(WeightRange { min_positive: Some(3.0), max: 2.0, whole: false }.invalid().is_some());
        assert!(WeightRange { min_positive: Some(0.0), max: 2.0, whole: false }.invalid().is_some());
        assert!(WeightRange { min_positive: None, max: -1.0, whole: false }.invalid().is_some());
        assert!(WeightRange { min_positive: None, max: f32::NAN, whole: false }.invalid().is_some());
        assert!(WeightRange { min_positive: Some(1.0), max: 2.0, whole: true }.invalid().is_none());
        assert!(WeightRange { min_positive: Some(0.5), max: 2.0, whole: true }.invalid().is_some());
        assert!(WeightRange { min_positive: Some(1.0), max: 2.5, whole: true }.invalid().is_some());
    }
}
