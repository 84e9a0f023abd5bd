//! Patterns, their automorphisms, symmetry-breaking restrictions and matching orders.
//!
//! A [`Pattern`] is a small connected undirected simple graph (2 to [`MAX_PATTERN_VERTICES`]
//! vertices), optionally labelled: each vertex then has a label or is a wildcard (matches a
//! data vertex with any label, or none). Matching it against a data graph explores
//! embeddings vertex by vertex in a *matching order* chosen from the pattern's structure (as
//! GraphPi, Peregrine and Tesseract do): first the pattern vertex of highest degree, then always
//! the unplaced vertex with the most edges to the placed ones (ties: higher degree, then lower
//! index), so every vertex after the first is reached through an edge and its candidates are an
//! intersection of already-read neighbour lists.
//!
//! Symmetry breaking (Grochow and Kellis, RECOMB 2007; used by Peregrine, Jamshidi et al.,
//! EuroSys 2020, and GraphPi, Shi et al., SC 2020): the automorphism group of the pattern is
//! computed by backtracking; then, walking the matching order, for the first vertex `v` whose
//! orbit under the current group is not trivial, the restrictions `m(v) < m(w)` are added for
//! every other `w` of the orbit, and the group is cut down to the stabiliser of `v`; until the
//! group is trivial. Exactly one embedding of each automorphism class satisfies every
//! restriction, so each match (a subgraph isomorphic to the pattern) is found once.

use ocgraph_core::{Error, Result};

/// Largest pattern size (vertices) the miner accepts.
pub const MAX_PATTERN_VERTICES: usize = 8;

/// A small connected undirected pattern graph, optionally vertex-labelled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    /// Adjacency bitmask per pattern vertex (bit `j` of `adj[i]`: edge `i - j`).
    adj: Vec<u8>,
    /// One label per pattern vertex (`None`: a wildcard), when labelled.
    labels: Option<Vec<Option<u32>>>,
}

impl Pattern {
    /// The pattern with the given undirected edges over vertices `0..k` (`k` = largest endpoint
    /// plus one, which is also the number of labels when given). Duplicate edges collapse. `labels` gives
    /// each pattern vertex a label or `None`, a wildcard that matches any data vertex.
    ///
    /// Errors: no edge, a self-loop, more than [`MAX_PATTERN_VERTICES`] vertices, a vertex in no
    /// edge, a pattern that is not connected, or a label count other than its vertex count.
    pub fn from_edges(edges: &[(usize, usize)], labels: Option<Vec<Option<u32>>>) -> Result<Pattern> {
        if edges.is_empty() {
            return Err(Error::invalid("a pattern needs at least one edge"));
        }
        if let Some(&(a, b)) = edges.iter().find(|&&(a, b)| a.max(b) >= MAX_PATTERN_VERTICES) {
            return Err(Error::invalid(format!(
                "pattern edge {a}-{b}: patterns have at most {MAX_PATTERN_VERTICES} vertices, numbered from 0"
            )));
        }
        let mut k = edges.iter().map(|&(a, b)| a.max(b) + 1).max().unwrap_or(0);
        if let Some(l) = &labels {
            if l.len() != k {
                return Err(Error::invalid(format!(
                    "the pattern has {k} vertices but {} labels were given",
                    l.len()
                )));
            }
            k = l.len();
        }
        if k > MAX_PATTERN_VERTICES {
            return Err(Error::invalid(format!(
                "patterns have at most {MAX_PATTERN_VERTICES} vertices (this one has {k})"
            )));
        }
        let mut adj = vec![0u8; k];
        for &(a, b) in edges {
            if a == b {
                return Err(Error::invalid(format!("pattern edge {a}-{b} is a self-loop")));
            }
            adj[a] |= 1 << b;
            adj[b] |= 1 << a;
        }
        if let Some(v) = adj.iter().position(|&a| a == 0) {
            return Err(Error::invalid(format!(
                "pattern vertex {v} has no edge (pattern vertices are numbered 0 to {}, each in an edge)",
                k - 1
            )));
        }
        let p = Pattern { adj, labels };
        if !p.is_connected() {
            return Err(Error::invalid(
                "the pattern is not connected (every vertex must be reached by an edge)",
            ));
        }
        Ok(p)
    }

