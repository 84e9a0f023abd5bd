//! The manifest: a small binary header followed by a JSON body, checksummed.
//!
//! ```text
//! offset size field
//! 0      8    magic "OCGRAPH\0"
//! 8      4    format version (u32 LE)
//! 12     4    body length in bytes (u32 LE)
//! 16     4    CRC-32C of the body (u32 LE)
//! 20     4    reserved, zero
//! 24     ..   body: UTF-8 JSON object (see docs/design.md)
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::grid::GridInfo;
use super::layout::{pad_len, FileRole};
use super::weight_range::WeightRange;
use crate::error::{Error, Result};

/// Name of the manifest file in a graph directory.
pub const MANIFEST_FILE: &str = "manifest";
/// The manifest's magic bytes.
pub const MANIFEST_MAGIC: &[u8; 8] = b"OCGRAPH\0";
/// The format version this build writes and the highest it reads.
pub const FORMAT_VERSION: u32 = 1;
const HEADER_LEN: usize = 24;
const MAX_BODY: u32 = 16 << 20;

/// How original vertex ids are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IdMapKind {
    /// Vertex ids are the input ids.
    Identity,
    /// `ids.u64` maps each vertex to its original integer id.
    U64,
    /// `ids.offsets` + `ids.strings` map each vertex to its original string id.
    Strings,
}

/// One data file of the graph: its data length (before padding) and CRC-32C of the padded file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// Bytes of data; the file on disk is this padded with zeros to a multiple of 4096.
    pub len: u64,
    /// CRC-32C of the whole file as stored (data + padding).
    pub crc32c: u32,
    /// The file's generation when it replaced an earlier file of its role (`labels set` on a
    /// labelled graph): stored as `labels.<generation>.u32`, so that one manifest write switches
    /// readers from the old file to the new one. `None`: the file has its role's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<u64>,
}

impl FileEntry {
    /// Size of the file on disk.
    pub fn padded_len(&self) -> u64 {
        pad_len(self.len)
    }

    /// The name on disk of this entry listed as `name`: `name` itself, or for a file of a later
    /// generation `name` with the generation before its last extension (`labels.3.u32`).
    pub fn stored_name(&self, name: &str) -> String {
        generation_name(name, self.generation)
    }
}

/// The name on disk of a file listed as `name` of `generation` ([`FileEntry::stored_name`]).
pub fn generation_name(name: &str, generation: Option<u64>) -> String {
    match (generation, name.rsplit_once('.')) {
        (Some(g), Some((stem, ext))) => format!("{stem}.{g}.{ext}"),
        (Some(g), None) => format!("{name}.{g}"),
        (None, _) => name.to_string(),
    }
}

/// The manifest body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Number of vertices `n`; ids are `0..n`.
    pub num_vertices: u64,
    /// Number of edges as the user sees them (an undirected edge counts once).
    pub num_edges: u64,
    /// Number of arcs stored in the out-CSR.
    pub num_arcs: u64,
    /// Directed graphs also store the in-CSR.
    pub directed: bool,
    /// Whether arcs carry f32 weights.
    pub weighted: bool,
    /// Bytes per vertex id in neighbour files (4 in this version).
    pub id_width: u8,
    /// How original ids are stored.
    pub id_map: IdMapKind,
    /// Data files by name.
    pub files: BTreeMap<String, FileEntry>,
    /// The program that wrote the graph.
    pub created_by: String,
    /// Free text: what the graph was made from.
    #[serde(default)]
    pub source: String,
    /// Subdirectory holding the data files (a base written by compaction, `base.<gen>`);
    /// `None`: the graph directory itself (every graph written by ingest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_dir: Option<String>,
    /// State of a graph opened for updates: its delta levels and WAL checkpoint. `None` for a
    /// graph never updated (all v1 graphs written by ingest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updates: Option<UpdateState>,
    /// The grid layout built beside the CSR (`ocgraph layout grid`), if any: its shape; its
    /// files are `grid.index`, `grid.edges` and (weighted graphs) `grid.weights`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grid: Option<GridInfo>,
    /// The range of the out-weights (weighted graphs whose weights are all finite and
    /// non-negative), filled in by [`super::GraphWriter::commit`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight_range: Option<WeightRange>,
}

