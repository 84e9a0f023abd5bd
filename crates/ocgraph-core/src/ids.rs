//! Original vertex ids of a graph: [`IdLookup`] maps vertex ids to the ids of the input
//! (integers or strings) and back.

use std::path::Path;
use std::sync::OnceLock;

use crate::error::{Error, Result};
use crate::format::{FileRole, IdMapKind, Manifest};
use crate::graph::SideFiles;

/// An original vertex id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OriginalId {
    /// An integer id.
    Int(u64),
    /// A string id.
    Str(String),
}

impl std::fmt::Display for OriginalId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OriginalId::Int(i) => write!(f, "{i}"),
            OriginalId::Str(s) => f.write_str(s),
        }
    }
}

enum Ids {
    Identity,
    U64(Vec<u64>),
    Strings { offsets: Vec<u64>, bytes: String },
}

/// Original ids of a graph's vertices, loaded into memory.
///
/// Memory: nothing for identity graphs; 8 B per vertex for integer ids; 8 B per vertex plus the
/// string bytes for string ids. The reverse map used by [`IdLookup::vertex`] is built on first
/// use (O(n log n)) and takes another 4 B per vertex: a permutation sorted by original id,
/// searched by bisection.
pub struct IdLookup {
    n: u64,
    ids: Ids,
    reverse: OnceLock<Vec<u32>>,
}

