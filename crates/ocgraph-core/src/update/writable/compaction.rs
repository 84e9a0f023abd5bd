//! Compaction of a writable graph: base and levels merged into a new base generation, its
//! layouts rebuilt, and the manifest switched to it.

use std::path::Path;
use std::sync::Arc;

use super::{fresh_delta, Shared};
use crate::error::{Error, Result};
use crate::format::grid::MAX_BLOCK_BITS;
use crate::format::{FileRole, IdMapKind, Manifest, UpdateState, MANIFEST_FILE};
use crate::graph::{Graph, OpenOptions, Vertex};
use crate::ids::OriginalId;
use crate::ingest::{
    build_grid_unlocked, compress_adjacency_unlocked, copies_block_size, index_hubs_unlocked,
    pack_copy_unlocked, GridOptions, NoProgress,
};
use crate::update::compact::write_base;
use crate::update::label_log::ViewLabels;
use crate::update::snapshot::View;
use crate::update::LEVELS_DIR;

impl Shared {
    /// The original ids of the vertices of `view` (what a compacted base's id map holds), or
    /// `None` for identity graphs.
    fn ids_for_base(&self, view: &View) -> Result<Option<(IdMapKind, Vec<OriginalId>)>> {
        let mut names = self.names.lock();
        if names.kind == IdMapKind::Identity {
            return Ok(None);
        }
        let base = names.base(&view.base)?;
        let base_n = base.len();
        let mut ids: Vec<OriginalId> = (0..base_n as Vertex).map(|v| base.original(v)).collect();
        let added = (view.num_vertices.saturating_sub(base_n)) as usize;
        ids.extend_from_slice(names.added.first(added));
        Ok(Some((names.kind, ids)))
    }

