//! Turning logged items into arc operations on the delta (the same code path at update time and
//! during WAL replay, so replay reproduces exactly the acknowledged state).
//!
//! Semantics (a simple graph): adding an existing edge replaces its weight; removing a missing
//! edge and setting the weight of a missing edge are no-ops; removing a vertex removes every
//! incident edge and keeps its id valid (degree 0). Undirected graphs record each operation on
//! both endpoints (a self-loop once); directed graphs record it on the out side of the source and
//! the in side of the destination.

use super::delta::ArcOp;
use super::snapshot::View;
use super::stream::{BatchChanges, EdgeChange};
use super::wal_frame::WalItem;
use crate::error::{Error, Result};
use crate::graph::Vertex;

/// Arc operations of the batch being applied, recorded in the delta in one call per side
/// (before any read inside the batch, so reads see the batch's earlier items).
struct Pending<'a> {
    directed: bool,
    sides: [Vec<(Vertex, Vertex, ArcOp)>; 2],
    /// The change feed's record of the batch, when someone listens.
    log: Option<&'a mut BatchChanges>,
}

impl Pending<'_> {
    fn push(&mut self, src: Vertex, dst: Vertex, op: ArcOp) {
        if let Some(log) = self.log.as_deref_mut() {
            log.edges.push(EdgeChange { src, dst, op });
        }
        self.sides[0].push((src, dst, op));
        if self.directed {
            self.sides[1].push((dst, src, op));
        } else if src != dst {
            self.sides[0].push((dst, src, op));
        }
    }

    fn flush(&mut self, view: &View, seq: u64) -> Result<()> {
        for (side, ops) in self.sides.iter_mut().enumerate() {
            if !ops.is_empty() {
                view.delta[side].record_batch(seq, ops)?;
                ops.clear();
            }
        }
        Ok(())
    }
}

/// The current neighbours of `v` on `side` (including the batch being applied).
fn current_list(latest: &View, side: usize, v: Vertex) -> Vec<Vertex> {
    match latest.merged(side, v) {
        Some((ns, _)) => ns,
        None => latest.base_list(side, v).0.to_vec(),
    }
}

/// Checks that `items` are valid for a graph of `n` vertices (weighted or not); `what` names
/// the caller in errors.
pub(crate) fn validate(items: &[WalItem], mut n: u64, weighted: bool, what: &str) -> Result<()> {
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
                if weight.is_nan() {
                    return Err(Error::invalid(format!("{what}: item {i}: weight is NaN")));
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
            WalItem::RemoveVertex { v } => check(i, v, n)?,
        }
    }
    Ok(())
}

/// Applies the (validated) batch `seq` to `view`'s delta and vertex count, and makes it visible
/// in `view` (`upto = seq`).
pub(crate) fn apply(view: &mut View, seq: u64, items: &[WalItem]) -> Result<()> {
    apply_logged(view, seq, items, None)
}

/// [`apply`], also recording the batch's edge operations and removed vertices in `log` (for the
/// change feed, `stream.rs`) when given.
pub(crate) fn apply_logged(
    view: &mut View,
    seq: u64,
    items: &[WalItem],
    mut log: Option<&mut BatchChanges>,
) -> Result<()> {
    if let Some(log) = log.as_deref_mut() {
        log.seq = seq;
        log.directed = view.base.is_directed();
        log.vertices_before = view.num_vertices;
    }
    // Reads inside the batch see its own earlier items.
    let mut latest = view.clone();
    latest.upto = u64::MAX;
    let edge_items =
        items.iter().filter(|it| matches!(it, WalItem::AddEdge { .. } | WalItem::RemoveEdge { .. }));
    let cap = edge_items.count() * 2;
    let directed = view.base.is_directed();
    let mut pending = Pending { directed, sides: [Vec::with_capacity(cap), Vec::new()], log };
    if directed {
        pending.sides[1].reserve(cap / 2);
    }
    for it in items {
        match *it {
            WalItem::AddEdge { src, dst, weight } => pending.push(src, dst, ArcOp::Add(weight)),
            WalItem::RemoveEdge { src, dst } => pending.push(src, dst, ArcOp::Remove),
            WalItem::SetWeight { src, dst, weight } => {
                pending.flush(view, seq)?;
                let ns = current_list(&latest, 0, src);
                if ns.binary_search(&dst).is_ok() {
                    pending.push(src, dst, ArcOp::Add(weight));
                }
            }
            WalItem::AddVertices { count } => {
                view.num_vertices += count as u64;
                latest.num_vertices = view.num_vertices;
            }
            WalItem::RemoveVertex { v } => {
                pending.flush(view, seq)?;
                if let Some(log) = pending.log.as_deref_mut() {
                    log.removed_vertices.push(v);
                }
                let outs = current_list(&latest, 0, v);
                for x in outs {
                    pending.push(v, x, ArcOp::Remove);
                }
                if directed {
                    let ins = current_list(&latest, 1, v);
                    for y in ins {
                        pending.push(y, v, ArcOp::Remove);
                    }
                }
            }
        }
    }
    pending.flush(view, seq)?;
    if let Some(log) = pending.log {
        log.vertices_after = view.num_vertices;
    }
    view.upto = seq;
    Ok(())
}
