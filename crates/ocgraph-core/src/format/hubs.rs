//! The hub index (`hubs.u32`, `ocgraph layout hubs`): for every vertex, the
//! [`HUBS_PER_VERTEX`] in-neighbours of highest out-degree (the neighbours of highest degree in
//! an undirected graph), highest first, ties broken by the smaller id; [`NO_HUB`] pads the
//! entries of a vertex with fewer in-neighbours. Vertex `v`'s entries are the u32 at bytes
//! `12v .. 12v + 12`.
//!
//! Why: on a power-law graph most vertices are adjacent to a hub, and a hub is reached early.
//! The first bottom-up step of a BFS then finds most parents among these entries, and the
//! sampling phase of Afforest links most vertices to the giant component through them, without
//! reading the lists (a twelfth of the bytes of a plain CSR with 24 arcs per vertex). A vertex
//! with fewer than [`HUBS_PER_VERTEX`] entries has them all: its whole list.

/// Entries per vertex.
pub const HUBS_PER_VERTEX: usize = 3;

/// Pads the entries of a vertex with fewer in-neighbours than [`HUBS_PER_VERTEX`].
pub const NO_HUB: u32 = u32::MAX;

/// The entries of one vertex that name a hub (those before the first [`NO_HUB`]).
pub fn present(entries: &[u32]) -> &[u32] {
    let k = entries.iter().position(|&h| h == NO_HUB).unwrap_or(entries.len());
    &entries[..k]
}

/// Checks one vertex's entries: ids below `n`, and [`NO_HUB`] only after the last hub. Returns
/// what is wrong.
pub fn check_entries(entries: &[u32], n: u64) -> Result<(), String> {
    let hubs = present(entries);
    if let Some(&h) = hubs.iter().find(|&&h| h as u64 >= n) {
        return Err(format!("hub {h} is not a vertex (the graph has {n})"));
    }
    if entries[hubs.len()..].iter().any(|&h| h != NO_HUB) {
        return Err("a hub follows an empty entry".into());
    }
    Ok(())
}