    pub(super) fn compact(&self) -> Result<()> {
        let _one = self.compacting.lock();
        let (view, covered, gen) = {
            let _freeze = self.freezing.lock();
            self.freeze_held(false)?;
            let mut st = self.state.lock();
            self.check_open(&st)?;
            debug_assert!(st.view.frozen.is_empty());
            // Nothing to merge, unless the base is a multigraph (compaction writes it simple).
            if st.view.levels.is_empty() && !st.view.dedup_base {
                return Ok(());
            }
            let n = st.manifest.num_vertices;
            let up = st.manifest.updates.get_or_insert_with(|| UpdateState::fresh(n));
            up.next_file_id += 1;
            let (gen, checkpoint, checkpoint_n) = (up.next_file_id - 1, up.checkpoint_seq, up.num_vertices);
            let mut view = st.view.clone();
            // The base holds the graph as of the checkpoint: batches applied since the freeze
            // above (their vertices too) stay in the WAL and the delta.
            view.upto = checkpoint;
            view.num_vertices = checkpoint_n;
            view.delta = fresh_delta(&self.dir, &self.opts, view.base.is_directed())?;
            view.frozen = Vec::new();
            (view, st.view.levels.len(), gen)
        };
        let name = format!("base.{gen:08}");
        let ids = self.ids_for_base(&view)?;
        let base_dir = self.dir.join(&name);
        let base_manifest = write_base(&view, &base_dir, ids.as_ref())?;
        // From here on the new base directory exists under its final name: a failure before the
        // manifest names it (a full disk while a layout is rebuilt, say) removes it rather than
        // leave it for the next writer's open.
        let removing_new_base = |e: Error| {
            let _ = std::fs::remove_dir_all(&base_dir);
            e
        };
        let base_manifest = rebuild_layouts(view.base.manifest(), &self.dir, &base_dir, base_manifest)
            .map_err(removing_new_base)?;
        let mut names = self.names.lock();
        let mut st = self.state.lock();
        let old = st.manifest.clone();
        let mut up = old.updates.clone().unwrap_or_default();
        let dropped: Vec<_> = up.levels.drain(..covered).collect();
        // The new base is written from merged (deduplicated) lists.
        up.base_simple = Some(true);
        // The new base holds the labels as of its batch; the label log keeps the later
        // checkpointed changes.
        let base_seq = view.upto;
        let new_log = st
            .label_log
            .rewritten(&st.view.labels.history, base_seq, up.checkpoint_seq, gen)
            .map_err(removing_new_base)?;
        up.labels_log = new_log.entry();
        let manifest = Manifest {
            data_dir: Some(name.clone()),
            updates: Some(up),
            created_by: old.created_by.clone(),
            source: old.source.clone(),
            ..base_manifest
        };
        if let Err(e) = self.check_directory().and_then(|()| manifest.write_atomic(&self.dir)) {
            new_log.remove();
            // Unless the manifest was switched after all (a failed fsync of the directory).
            if Manifest::read(&self.dir).is_ok_and(|m| m.data_dir.as_deref() != Some(name.as_str())) {
                return Err(removing_new_base(e));
            }
            return Err(e);
        }
        let new_base_n = manifest.num_vertices;
        st.manifest = manifest;
        let base = Arc::new(Graph::open(&self.dir, &OpenOptions { backend: self.opts.backend.clone() })?);
        std::mem::replace(&mut st.label_log, new_log).remove();
        let history = Arc::new(st.view.labels.history.after(base_seq));
        st.view.labels = ViewLabels { base: base.labels()?.map(Arc::new), history };
        st.view.base = base;
        st.view.dedup_base = false;
        // The new base names the vertices it holds (a reopen skips their records anyway).
        names.base = None;
        names.added.rebase(new_base_n)?;
        drop(names);
        st.view.levels = Arc::new(st.view.levels[covered..].to_vec());
        drop(st);
        // Old files: open snapshots keep reading them (unlinked files stay readable on Linux).
        for l in dropped {
            let _ = std::fs::remove_file(self.dir.join(LEVELS_DIR).join(&l.name));
        }
        match &old.data_dir {
            Some(d) => {
                let _ = std::fs::remove_dir_all(self.dir.join(d));
            }
            None => {
                for (name, entry) in &old.files {
                    let _ = std::fs::remove_file(self.dir.join(entry.stored_name(name)));
                }
            }
        }
        crate::format::fsync_dir(&self.dir)?;
        debug_assert!(self.dir.join(MANIFEST_FILE).exists());
        Ok(())
    }
}

/// Rebuilds in the new base directory `base_dir` (whose manifest is `base_manifest`) the
/// layouts that the old base (`old`, of the graph at `dir`) had, and returns the new base's
/// manifest then.
fn rebuild_layouts(old: &Manifest, dir: &Path, base_dir: &Path, base_manifest: Manifest) -> Result<Manifest> {
    let mut rebuilt = false;
    if let Some(grid) = old.grid {
        // A grid is rebuilt on the new base with the old one's codec and cells per side (the
        // default shape when it had it: blocks of 2^16).
        let opts = GridOptions {
            cells_per_side: (grid.block_bits < MAX_BLOCK_BITS).then_some(grid.cells_per_side),
            codec: grid.codec,
            ..GridOptions::default()
        };
        build_grid_unlocked(base_dir, &opts, &NoProgress)?;
        rebuilt = true;
    }
    if old.has_packed_copy() {
        // And the packed copies of the lists.
        pack_copy_unlocked(base_dir, &NoProgress)?;
        rebuilt = true;
    }
    if old.file(FileRole::Hubs).is_some() {
        // And the hub index.
        index_hubs_unlocked(base_dir, &NoProgress)?;
        rebuilt = true;
    }
    if let Some(block_size) = copies_block_size(dir, old)? {
        // So are the compressed copies of the lists, with the old ones' block size.
        compress_adjacency_unlocked(base_dir, block_size, &NoProgress)?;
        rebuilt = true;
    }
    // Each build listed its files in the new base's manifest.
    if rebuilt {
        Manifest::read(base_dir)
    } else {
        Ok(base_manifest)
    }
}
