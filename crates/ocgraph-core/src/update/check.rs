//! [`check_updates`]: the verification of a graph's updates (levels and write-ahead log) that
//! `ocgraph check` and Python's `ocgraph.check` run after the base's ([`crate::format::check_graph`]).

use std::path::Path;

use super::{Durability, RecoveryReport, WritableGraph, WriteOptions};
use crate::error::Result;
use crate::format::Manifest;

/// What [`check_updates`] verified.
#[derive(Debug, Clone)]
pub struct UpdatesCheck {
    /// Levels of the graph.
    pub levels: usize,
    /// The last batch the log replays up to.
    pub seq: u64,
    /// The replay, with the torn tail that ends it, if any ([`UpdatesCheck::torn_tail`]).
    pub recovery: RecoveryReport,
}

impl UpdatesCheck {
    /// A line saying where the log ends in a batch that is not replayed, if it does. Not an
    /// error: a writer stopped mid-append leaves such a tail, which its next open for updates
    /// drops. But a whole frame with a bad checksum may also be a damaged acknowledged batch,
    /// so the line says so.
    pub fn torn_tail(&self) -> Option<String> {
        let rec = &self.recovery;
        let (file, (offset, why)) = rec.dropped_file.as_ref().zip(rec.dropped_at.as_ref())?;
        let cause = if rec.dropped_unsynced {
            "a crash under durability none kept the batch but not its names"
        } else {
            "a batch being written when its writer stopped, or a damaged last batch"
        };
        Some(format!(
            "{} ends at offset {offset} in a batch that is not replayed ({why}): {cause}; the next \
             open for updates drops it",
            file.display()
        ))
    }
}

/// Verifies the updates of the graph at `dir`, when it ever took any (`None` otherwise): opens
/// it for reading as every open does, which reads every level whole (checksums) and replays the
/// log (frame checksums, sequence order, vertex ranges), changing nothing a writer may use. A
/// graph whose batches a compaction folded into its base, with none since, has no level and
/// its log ends at the batch the base holds (its next batch follows that one).
pub fn check_updates(dir: &Path) -> Result<Option<UpdatesCheck>> {
    if !crate::has_updates(dir)? {
        let folded = Manifest::read(dir)?.updates.map(|u| u.checkpoint_seq);
        return Ok(folded.map(|seq| UpdatesCheck { levels: 0, seq, recovery: RecoveryReport::default() }));
    }
    let opts = WriteOptions { durability: Durability::None, auto_compact_levels: None, ..Default::default() };
    let g = WritableGraph::open_for_reading(dir, &opts)?;
    let snap = g.snapshot();
    let recovery = g.recovery().clone();
    g.close()?;
    Ok(Some(UpdatesCheck { levels: snap.num_levels(), seq: snap.seq(), recovery }))
}
