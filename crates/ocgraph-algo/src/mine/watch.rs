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
//! edges or its induced subgraph differ; an edge-induced match only contains changed pairs that
//! are edges, so each such pair is explored on one snapshot only). Update canonicity: a match
//! containing several changed pairs is reported only from the lowest-indexed one (pairs sorted
//! by `(min, max)`), so each is reported once; the changed pairs are explored in parallel.
//!
//! The graphs before and after a batch are given as two pairs of directions ([`Watch::apply`])
//! or kept by the watch itself across a stream ([`super::WatchStore`]).
//!
//! State: the changed pairs (sorted; canonicity checks search them, past a bitmap of their
//! endpoints when there are many) and, per worker, a neighbour list per pattern vertex (lent by
//! the graph when it is already simple); the two anchors' lists are read once per pair and lent
//! to every plan.

use ocgraph_core::{Adjacency, Result, Vertex};
use rayon::prelude::*;

use super::pattern::{Matcher, State};
use super::plan::{Pattern, Plan};
use super::{ListBuf, ListSource, Undirected};
use crate::bfs::check_directions;

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

/// The changed pairs of a batch (sorted, distinct `(min, max)`) and, for each, whether it is
/// an edge after the batch (it is one before exactly when not).
#[derive(Default)]
pub(crate) struct Changed {
    pub(crate) pairs: Vec<(Vertex, Vertex)>,
    pub(crate) edge_after: Vec<bool>,
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

    /// The pairs of `batch` (any order, repeats allowed) whose adjacency in the undirected
    /// view differs between the graph `before` and `after` (each given by its directions).
    fn changed_pairs<'a, 'b>(
        before: &impl ListSource<'a>,
        after: &impl ListSource<'b>,
        batch: &[(Vertex, Vertex)],
    ) -> Changed {
        let mut all: Vec<(Vertex, Vertex)> =
            batch.iter().filter(|(u, v)| u != v).map(|&(u, v)| (u.min(v), u.max(v))).collect();
        all.sort_unstable();
        all.dedup();
        let mut changed = Changed { pairs: Vec::new(), edge_after: Vec::new() };
        for (u, v) in all {
            let now = after.adjacent(u, v);
            if before.adjacent(u, v) != now {
                changed.pairs.push((u, v));
                changed.edge_after.push(now);
            }
        }
        changed
    }

    /// Every match on `g` (the graph after the batch when `after`, else before it)
    /// containing one of the `changed` pairs (as the image of a pattern edge, or of any pattern
    /// vertex pair when vertex-induced), each once (reported from its lowest-indexed changed
    /// pair); flattened as in [`Changes`]. Edge-induced matches only contain pairs that are
    /// edges of this graph, so the other pairs are not explored.
    ///
    /// Errors: a labelled pattern without enough `labels`.
    pub(crate) fn matches_touching<'a, L: ListSource<'a>>(
        &'a self,
        g: &'a L,
        after: bool,
        labels: Option<&'a [u32]>,
        changed: &Changed,
    ) -> Result<Vec<Vertex>> {
        let k = self.pattern.num_vertices();
        let matchers: Vec<Matcher<'a, &'a L>> = self
            .plans
            .iter()
            .map(|p| Matcher::on_lists(g, &self.pattern, p, labels))
            .collect::<Result<_>>()?;
        let n = g.num_vertices();
        // Per worker: the search state and the two anchors' lists, read once per pair.
        let pairs = &changed.pairs;
        // With many changed pairs, a bitmap of their endpoints spares most canonicity checks
        // their binary search: a match's other pairs rarely join two endpoints.
        let ends: Option<Vec<u64>> = (pairs.len() >= 64).then(|| {
            let mut bits = vec![0u64; n.div_ceil(64)];
            for &(u, v) in pairs {
                for x in [u, v].into_iter().map(|x| x as usize).filter(|&x| x < n) {
                    bits[x / 64] |= 1 << (x % 64);
                }
            }
            bits
        });
        let is_end = |x: Vertex| ends.as_ref().is_none_or(|b| b[x as usize / 64] >> (x % 64) & 1 == 1);
        let one = |i: usize, (st, lu, lv): &mut (State<'a>, ListBuf<'a>, ListBuf<'a>)| {
            let (u, v) = pairs[i];
            let mut found = Vec::new();
            if (u as usize) >= n || (v as usize) >= n || (!self.induced && changed.edge_after[i] != after) {
                return found;
            }
            g.read(u, lu);
            g.read(v, lv);
            let mut sink = |m: &[Vertex]| {
                let earlier = self.pairs.iter().any(|&(a, b)| {
                    let key = (m[a].min(m[b]), m[a].max(m[b]));
                    is_end(key.0) && is_end(key.1) && pairs[..i].binary_search(&key).is_ok()
                });
                if !earlier {
                    found.extend_from_slice(m);
                }
            };
            for m in &matchers {
                m.starting_at_pair(st, (u, lu), (v, lv), &mut Some(&mut sink));
            }
            found
        };
        let init = || (State::new(k), ListBuf::default(), ListBuf::default());
        let parts: Vec<Vec<Vertex>> = if pairs.len() < 64 {
            let mut w = init();
            (0..pairs.len()).map(|i| one(i, &mut w)).collect()
        } else {
            (0..pairs.len()).into_par_iter().map_init(init, |w, i| one(i, w)).collect()
        };
        Ok(parts.concat())
    }

    /// The matches that a batch of edge updates `batch` (added or removed pairs) made appear
    /// and disappear, given the graph before (`before_out`, `before_in`) and after it.
    ///
    /// Errors: a labelled pattern without enough `labels`; directions disagreeing.
    pub fn apply<BO: Adjacency, BI: Adjacency, AO: Adjacency, AI: Adjacency>(
        &self,
        before: (&BO, &BI),
        after: (&AO, &AI),
        labels: Option<&[u32]>,
        batch: &[(Vertex, Vertex)],
    ) -> Result<Changes> {
        check_directions(before.0, before.1)?;
        check_directions(after.0, after.1)?;
        let (b, a) = (Undirected::new(before.0, before.1), Undirected::new(after.0, after.1));
        let changed = Self::changed_pairs(&b, &a, batch);
        if changed.pairs.is_empty() {
            return Ok(Changes::default());
        }
        let removed = self.matches_touching(&b, false, labels, &changed)?;
        let added = self.matches_touching(&a, true, labels, &changed)?;
        Ok(Changes { added, removed })
    }
}