/// The durable update state recorded in the manifest (see `update/` and docs/design.md).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct UpdateState {
    /// Every WAL batch with a sequence number `<=` this is contained in the base and `levels`.
    pub checkpoint_seq: u64,
    /// Vertex count as of `checkpoint_seq` (at least the base's `num_vertices`).
    pub num_vertices: u64,
    /// Immutable delta levels over the base, oldest first.
    pub levels: Vec<LevelEntry>,
    /// Generation counter used to name compacted bases (`base.<gen>`) and level files.
    pub next_file_id: u64,
    /// Whether the base lists each neighbour at most once: `Some(false)` for a multigraph base
    /// (read with repeated arcs collapsed, see docs/design.md), `None` when not yet scanned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_simple: Option<bool>,
    /// The label log holding the label changes of the batches `<= checkpoint_seq` since the
    /// base (`update/label_log.rs`), when there are any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels_log: Option<LabelLogEntry>,
    /// Every batch up to this was durable when a writer last closed the graph: the log (or the
    /// checkpoint) must reach it, or batches were lost after they were acknowledged (a segment
    /// removed or cut short). 0 when no writer closed the graph after a batch.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub closed_seq: u64,
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

impl UpdateState {
    /// The state of a graph of `num_vertices` vertices that no batch has changed yet.
    pub fn fresh(num_vertices: u64) -> UpdateState {
        UpdateState { num_vertices, next_file_id: 1, ..UpdateState::default() }
    }

    /// What is wrong with this state over a base of `base_vertices` vertices, if anything: the
    /// vertex count must lie between the base's and the 32-bit id space's; the levels must hold
    /// rising batch ranges that the checkpoint covers. (The level files' own headers are
    /// checked against these entries when they are opened.)
    fn validate(&self, base_vertices: u64) -> std::result::Result<(), String> {
        if self.num_vertices < base_vertices || self.num_vertices > u32::MAX as u64 {
            return Err(format!(
                "updates.num_vertices {} is outside {base_vertices}..={} (the base's vertices to the id space)",
                self.num_vertices,
                u32::MAX
            ));
        }
        let mut prev = 0;
        for l in &self.levels {
            if l.name.is_empty() || l.name.contains('/') || l.name.starts_with('.') {
                return Err(format!("level name '{}' must be a plain file name", l.name));
            }
            if l.upto_seq <= prev || l.upto_seq > self.checkpoint_seq {
                return Err(format!(
                    "level {} holds batches up to {}, not after the previous level's {prev} and within the checkpoint {}",
                    l.name, l.upto_seq, self.checkpoint_seq
                ));
            }
            prev = l.upto_seq;
        }
        // File ids name levels (`NNNNNNNN.level`) and bases (`base.NNNNNNNN`): the next one to
        // be given must be past every one in use, or a freeze would overwrite a live level.
        let ids = self.levels.iter().filter_map(|l| l.name.strip_suffix(".level")?.parse::<u64>().ok());
        if let Some(id) = ids.filter(|&id| id >= self.next_file_id).max() {
            return Err(format!(
                "updates.next_file_id {} is not past the level file id {id} in use",
                self.next_file_id
            ));
        }
        Ok(())
    }
}

/// The label log of an updated graph: a file in the graph directory, of which the first `len`
/// bytes are whole records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabelLogEntry {
    /// File name inside the graph directory (`labels.NNNNNNNN.log`).
    pub name: String,
    /// Bytes of records the manifest vouches for.
    pub len: u64,
}

/// One immutable delta level file under `levels/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LevelEntry {
    /// File name inside `levels/`.
    pub name: String,
    /// File length in bytes (padded).
    pub len: u64,
    /// CRC-32C of the level's data (as stored in its header).
    pub crc32c: u32,
    /// The last WAL batch the level contains.
    pub upto_seq: u64,
}

