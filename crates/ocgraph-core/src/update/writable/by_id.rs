//! Original ids on a writable graph: looking them up, naming the vertices that updates by id
//! add (logged before their batch), and the update calls that take ids instead of vertices.

use std::collections::HashMap;
use std::sync::Arc;

use super::{Durability, WritableGraph};
use crate::error::{Error, Result};
use crate::format::IdMapKind;
use crate::graph::{Graph, Vertex};
use crate::ids::{IdLookup, OriginalId};
use crate::ingest::sparse_ids_problem;
use crate::update::ids_log::{new_id_problem, AddedIds};
use crate::update::wal_frame::WalItem;

/// Original ids: the base's id map (loaded on first use) and the ids of added vertices.
pub(super) struct Names {
    pub(super) kind: IdMapKind,
    pub(super) base: Option<Arc<IdLookup>>,
    pub(super) added: AddedIds,
}

impl Names {
    /// The base's id map, loaded on first use.
    pub(super) fn base(&mut self, graph: &Graph) -> Result<Arc<IdLookup>> {
        if let Some(b) = &self.base {
            return Ok(b.clone());
        }
        let b = Arc::new(graph.ids()?);
        self.base = Some(b.clone());
        Ok(b)
    }
}

/// What [`WritableGraph::resolve`] found for a list of original ids.
struct Resolved {
    /// The vertex of each id (`None`: unknown and not created).
    vertices: Vec<Option<Vertex>>,
    /// Vertices to add before the batch (identity graphs: up to the largest new id).
    new_count: u32,
    /// The names of the new vertices, in vertex order (relabelled graphs).
    new_names: Vec<OriginalId>,
}

/// Refuses `count` (> 0) vertices added without names on a graph whose vertices all have
/// original ids: its id log would name fewer vertices than the graph has, and it would no
/// longer open. `op` names the call in the error.
pub(super) fn refuse_unnamed_vertices(names: &Names, count: u64, op: &str) -> Result<()> {
    if names.kind != IdMapKind::Identity && count > 0 {
        return Err(Error::invalid(format!(
            "{op}: this graph keeps original ids (imported with string ids or --relabel): add vertices by their \
             original ids"
        )));
    }
    Ok(())
}

impl WritableGraph {
    /// How the graph's original ids are stored (`Identity`: ids are vertex numbers).
    pub fn id_kind(&self) -> IdMapKind {
        self.shared.names.lock().kind
    }

    /// The original id of vertex `v` (for identity graphs, `v` itself).
    pub fn original_id(&self, v: Vertex) -> Result<OriginalId> {
        let n = self.num_vertices() as u64;
        if v as u64 >= n {
            return Err(Error::invalid(format!("vertex {v} out of range (the graph has {n} vertices)")));
        }
        let mut names = self.shared.names.lock();
        if let Some(id) = names.added.original(v) {
            return Ok(id.clone());
        }
        if names.kind == IdMapKind::Identity {
            return Ok(OriginalId::Int(v as u64));
        }
        let base = names.base(&self.shared.state.lock().view.base)?;
        Ok(base.original(v))
    }

    /// The vertex whose original id is `id`, if any.
    pub fn vertex_of(&self, id: &OriginalId) -> Result<Option<Vertex>> {
        let mut names = self.shared.names.lock();
        if matches!(id, OriginalId::Str(_)) != (names.kind == IdMapKind::Strings) {
            return Ok(None); // ids are all strings or all integers
        }
        let found = self.resolve(&mut names, &[id], false)?;
        Ok(found.vertices[0])
    }

    /// The original ids of the first `count` vertices past the base (fewer when fewer are named).
    pub(crate) fn added_ids(&self, count: usize) -> Vec<OriginalId> {
        self.shared.names.lock().added.first(count).to_vec()
    }

    /// The ids of every vertex in order: what `IdLookup` gives for the base, with the added
    /// vertices' ids appended.
    pub fn ids(&self) -> Result<IdLookup> {
        let names = self.shared.names.lock();
        let graph = self.shared.state.lock().view.base.clone();
        if names.kind == IdMapKind::Identity {
            return Ok(graph.ids()?.identity_over(self.num_vertices() as u64));
        }
        let added: Vec<OriginalId> = names.added.first(names.added.len()).to_vec();
        graph.ids()?.with_added(&added)
    }

