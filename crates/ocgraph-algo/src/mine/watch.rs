//! Incremental pattern matching (Tesseract: Bindschaedler, Malicevic, Lepers, Goel and
//! Zwaenepoel, "Tesseract: distributed, general graph pattern mining on evolving graphs",
//! EuroSys 2021): a watched pattern, and for each update batch exactly the matches that appear
//! and disappear.
//!
//! A match can only change if it contains a *changed pair*: two vertices whose adjacency in the
//! undirected simple view differs before and after the batch (for edge-induced matching, a pair
//! the match uses as an edge; for vertex-induced, any pair of its vertices). So only embeddings
//! containing a changed pair are explored: for each changed pair `(u, v)` and each ordered pair
//! of pattern vertices `(a, b)` (adjacent ones for edge-induced), a plan starting with `a ← u`,
//! `b ← v` extends the rest; the pattern's symmetry-breaking restrictions keep one embedding
//! per match. Removed matches are those found on the snapshot before the batch, added ones
//! those found on the snapshot after (a match containing a changed pair cannot be in both: its
//! edges or its induced subgraph differ). Update canonicity: a match containing several changed
//! pairs is reported only from the lowest-indexed one (pairs sorted by `(min, max)`), so each is
//! reported once; the changed pairs are explored in parallel.
//!
//! State: the changed pairs (a hash map) and, per worker, a neighbour list per pattern vertex.

use ocgraph_core::{Adjacency, Result, Vertex};
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::pattern::{Matcher, State};
use super::plan::{Pattern, Plan};

/// A watched pattern: the plans anchored at each ordered pair of pattern vertices.
#[derive(Debug, Clone)]
pub struct Watch {
    pattern: Pattern,
    induced: bool,
    /// Plans starting with the pattern pair `(a, b)` at positions 0 and 1.
    plans: Vec<Plan>,
    /// Pattern vertex pairs whose image is checked for canonicity.
    pairs: Vec<(usize, usize)>,
}

/// The matches that appeared and disappeared in one batch, flattened: `k` data vertices per
/// match, in pattern-vertex order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// Matches present after the batch and not before.
    pub added: Vec<Vertex>,
    /// Matches present before the batch and not after.
    pub removed: Vec<Vertex>,
}

/// Whether `u` and `v` are adjacent in the undirected view of `out` (an arc either way).
fn adjacent<O: Adjacency>(out: &O, u: Vertex, v: Vertex) -> bool {
    let n = out.num_vertices();
    (u as usize) < n
        && (v as usize) < n
        && (out.neighbors(u).binary_search(&v).is_ok() || out.neighbors(v).binary_search(&u).is_ok())
}

impl Watch {
    /// Watches `pattern`, edge-induced or vertex-induced (`induced`).
    pub fn new(pattern: Pattern, induced: bool) -> Watch {
        let k = pattern.num_vertices();
        let restrictions = pattern.restrictions(&pattern.matching_order(None, None));
        let pairs: Vec<(usize, usize)> = (0..k)
            .flat_map(|a| (a + 1..k).map(move |b| (a, b)))
            .filter(|&(a, b)| induced || pattern.has_edge(a, b))
            .collect();
        let plans = pairs
            .iter()
            .flat_map(|&(a, b)| [(a, b), (b, a)])
            .map(|(a, b)| {
                Plan::new(&pattern, &pattern.matching_order(Some(a), Some(b)), &restrictions, induced)
            })
            .collect();
        Watch { pattern, induced, plans, pairs }
    }

    /// The watched pattern.
    pub fn pattern(&self) -> &Pattern {
        &self.pattern
    }

    /// Whether matching is vertex-induced.
    pub fn induced(&self) -> bool {
        self.induced
    }

    /// The pairs of `batch` (any order, repeats allowed) whose undirected adjacency differs
    /// between the out-directions `before` and `after`, as sorted, distinct `(min, max)` pairs.
    pub fn changed_pairs<B: Adjacency, A: Adjacency>(
        before: &B,
        after: &A,
        batch: &[(Vertex, Vertex)],
    ) -> Vec<(Vertex, Vertex)> {
        let mut pairs: Vec<(Vertex, Vertex)> =
            batch.iter().filter(|(u, v)| u != v).map(|&(u, v)| (u.min(v), u.max(v))).collect();
        pairs.sort_unstable();
        pairs.dedup();
        pairs.retain(|&(u, v)| adjacent(before, u, v) != adjacent(after, u, v));
        pairs
    }

    /// Every match on `out`/`in_` containing one of the sorted, distinct `changed` pairs (as
    /// the image of a pattern edge, or of any pattern vertex pair when vertex-induced), each
    /// once (reported from its lowest-indexed changed pair); flattened as in [`Changes`].
    ///
    /// Errors: a labelled pattern without enough `labels`; directions disagreeing.
    pub fn matches_touching<O: Adjacency, I: Adjacency>(
        &self,
        out: &O,
        in_: &I,
        labels: Option<&[u32]>,
        changed: &[(Vertex, Vertex)],
    ) -> Result<Vec<Vertex>> {
        let k = self.pattern.num_vertices();
        let matchers: Vec<Matcher<'_, O, I>> = self
            .plans
            .iter()
            .map(|p| Matcher::new(out, in_, &self.pattern, p.clone(), labels))
            .collect::<Result<_>>()?;
        let index: FxHashMap<(Vertex, Vertex), usize> =
            changed.iter().enumerate().map(|(i, &p)| (p, i)).collect();
        let n = out.num_vertices();
        let one = |i: usize, st: &mut State| {
            let (u, v) = changed[i];
            let mut found = Vec::new();
            if (u as usize) >= n || (v as usize) >= n {
                return found;
            }
            let mut sink = |m: &[Vertex]| {
                let earlier = self.pairs.iter().any(|&(a, b)| {
                    let key = (m[a].min(m[b]), m[a].max(m[b]));
                    index.get(&key).is_some_and(|&j| j < i)
                });
                if !earlier {
                    found.extend_from_slice(m);
                }
            };
            for m in &matchers {
                m.starting_at_pair(st, u, v, &mut Some(&mut sink));
            }
            found
        };
        let parts: Vec<Vec<Vertex>> = if changed.len() < 64 {
            let mut st = State::new(k);
            (0..changed.len()).map(|i| one(i, &mut st)).collect()
        } else {
            (0..changed.len()).into_par_iter().map_init(|| State::new(k), |st, i| one(i, st)).collect()
        };
        Ok(parts.concat())
    }

    /// The matches that a batch of edge updates `batch` (added or removed pairs) made appear
    /// and disappear, given the graph before (`before_out`, `before_in`) and after it.
    ///
    /// Errors: as [`Watch::matches_touching`].
    pub fn apply<BO: Adjacency, BI: Adjacency, AO: Adjacency, AI: Adjacency>(
        &self,
        before: (&BO, &BI),
        after: (&AO, &AI),
        labels: Option<&[u32]>,
        batch: &[(Vertex, Vertex)],
    ) -> Result<Changes> {
        let changed = Self::changed_pairs(before.0, after.0, batch);
        if changed.is_empty() {
            return Ok(Changes::default());
        }
        let removed = self.matches_touching(before.0, before.1, labels, &changed)?;
        let added = self.matches_touching(after.0, after.1, labels, &changed)?;
        Ok(Changes { added, removed })
    }
}