/// Runs `attempt` on the graph at `dir` with the manifest it starts from, again (at most
/// `attempts` times, sleeping 1, 2, ... ms in between) while the manifest changed during it: a
/// writer may switch the manifest (a compaction, a layout rebuilt and its files renamed into
/// place) while an attempt reads the files it lists. With `keep_success`, an attempt that
/// succeeded is kept whatever the manifest did (it verified what it read); without, only one
/// during which the manifest held still. An error is returned from the last attempt.
pub(crate) fn while_manifest_changes<T>(
    dir: &Path,
    attempts: u32,
    keep_success: bool,
    mut attempt: impl FnMut(&Manifest) -> Result<T>,
) -> Result<T> {
    let mut tried = 0;
    loop {
        let before = Manifest::read(dir)?;
        let result = attempt(&before);
        tried += 1;
        let held = Manifest::read(dir).ok().as_ref() == Some(&before);
        if held || tried >= attempts || (keep_success && result.is_ok()) {
            return result;
        }
        std::thread::sleep(std::time::Duration::from_millis(tried as u64));
    }
}

impl Manifest {
    /// The entry of a file role, if present.
    pub fn file(&self, role: FileRole) -> Option<&FileEntry> {
        self.files.get(role.file_name())
    }

    /// The name on disk of `role`'s file, if it is listed ([`FileEntry::stored_name`]).
    pub fn stored_name(&self, role: FileRole) -> Option<String> {
        self.file(role).map(|e| e.stored_name(role.file_name()))
    }

    /// Serialises the manifest with its header.
    pub fn to_bytes(&self) -> Vec<u8> {
        let body = serde_json::to_vec_pretty(self).expect("manifest serialises");
        let mut out = Vec::with_capacity(HEADER_LEN + body.len());
        out.extend_from_slice(MANIFEST_MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&(body.len() as u32).to_le_bytes());
        out.extend_from_slice(&crc32c::crc32c(&body).to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    /// Reads and verifies `dir/manifest`.
    pub fn read(dir: &Path) -> Result<Manifest> {
        let path = dir.join(MANIFEST_FILE);
        match std::fs::metadata(dir) {
            // The OS's error (no such file, permission denied), with its errno.
            Err(e) => {
                let Some((new, previous)) = super::writer::interrupted_replace(dir) else {
                    return Err(Error::io(dir, "open graph directory", e));
                };
                let hint = format!(
                    "{e}; a command replacing it (with --force: import, generate, pack, reorder) was killed between its \
                     two renames: the previous graph is {}, the new one {}; rename either to {}",
                    previous.display(),
                    new.display(),
                    dir.display()
                );
                return Err(Error::io(dir, "open graph directory", std::io::Error::new(e.kind(), hint)));
            }
            Ok(m) if !m.is_dir() => {
                return Err(Error::io(
                    dir,
                    "open graph directory",
                    std::io::Error::from_raw_os_error(libc::ENOTDIR),
                ))
            }
            Ok(_) => {}
        }
        let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, "read", e))?;
        Self::from_bytes(&bytes, &path)
    }

    /// Parses and verifies manifest bytes; `path` is used in errors.
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Manifest> {
        let bad = |offset: u64, msg: String| Error::Format { path: path.into(), offset: Some(offset), msg };
        if bytes.len() < HEADER_LEN {
            return Err(bad(
                0,
                format!("manifest is {} bytes, shorter than its 24-byte header", bytes.len()),
            ));
        }
        if &bytes[0..8] != MANIFEST_MAGIC {
            return Err(bad(0, "bad magic: not an ocgraph manifest".into()));
        }
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
        let version = u32_at(8);
        if version > FORMAT_VERSION {
            return Err(Error::Version { path: path.into(), found: version, supported: FORMAT_VERSION });
        }
        if version == 0 {
            return Err(bad(8, "format version 0 is invalid".into()));
        }
        let body_len = u32_at(12);
        if body_len > MAX_BODY || HEADER_LEN + body_len as usize != bytes.len() {
            return Err(bad(
                12,
                format!("body length {body_len} does not match file length {}", bytes.len()),
            ));
        }
        let body = &bytes[HEADER_LEN..];
        let crc = crc32c::crc32c(body);
        if crc != u32_at(16) {
            return Err(bad(
                16,
                format!("checksum mismatch (stored {:#010x}, computed {crc:#010x})", u32_at(16)),
            ));
        }
        let m: Manifest = serde_json::from_slice(body)
            .map_err(|e| bad(HEADER_LEN as u64, format!("bad manifest JSON: {e}")))?;
        m.validate(path)?;
        Ok(m)
    }

