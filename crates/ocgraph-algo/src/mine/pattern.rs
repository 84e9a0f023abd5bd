//! Matching a user pattern: count or list its subgraph matches, edge-induced (every pattern
//! edge present; monomorphisms) or vertex-induced (pattern edges present and no other edge
//! among the matched vertices), optionally with vertex labels.
//!
//! Method: pattern-aware exploration as in GraphPi (Shi et al., SC 2020) and Peregrine
//! (Jamshidi et al., EuroSys 2020): the pattern's matching order and symmetry-breaking
//! restrictions ([`super::plan`]) are fixed once; the data vertex of the first pattern vertex
//! runs over every vertex (split over rayon workers in edge-balanced ranges), and each later
//! pattern vertex takes its candidates from the intersection of the sorted neighbour lists of
//! its already-matched pattern neighbours, clipped to the id interval its restrictions allow,
//! minus the neighbours of its matched non-neighbours when vertex-induced. The last step is
//! counted without being enumerated, and so is a tail of twins (pattern vertices with the
//! same neighbours, all placed before them: a star's leaves, a diamond's tips), whose
//! matches are the binomial of their shared candidates ([`super::plan::Plan`]). Each match is found exactly once: its data vertices are
//! reported in pattern-vertex order.
//!
//! State per worker: one neighbour list and one candidate list per pattern vertex; nothing per
//! data vertex (lists are read through the page layer as the search needs them).

use ocgraph_core::{Adjacency, Error, Result, Vertex};
use rayon::prelude::*;

use super::listing::Listing;
use super::plan::{Awaited, Pattern, Plan, Step};
use super::{intersect_into, ListBuf, ListSource, Undirected};
use crate::bfs::check_directions;
use crate::chunks::{degrees, edge_balanced_ranges, pieces_for};

/// How a pattern is matched.
#[derive(Debug, Clone, Copy, Default)]
pub struct MatchOptions<'a> {
    /// Vertex-induced (no edge between matched vertices beyond the pattern's) instead of
    /// edge-induced.
    pub induced: bool,
    /// A label per data vertex; required when the pattern is labelled (a pattern vertex then
    /// matches only data vertices with its label).
    pub labels: Option<&'a [u32]>,
}

/// The data vertices' labels as a search reads them: an array, with the labels of a few
/// vertices overridden (a watch reading the labels after a batch that changed them).
#[derive(Debug, Clone, Copy)]
pub(crate) struct DataLabels<'a> {
    all: &'a [u32],
    /// `(vertex, label)` sorted by vertex, one per vertex.
    over: &'a [(Vertex, u32)],
}

impl<'a> DataLabels<'a> {
    /// The labels `all`, with `over` (sorted by vertex, one per vertex) replacing theirs.
    pub(crate) fn new(all: &'a [u32], over: &'a [(Vertex, u32)]) -> Self {
        DataLabels { all, over }
    }

    /// The label of `v` (`None` past the array).
    pub(crate) fn get(&self, v: Vertex) -> Option<u32> {
        if !self.over.is_empty() {
            if let Ok(i) = self.over.binary_search_by_key(&v, |o| o.0) {
                return Some(self.over[i].1);
            }
        }
        self.all.get(v as usize).copied()
    }
}

/// Where a match goes: `None` counts only.
pub(crate) type Emit<'e> = Option<&'e mut dyn FnMut(&[Vertex])>;

/// The search state of one worker (per matching-order position), reading lists that live `'a`.
pub(crate) struct State<'a> {
    /// Data vertex at each position.
    m: Vec<Vertex>,
    /// Neighbour list of each position's data vertex (read when a later step needs it).
    lists: Vec<ListBuf<'a>>,
    /// The vertex whose list `lists[i]` holds, when it was read by [`Matcher::place`]: placing
    /// it there again reads nothing (a hub with a high id is placed at position 1 once per
    /// neighbour). Never kept with [`StateBuffers`], so a state reads one graph.
    read_of: Vec<Option<Vertex>>,
    /// Candidate buffers, one per position.
    cand: Vec<Vec<Vertex>>,
    /// Scratch for intersections.
    tmp: Vec<Vertex>,
    /// The current match by pattern vertex (for emitting).
    by_vertex: Vec<Vertex>,
}

