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
//! Label changes (labelled patterns): a batch may also change the labels of some vertices (the
//! *relabelled* ones: their label after differs from before). A match found from a changed
//! pair is removed or added as above, with the labels before or after the batch. Every other
//! match whose validity or labels changed contains a relabelled vertex, so embeddings are also
//! explored anchored at each relabelled vertex `r` (a plan starting with `a ← r` for each
//! pattern vertex `a`), on the graph before with the labels before and on the graph after with
//! the labels after. Update canonicity across both kinds of change: such a match is skipped
//! when it contains a changed pair (pattern-edge images, or any pair when vertex-induced; the
//! pair exploration reported it) or a relabelled vertex lower than `r`. The rest have the same
//! edges before and after, so a match found before is *modified* (same data vertices in the same
//! pattern positions, other labels) when the labels after satisfy the pattern too, else
//! removed; one found after is added when the labels before do not satisfy it (else it is the
//! modified match already reported).
//!
//! The graphs before and after a batch are given as two pairs of directions ([`Watch::apply`])
//! or kept by the watch itself across a stream ([`super::WatchStore`]).
//!
//! When every plan's third vertex is adjacent to its first two (a clique's plans), the two
//! anchors' lists are intersected once per pair and every plan's third step reads that
//! intersection; a pair whose ends have no common neighbour is then skipped (the common case of
//! an edge added between vertices of low degree).
//!
//! State: the changed pairs (sorted; canonicity checks search them, past a bitmap of their
//! endpoints when there are many) and, per worker, a neighbour list per pattern vertex (lent by
//! the graph when it is already simple); the two anchors' lists are read once per pair and lent
//! to every plan, with their intersection (a clique's plans) in a buffer kept per worker.

use ocgraph_core::labels::NO_LABEL;
use ocgraph_core::{Adjacency, Result, Vertex};
use rayon::prelude::*;

use super::pattern::{DataLabels, Matcher, State, StateBuffers};
use super::plan::{Pattern, Plan};
use super::{intersect_into, ListBuf, ListSource, Undirected};
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
    /// Plans starting with pattern vertex `a` at position 0 (labelled patterns: explored from
    /// relabelled vertices).
    anchors: Vec<Plan>,
    /// Whether every plan's third vertex is adjacent to its first two (cliques, for one): a
    /// changed pair without a common neighbour is then in no match, and its plans are skipped.
    common_first: bool,
}

/// A worker's state exploring changed pairs: the search state, the pair's two lists and (when
/// every plan's third vertex is adjacent to both) their intersection.
type Worker<'a> = (State<'a>, ListBuf<'a>, ListBuf<'a>, Vec<Vertex>);

/// The buffers of a [`Worker`], kept between batches by a caller that watches a stream
/// ([`super::WatchStore`]): a batch of a few pairs then allocates no search state.
#[derive(Debug, Clone, Default)]
pub(crate) struct WorkerBuffers {
    state: StateBuffers,
    lists: [Vec<Vertex>; 2],
    common: Vec<Vertex>,
}

impl WorkerBuffers {
    /// A worker for patterns of `k` vertices in these buffers (left empty).
    fn take<'a>(&mut self, k: usize) -> Worker<'a> {
        let WorkerBuffers { state, lists: [u, v], common } = std::mem::take(self);
        (State::from_buffers(state, k), ListBuf::owning(u), ListBuf::owning(v), common)
    }

    /// Keeps the buffers of worker `w`.
    fn keep(&mut self, w: Worker<'_>) {
        let (st, u, v, common) = w;
        *self = WorkerBuffers { state: st.into_buffers(), lists: [u.into_buffer(), v.into_buffer()], common };
    }
}