    /// Why a batch of `edges` new edges may not grow this graph, whose ids are vertex numbers,
    /// from `n` vertices (its count now, or after vertices the caller adds first) to `end`, if
    /// it may not: the graph would then be mostly empty vertices by the import's rule
    /// ([`sparse_ids_problem`]), and so would the vertices the batch adds (a graph kept sparse
    /// by `allow_sparse_ids` may still grow by a few vertices); that growth is asked for with
    /// `add_vertices` first.
    pub fn growth_problem(&self, n: u64, end: u64, edges: u64) -> Option<String> {
        let directed = self.is_directed();
        let added_sparse = end > n && sparse_ids_problem(end - n, edges, directed).is_some();
        let edges = self.snapshot().num_edges() + edges;
        (added_sparse && sparse_ids_problem(end, edges, directed).is_some()).then(|| {
            format!(
                "vertex id {} would grow the graph from {n} to {end} vertices for {edges} edges, \
                 mostly empty vertices (whose offsets a compaction writes, and whose values every \
                 kernel allocates); add them first with add_vertices({}) (`ocgraph update \
                 --add-vertices`) if that is meant",
                end - 1,
                end - n
            )
        })
    }

    /// Looks up `ids` (under the names lock). With `create`, unknown ids get new vertices:
    /// on relabelled graphs one per distinct unknown id, numbered in order of first
    /// appearance; on identity graphs an integer id `i` past the end adds vertices up to `i`,
    /// unless the graph would then be mostly empty vertices by the import's rule
    /// ([`sparse_ids_problem`]): that growth is asked for with `add_vertices` first.
    fn resolve(&self, names: &mut Names, ids: &[&OriginalId], create: bool) -> Result<Resolved> {
        let n = self.num_vertices() as u64;
        let mut out =
            Resolved { vertices: Vec::with_capacity(ids.len()), new_count: 0, new_names: Vec::new() };
        if names.kind == IdMapKind::Identity {
            let mut end = n;
            for id in ids {
                let v = match id {
                    OriginalId::Int(i) if *i < n => Some(*i as Vertex),
                    OriginalId::Int(i) if create => {
                        if *i >= u32::MAX as u64 {
                            return Err(Error::invalid(format!(
                                "vertex id {i} is past the largest vertex id, 4294967294 (2^32 - 2)"
                            )));
                        }
                        end = end.max(i + 1);
                        Some(*i as Vertex)
                    }
                    OriginalId::Int(_) => None,
                    OriginalId::Str(s) => {
                        return Err(Error::invalid(format!(
                            "string id {s:?} on a graph whose ids are vertex numbers"
                        )))
                    }
                };
                out.vertices.push(v);
            }
            if let Some(why) = self.growth_problem(n, end, ids.len() as u64 / 2) {
                return Err(Error::invalid(why));
            }
            out.new_count = (end - n) as u32;
            return Ok(out);
        }
        let base = names.base(&self.shared.state.lock().view.base)?;
        let mut fresh: HashMap<&OriginalId, Vertex> = HashMap::new();
        for &id in ids {
            match (names.kind, id) {
                (IdMapKind::U64, OriginalId::Str(s)) => {
                    return Err(Error::invalid(format!("string id {s:?} on a graph of integer ids")));
                }
                (IdMapKind::Strings, OriginalId::Int(i)) => {
                    return Err(Error::invalid(format!(
                        "integer id {i} on a graph of string ids (give it as the string \"{i}\")"
                    )));
                }
                _ => {}
            }
            let known = base.vertex(id).or_else(|| names.added.vertex(id));
            let v = match known {
                Some(v) => Some(v),
                None if create => {
                    if let Some(why) = new_id_problem(id) {
                        return Err(Error::invalid(why));
                    }
                    let next = n + fresh.len() as u64;
                    if next >= u32::MAX as u64 {
                        return Err(Error::invalid("more than 2^32 - 1 vertices"));
                    }
                    Some(*fresh.entry(id).or_insert_with(|| {
                        out.new_names.push(id.clone());
                        next as Vertex
                    }))
                }
                None => None,
            };
            out.vertices.push(v);
        }
        out.new_count = out.new_names.len() as u32;
        Ok(out)
    }

    /// Commits `items` after adding the vertices `r` names, under the names lock: their names
    /// are logged (and fsynced unless the durability mode is `none`) before the batch.
    /// Returns the batch's sequence number and whether automatic compaction is due, which the
    /// caller starts once it has let go of the names lock ([`WritableGraph::compact_if_due`]).
    fn commit_named(
        &self,
        names: &mut Names,
        r: &Resolved,
        items: Vec<WalItem>,
        what: &str,
    ) -> Result<(u64, bool)> {
        let mut all = Vec::with_capacity(items.len() + 1);
        if r.new_count > 0 {
            all.push(WalItem::AddVertices { count: r.new_count });
        }
        all.extend(items);
        let before = names.added.len();
        if !r.new_names.is_empty() {
            let sync = self.durability() != Durability::None;
            names.added.append(&r.new_names, sync)?;
        }
        match self.shared.commit(&all, what) {
            Ok((seq, _, due)) => Ok((seq, due)),
            Err(e) => {
                // The batch is not logged: its names go too (a reopen would cut them anyway).
                let _ = names.added.truncate(before);
                Err(e)
            }
        }
    }