/// The buffers of a [`State`] without what it borrowed: kept between searches (a watch's
/// batches) so that a later state reuses their capacity instead of allocating.
#[derive(Debug, Clone, Default)]
pub(crate) struct StateBuffers {
    m: Vec<Vertex>,
    lists: Vec<Vec<Vertex>>,
    cand: Vec<Vec<Vertex>>,
    tmp: Vec<Vertex>,
    by_vertex: Vec<Vertex>,
}

impl State<'_> {
    pub(crate) fn new(k: usize) -> Self {
        Self::from_buffers(StateBuffers::default(), k)
    }

    /// A state for patterns of `k` vertices in the buffers `b`.
    pub(crate) fn from_buffers(b: StateBuffers, k: usize) -> Self {
        let StateBuffers { mut m, lists, mut cand, tmp, mut by_vertex } = b;
        m.resize(k, 0);
        by_vertex.resize(k, 0);
        cand.resize_with(k, Vec::new);
        let mut lists: Vec<ListBuf<'_>> = lists.into_iter().map(ListBuf::owning).collect();
        lists.resize_with(k, ListBuf::default);
        State { m, lists, read_of: vec![None; k], cand, tmp, by_vertex }
    }

    /// The state's buffers, for [`State::from_buffers`].
    pub(crate) fn into_buffers(self) -> StateBuffers {
        let State { m, lists, cand, tmp, by_vertex, .. } = self;
        StateBuffers { m, lists: lists.into_iter().map(ListBuf::into_buffer).collect(), cand, tmp, by_vertex }
    }
}

/// A step's candidate list (before the per-candidate checks) and the exclusive id bounds it was
/// clipped to; or, given to the third step, the intersection of the first two positions' lists.
struct Candidates<'c> {
    list: &'c [Vertex],
    lo: Option<Vertex>,
    hi: Option<Vertex>,
    /// Which lists `list` intersects.
    of: Intersected,
}

/// The lists a [`Candidates`] list is the intersection of.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Intersected {
    /// The previous step's adjacent positions' lists.
    PreviousStep,
    /// The lists of positions 0 and 1.
    FirstTwo,
}

/// A plan bound to the lists of a graph.
pub(crate) struct Matcher<'a, L> {
    g: L,
    plan: &'a Plan,
    labels: Option<DataLabels<'a>>,
}

impl<'a, O: Adjacency, I: Adjacency> Matcher<'a, Undirected<'a, O, I>> {
    /// Binds `plan` to the graph `out`/`in_`; checks the labels against the graph and pattern.
    pub(crate) fn new(
        out: &'a O,
        in_: &'a I,
        pattern: &Pattern,
        plan: &'a Plan,
        labels: Option<&'a [u32]>,
    ) -> Result<Self> {
        check_directions(out, in_)?;
        let g = Undirected::new(out, in_);
        let g = g.knowing_simple(g.lists_are_simple());
        Matcher::on_lists(g, pattern, plan, labels.map(|l| DataLabels::new(l, &[])))
    }
}

