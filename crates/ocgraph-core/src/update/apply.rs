//! Turning logged items into arc operations on the delta (the same code path at update time and
//! during WAL replay, so replay reproduces exactly the acknowledged state).
//!
//! Semantics (a simple graph): adding an existing edge replaces its weight; removing a missing
//! edge and setting the weight of a missing edge are no-ops; removing a vertex removes every
//! incident edge and keeps its id valid (degree 0). Undirected graphs record each operation on
//! both endpoints (a self-loop once); directed graphs record it on the out side of the source and
//! the in side of the destination. A label change is recorded in the view's label history
//! (`label_log.rs`), tagged with the batch like the arc operations.

use std::collections::HashMap;

use super::delta::{fold_ops, ArcOp};
use super::snapshot::View;
use super::stream::{BatchChanges, EdgeChange};
use super::wal_frame::{check_batch_len, WalItem};
use crate::error::{Error, Result};
use crate::graph::Vertex;

/// The arc operations a batch makes, per side (out, and in for directed graphs), in item
/// order, and the vertex count after it: computed from the graph before the batch, so
/// nothing is recorded until the whole batch is known.
pub(crate) struct Plan {
    pub sides: [Vec<(Vertex, Vertex, ArcOp)>; 2],
    pub num_vertices: u64,
    directed: bool,
    /// Indices into `sides[s]` of the operations on each `(s, src)`: reads inside the batch
    /// see its own earlier items. Built at the first such read (a weight change or a vertex
    /// removal), so batches of edge additions and removals never hash their arcs.
    by_src: Option<HashMap<(usize, Vertex), Vec<usize>>>,
    /// The label changes `(vertex, label)`, in item order.
    pub labels: Vec<(Vertex, u32)>,
    /// The change feed's record of the batch (`stream.rs`), when someone listens.
    pub log: Option<BatchChanges>,
}

impl Plan {
    fn push_arc(&mut self, side: usize, src: Vertex, dst: Vertex, op: ArcOp) {
        if let Some(by_src) = self.by_src.as_mut() {
            by_src.entry((side, src)).or_default().push(self.sides[side].len());
        }
        self.sides[side].push((src, dst, op));
    }

    /// The index of the batch's operations by `(side, src)`, built on first use.
    fn index(&mut self) -> &HashMap<(usize, Vertex), Vec<usize>> {
        let sides = &self.sides;
        self.by_src.get_or_insert_with(|| {
            let mut m: HashMap<(usize, Vertex), Vec<usize>> = HashMap::new();
            for (side, ops) in sides.iter().enumerate() {
                for (i, &(src, _, _)) in ops.iter().enumerate() {
                    m.entry((side, src)).or_default().push(i);
                }
            }
            m
        })
    }

    fn push(&mut self, src: Vertex, dst: Vertex, op: ArcOp) {
        if let Some(log) = self.log.as_mut() {
            log.edges.push(EdgeChange { src, dst, op });
        }
        self.push_arc(0, src, dst, op);
        if self.directed {
            self.push_arc(1, dst, src, op);
        } else if src != dst {
            self.push_arc(0, dst, src, op);
        }
    }

    /// The neighbours of `v` on `side` with the batch's earlier items applied.
    fn current_list(&mut self, view: &View, side: usize, v: Vertex) -> Vec<Vertex> {
        let mut ns = match view.merged(side, v) {
            Some((ns, _)) => ns,
            None => view.base_neighbors(side, v).to_vec(),
        };
        let side = if self.directed { side } else { 0 };
        self.index();
        let index = self.by_src.as_ref().expect("built above");
        if let Some(idx) = index.get(&(side, v)) {
            let ops: Vec<(Vertex, ArcOp)> =
                idx.iter().map(|&i| (self.sides[side][i].1, self.sides[side][i].2)).collect();
            for (d, op) in fold_ops(&ops) {
                match (ns.binary_search(&d), op) {
                    (Err(at), ArcOp::Add(_)) => ns.insert(at, d),
                    (Ok(at), ArcOp::Remove) => {
                        ns.remove(at);
                    }
                    _ => {}
                }
            }
        }
        ns
    }
}