    /// The complete graph on `k` vertices (2 ≤ k ≤ [`MAX_PATTERN_VERTICES`]).
    pub fn clique(k: usize) -> Result<Pattern> {
        if !(2..=MAX_PATTERN_VERTICES).contains(&k) {
            return Err(Error::invalid(format!(
                "a clique pattern has 2 to {MAX_PATTERN_VERTICES} vertices, not {k}"
            )));
        }
        let edges: Vec<_> = (0..k).flat_map(|a| (a + 1..k).map(move |b| (a, b))).collect();
        Pattern::from_edges(&edges, None)
    }

    /// A pattern by name: `triangle`, `wedge`, `K-clique`, `K-cycle`, `K-path` (K vertices),
    /// `K-star` (a centre and K - 1 leaves), `diamond`, `tailed-triangle`.
    pub fn named(name: &str) -> Result<Pattern> {
        let bad = || {
            Error::invalid(format!(
                "unknown pattern {name:?}: use triangle, wedge, diamond, tailed-triangle, or K-clique, K-path, \
                 K-star with K from 2 to {MAX_PATTERN_VERTICES}, K-cycle with K from 3 to {MAX_PATTERN_VERTICES}"
            ))
        };
        let edges: Vec<(usize, usize)> = match name {
            "triangle" => return Pattern::clique(3),
            "wedge" => vec![(0, 1), (1, 2)],
            "diamond" => vec![(0, 1), (0, 2), (1, 2), (1, 3), (2, 3)],
            "tailed-triangle" => vec![(0, 1), (0, 2), (1, 2), (2, 3)],
            _ => {
                let (k, kind) = name.split_once('-').ok_or_else(bad)?;
                // Digits only, no leading zero: `+4-cycle` and `03-cycle` are not names.
                if k.starts_with('0') || !k.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(bad());
                }
                let k: usize = k.parse().map_err(|_| bad())?;
                if !(2..=MAX_PATTERN_VERTICES).contains(&k) {
                    return Err(bad());
                }
                match kind {
                    "clique" => return Pattern::clique(k),
                    "cycle" if k >= 3 => (0..k).map(|i| (i, (i + 1) % k)).collect(),
                    "path" => (1..k).map(|i| (i - 1, i)).collect(),
                    "star" => (1..k).map(|i| (0, i)).collect(),
                    _ => return Err(bad()),
                }
            }
        };
        Pattern::from_edges(&edges, None)
    }

    /// Number of pattern vertices.
    pub fn num_vertices(&self) -> usize {
        self.adj.len()
    }

    /// The pattern's edges `(a, b)` with `a < b`, in order.
    pub fn edges(&self) -> Vec<(usize, usize)> {
        let k = self.adj.len();
        (0..k).flat_map(|a| (a + 1..k).filter(move |&b| self.has_edge(a, b)).map(move |b| (a, b))).collect()
    }

    /// Whether pattern vertices `a` and `b` are adjacent.
    pub fn has_edge(&self, a: usize, b: usize) -> bool {
        self.adj[a] >> b & 1 == 1
    }

    /// The label of pattern vertex `a`: `None` when the pattern is unlabelled or `a` is a
    /// wildcard.
    pub fn label(&self, a: usize) -> Option<u32> {
        self.labels.as_ref().and_then(|l| l[a])
    }

    /// Whether the data labels `label(m[a])` of the data vertices `m` (in pattern-vertex
    /// order) satisfy every pattern label.
    pub fn labels_match(
        &self,
        m: &[ocgraph_core::Vertex],
        label: impl Fn(ocgraph_core::Vertex) -> Option<u32>,
    ) -> bool {
        (0..m.len()).all(|a| self.label(a).is_none_or(|want| label(m[a]) == Some(want)))
    }

    /// Whether the pattern carries vertex labels (wildcards included).
    pub fn is_labelled(&self) -> bool {
        self.labels.is_some()
    }

    fn degree(&self, a: usize) -> u32 {
        self.adj[a].count_ones()
    }

    fn is_connected(&self) -> bool {
        let mut seen = 1u8;
        let mut frontier = 1u8;
        while frontier != 0 {
            let mut next = 0u8;
            for a in 0..self.adj.len() {
                if frontier >> a & 1 == 1 {
                    next |= self.adj[a];
                }
            }
            frontier = next & !seen;
            seen |= next;
        }
        seen.count_ones() as usize == self.adj.len()
    }

    /// Every automorphism (adjacency- and label-preserving permutation `p`, `p[a]` the image
    /// of `a`), the identity first.
    pub fn automorphisms(&self) -> Vec<Vec<usize>> {
        let k = self.adj.len();
        let mut out = Vec::new();
        let mut perm = Vec::with_capacity(k);
        self.extend_automorphism(&mut perm, 0, &mut out);
        out
    }

    fn extend_automorphism(&self, perm: &mut Vec<usize>, used: u8, out: &mut Vec<Vec<usize>>) {
        let a = perm.len();
        if a == self.adj.len() {
            out.push(perm.clone());
            return;
        }
        for b in 0..self.adj.len() {
            if used >> b & 1 == 1 || self.degree(a) != self.degree(b) || self.label(a) != self.label(b) {
                continue;
            }
            if (0..a).all(|c| self.has_edge(a, c) == self.has_edge(b, perm[c])) {
                perm.push(b);
                self.extend_automorphism(perm, used | 1 << b, out);
                perm.pop();
            }
        }
    }

    /// Symmetry-breaking restrictions for exploring in `order`: pairs `(a, b)` meaning the
    /// data vertex matched to `a` must have a smaller id than the one matched to `b`.
    pub fn restrictions(&self, order: &[usize]) -> Vec<(usize, usize)> {
        let mut group = self.automorphisms();
        let mut out = Vec::new();
        for &v in order {
            if group.len() == 1 {
                break;
            }
            let mut orbit: Vec<usize> = group.iter().map(|p| p[v]).collect();
            orbit.sort_unstable();
            orbit.dedup();
            out.extend(orbit.into_iter().filter(|&w| w != v).map(|w| (v, w)));
            group.retain(|p| p[v] == v);
        }
        out
    }

    /// The matching order starting with `first` (then `second`, when given): always the
    /// unplaced vertex with the most edges to the placed ones, ties to the higher degree, then
    /// the lower index. Without `first`, starts at the vertex of highest degree.
    pub fn matching_order(&self, first: Option<usize>, second: Option<usize>) -> Vec<usize> {
        let k = self.adj.len();
        let first = first
            .unwrap_or_else(|| (0..k).max_by_key(|&a| (self.degree(a), std::cmp::Reverse(a))).unwrap_or(0));
        let mut prefix = vec![first];
        prefix.extend(second);
        self.complete_order(&prefix)
    }

    /// `prefix` completed by the rule of [`Pattern::matching_order`].
    fn complete_order(&self, prefix: &[usize]) -> Vec<usize> {
        let mut order = prefix.to_vec();
        while order.len() < self.adj.len() {
            let next = self.next_in_order(&order).expect("an unplaced vertex remains");
            order.push(next);
        }
        order
    }

    /// The vertex the rule of [`Pattern::matching_order`] places after `prefix`.
    fn next_in_order(&self, prefix: &[usize]) -> Option<usize> {
        let placed = Self::mask(prefix);
        (0..self.adj.len())
            .filter(|&a| placed >> a & 1 == 0)
            .max_by_key(|&a| ((self.adj[a] & placed).count_ones(), self.degree(a), std::cmp::Reverse(a)))
    }

    /// The other vertices that could follow `prefix` as well as the rule's choice: as many
    /// edges to the placed vertices, but to other ones (one vertex per set of placed
    /// neighbours; those with the choice's set would read the same lists), and adjacent to the
    /// choice, so that whichever of the two comes first narrows the other's candidates to its
    /// neighbours. (Two branches that do not meet multiply whatever their order; taking the
    /// shorter list first then only reads the other's lists more often: a 5-path count on a
    /// wheel took a third longer.)
    fn tied_with_next(&self, prefix: &[usize]) -> Vec<usize> {
        let placed = Self::mask(prefix);
        let Some(next) = self.next_in_order(prefix) else { return Vec::new() };
        let edges = (self.adj[next] & placed).count_ones();
        let mut seen = vec![self.adj[next] & placed];
        let mut tied = Vec::new();
        for a in (0..self.adj.len()).filter(|&a| placed >> a & 1 == 0) {
            let to_placed = self.adj[a] & placed;
            if to_placed.count_ones() == edges && self.has_edge(a, next) && !seen.contains(&to_placed) {
                seen.push(to_placed);
                tied.push(a);
            }
        }
        tied
    }

    /// The vertices of `order` as a bit mask.
    fn mask(order: &[usize]) -> u8 {
        order.iter().fold(0, |m, &a| m | 1 << a)
    }
}