    /// The directory holding the data files of the graph at `dir`.
    pub fn data_path(&self, dir: &Path) -> std::path::PathBuf {
        match &self.data_dir {
            Some(d) => dir.join(d),
            None => dir.to_path_buf(),
        }
    }

    /// Replaces `dir/manifest` atomically: writes `manifest.tmp`, fsyncs it, renames it over the
    /// manifest and fsyncs `dir`. A crash leaves either the old or the new manifest; a failed write
    /// removes its temporary file.
    pub fn write_atomic(&self, dir: &Path) -> Result<()> {
        use std::io::Write;
        let tmp = dir.join("manifest.tmp");
        let written = (|| {
            let mut f = std::fs::File::create(&tmp).map_err(|e| Error::io(&tmp, "create", e))?;
            f.write_all(&self.to_bytes()).map_err(|e| Error::io(&tmp, "write", e))?;
            f.sync_all().map_err(|e| Error::io(&tmp, "fsync", e))
        })();
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        written?;
        let path = dir.join(MANIFEST_FILE);
        std::fs::rename(&tmp, &path).map_err(|e| Error::io(&path, "rename", e))?;
        super::writer::fsync_dir(dir)
    }

    /// Whether `other` numbers the same original ids as this manifest: the same vertex count,
    /// id map and id files (by length and checksum). Values read by original id through one
    /// (a label Series) land on the same vertices through the other.
    pub fn same_numbering(&self, other: &Manifest) -> bool {
        let ids = [FileRole::IdsU64, FileRole::IdsOffsets, FileRole::IdsStrings];
        self.num_vertices == other.num_vertices
            && self.id_map == other.id_map
            && ids.iter().all(|&r| self.file(r) == other.file(r))
    }

    /// Whether the graph keeps an id map (original ids other than its vertex numbers).
    pub fn keeps_ids(&self) -> bool {
        self.id_map != IdMapKind::Identity
    }

    /// Whether the neighbour lists are packed only ([`crate::format::packed`], a graph written by
    /// `ocgraph pack`): `out.packed` is listed and `out.neighbors` is not.
    pub fn is_packed(&self) -> bool {
        self.file(FileRole::OutPacked).is_some() && self.file(FileRole::OutNeighbors).is_none()
    }

    /// Whether the graph holds packed copies of its plain lists (`ocgraph layout pack`): both
    /// `out.packed` and `out.neighbors` are listed.
    pub fn has_packed_copy(&self) -> bool {
        self.file(FileRole::OutPacked).is_some() && self.file(FileRole::OutNeighbors).is_some()
    }