impl IdLookup {
    /// Loads the id map described by `manifest` from its open files.
    pub(crate) fn load(files: &SideFiles, manifest: &Manifest) -> Result<IdLookup> {
        let n = manifest.num_vertices;
        let path = |role: FileRole| files.path(role).map(Path::to_path_buf).unwrap_or_default();
        // Loaded whole, so checked whole against the manifest's checksum (as the labels are).
        let read = |role: FileRole| -> Result<Vec<u8>> {
            let Some(entry) = manifest.file(role) else { return Ok(Vec::new()) };
            let mut bytes = files.read(role, entry.padded_len())?;
            if crc32c::crc32c(&bytes) != entry.crc32c {
                return Err(Error::format(path(role), "checksum mismatch: the original ids are corrupted"));
            }
            bytes.truncate(entry.len as usize);
            Ok(bytes)
        };
        let u64s = |b: Vec<u8>| -> Vec<u64> {
            b.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default())).collect()
        };
        let ids = match manifest.id_map {
            IdMapKind::Identity => Ids::Identity,
            IdMapKind::U64 => Ids::U64(u64s(read(FileRole::IdsU64)?)),
            IdMapKind::Strings => {
                let offsets = u64s(read(FileRole::IdsOffsets)?);
                let bytes = String::from_utf8(read(FileRole::IdsStrings)?).map_err(|e| {
                    Error::format(path(FileRole::IdsStrings), format!("string ids are not UTF-8: {e}"))
                })?;
                let ok = offsets.len() as u64 == n + 1
                    && offsets.first() == Some(&0)
                    && offsets.last() == Some(&(bytes.len() as u64))
                    && offsets.windows(2).all(|w| w[0] <= w[1] && bytes.is_char_boundary(w[1] as usize));
                if !ok {
                    return Err(Error::format(
                        path(FileRole::IdsOffsets),
                        "string id offsets are not consistent with ids.strings",
                    ));
                }
                Ids::Strings { offsets, bytes }
            }
        };
        if let Ids::U64(v) = &ids {
            if v.len() as u64 != n {
                return Err(Error::format(path(FileRole::IdsU64), "wrong number of ids"));
            }
        }
        Ok(IdLookup { n, ids, reverse: OnceLock::new() })
    }

    /// A lookup over the id map of a graph being built (`n` vertices), copying the ids.
    pub(crate) fn of_build(n: u64, map: &crate::ingest::IdMap) -> IdLookup {
        let ids = match map {
            crate::ingest::IdMap::Identity => Ids::Identity,
            crate::ingest::IdMap::U64(v) => Ids::U64(v.clone()),
            crate::ingest::IdMap::Strings(v) => {
                let mut offsets = Vec::with_capacity(v.len() + 1);
                offsets.push(0);
                let mut bytes = String::new();
                for s in v {
                    bytes.push_str(s);
                    offsets.push(bytes.len() as u64);
                }
                Ids::Strings { offsets, bytes }
            }
        };
        IdLookup { n, ids, reverse: OnceLock::new() }
    }

    /// This lookup with `added` appended as the ids of the vertices `len()..` (vertices that
    /// updates added to the graph).
    pub fn with_added(mut self, added: &[OriginalId]) -> Result<IdLookup> {
        if added.is_empty() {
            return Ok(self);
        }
        match &mut self.ids {
            Ids::Identity => {
                return Err(Error::invalid("vertices added to an identity-id graph have no names"))
            }
            Ids::U64(ids) => {
                for id in added {
                    match id {
                        OriginalId::Int(i) => ids.push(*i),
                        OriginalId::Str(s) => {
                            return Err(Error::invalid(format!("string id {s:?} on a graph of integer ids")))
                        }
                    }
                }
            }
            Ids::Strings { offsets, bytes } => {
                for id in added {
                    bytes.push_str(&id.to_string());
                    offsets.push(bytes.len() as u64);
                }
            }
        }
        self.n += added.len() as u64;
        self.reverse = OnceLock::new();
        Ok(self)
    }

    /// An identity map over `n` vertices (when updates added vertices to an identity graph);
    /// other maps are returned unchanged.
    pub fn identity_over(mut self, n: u64) -> IdLookup {
        if matches!(self.ids, Ids::Identity) {
            self.n = self.n.max(n);
        }
        self
    }

    /// Number of vertices.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// Whether the original ids are strings (else integers).
    pub fn has_string_ids(&self) -> bool {
        matches!(self.ids, Ids::Strings { .. })
    }

    /// Whether the graph has no vertices.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The original id of vertex `v`. Panics if `v >= len()`.
    pub fn original(&self, v: u32) -> OriginalId {
        assert!((v as u64) < self.n, "vertex {v} out of range (n = {})", self.n);
        match &self.ids {
            Ids::Identity => OriginalId::Int(v as u64),
            Ids::U64(ids) => OriginalId::Int(ids[v as usize]),
            Ids::Strings { .. } => OriginalId::Str(self.str_of(v).to_string()),
        }
    }

    fn str_of(&self, v: u32) -> &str {
        match &self.ids {
            Ids::Strings { offsets, bytes } => {
                &bytes[offsets[v as usize] as usize..offsets[v as usize + 1] as usize]
            }
            _ => "",
        }
    }

    /// The vertex whose original id is `id`, if any: ids are all integers or all strings, so an
    /// `Int` on a graph with string ids (`"7"` is not `"007"`) and a `Str` on one with integer
    /// ids find none, as on a writable graph. Builds the reverse map on first use (see the type
    /// docs).
    pub fn vertex(&self, id: &OriginalId) -> Option<u32> {
        match (&self.ids, id) {
            (Ids::Identity, OriginalId::Int(i)) => (*i < self.n).then_some(*i as u32),
            (Ids::Identity, OriginalId::Str(_)) => None,
            (Ids::U64(ids), OriginalId::Int(i)) => {
                let rev = self.reverse(|a, b| ids[a as usize].cmp(&ids[b as usize]));
                let k = rev.partition_point(|&v| ids[v as usize] < *i);
                rev.get(k).copied().filter(|&v| ids[v as usize] == *i)
            }
            (Ids::U64(_), OriginalId::Str(_)) => None,
            (Ids::Strings { .. }, OriginalId::Str(key)) => {
                let rev = self.reverse(|a, b| self.str_of(a).cmp(self.str_of(b)));
                let k = rev.partition_point(|&v| self.str_of(v) < key.as_str());
                rev.get(k).copied().filter(|&v| self.str_of(v) == key)
            }
            (Ids::Strings { .. }, OriginalId::Int(_)) => None,
        }
    }

    fn reverse(&self, cmp: impl Fn(u32, u32) -> std::cmp::Ordering) -> &[u32] {
        self.reverse.get_or_init(|| {
            let mut perm: Vec<u32> = (0..self.n as u32).collect();
            perm.sort_unstable_by(|&a, &b| cmp(a, b));
            perm
        })
    }
}