/// What one step of a [`Plan`] checks for its candidate `c` (positions are indices into the
/// matching order).
#[derive(Debug, Clone, Default)]
pub(crate) struct Step {
    /// Pattern vertex placed at this step.
    pub vertex: usize,
    /// Earlier positions adjacent in the pattern: `c` must be in each one's neighbour list.
    pub adjacent: Vec<usize>,
    /// Earlier positions not adjacent (vertex-induced matching only): `c` must not be.
    pub non_adjacent: Vec<usize>,
    /// Earlier positions whose data vertex must be below `c`.
    pub above: Vec<usize>,
    /// Earlier positions whose data vertex must be above `c`.
    pub below: Vec<usize>,
    /// Required label of `c`, when the pattern is labelled.
    pub label: Option<u32>,
    /// Whether a later step reads this step's neighbour list.
    pub list_needed: bool,
    /// What the steps after the next need of the positions up to this one, checked once this
    /// step is placed: one with no candidate left ends the branch.
    pub awaited: Vec<Awaited>,
    /// When this step's adjacent positions are the previous step's plus the previous position
    /// itself (and maybe more): those added positions, whose lists filter the previous step's
    /// candidates into this step's.
    pub extends: Option<Vec<usize>>,
}

/// A later step's need, as far as the positions placed so far tell: a candidate in the list of
/// position `list` above the vertices at `above` and below those at `below`, none of them placed.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Awaited {
    /// The position whose neighbour list holds the candidates.
    pub list: usize,
    /// Positions whose vertices the candidates must be above.
    pub above: Vec<usize>,
    /// Positions whose vertices the candidates must be below.
    pub below: Vec<usize>,
}