    /// Checks internal consistency: id width, required files, and sizes implied by the counts.
    fn validate(&self, path: &Path) -> Result<()> {
        let bad = |msg: String| Error::format(path, msg);
        if let Some(d) = &self.data_dir {
            if d.is_empty() || d.contains('/') || d.starts_with('.') {
                return Err(bad(format!("data directory '{d}' must be a plain subdirectory name")));
            }
        }
        if self.id_width != 4 {
            return Err(bad(format!("id width {} is not supported (only 4)", self.id_width)));
        }
        if self.num_vertices > u32::MAX as u64 {
            return Err(bad(format!("{} vertices exceed the 32-bit id space", self.num_vertices)));
        }
        // A directed graph's edges are its arcs; an undirected one stores each edge as two arcs
        // and each self-loop as one.
        let (e, a) = (self.num_edges, self.num_arcs);
        if (self.directed && e != a) || (!self.directed && (a < e || a > e.saturating_mul(2))) {
            let kind = if self.directed { "directed" } else { "undirected" };
            return Err(bad(format!("{e} edges and {a} arcs cannot describe one {kind} graph")));
        }
        if let Some(up) = &self.updates {
            up.validate(self.num_vertices).map_err(bad)?;
            let base_id = self.data_dir.as_deref().and_then(|d| d.strip_prefix("base.")?.parse::<u64>().ok());
            if let Some(id) = base_id.filter(|&id| id >= up.next_file_id) {
                return Err(bad(format!(
                    "updates.next_file_id {} is not past the base's file id {id} in use",
                    up.next_file_id
                )));
            }
        }
        if let Some(r) = &self.weight_range {
            if !self.weighted {
                return Err(bad("an unweighted graph records a weight range".into()));
            }
            if let Some(msg) = r.invalid() {
                return Err(bad(msg));
            }
        }
        for (name, entry) in &self.files {
            if FileRole::from_file_name(name).is_none() {
                return Err(bad(format!("unknown file '{name}' listed")));
            }
            if entry.generation.is_some() && name != FileRole::Labels.file_name() {
                return Err(bad(format!("'{name}' is listed with a generation (only labels have them)")));
            }
        }
        if let Some(role) =
            self.files.keys().filter_map(|k| FileRole::from_file_name(k)).find(|&r| self.unused(r))
        {
            return Err(bad(format!(
                "'{}' is listed in a graph that does not use it ({}, {}, {} ids)",
                role.file_name(),
                if self.directed { "directed" } else { "undirected" },
                if self.weighted { "weighted" } else { "unweighted" },
                format!("{:?}", self.id_map).to_lowercase()
            )));
        }
        let n = self.num_vertices;
        let packed = self.is_packed();
        let copy = self.has_packed_copy();
        // A packed graph lists its packed lists and their index in place of the neighbour files;
        // a graph with packed copies lists both.
        let (absent, lists): (&[FileRole], [(FileRole, u64); 2]) = if packed {
            (
                &[FileRole::OutNeighbors, FileRole::InNeighbors],
                [(FileRole::OutPackedIndex, (n + 1) * 8), (FileRole::InPackedIndex, (n + 1) * 8)],
            )
        } else if copy {
            (&[], [(FileRole::OutNeighbors, self.num_arcs * 4), (FileRole::InNeighbors, self.num_arcs * 4)])
        } else {
            (
                &[FileRole::OutPackedIndex, FileRole::InPacked, FileRole::InPackedIndex],
                [(FileRole::OutNeighbors, self.num_arcs * 4), (FileRole::InNeighbors, self.num_arcs * 4)],
            )
        };
        if let Some(role) = absent.iter().find(|&&r| self.file(r).is_some()) {
            let kind = if packed { "packed" } else { "plain" };
            return Err(bad(format!("'{}' is listed in a {kind} graph", role.file_name())));
        }
        let mut expect = vec![(FileRole::OutOffsets, (n + 1) * 8), lists[0]];
        if copy {
            expect.push((FileRole::OutPackedIndex, (n + 1) * 8));
        }
        if self.directed {
            expect.push((FileRole::InOffsets, (n + 1) * 8));
            expect.push(lists[1]);
            if (packed || copy) && self.file(FileRole::InPacked).is_none() {
                return Err(bad("required file 'in.packed' is not listed".into()));
            }
            if copy {
                expect.push((FileRole::InPackedIndex, (n + 1) * 8));
            }
        }
        if self.weighted {
            expect.push((FileRole::OutWeights, self.num_arcs * 4));
            if self.directed {
                expect.push((FileRole::InWeights, self.num_arcs * 4));
            }
        }
        if self.file(FileRole::Labels).is_some() {
            expect.push((FileRole::Labels, n * 4));
        }
        if self.file(FileRole::Hubs).is_some() {
            expect.push((FileRole::Hubs, n * 4 * super::hubs::HUBS_PER_VERTEX as u64));
        }
        match self.id_map {
            IdMapKind::Identity => {}
            IdMapKind::U64 => expect.push((FileRole::IdsU64, n * 8)),
            IdMapKind::Strings => expect.push((FileRole::IdsOffsets, (n + 1) * 8)),
        }
        for (role, len) in &expect {
            match self.file(*role) {
                None => return Err(bad(format!("required file '{}' is not listed", role.file_name()))),
                Some(e) if e.len != *len => {
                    return Err(bad(format!(
                        "'{}' should hold {len} bytes for these counts, manifest says {}",
                        role.file_name(),
                        e.len
                    )))
                }
                Some(_) => {}
            }
        }
        if self.id_map == IdMapKind::Strings && self.file(FileRole::IdsStrings).is_none() {
            return Err(bad("required file 'ids.strings' is not listed".into()));
        }
        self.validate_grid(path)?;
        self.validate_compressed(path)
    }