/// Checks that `items` are one batch's worth (see [`check_batch_len`]) and valid for a graph
/// of `n` vertices (weighted or not); `what` names the caller in errors.
pub(crate) fn validate(items: &[WalItem], mut n: u64, weighted: bool, what: &str) -> Result<()> {
    check_batch_len(items.len(), what)?;
    let check = |i: usize, v: Vertex, n: u64| {
        if (v as u64) < n {
            Ok(())
        } else {
            Err(Error::invalid(format!(
                "{what}: item {i}: vertex {v} out of range (the graph has {n} vertices)"
            )))
        }
    };
    for (i, it) in items.iter().enumerate() {
        match *it {
            WalItem::AddEdge { src, dst, weight } | WalItem::SetWeight { src, dst, weight } => {
                check(i, src, n)?;
                check(i, dst, n)?;
                if !weight.is_finite() {
                    return Err(Error::invalid(format!(
                        "{what}: item {i}: weight {weight} is not a finite number"
                    )));
                }
                if !weighted && weight != 1.0 {
                    return Err(Error::invalid(format!(
                        "{what}: the graph is unweighted; weights are not accepted"
                    )));
                }
            }
            WalItem::RemoveEdge { src, dst } => {
                check(i, src, n)?;
                check(i, dst, n)?;
            }
            WalItem::AddVertices { count } => {
                n += count as u64;
                if n > u32::MAX as u64 {
                    return Err(Error::invalid(format!("{what}: more than {} vertices", u32::MAX)));
                }
            }
            WalItem::RemoveVertex { v } | WalItem::SetLabel { v, .. } => check(i, v, n)?,
        }
    }
    Ok(())
}

/// The plan of the (validated) batch `items` over `view` (see [`Plan`]); with `log` (the
/// change feed's empty record of batch `log.seq`), also what the batch changes. Fails with
/// [`Error::OutOfMemory`] (naming `what`) when the machine cannot hold the plan's operations.
pub(crate) fn plan(view: &View, items: &[WalItem], log: Option<BatchChanges>, what: &str) -> Result<Plan> {
    let edge_items =
        items.iter().filter(|it| matches!(it, WalItem::AddEdge { .. } | WalItem::RemoveEdge { .. }));
    let edges = edge_items.count();
    let directed = view.base.is_directed();
    // An undirected edge is two arcs on side 0; a directed one an arc on each side.
    let (used, cap) = if directed { (2, edges) } else { (1, 2 * edges) };
    let mut sides = [Vec::new(), Vec::new()];
    for ops in sides.iter_mut().take(used) {
        crate::memory::try_reserve(ops, cap, || format!("{what}: the plan of a batch of {edges} edges"))?;
    }
    let mut plan = Plan {
        sides,
        num_vertices: view.num_vertices,
        directed,
        by_src: None,
        labels: Vec::new(),
        log: log.map(|mut l| {
            l.directed = directed;
            l.vertices_before = view.num_vertices;
            l
        }),
    };
    for it in items {
        match *it {
            WalItem::AddEdge { src, dst, weight } => plan.push(src, dst, ArcOp::Add(weight)),
            WalItem::RemoveEdge { src, dst } => plan.push(src, dst, ArcOp::Remove),
            WalItem::SetWeight { src, dst, weight } => {
                if plan.current_list(view, 0, src).binary_search(&dst).is_ok() {
                    plan.push(src, dst, ArcOp::Add(weight));
                }
            }
            WalItem::AddVertices { count } => plan.num_vertices += count as u64,
            WalItem::SetLabel { v, label } => plan.labels.push((v, label)),
            WalItem::RemoveVertex { v } => {
                if let Some(log) = plan.log.as_mut() {
                    log.removed_vertices.push(v);
                }
                for x in plan.current_list(view, 0, v) {
                    plan.push(v, x, ArcOp::Remove);
                }
                if directed {
                    for y in plan.current_list(view, 1, v) {
                        plan.push(y, v, ArcOp::Remove);
                    }
                }
            }
        }
    }
    if let Some(log) = plan.log.as_mut() {
        log.vertices_after = plan.num_vertices;
        log.labels.clone_from(&plan.labels);
    }
    Ok(plan)
}

/// Records `plan` as batch `seq` in `view`'s delta and sets the vertex count; the batch
/// becomes visible in `view` only when the caller sets `view.upto = seq`. On an error the
/// delta may hold part of the batch, invisible to every reader (tagged `seq`, above `upto`);
/// the caller must not record later batches in that delta.
pub(crate) fn record(view: &mut View, seq: u64, plan: &Plan) -> Result<()> {
    for (side, ops) in plan.sides.iter().enumerate() {
        if !ops.is_empty() {
            view.delta[side].record_batch(seq, ops)?;
        }
    }
    view.labels.history.record(seq, &plan.labels);
    view.num_vertices = plan.num_vertices;
    Ok(())
}

/// Applies the (validated) batch `seq` to `view` and makes it visible (`upto = seq`): the
/// WAL replay path.
pub(crate) fn apply(view: &mut View, seq: u64, items: &[WalItem]) -> Result<()> {
    let p = plan(view, items, None, &format!("replaying batch {seq}"))?;
    record(view, seq, &p)?;
    view.upto = seq;
    Ok(())
}