    /// Resolves `ids` under the names lock (`create`: unknown ids get new vertices), commits
    /// the items `items` makes of what it found as one batch (`what` names the call in errors),
    /// and starts a compaction when one is due, once the lock is let go. Returns the batch's
    /// sequence number.
    fn commit_by_id(
        &self,
        ids: &[&OriginalId],
        create: bool,
        what: &str,
        items: impl FnOnce(&Resolved) -> Result<Vec<WalItem>>,
    ) -> Result<u64> {
        let mut names = self.shared.names.lock();
        let r = self.resolve(&mut names, ids, create)?;
        let items = items(&r)?;
        let (seq, due) = self.commit_named(&mut names, &r, items, what)?;
        drop(names);
        self.compact_if_due(due);
        Ok(seq)
    }

    /// [`WritableGraph::add_edges`] by original ids: unknown ids get new vertices (see
    /// [`WritableGraph::resolve`]).
    pub fn add_edges_by_id(
        &self,
        edges: &[(OriginalId, OriginalId)],
        weights: Option<&[f32]>,
    ) -> Result<u64> {
        self.check_added_weights(edges.len(), weights)?;
        let ids: Vec<&OriginalId> = edges.iter().flat_map(|(a, b)| [a, b]).collect();
        self.commit_by_id(&ids, true, "add_edges", |r| {
            Ok((0..edges.len())
                .map(|i| WalItem::AddEdge {
                    src: r.vertices[2 * i].expect("created"),
                    dst: r.vertices[2 * i + 1].expect("created"),
                    weight: weights.map_or(1.0, |w| w[i]),
                })
                .collect())
        })
    }

    /// [`WritableGraph::remove_edges`] by original ids (edges with an unknown id are missing,
    /// so ignored).
    pub fn remove_edges_by_id(&self, edges: &[(OriginalId, OriginalId)]) -> Result<u64> {
        let ids: Vec<&OriginalId> = edges.iter().flat_map(|(a, b)| [a, b]).collect();
        self.commit_by_id(&ids, false, "remove_edges", |r| {
            Ok(r.vertices
                .chunks(2)
                .filter_map(|p| Some(WalItem::RemoveEdge { src: p[0]?, dst: p[1]? }))
                .collect())
        })
    }

    /// [`WritableGraph::set_edge_weights`] by original ids (edges with an unknown id are
    /// missing, so ignored).
    pub fn set_edge_weights_by_id(&self, edges: &[(OriginalId, OriginalId)], weights: &[f32]) -> Result<u64> {
        self.check_new_weights(edges.len(), weights)?;
        let ids: Vec<&OriginalId> = edges.iter().flat_map(|(a, b)| [a, b]).collect();
        self.commit_by_id(&ids, false, "set_edge_weights", |r| {
            Ok(r.vertices
                .chunks(2)
                .zip(weights)
                .filter_map(|(p, &weight)| Some(WalItem::SetWeight { src: p[0]?, dst: p[1]?, weight }))
                .collect())
        })
    }

    /// Adds a vertex for each id of `ids` not in the graph yet; returns the vertex of every id
    /// (new or existing) in order.
    pub fn add_vertices_by_id(&self, ids: &[OriginalId]) -> Result<Vec<Vertex>> {
        let mut names = self.shared.names.lock();
        let refs: Vec<&OriginalId> = ids.iter().collect();
        let r = self.resolve(&mut names, &refs, true)?;
        let due = r.new_count > 0 && self.commit_named(&mut names, &r, Vec::new(), "add_vertices")?.1;
        drop(names);
        self.compact_if_due(due);
        Ok(r.vertices.iter().map(|v| v.expect("created")).collect())
    }

    /// [`WritableGraph::remove_vertices`] by original ids; an unknown id is an error naming it.
    pub fn remove_vertices_by_id(&self, ids: &[OriginalId]) -> Result<u64> {
        let refs: Vec<&OriginalId> = ids.iter().collect();
        self.commit_by_id(&refs, false, "remove_vertices", |r| {
            ids.iter()
                .zip(&r.vertices)
                .map(|(id, v)| {
                    let v = v.ok_or_else(|| {
                        Error::invalid(format!("remove_vertices: no vertex has the id {id}"))
                    })?;
                    Ok(WalItem::RemoveVertex { v })
                })
                .collect()
        })
    }

    /// [`WritableGraph::set_labels`] by original ids; an unknown id is an error naming it.
    pub fn set_labels_by_id(&self, labels: &[(OriginalId, u32)]) -> Result<u64> {
        let refs: Vec<&OriginalId> = labels.iter().map(|(id, _)| id).collect();
        self.commit_by_id(&refs, false, "set_labels", |r| {
            labels
                .iter()
                .zip(&r.vertices)
                .map(|((id, label), v)| {
                    let v =
                        v.ok_or_else(|| Error::invalid(format!("set_labels: no vertex has the id {id}")))?;
                    Ok(WalItem::SetLabel { v, label: *label })
                })
                .collect()
        })
    }
}