impl<'a, L: ListSource<'a>> Matcher<'a, L> {
    /// Binds `plan` to the lists of `g`; checks the labels against the graph and pattern.
    pub(crate) fn on_lists(
        g: L,
        pattern: &Pattern,
        plan: &'a Plan,
        labels: Option<DataLabels<'a>>,
    ) -> Result<Self> {
        if pattern.is_labelled() && labels.is_none() {
            return Err(Error::invalid("the pattern is labelled: pass a label per data vertex"));
        }
        check_labels(labels.map(|l| l.all), g.num_vertices())?;
        Ok(Matcher { g, plan, labels: labels.filter(|_| pattern.is_labelled()) })
    }

    fn k(&self) -> usize {
        self.plan.steps.len()
    }

    fn label_ok(&self, s: &Step, c: Vertex) -> bool {
        match (s.label, self.labels) {
            (Some(want), Some(l)) => l.get(c) == Some(want),
            _ => true,
        }
    }

    /// Whether `c` passes the checks of position `i` that read no list (in range, label,
    /// distinct from the earlier positions, within the restrictions' bounds).
    fn accepts(&self, st: &State<'a>, i: usize, c: Vertex) -> bool {
        let s = &self.plan.steps[i];
        (c as usize) < self.g.num_vertices()
            && self.label_ok(s, c)
            && !st.m[..i].contains(&c)
            && s.above.iter().all(|&j| st.m[j] < c)
            && s.below.iter().all(|&j| st.m[j] > c)
    }

    /// Places `v` at position `i` of `plan` (reading its list when a later step needs it).
    fn place(&self, plan: &Plan, st: &mut State<'a>, i: usize, v: Vertex) {
        st.m[i] = v;
        if plan.steps[i].list_needed && st.read_of[i] != Some(v) {
            self.g.read(v, &mut st.lists[i]);
            st.read_of[i] = Some(v);
        }
    }

    /// Whether a later step's need `a` has no candidate once positions `0..=i` are placed:
    /// checked as soon as it holds rather than when that step comes, so that the steps between
    /// are not enumerated for nothing (a 5-path at a star's hub paired every two leaves before
    /// finding that a leaf has no other neighbour; a 5-cycle at a wheel's hub of the highest
    /// id, every rim vertex with every other before finding none above the hub). Lists are
    /// simple (no repeat, no self-loop), so a range of more than `i` vertices always has one
    /// not placed.
    fn none_left(st: &State<'a>, a: &Awaited, i: usize) -> bool {
        let l = &st.lists[a.list];
        let (lo, hi) = bounds(st, &a.above, &a.below);
        let range = &l[clip(l, lo, hi)];
        range.len() <= i && range.iter().all(|c| st.m[..=i].contains(c))
    }

    fn emit(&self, plan: &Plan, st: &mut State<'a>, emit: &mut Emit<'_>) {
        if let Some(f) = emit {
            for (i, s) in plan.steps.iter().enumerate() {
                st.by_vertex[s.vertex] = st.m[i];
            }
            f(&st.by_vertex);
        }
    }

    /// Counts (and emits) the matches of `plan` (or of its forks) extending positions `0..i`;
    /// `prev` is the previous step's candidate list with the id interval it was clipped to,
    /// when it has one.
    fn search(
        &self,
        plan: &'a Plan,
        st: &mut State<'a>,
        i: usize,
        emit: &mut Emit<'_>,
        prev: Option<Candidates<'_>>,
    ) -> u64 {
        let k = self.k();
        if i == k {
            self.emit(plan, st, emit);
            return 1;
        }
        let plan = choose(plan, &st.lists, i);
        let s = &plan.steps[i];
        // Candidates: the intersection of the adjacent positions' lists, each first clipped to
        // the id interval the restrictions allow (above every `above`, below every `below`).
        let (lo, hi) = bounds(st, &s.above, &s.below);
        let clip = |l: &[Vertex]| clip(l, lo, hi);
        // When this step's adjacent positions extend the previous step's and its interval lies
        // within the previous one, the previous candidates already hold the intersection of
        // the shared lists: only the new ones are intersected (cliques: one list per step).
        let within = |p: &Candidates<'_>| {
            p.lo.is_none_or(|x| lo.is_some_and(|y| y >= x)) && p.hi.is_none_or(|x| hi.is_some_and(|y| y <= x))
        };
        // Likewise when the caller gave the intersection of positions 0 and 1 and this step is
        // adjacent to both (a watch's changed pair: one intersection shared by every plan).
        let (first, rest): (&[Vertex], &[usize]) = match (&s.extends, &prev) {
            (Some(new), Some(p)) if p.of == Intersected::PreviousStep && within(p) => {
                (&p.list[clip(p.list)], new)
            }
            (_, Some(p)) if p.of == Intersected::FirstTwo && s.adjacent.starts_with(&[0, 1]) => {
                (&p.list[clip(p.list)], &s.adjacent[2..])
            }
            _ => {
                let l = &st.lists[s.adjacent[0]];
                (&l[clip(l)], &s.adjacent[1..])
            }
        };
        let mut cand = std::mem::take(&mut st.cand[i]);
        match rest.split_first() {
            None => {
                cand.clear();
                cand.extend_from_slice(first);
            }
            Some((&j, more)) => {
                let l = &st.lists[j];
                intersect_into(first, &l[clip(l)], &mut cand);
                for &j in more {
                    let l = &st.lists[j];
                    intersect_into(&cand, &l[clip(l)], &mut st.tmp);
                    std::mem::swap(&mut cand, &mut st.tmp);
                }
            }
        }
        let valid = |st: &State<'a>, c: Vertex| {
            !st.m[..i].contains(&c)
                && self.label_ok(s, c)
                && !s.non_adjacent.iter().any(|&j| st.lists[j].binary_search(&c).is_ok())
        };
        let mut total = 0u64;
        let tail = match emit {
            None if plan.twin_tail == Some(i) => self.twin_count(plan, st, i, &cand),
            _ => None,
        };
        if let Some(count) = tail {
            total = count;
        } else if emit.is_none() && i + 1 == k {
            // Counting the last step: each valid candidate makes one match.
            total = cand.iter().filter(|&&c| valid(st, c)).count() as u64;
        } else {
            for &c in &cand {
                if !valid(st, c) {
                    continue;
                }
                self.place(plan, st, i, c);
                if s.awaited.iter().any(|a| Self::none_left(st, a, i)) {
                    continue;
                }
                let prev = Candidates { list: &cand, lo, hi, of: Intersected::PreviousStep };
                total = total.saturating_add(self.search(plan, st, i + 1, emit, Some(prev)));
            }
        }
        st.cand[i] = cand;
        total
    }

    /// The matches of the plan's twin tail `i..k` (see `Plan::twin_tail`) given its candidates
    /// `cand`: for each label of the tail with `r` twins, `C(m, r)`, `m` the unplaced candidates
    /// with that label; times, for `w` wildcard twins, `C(f - l, w)`, `f` the unplaced
    /// candidates and `l` the labelled twins. `None` (enumerate instead) when the twins' labels
    /// differ and the data has none to tell them apart by.
    fn twin_count(&self, plan: &Plan, st: &State<'a>, i: usize, cand: &[Vertex]) -> Option<u64> {
        let tail = &plan.steps[i..];
        let free = || cand.iter().copied().filter(|c| !st.m[..i].contains(c));
        if tail.iter().all(|s| s.label == tail[0].label) {
            let m = free().filter(|&c| self.label_ok(&tail[0], c)).count();
            return Some(binomial(m as u64, tail.len()));
        }
        let labels = self.labels.as_ref()?;
        let mut groups: Vec<(Option<u32>, usize)> = Vec::new();
        for s in tail {
            match groups.iter_mut().find(|g| g.0 == s.label) {
                Some(g) => g.1 += 1,
                None => groups.push((s.label, 1)),
            }
        }
        let (mut total, mut labelled) = (1u64, 0u64);
        for &(label, r) in &groups {
            if let Some(l) = label {
                let m = free().filter(|&c| labels.get(c) == Some(l)).count();
                total = total.saturating_mul(binomial(m as u64, r));
                labelled += r as u64;
            }
        }
        if let Some(&(_, w)) = groups.iter().find(|g| g.0.is_none()) {
            let f = free().count() as u64;
            total = total.saturating_mul(binomial(f.saturating_sub(labelled), w));
        }
        Some(total)
    }

    /// Counts (and emits) the matches whose first position is `v`.
    pub(crate) fn starting_at(&self, st: &mut State<'a>, v: Vertex, emit: &mut Emit<'_>) -> u64 {
        if !self.label_ok(&self.plan.steps[0], v) {
            return 0;
        }
        self.place(self.plan, st, 0, v);
        self.search(self.plan, st, 1, emit, None)
    }

    /// Counts (and emits) the matches whose first two positions are `u` and `v`, given their
    /// neighbour lists `lu` and `lv` as [`ListSource::read`] gives them (lent to the search
    /// and given back, so several plans share one read of each list), whether they are
    /// `adjacent` (known to the caller, so not searched for), and when known their
    /// intersection `common` (read by a third step adjacent to both instead of intersecting
    /// them again).
    pub(crate) fn starting_at_pair(
        &self,
        st: &mut State<'a>,
        (u, lu): (Vertex, &mut ListBuf<'a>),
        (v, lv): (Vertex, &mut ListBuf<'a>),
        adjacent: bool,
        common: Option<&[Vertex]>,
        emit: &mut Emit<'_>,
    ) -> u64 {
        // Position 0 has no list checks (no earlier position).
        if !self.accepts(st, 0, u) {
            return 0;
        }
        // Position 1's list checks concern position 0 alone: the pair's adjacency answers them.
        let s = &self.plan.steps[1];
        let pair_ok = (s.adjacent.is_empty() || adjacent) && (s.non_adjacent.is_empty() || !adjacent);
        // Later steps read position 0's list: it is always lent.
        st.m[0] = u;
        std::mem::swap(&mut st.lists[0], lu);
        let mut total = 0;
        if pair_ok && self.accepts(st, 1, v) {
            st.m[1] = v;
            let lend = s.list_needed;
            if lend {
                std::mem::swap(&mut st.lists[1], lv);
            }
            let prev = common.map(|list| Candidates { list, lo: None, hi: None, of: Intersected::FirstTwo });
            total = self.search(self.plan, st, 2, emit, prev);
            if lend {
                std::mem::swap(&mut st.lists[1], lv);
            }
        }
        std::mem::swap(&mut st.lists[0], lu);
        total
    }
}

/// The plan to go on with at position `i`, the positions before it holding the lists `lists`:
/// `plan`, or the one of its forks there whose step `i` intersects the shortest list (ties:
/// `plan`). See [`Plan::adaptive`]. The lists' whole lengths, not their ranges within the
/// step's bounds: the choice is made at every branch, where two binary searches per list cost
/// a 5-path count on a wheel a third more time.
fn choose<'p>(plan: &'p Plan, lists: &[ListBuf<'_>], i: usize) -> &'p Plan {
    let shortest = |p: &Plan| p.steps[i].adjacent.iter().map(|&j| lists[j].len()).min();
    match plan.forks.get(i) {
        Some(forks) if !forks.is_empty() => {
            std::iter::once(plan).chain(forks).min_by_key(|p| shortest(p)).unwrap_or(plan)
        }
        _ => plan,
    }
}

/// The exclusive id bounds of a candidate that must be above the vertices at positions `above`
/// and below those at `below`.
fn bounds(st: &State<'_>, above: &[usize], below: &[usize]) -> (Option<Vertex>, Option<Vertex>) {
    (above.iter().map(|&j| st.m[j]).max(), below.iter().map(|&j| st.m[j]).min())
}

/// The range of the sorted list `l` strictly between `lo` and `hi` (each bound optional).
fn clip(l: &[Vertex], lo: Option<Vertex>, hi: Option<Vertex>) -> std::ops::Range<usize> {
    let a = lo.map_or(0, |x| l.partition_point(|&c| c <= x));
    let b = hi.map_or(l.len(), |x| l.partition_point(|&c| c < x));
    a..b.max(a)
}

/// An error when `labels` are given for fewer than `n` vertices.
fn check_labels(labels: Option<&[u32]>, n: usize) -> Result<()> {
    match labels {
        Some(l) if l.len() < n => {
            Err(Error::invalid(format!("{} labels given for a graph of {n} vertices", l.len())))
        }
        _ => Ok(()),
    }
}

/// `C(m, r)`, or `u64::MAX` when it is at least that (a count that large is refused).
fn binomial(m: u64, r: usize) -> u64 {
    let mut c: u128 = 1;
    for j in 0..r as u64 {
        if j >= m {
            return 0;
        }
        // C(m, j + 1) = C(m, j) * (m - j) / (j + 1), exact at every step.
        match c.checked_mul(u128::from(m - j)) {
            Some(x) => c = x / u128::from(j + 1),
            None => return u64::MAX,
        }
    }
    u64::try_from(c).unwrap_or(u64::MAX)
}

/// The sum of per-range counts; an error when it reaches `u64::MAX` (counts saturate there).
fn total_count(counts: Vec<u64>) -> Result<u64> {
    let total = counts.into_iter().fold(0u64, u64::saturating_add);
    if total == u64::MAX {
        return Err(Error::invalid("the pattern has more matches than a u64 holds (2^64 - 1)"));
    }
    Ok(total)
}

/// The plan of `pattern`: matching order from the highest-degree vertex, restrictions, forks.
fn static_plan(pattern: &Pattern, induced: bool) -> Plan {
    let order = pattern.matching_order(None, None);
    let restrictions = pattern.restrictions(&order);
    Plan::adaptive(pattern, &order, &restrictions, induced)
}

/// Runs `body(matcher, state, v)` for every vertex `v` in parallel (edge-balanced ranges) and
/// returns each range's result, in vertex order; an error when the degrees that balance the
/// ranges cannot be allocated.
fn per_range<'a, O: Adjacency, I: Adjacency, T: Send>(
    m: &Matcher<'a, Undirected<'a, O, I>>,
    out: &O,
    k: usize,
    body: impl Fn(&Matcher<'a, Undirected<'a, O, I>>, &mut State<'a>, std::ops::Range<Vertex>) -> T + Sync,
) -> Result<Vec<T>> {
    crate::state::check_state("pattern matching", out.num_vertices(), 8)?;
    let deg = degrees(out);
    Ok(edge_balanced_ranges(&deg, pieces_for(deg.len()))
        .into_par_iter()
        .map(|r| body(m, &mut State::new(k), r))
        .collect())
}

/// Calls `f(match)` for every match of `pattern` (data vertices in pattern-vertex order), from
/// the rayon workers; returns the number of matches.
///
/// Errors: directions disagreeing on the vertex count; a labelled pattern without labels, or
/// fewer labels than vertices.
pub fn for_each_match<O: Adjacency, I: Adjacency>(
    out: &O,
    in_: &I,
    pattern: &Pattern,
    opts: MatchOptions<'_>,
    f: impl Fn(&[Vertex]) + Sync,
) -> Result<u64> {
    let k = pattern.num_vertices();
    let plan = static_plan(pattern, opts.induced);
    let m = Matcher::new(out, in_, pattern, &plan, opts.labels)?;
    let counts = per_range(&m, out, k, |m, st, r| {
        let mut sink = |x: &[Vertex]| f(x);
        r.map(|v| m.starting_at(st, v, &mut Some(&mut sink))).fold(0u64, u64::saturating_add)
    })?;
    total_count(counts)
}

/// Number of matches of `pattern` (each subgraph isomorphic to it counted once). An unlabelled
/// clique is counted by [`super::count_cliques`], another unlabelled 3- or 4-vertex pattern
/// from the motif census (but an edge-induced star), and a tail of interchangeable pattern
/// vertices (the leaves of a star, the two tips of a diamond) by a binomial, not enumerated.
///
/// Errors: as [`for_each_match`]; more matches than a `u64` holds.
pub fn count_matches<O: Adjacency, I: Adjacency>(
    out: &O,
    in_: &I,
    pattern: &Pattern,
    opts: MatchOptions<'_>,
) -> Result<u64> {
    let k = pattern.num_vertices();
    if !pattern.is_labelled() && pattern.edges().len() == k * (k - 1) / 2 {
        // A clique (induced or not, the same matches): the clique kernel's degree-ordered DAG
        // visits each clique once, where the pattern's order visits it from every vertex.
        check_directions(out, in_)?;
        check_labels(opts.labels, out.num_vertices())?;
        return super::count_cliques(out, in_, k);
    }
    let plan = static_plan(pattern, opts.induced);
    let star = !opts.induced && plan.twin_tail == Some(1);
    if !pattern.is_labelled() && (3..=4).contains(&k) && !star {
        check_directions(out, in_)?;
        check_labels(opts.labels, out.num_vertices())?;
        return from_census(pattern, opts.induced, &super::motif_census(out, in_, k)?);
    }
    let m = Matcher::new(out, in_, pattern, &plan, opts.labels)?;
    let counts = per_range(&m, out, k, |m, st, r| {
        r.map(|v| m.starting_at(st, v, &mut None)).fold(0u64, u64::saturating_add)
    })?;
    total_count(counts)
}

/// The count of the connected 3- or 4-vertex `pattern` from the induced motif counts `census`
/// ([`super::motif_census`], in [`super::motif_names`] order): itself when vertex-induced;
/// edge-induced, the sum over the motifs containing it of its copies in each times the motif's
/// count (a 4-path lies 4 times in a 4-cycle, 2 in a tailed triangle, 6 in a diamond, 12 in a
/// 4-clique). The census is combinatorial; enumerating a 4-path or 4-cycle visits every match.
fn from_census(pattern: &Pattern, induced: bool, census: &[u64]) -> Result<u64> {
    let edges = pattern.edges();
    let max_degree =
        (0..pattern.num_vertices()).map(|a| edges.iter().filter(|e| e.0 == a || e.1 == a).count()).max();
    // The pattern's class (its row) and the copies of it in each motif (columns in census order).
    let (class, copies): (usize, &[u128]) = match (pattern.num_vertices(), edges.len(), max_degree) {
        (3, 2, _) => (0, &[1, 3]),
        (3, _, _) => (1, &[0, 1]),
        (4, 3, Some(3)) => (0, &[1, 0, 1, 0, 2, 4]),
        (4, 3, _) => (1, &[0, 1, 2, 4, 6, 12]),
        (4, 4, Some(3)) => (2, &[0, 0, 1, 0, 4, 12]),
        (4, 4, _) => (3, &[0, 0, 0, 1, 1, 3]),
        (4, 5, _) => (4, &[0, 0, 0, 0, 1, 6]),
        _ => (5, &[0, 0, 0, 0, 0, 1]),
    };
    if induced {
        return Ok(census[class]);
    }
    let total: u128 = copies.iter().zip(census).map(|(&c, &n)| c * u128::from(n)).sum();
    u64::try_from(total)
        .map_err(|_| Error::invalid("the pattern has more matches than a u64 holds (2^64 - 1)"))
}

/// Every match of `pattern`, flattened: `k` data vertices per match in pattern-vertex order,
/// matches ordered by the data vertex of the first pattern vertex in the matching order.
///
/// Errors: as [`for_each_match`].
pub fn list_matches<O: Adjacency, I: Adjacency>(
    out: &O,
    in_: &I,
    pattern: &Pattern,
    opts: MatchOptions<'_>,
) -> Result<Vec<Vertex>> {
    let k = pattern.num_vertices();
    let plan = static_plan(pattern, opts.induced);
    let m = Matcher::new(out, in_, pattern, &plan, opts.labels)?;
    let listing = Listing::new();
    let parts = per_range(&m, out, k, |m, st, r| {
        let mut found = Vec::new();
        let mut sink = |x: &[Vertex]| {
            if listing.make_room(&mut found, x.len()) {
                found.extend_from_slice(x);
            }
        };
        for v in r.take_while(|_| !listing.is_over()) {
            m.starting_at(st, v, &mut Some(&mut sink));
        }
        found
    })?;
    listing.join(parts, k, "the matches")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A house (the 5-cycle 0-1-2-3-4 with the chord 0-2) is placed 0, 2, 1, then 3 (a
    /// neighbour of position 1) or 4 (of position 0): the search takes the one whose list is
    /// the shorter.
    #[test]
    fn a_fork_is_taken_when_its_list_is_shorter() {
        let house = Pattern::from_edges(&[(0, 1), (1, 2), (2, 3), (3, 4), (4, 0), (0, 2)], None).unwrap();
        let order = house.matching_order(None, None);
        assert_eq!(order, [0, 2, 1, 3, 4]);
        let plan = Plan::adaptive(&house, &order, &house.restrictions(&order), false);
        let ids: Vec<Vertex> = (0..100).collect();
        let lists = |a: usize, b: usize| {
            let mut l: Vec<ListBuf<'_>> = (0..5).map(|_| ListBuf::default()).collect();
            l[0].lend(&ids[..a]);
            l[1].lend(&ids[..b]);
            l
        };
        // Position 0's list shorter: vertex 4 (its neighbour) comes first.
        assert_eq!(choose(&plan, &lists(3, 100), 3).steps[3].vertex, 4);
        // Position 1's list shorter or as long: the order's own choice.
        assert_eq!(choose(&plan, &lists(100, 3), 3).steps[3].vertex, 3);
        assert_eq!(choose(&plan, &lists(7, 7), 3).steps[3].vertex, 3);
        // No fork elsewhere.
        assert_eq!(choose(&plan, &lists(3, 100), 2).steps[2].vertex, 1);
    }
}
