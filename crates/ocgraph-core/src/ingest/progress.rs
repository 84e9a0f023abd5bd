//! Progress reporting for long ingest phases.

/// What a phase's counts measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Input bytes.
    Bytes,
    /// Edges (or arcs).
    Edges,
}

/// Receives progress of an import or build: a sequence of phases, each advanced in steps.
///
/// Phase names used: `"parse"`, `"relabel"` (first pass of a sorted relabel), `"sort"`,
/// `"merge"`, `"write"`, `"transpose"`.
pub trait Progress: Sync {
    /// Starts a phase named `name` of `total` units (when known).
    fn phase(&self, name: &str, total: Option<u64>, unit: Unit);
    /// Advances the current phase by `n` units.
    fn advance(&self, n: u64);
    /// Ends the whole operation.
    fn finish(&self);
}

/// A [`Progress`] that ignores everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn phase(&self, _name: &str, _total: Option<u64>, _unit: Unit) {}
    fn advance(&self, _n: u64) {}
    fn finish(&self) {}
}