    /// Whether the graph's shape has no use for `role`: reverse lists of an undirected graph,
    /// weights of an unweighted one, id files of another id map. A reader would ignore such a
    /// file, so a manifest listing one is corrupted.
    fn unused(&self, role: FileRole) -> bool {
        use FileRole::*;
        match role {
            InOffsets | InNeighbors | InPacked | InPackedIndex | InNeighborsLz4 => !self.directed,
            InWeights | InWeightsLz4 => !(self.directed && self.weighted),
            OutWeights | OutWeightsLz4 | GridWeights => !self.weighted,
            IdsU64 => self.id_map != IdMapKind::U64,
            IdsOffsets | IdsStrings => self.id_map != IdMapKind::Strings,
            _ => false,
        }
    }

    /// A compressed copy (`ocgraph layout compress`) is listed only beside its plain file.
    fn validate_compressed(&self, path: &Path) -> Result<()> {
        for (plain, compressed) in FileRole::COMPRESSIBLE {
            if self.file(compressed).is_some() && self.file(plain).is_none() {
                return Err(Error::format(
                    path,
                    format!("'{}' is listed without '{}'", compressed.file_name(), plain.file_name()),
                ));
            }
        }
        Ok(())
    }

    /// Whether the adjacency files have compressed copies (`ocgraph layout compress`).
    pub fn is_compressed(&self) -> bool {
        FileRole::COMPRESSIBLE.iter().any(|&(_, c)| self.file(c).is_some())
    }

    /// The grid files are listed exactly when the manifest records a grid, with the sizes its
    /// shape implies.
    fn validate_grid(&self, path: &Path) -> Result<()> {
        let grid_files = [FileRole::GridIndex, FileRole::GridEdges, FileRole::GridWeights];
        let Some(info) = self.grid else {
            return match grid_files.iter().find(|&&r| self.file(r).is_some()) {
                Some(r) => Err(Error::format(path, format!("'{}' is listed but no grid is", r.file_name()))),
                None => Ok(()),
            };
        };
        info.validate(self.num_vertices, path)?;
        let mut expect = vec![(FileRole::GridIndex, Some(info.index_len())), (FileRole::GridEdges, None)];
        if self.weighted {
            expect.push((FileRole::GridWeights, Some(self.num_arcs * 4)));
        } else if self.file(FileRole::GridWeights).is_some() {
            return Err(Error::format(path, "'grid.weights' is listed in an unweighted graph"));
        }
        for (role, len) in expect {
            match (self.file(role), len) {
                (None, _) => {
                    return Err(Error::format(
                        path,
                        format!("grid file '{}' is not listed", role.file_name()),
                    ))
                }
                (Some(e), Some(len)) if e.len != len => {
                    return Err(Error::format(
                        path,
                        format!(
                            "'{}' should hold {len} bytes for this grid, manifest says {}",
                            role.file_name(),
                            e.len
                        ),
                    ))
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Checks that every listed file exists as a regular file (a link to one is followed) of its
    /// padded size.
    pub fn verify_file_sizes(&self, dir: &Path) -> Result<()> {
        let dir = self.data_path(dir);
        for (name, entry) in &self.files {
            let path = dir.join(entry.stored_name(name));
            let meta = std::fs::metadata(&path).map_err(|e| Error::io(&path, "stat", e))?;
            if !meta.is_file() {
                return Err(Error::Format { path, offset: None, msg: "not a regular file".into() });
            }
            if meta.len() != entry.padded_len() {
                return Err(Error::Format {
                    path,
                    offset: Some(meta.len().min(entry.padded_len())),
                    msg: format!(
                        "file is {} bytes, manifest expects {} (truncated or overwritten)",
                        meta.len(),
                        entry.padded_len()
                    ),
                });
            }
        }
        Ok(())
    }
}
