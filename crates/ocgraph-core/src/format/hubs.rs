//! The hub index (`hubs.u32`, `ocgraph layout hubs`): for every vertex, the
//! [`HUBS_PER_VERTEX`] in-neighbours of highest out-degree (the neighbours of highest degree in
//! an undirected graph), highest first, ties broken by the smaller id; [`NO_HUB`] pads the
//! entries of a vertex with fewer in-neighbours. Vertex `v`'s entries are the u32 at bytes
//! `12v .. 12v + 12`; the first carries [`MORE`] when the vertex has more in-neighbours than
//! its entries hold (so hub ids are below 2^31 - 1, since id 2^31 - 1 with [`MORE`] would read
//! as [`NO_HUB`], and the index is refused for larger graphs).
//!
//! Why: on a power-law graph most vertices are adjacent to a hub, and a hub is reached early.
//! The first bottom-up step of a BFS then finds most parents among these entries, and the
//! sampling phase of Afforest links most vertices to the giant component through them, without
//! reading the lists (a twelfth of the bytes of a plain CSR with 24 arcs per vertex). A vertex
//! without [`MORE`] has all its in-neighbours in its entries: its whole list.

/// Entries per vertex.
pub const HUBS_PER_VERTEX: usize = 3;

/// Pads the entries of a vertex with fewer in-neighbours than [`HUBS_PER_VERTEX`].
pub const NO_HUB: u32 = u32::MAX;

/// Set in the first entry of a vertex whose in-list holds more than its entries.
pub const MORE: u32 = 1 << 31;

/// Vertex count above which a graph has no hub index: ids must leave [`MORE`] free, and the
/// largest id with [`MORE`] set must not read as [`NO_HUB`].
pub const MAX_VERTICES: u64 = MORE as u64 - 1;

/// One vertex's entries as stored: its hubs (the first `len` of `hubs`) and whether its in-list
/// holds more.
pub fn decode(entries: &[u32; HUBS_PER_VERTEX]) -> ([u32; HUBS_PER_VERTEX], usize, bool) {
    let mut hubs = *entries;
    let more = hubs[0] != NO_HUB && hubs[0] & MORE != 0;
    if more {
        hubs[0] &= !MORE;
    }
    let len = hubs.iter().position(|&h| h == NO_HUB).unwrap_or(HUBS_PER_VERTEX);
    (hubs, len, more)
}

/// One vertex's entries as stored: `hubs` (at most [`HUBS_PER_VERTEX`], below [`MORE`]) and
/// whether its in-list holds `more`.
pub fn encode(hubs: &[u32], more: bool) -> [u32; HUBS_PER_VERTEX] {
    let mut e = [NO_HUB; HUBS_PER_VERTEX];
    e[..hubs.len()].copy_from_slice(hubs);
    if more {
        e[0] |= MORE;
    }
    e
}

/// Checks one vertex's entries: ids below `n`, [`NO_HUB`] only after the last hub, and
/// [`MORE`] only with a full set of hubs. Returns what is wrong.
pub fn check_entries(entries: &[u32; HUBS_PER_VERTEX], n: u64) -> Result<(), String> {
    decode_checked(entries, n).map(|_| ())
}

/// [`decode`] of entries that pass [`check_entries`]; what is wrong otherwise.
pub fn decode_checked(
    entries: &[u32; HUBS_PER_VERTEX],
    n: u64,
) -> Result<([u32; HUBS_PER_VERTEX], usize, bool), String> {
    let (hubs, len, more) = decode(entries);
    if let Some(&h) = hubs[..len].iter().find(|&&h| h as u64 >= n || h as u64 >= MAX_VERTICES) {
        return Err(format!("hub {h} is not a vertex (the graph has {n})"));
    }
    if hubs[len..].iter().any(|&h| h != NO_HUB) {
        return Err("a hub follows an empty entry".into());
    }
    if more && len < HUBS_PER_VERTEX {
        return Err("fewer hubs than entries, yet marked as having more in-neighbours".into());
    }
    Ok((hubs, len, more))
}

/// The entries of a vertex whose in-list is `list`, the out-degree of vertex `u` being
/// `degree[u]`: its [`top_hubs`], marked with [`MORE`] when the list holds more.
pub fn entries_of(list: &[u32], degree: &[u32]) -> [u32; HUBS_PER_VERTEX] {
    let top = top_hubs(list, degree);
    encode(&top[..list.len().min(HUBS_PER_VERTEX)], list.len() > HUBS_PER_VERTEX)
}

/// The [`HUBS_PER_VERTEX`] vertices of `list` of highest `degree`, highest first (ties: the
/// smaller id), padded with [`NO_HUB`].
pub fn top_hubs(list: &[u32], degree: &[u32]) -> [u32; HUBS_PER_VERTEX] {
    // Larger key = better: the degree, then the smaller id.
    let key = |u: u32| (u64::from(degree[u as usize]) << 32) | u64::from(!u);
    let mut best = [(0u64, NO_HUB); HUBS_PER_VERTEX];
    let mut len = 0;
    for &u in list {
        let k = key(u);
        if len == HUBS_PER_VERTEX && k <= best[len - 1].0 {
            continue;
        }
        let mut i = len.min(HUBS_PER_VERTEX - 1);
        while i > 0 && best[i - 1].0 < k {
            best[i] = best[i - 1];
            i -= 1;
        }
        best[i] = (k, u);
        len = (len + 1).min(HUBS_PER_VERTEX);
    }
    best.map(|(_, u)| u)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_indexable_id_round_trips_with_more() {
        let top = (MAX_VERTICES - 1) as u32;
        for more in [false, true] {
            let e = encode(&[top, 0, 1], more);
            assert_eq!(decode(&e), ([top, 0, 1], 3, more));
            assert_eq!(check_entries(&e, MAX_VERTICES), Ok(()));
        }
        // The next id with MORE would read as no hub at all: it is past the index's limit.
        assert_eq!(decode(&encode(&[top + 1, 0, 1], true)).1, 0);
        assert!(check_entries(&[top + 1, 0, 1], MAX_VERTICES + 1).is_err());
    }

    #[test]
    fn top_hubs_orders_by_degree_then_smaller_id() {
        let degree = [5, 1, 9, 5, 0, 7];
        assert_eq!(top_hubs(&[0, 1, 2, 3, 4, 5], &degree), [2, 5, 0]);
        assert_eq!(top_hubs(&[3, 0], &degree), [0, 3, NO_HUB]);
        assert_eq!(top_hubs(&[4], &degree), [4, NO_HUB, NO_HUB]);
        assert_eq!(top_hubs(&[], &degree), [NO_HUB; 3]);
        assert_eq!(top_hubs(&[1, 4, 3, 2], &degree), [2, 3, 1]);
    }
}
