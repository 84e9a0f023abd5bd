//! The files of a graph directory and their alignment.

/// Every data file is padded with zero bytes to a multiple of this many bytes.
pub const ALIGN: u64 = 4096;

/// Length of a file holding `len` bytes of data once padded to [`ALIGN`].
pub fn pad_len(len: u64) -> u64 {
    len.div_ceil(ALIGN) * ALIGN
}

/// The role of each file in a graph directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FileRole {
    /// `out.offsets`: `n + 1` u64 offsets into `out.neighbors`.
    OutOffsets = 0,
    /// `out.neighbors`: `num_arcs` u32 neighbour ids, sorted within each vertex.
    OutNeighbors = 1,
    /// `out.weights`: `num_arcs` f32 weights aligned with `out.neighbors`.
    OutWeights = 2,
    /// `in.offsets`: directed graphs only.
    InOffsets = 3,
    /// `in.neighbors`: directed graphs only.
    InNeighbors = 4,
    /// `in.weights`: directed weighted graphs only.
    InWeights = 5,
    /// `ids.u64`: original integer id of each vertex (relabelled graphs).
    IdsU64 = 6,
    /// `ids.offsets`: `n + 1` u64 byte offsets into `ids.strings` (string ids).
    IdsOffsets = 7,
    /// `ids.strings`: concatenated UTF-8 original ids.
    IdsStrings = 8,
    /// `out.packed`: packed graphs only, the out-lists compressed (see [`crate::format::packed`])
    /// in place of `out.neighbors`.
    OutPacked = 9,
    /// `out.packed_index`: packed graphs only, `n + 1` u64 byte offsets into `out.packed`.
    OutPackedIndex = 10,
    /// `in.packed`: packed directed graphs only.
    InPacked = 11,
    /// `in.packed_index`: packed directed graphs only.
    InPackedIndex = 12,
    /// `grid.index`: graphs with a grid layout only, the header and cell index
    /// (see [`crate::format::grid`]).
    GridIndex = 13,
    /// `grid.edges`: graphs with a grid layout only, the cells' edges.
    GridEdges = 14,
    /// `grid.weights`: weighted graphs with a grid layout only, one f32 per edge in cell order.
    GridWeights = 15,
    /// `out.neighbors.lz4`: graphs compressed by `ocgraph layout compress` only, `out.neighbors`
    /// in compressed blocks (see [`crate::format::compressed`]).
    OutNeighborsLz4 = 16,
    /// `out.weights.lz4`: compressed weighted graphs only.
    OutWeightsLz4 = 17,
    /// `in.neighbors.lz4`: compressed directed graphs only.
    InNeighborsLz4 = 18,
    /// `in.weights.lz4`: compressed directed weighted graphs only.
    InWeightsLz4 = 19,
    /// `labels.u32`: graphs with vertex labels only, one u32 label per vertex
    /// ([`crate::labels::NO_LABEL`] for a vertex the label file did not name).
    Labels = 20,
    /// `hubs.u32`: graphs with a hub index only (`ocgraph layout hubs`), three u32
    /// per vertex: the in-neighbours of highest out-degree (see [`crate::format::hubs`]).
    Hubs = 21,
}

impl FileRole {
    /// Number of roles.
    pub const COUNT: usize = 22;

    /// All roles, in id order.
    pub const ALL: [FileRole; Self::COUNT] = [
        FileRole::OutOffsets,
        FileRole::OutNeighbors,
        FileRole::OutWeights,
        FileRole::InOffsets,
        FileRole::InNeighbors,
        FileRole::InWeights,
        FileRole::IdsU64,
        FileRole::IdsOffsets,
        FileRole::IdsStrings,
        FileRole::OutPacked,
        FileRole::OutPackedIndex,
        FileRole::InPacked,
        FileRole::InPackedIndex,
        FileRole::GridIndex,
        FileRole::GridEdges,
        FileRole::GridWeights,
        FileRole::OutNeighborsLz4,
        FileRole::OutWeightsLz4,
        FileRole::InNeighborsLz4,
        FileRole::InWeightsLz4,
        FileRole::Labels,
        FileRole::Hubs,
    ];