/// The matches that appeared and disappeared in one batch, flattened: `k` data vertices per
/// match, in pattern-vertex order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// Matches present after the batch and not before.
    pub added: Vec<Vertex>,
    /// Matches present before the batch and not after.
    pub removed: Vec<Vertex>,
    /// Matches present before and after the batch (same data vertices in the same pattern
    /// positions) whose data vertices' labels the batch changed (labelled patterns).
    pub modified: Vec<Vertex>,
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
        let plans: Vec<Plan> = pairs
            .iter()
            .flat_map(|&(a, b)| [(a, b), (b, a)])
            .map(|(a, b)| {
                Plan::adaptive(&pattern, &pattern.matching_order(Some(a), Some(b)), &restrictions, induced)
            })
            .collect();
        let anchors = if pattern.is_labelled() {
            (0..k)
                .map(|a| {
                    Plan::adaptive(&pattern, &pattern.matching_order(Some(a), None), &restrictions, induced)
                })
                .collect()
        } else {
            Vec::new()
        };
        let common_first = plans
            .iter()
            .all(|p| p.steps.get(2).is_some_and(|s| s.adjacent.contains(&0) && s.adjacent.contains(&1)));
        Watch { pattern, induced, plans, pairs, anchors, common_first }
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
        labels: Option<DataLabels<'a>>,
        changed: &Changed,
        buffers: &mut WorkerBuffers,
    ) -> Result<Vec<Vertex>> {
        let k = self.pattern.num_vertices();
        // An edge-induced match here only contains pairs that are edges on this side: with
        // none (a batch of removals, seen after it), nothing to explore or allocate.
        if !self.induced && !changed.edge_after.contains(&after) {
            return Ok(Vec::new());
        }
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
        // Appends the matches reported from pair `i` to `found`.
        let one = |i: usize, (st, lu, lv, common): &mut Worker<'a>, found: &mut Vec<Vertex>| {
            let (u, v) = pairs[i];
            if (u as usize) >= n || (v as usize) >= n || (!self.induced && changed.edge_after[i] != after) {
                return;
            }
            g.read(u, lu);
            g.read(v, lv);
            if self.common_first {
                intersect_into(lu, lv, common);
                if common.is_empty() {
                    return;
                }
            }
            let mut sink = |m: &[Vertex]| {
                let earlier = self.pairs.iter().any(|&(a, b)| {
                    let key = (m[a].min(m[b]), m[a].max(m[b]));
                    is_end(key.0) && is_end(key.1) && pairs[..i].binary_search(&key).is_ok()
                });
                if !earlier {
                    found.extend_from_slice(m);
                }
            };
            let common = self.common_first.then_some(common.as_slice());
            // A changed pair is an edge on the side of the batch where it is one after.
            let adjacent = changed.edge_after[i] == after;
            for m in &matchers {
                m.starting_at_pair(st, (u, lu), (v, lv), adjacent, common, &mut Some(&mut sink));
            }
        };
        let init = || (State::new(k), ListBuf::default(), ListBuf::default(), Vec::new());
        if pairs.len() < 64 {
            // Room for a few dozen matches (a removed hub pair's triangles) before it grows.
            let (mut w, mut found) = (buffers.take(k), Vec::with_capacity(64 * k));
            for i in 0..pairs.len() {
                one(i, &mut w, &mut found);
            }
            buffers.keep(w);
            return Ok(found);
        }
        let parts: Vec<Vec<Vertex>> = (0..pairs.len())
            .into_par_iter()
            .map_init(init, |w, i| {
                let mut found = Vec::new();
                one(i, w, &mut found);
                found
            })
            .collect();
        Ok(parts.concat())
    }

    /// The relabelled vertices of a batch: its label changes `relabels` (in batch order, the
    /// last one per vertex winning) whose label differs from `labels` (before the batch; a
    /// vertex past its end has none), sorted by vertex. Empty for unlabelled patterns.
    pub(crate) fn relabelled(
        &self,
        labels: Option<&[u32]>,
        relabels: &[(Vertex, u32)],
    ) -> Vec<(Vertex, u32)> {
        let Some(labels) = labels.filter(|_| self.pattern.is_labelled()) else { return Vec::new() };
        let mut net = relabels.to_vec();
        // Stable: batch order within a vertex, so its last change is its final label.
        net.sort_by_key(|&(v, _)| v);
        let mut out: Vec<(Vertex, u32)> = Vec::with_capacity(net.len());
        for (i, &(v, l)) in net.iter().enumerate() {
            let last = net.get(i + 1).is_none_or(|n| n.0 != v);
            if last && labels.get(v as usize).copied().unwrap_or(NO_LABEL) != l {
                out.push((v, l));
            }
        }
        out
    }

    /// The matches on `g` (after the batch when `after`, else before it) containing a vertex of
    /// `relabelled` and no `changed` pair, each reported from its lowest relabelled vertex (see
    /// the module docs), read with the labels `here` and checked against the labels `there` of
    /// the other side of the batch: `(reported, modified)`, where before the batch `reported`
    /// are the removed matches and `modified` those still matching after; after it, `reported`
    /// are the added ones and `modified` stays empty.
    fn matches_at_relabelled<'a, L: ListSource<'a>>(
        &'a self,
        g: &'a L,
        after: bool,
        (here, there): (DataLabels<'a>, DataLabels<'a>),
        changed: &Changed,
        relabelled: &[(Vertex, u32)],
    ) -> Result<(Vec<Vertex>, Vec<Vertex>)> {
        let k = self.pattern.num_vertices();
        let matchers: Vec<Matcher<'a, &'a L>> = self
            .anchors
            .iter()
            .map(|p| Matcher::on_lists(g, &self.pattern, p, Some(here)))
            .collect::<Result<_>>()?;
        let n = g.num_vertices();
        let pairs = &changed.pairs;
        let one = |i: usize, st: &mut State<'a>| {
            let (mut reported, mut modified) = (Vec::new(), Vec::new());
            let r = relabelled[i].0;
            if (r as usize) >= n {
                return (reported, modified);
            }
            let mut sink = |m: &[Vertex]| {
                let has_pair = !pairs.is_empty()
                    && self
                        .pairs
                        .iter()
                        .any(|&(a, b)| pairs.binary_search(&(m[a].min(m[b]), m[a].max(m[b]))).is_ok());
                let earlier =
                    m.iter().any(|&x| x < r && relabelled.binary_search_by_key(&x, |c| c.0).is_ok());
                if has_pair || earlier {
                    return;
                }
                let still = self.pattern.labels_match(m, |x| there.get(x));
                match (after, still) {
                    (false, true) => modified.extend_from_slice(m),
                    (_, false) => reported.extend_from_slice(m),
                    (true, true) => {}
                }
            };
            for m in &matchers {
                m.starting_at(st, r, &mut Some(&mut sink));
            }
            (reported, modified)
        };
        let parts: Vec<(Vec<Vertex>, Vec<Vertex>)> = if relabelled.len() < 64 {
            let mut st = State::new(k);
            (0..relabelled.len()).map(|i| one(i, &mut st)).collect()
        } else {
            (0..relabelled.len()).into_par_iter().map_init(|| State::new(k), |st, i| one(i, st)).collect()
        };
        let (reported, modified): (Vec<Vec<Vertex>>, Vec<Vec<Vertex>>) = parts.into_iter().unzip();
        Ok((reported.concat(), modified.concat()))
    }

    /// One side of a batch whose changed pairs are `changed` and relabelled vertices
    /// `relabelled` (see [`Watch::relabelled`]), given the labels before it: on the graph `g`
    /// before the batch (`after` false), `(removed, modified)`; on the graph after it, `(added,
    /// nothing)`. A sequential exploration works in `buffers`.
    pub(crate) fn side<'a, L: ListSource<'a>>(
        &'a self,
        g: &'a L,
        after: bool,
        labels: Option<&'a [u32]>,
        changed: &Changed,
        relabelled: &'a [(Vertex, u32)],
        buffers: &mut WorkerBuffers,
    ) -> Result<(Vec<Vertex>, Vec<Vertex>)> {
        let before_labels = labels.map(|l| DataLabels::new(l, &[]));
        let after_labels = labels.map(|l| DataLabels::new(l, relabelled));
        let (here, there) = if after { (after_labels, before_labels) } else { (before_labels, after_labels) };
        let mut found = Vec::new();
        if !changed.pairs.is_empty() {
            found = self.matches_touching(g, after, here, changed, buffers)?;
        }
        let mut modified = Vec::new();
        if let (Some(h), Some(t)) = (here, there) {
            if !relabelled.is_empty() {
                let (more, m) = self.matches_at_relabelled(g, after, (h, t), changed, relabelled)?;
                found.extend(more);
                modified = m;
            }
        }
        Ok((found, modified))
    }

    /// The matches that a batch of edge updates `batch` (added or removed pairs) and label
    /// changes `relabels` (`(vertex, label)` in batch order, the last one per vertex winning)
    /// made appear, disappear and change labels, given the graph before (`before_out`,
    /// `before_in`) and after it and the data labels before it (`labels`, at least one per
    /// vertex after the batch).
    ///
    /// Errors: a labelled pattern without enough `labels`; directions disagreeing.
    pub fn apply<BO: Adjacency, BI: Adjacency, AO: Adjacency, AI: Adjacency>(
        &self,
        before: (&BO, &BI),
        after: (&AO, &AI),
        labels: Option<&[u32]>,
        batch: &[(Vertex, Vertex)],
        relabels: &[(Vertex, u32)],
    ) -> Result<Changes> {
        check_directions(before.0, before.1)?;
        check_directions(after.0, after.1)?;
        let (b, a) = (Undirected::new(before.0, before.1), Undirected::new(after.0, after.1));
        let changed = Self::changed_pairs(&b, &a, batch);
        let relabelled = self.relabelled(labels, relabels);
        let mut buffers = WorkerBuffers::default();
        let (removed, modified) = self.side(&b, false, labels, &changed, &relabelled, &mut buffers)?;
        let (added, _) = self.side(&a, true, labels, &changed, &relabelled, &mut buffers)?;
        Ok(Changes { added, removed, modified })
    }
}