/// Most plans an [`Plan::adaptive`] plan holds, its forks (and theirs) included.
const MAX_PLANS: usize = 32;

/// A matching plan: the order and, per step, the checks on its candidates.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// One step per pattern vertex, in matching order.
    pub steps: Vec<Step>,
    /// The first position of the *twin tail*, when the plan ends with at least two steps
    /// that a count need not enumerate: see [`Plan::twin_tail`].
    pub twin_tail: Option<usize>,
    /// Per position `i`, the plans that share this one's positions `0..i` and place another
    /// pattern vertex at `i`, tied with this plan's by the order's rule: the search continues
    /// at `i` with whichever of them and this one has the fewest candidates there (see
    /// [`Plan::adaptive`]). Empty for a plan built by [`Plan::new`].
    pub forks: Vec<Vec<Plan>>,
}

impl Plan {
    /// The plan exploring `pattern` in `order` under `restrictions` (pairs of pattern vertices).
    pub fn new(pattern: &Pattern, order: &[usize], restrictions: &[(usize, usize)], induced: bool) -> Plan {
        let pos = |a: usize| order.iter().position(|&x| x == a).expect("order covers the pattern");
        let mut steps: Vec<Step> = order
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                let (adjacent, non_adjacent): (Vec<usize>, Vec<usize>) =
                    (0..i).partition(|&j| pattern.has_edge(v, order[j]));
                Step {
                    vertex: v,
                    adjacent,
                    non_adjacent: if induced { non_adjacent } else { Vec::new() },
                    label: pattern.label(v),
                    ..Step::default()
                }
            })
            .collect();
        for &(a, b) in restrictions {
            let (pa, pb) = (pos(a), pos(b));
            if pa < pb {
                steps[pb].above.push(pa);
            } else {
                steps[pa].below.push(pb);
            }
        }
        for i in 0..steps.len() {
            let needed =
                steps[i + 1..].iter().any(|s| s.adjacent.contains(&i) || s.non_adjacent.contains(&i));
            steps[i].list_needed = needed;
        }
        for i in 0..steps.len() {
            let placed = |q: &Vec<usize>| q.iter().copied().filter(|&q| q <= i).collect::<Vec<_>>();
            let mut awaited: Vec<Awaited> = steps
                .get(i + 2..)
                .unwrap_or_default()
                .iter()
                .flat_map(|s| {
                    let (above, below) = (placed(&s.above), placed(&s.below));
                    s.adjacent.iter().filter(move |&&p| p <= i).map(move |&list| Awaited {
                        list,
                        above: above.clone(),
                        below: below.clone(),
                    })
                })
                .collect();
            awaited.sort();
            awaited.dedup();
            steps[i].awaited = awaited;
        }
        for i in 2..steps.len() {
            let (prev, this) = (&steps[i - 1].adjacent, &steps[i].adjacent);
            if this.contains(&(i - 1)) && prev.iter().all(|j| this.contains(j)) {
                steps[i].extends = Some(this.iter().copied().filter(|j| !prev.contains(j)).collect());
            }
        }
        let twin_tail = Plan::twin_tail(&steps);
        let forks = vec![Vec::new(); steps.len()];
        Plan { steps, twin_tail, forks }
    }

    /// The plan of [`Plan::new`] with forks: wherever, from position 2 on, other pattern
    /// vertices tie with the order's next one (as many edges to the placed vertices, to other
    /// ones, and adjacent to it), a plan placing each of them there instead, itself with forks
    /// further on; at most [`MAX_PLANS`] plans in all. A static order cannot know which of two
    /// such vertices to place first: a house (a 4-cycle with a roof) placed from a top corner
    /// of its wall, then a wheel's hub as the other top corner, should take the roof from the
    /// rim vertex's list (3 vertices) and then the hub's neighbours adjacent to the roof,
    /// rather than every neighbour of the hub first, which only the data tells. Positions 0
    /// and 1 are placed by the callers ([`super::pattern`], a watch's changed pair).
    pub fn adaptive(
        pattern: &Pattern,
        order: &[usize],
        restrictions: &[(usize, usize)],
        induced: bool,
    ) -> Plan {
        let mut budget = MAX_PLANS - 1;
        Plan::forking(pattern, order, restrictions, induced, 2, &mut budget)
    }

    /// [`Plan::new`] with forks at positions `from..`, while `budget` plans remain.
    fn forking(
        pattern: &Pattern,
        order: &[usize],
        restrictions: &[(usize, usize)],
        induced: bool,
        from: usize,
        budget: &mut usize,
    ) -> Plan {
        let mut plan = Plan::new(pattern, order, restrictions, induced);
        for i in from..order.len() {
            for a in pattern.tied_with_next(&order[..i]) {
                if *budget == 0 {
                    return plan;
                }
                *budget -= 1;
                let mut prefix = order[..i].to_vec();
                prefix.push(a);
                let alt = pattern.complete_order(&prefix);
                plan.forks[i].push(Plan::forking(pattern, &alt, restrictions, induced, i + 1, budget));
            }
        }
        plan
    }

    /// The first position `t` of the longest tail `t..k` (at least two steps) of *twins*: steps
    /// adjacent to the same earlier positions (all before `t`, so no two twins are adjacent),
    /// with no non-adjacency check (edge-induced), the same bounds from the positions before
    /// `t`, and among themselves exactly the chains the symmetry breaking gives interchangeable
    /// vertices: each twin above every earlier twin of its label, and no restriction between
    /// twins of different labels. A count then needs only the valid candidates of step `t` by
    /// label: the twins of one label take any `r` of those with their label, in increasing
    /// order, `C(m, r)` ways; wildcard twins any of the candidates the labelled ones left
    /// (GraphPi, Shi et al., SC 2020, counts such tails by inclusion-exclusion; twins need no
    /// more than binomials).
    fn twin_tail(steps: &[Step]) -> Option<usize> {
        let k = steps.len();
        let sorted = |v: &[usize], keep: &dyn Fn(usize) -> bool| {
            let mut v: Vec<usize> = v.iter().copied().filter(|&j| keep(j)).collect();
            v.sort_unstable();
            v
        };
        (1..k.saturating_sub(1)).find(|&t| {
            let first = &steps[t];
            steps[t..].iter().enumerate().all(|(r, s)| {
                s.adjacent == first.adjacent
                    && s.adjacent.iter().all(|&j| j < t)
                    && s.non_adjacent.is_empty()
                    && sorted(&s.above, &|j| j < t) == sorted(&first.above, &|_| true)
                    && sorted(&s.below, &|_| true) == sorted(&first.below, &|_| true)
                    && sorted(&s.above, &|j| j >= t)
                        .into_iter()
                        .eq((t..t + r).filter(|&j| steps[j].label == s.label))
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn automorphism_group_sizes() {
        assert_eq!(Pattern::clique(4).unwrap().automorphisms().len(), 24);
        assert_eq!(Pattern::named("4-cycle").unwrap().automorphisms().len(), 8);
        assert_eq!(Pattern::named("4-path").unwrap().automorphisms().len(), 2);
        assert_eq!(Pattern::named("4-star").unwrap().automorphisms().len(), 6);
        assert_eq!(Pattern::named("diamond").unwrap().automorphisms().len(), 4);
        assert_eq!(Pattern::named("tailed-triangle").unwrap().automorphisms().len(), 2);
        let labelled =
            Pattern::from_edges(&[(0, 1), (1, 2), (2, 0)], Some(vec![Some(1), Some(1), Some(2)])).unwrap();
        assert_eq!(labelled.automorphisms().len(), 2);
        let wild = Pattern::from_edges(&[(0, 1), (1, 2), (2, 0)], Some(vec![None, Some(1), None])).unwrap();
        assert_eq!(wild.automorphisms().len(), 2);
    }

    /// Exactly one permutation of each coset satisfies the restrictions: the number of
    /// permutations of the pattern's vertices (as ids 0..k) satisfying them is k! / |Aut|.
    #[test]
    fn restrictions_keep_one_embedding_per_class() {
        for name in
            ["triangle", "4-cycle", "4-clique", "diamond", "5-cycle", "4-star", "tailed-triangle", "6-path"]
        {
            let p = Pattern::named(name).unwrap();
            let aut = p.automorphisms();
            let r = p.restrictions(&p.matching_order(None, None));
            // Each automorphism class of the identity embedding: exactly one member passes.
            let passing = aut.iter().filter(|m| r.iter().all(|&(a, b)| m[a] < m[b])).count();
            assert_eq!(passing, 1, "{name}: {r:?}");
        }
    }

    /// Which plans end in a twin tail (counted by a binomial), and where it starts.
    #[test]
    fn twin_tails_are_the_interchangeable_last_vertices() {
        let tail = |p: &Pattern, induced: bool| {
            let order = p.matching_order(None, None);
            Plan::new(p, &order, &p.restrictions(&order), induced).twin_tail
        };
        let named = |n: &str| Pattern::named(n).unwrap();
        assert_eq!(tail(&named("4-star"), false), Some(1));
        assert_eq!(tail(&named("8-star"), false), Some(1));
        assert_eq!(tail(&named("wedge"), false), Some(1));
        assert_eq!(tail(&named("diamond"), false), Some(2));
        let k23 = Pattern::from_edges(&[(0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4)], None).unwrap();
        assert_eq!(tail(&k23, false), Some(3));
        // Vertex-induced twins must also be non-adjacent in the data: enumerated.
        assert_eq!(tail(&named("4-star"), true), None);
        // Adjacent or not interchangeable last vertices.
        for n in ["triangle", "4-clique", "4-cycle", "4-path", "tailed-triangle", "5-cycle"] {
            assert_eq!(tail(&named(n), false), None, "{n}");
        }
        // Leaves of different labels are twins too (counted label by label), wildcards with them.
        let labelled = |l: [Option<u32>; 5]| {
            Pattern::from_edges(&[(0, 1), (0, 2), (0, 3), (0, 4)], Some(l.to_vec())).unwrap()
        };
        assert_eq!(tail(&labelled([Some(0), Some(1), Some(0), Some(0), Some(2)]), false), Some(1));
        assert_eq!(tail(&labelled([Some(0), Some(0), Some(0), None, None]), false), Some(1));
        assert_eq!(tail(&labelled([None, Some(1), Some(2), Some(3), Some(4)]), false), Some(1));
    }

    /// What each step checks of the steps after the next: the 5-cycle `0-1-2-3-4-0` matched in
    /// that order with `0` the smallest and `1 < 4` needs for `4` a neighbour of `0` above it,
    /// and above `1` once `1` is placed; `3`, the step after `2`, is checked when it comes.
    #[test]
    fn later_needs_are_checked_from_the_positions_placed() {
        let cycle = Pattern::named("5-cycle").unwrap();
        let restrictions = [(0, 1), (0, 2), (0, 3), (0, 4), (1, 4)];
        let plan = Plan::new(&cycle, &[0, 1, 2, 3, 4], &restrictions, false);
        let need = |list, above: &[usize]| Awaited { list, above: above.to_vec(), below: vec![] };
        assert_eq!(plan.steps[0].awaited, vec![need(0, &[0])]);
        assert_eq!(plan.steps[1].awaited, vec![need(0, &[0, 1])]);
        assert_eq!(plan.steps[2].awaited, vec![need(0, &[0, 1])]);
        assert!(plan.steps[3].awaited.is_empty() && plan.steps[4].awaited.is_empty());
    }

    /// Forks are plans tied with the order's choice whose vertices are adjacent to it.
    #[test]
    fn forks_place_an_adjacent_tied_vertex_instead() {
        let forks = |p: &Pattern| {
            let order = p.matching_order(None, None);
            let plan = Plan::adaptive(p, &order, &p.restrictions(&order), false);
            let at = |i: usize| plan.forks[i].iter().map(|f| f.steps[i].vertex).collect::<Vec<_>>();
            (order, (0..p.num_vertices()).map(at).collect::<Vec<_>>())
        };
        // House 0-1-2-3-4-0 with the chord 0-2, placed 0, 2, 1: 3 (next to 2) and 4 (next to
        // 0) tie and are adjacent.
        let house = Pattern::from_edges(&[(0, 1), (1, 2), (2, 3), (3, 4), (4, 0), (0, 2)], None).unwrap();
        assert_eq!(forks(&house), (vec![0, 2, 1, 3, 4], vec![vec![], vec![], vec![], vec![4], vec![]]));
        // The 5-cycle placed 0, 1: 2 and 4 tie but do not meet; after 0, 1, 2, 3 and 4 do.
        let (order, at) = forks(&Pattern::named("5-cycle").unwrap());
        assert_eq!((order, at), (vec![0, 1, 2, 3, 4], vec![vec![], vec![], vec![], vec![4], vec![]]));
        // A path's two ends never meet: no fork. A clique's vertices all tie alike: none.
        for name in ["5-path", "4-clique", "5-star"] {
            let (_, at) = forks(&Pattern::named(name).unwrap());
            assert!(at.iter().all(Vec::is_empty), "{name}");
        }
    }

    #[test]
    fn bad_patterns_are_rejected() {
        assert!(Pattern::from_edges(&[], None).is_err());
        assert!(Pattern::from_edges(&[(0, 0)], None).is_err());
        assert!(Pattern::from_edges(&[(0, 1), (2, 3)], None).is_err());
        // Vertex numbers past the largest pattern (one that would wrap computing the count).
        assert!(Pattern::from_edges(&[(0, 8)], None).is_err());
        assert!(Pattern::from_edges(&[(0, 1), (1, usize::MAX)], None).is_err());
        assert!(Pattern::from_edges(&[(0, usize::MAX)], Some(vec![None, None])).is_err());
        assert!(Pattern::from_edges(&[(0, 9)], None).is_err());
        assert!(Pattern::named("9-clique").is_err());
        assert!(Pattern::named("blob").is_err());
        for loose in ["03-cycle", "+4-cycle", "-4-cycle", " 4-cycle"] {
            assert!(Pattern::named(loose).is_err(), "{loose}");
        }
    }
}