    /// The plain files that `ocgraph layout compress` compresses, each with its compressed
    /// copy.
    pub const COMPRESSIBLE: [(FileRole, FileRole); 4] = [
        (FileRole::OutNeighbors, FileRole::OutNeighborsLz4),
        (FileRole::OutWeights, FileRole::OutWeightsLz4),
        (FileRole::InNeighbors, FileRole::InNeighborsLz4),
        (FileRole::InWeights, FileRole::InWeightsLz4),
    ];

    /// The compressed copy of this plain file's role, if it has one.
    pub fn compressed(self) -> Option<FileRole> {
        Self::COMPRESSIBLE.iter().find(|(p, _)| *p == self).map(|&(_, c)| c)
    }

    /// Whether this is the role of a compressed copy.
    pub fn is_compressed(self) -> bool {
        Self::COMPRESSIBLE.iter().any(|&(_, c)| c == self)
    }

    /// Roles served through the page layer (graph data read by algorithms; the small grid
    /// index is read whole at open).
    pub const PAGED: [FileRole; 13] = [
        FileRole::OutOffsets,
        FileRole::OutNeighbors,
        FileRole::OutWeights,
        FileRole::InOffsets,
        FileRole::InNeighbors,
        FileRole::InWeights,
        FileRole::OutPacked,
        FileRole::OutPackedIndex,
        FileRole::InPacked,
        FileRole::InPackedIndex,
        FileRole::GridEdges,
        FileRole::GridWeights,
        FileRole::Hubs,
    ];

    /// The file name inside the graph directory.
    pub fn file_name(self) -> &'static str {
        match self {
            FileRole::OutOffsets => "out.offsets",
            FileRole::OutNeighbors => "out.neighbors",
            FileRole::OutWeights => "out.weights",
            FileRole::InOffsets => "in.offsets",
            FileRole::InNeighbors => "in.neighbors",
            FileRole::InWeights => "in.weights",
            FileRole::IdsU64 => "ids.u64",
            FileRole::IdsOffsets => "ids.offsets",
            FileRole::IdsStrings => "ids.strings",
            FileRole::OutPacked => "out.packed",
            FileRole::OutPackedIndex => "out.packed_index",
            FileRole::InPacked => "in.packed",
            FileRole::InPackedIndex => "in.packed_index",
            FileRole::GridIndex => "grid.index",
            FileRole::GridEdges => "grid.edges",
            FileRole::GridWeights => "grid.weights",
            FileRole::OutNeighborsLz4 => "out.neighbors.lz4",
            FileRole::OutWeightsLz4 => "out.weights.lz4",
            FileRole::InNeighborsLz4 => "in.neighbors.lz4",
            FileRole::InWeightsLz4 => "in.weights.lz4",
            FileRole::Labels => "labels.u32",
            FileRole::Hubs => "hubs.u32",
        }
    }

    /// The role of a file name, if it is one.
    pub fn from_file_name(name: &str) -> Option<FileRole> {
        Self::ALL.into_iter().find(|r| r.file_name() == name)
    }

    /// The role of a name on disk: a role's name, or that of a label file of a later generation
    /// (`labels.<N>.u32`, see [`super::FileEntry::stored_name`]).
    pub fn from_stored_name(name: &str) -> Option<FileRole> {
        match name.strip_prefix("labels.").and_then(|r| r.strip_suffix(".u32")) {
            Some(g) if !g.is_empty() && g.bytes().all(|b| b.is_ascii_digit()) => Some(FileRole::Labels),
            _ => Self::from_file_name(name),
        }
    }

    /// Size in bytes of one element of this file (1 for `ids.strings`).
    pub fn element_size(self) -> u64 {
        match self {
            FileRole::OutOffsets
            | FileRole::InOffsets
            | FileRole::IdsU64
            | FileRole::IdsOffsets
            | FileRole::OutPackedIndex
            | FileRole::InPackedIndex => 8,
            FileRole::OutNeighbors | FileRole::InNeighbors => 4,
            FileRole::OutWeights | FileRole::InWeights | FileRole::GridWeights | FileRole::Labels => 4,
            FileRole::Hubs => 4,
            FileRole::GridIndex => 8,
            FileRole::IdsStrings | FileRole::OutPacked | FileRole::InPacked | FileRole::GridEdges => 1,
            FileRole::OutNeighborsLz4
            | FileRole::OutWeightsLz4
            | FileRole::InNeighborsLz4
            | FileRole::InWeightsLz4 => 1,
        }
    }
}
