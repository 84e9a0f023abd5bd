//! `ocgraph labels`: set, show or remove the vertex labels stored with a graph (the labels that
//! labelled patterns match, see `ocgraph mine pattern`).

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use ocgraph_core::format::OutputFile;
use ocgraph_core::ids::OriginalId;
use ocgraph_core::ingest::{remove_labels, set_labels_from_file};
use ocgraph_core::labels::NO_LABEL;
use ocgraph_core::{Error, GraphView, OpenOptions, Result};

/// Arguments of `ocgraph labels`.
#[derive(Args)]
pub struct LabelsArgs {
    #[command(subcommand)]
    what: LabelsCommand,
}

/// What `ocgraph labels` does.
#[derive(Subcommand)]
enum LabelsCommand {
    /// Store labels read from FILE (`vertex label` lines, ids as in the edge list the graph
    /// was imported from), replacing any the graph had; vertices FILE does not name have
    /// none. The graph must have no unmerged updates (on a graph with updates, labels change
    /// by update batches: `ocgraph update --set-labels`, `L` lines of `ocgraph stream`).
    Set {
        /// Graph directory.
        graph: PathBuf,
        /// Label file.
        file: PathBuf,
    },
    /// Print the labelled vertices as `vertex label` lines (original ids), label updates
    /// included.
    Show {
        /// Graph directory.
        graph: PathBuf,
    },
    /// Remove the labels of a graph (which must have no unmerged updates).
    Remove {
        /// Graph directory.
        graph: PathBuf,
    },
}

/// Runs `ocgraph labels`.
pub fn run(args: &LabelsArgs) -> Result<()> {
    match &args.what {
        LabelsCommand::Set { graph, file } => {
            let labels = set_labels_from_file(graph, file)?;
            let named = labels.iter().filter(|&&l| l != NO_LABEL).count();
            eprintln!("{}: {named} of {} vertices labelled", graph.display(), labels.len());
            Ok(())
        }
        LabelsCommand::Show { graph } => {
            // With updates: the labels as of the latest batch (label updates included).
            // A graph without labels lists no line, as one whose labels were all removed.
            let g = GraphView::open(graph, &OpenOptions::default())?;
            let Some(labels) = g.labels()? else {
                eprintln!("{}: no vertex has a label", graph.display());
                return Ok(());
            };
            let ids = g.ids()?;
            // Through the standard output's `OutputFile`, which refuses one closed at start.
            let mut out = OutputFile::create(Path::new("-"))?;
            for (v, &l) in labels.iter().enumerate().filter(|&(_, &l)| l != NO_LABEL) {
                let id = ids.original(v as u32);
                // A line `labels set` would not read back as this vertex's is refused.
                if let OriginalId::Str(s) = &id {
                    if !super::export::reads_back_from_text(s, true) {
                        return Err(Error::invalid(format!(
                            "labels show: the original id {s:?} of vertex {v} would not read back from a \
                             label file (empty, white space, a comma or a NUL byte, or a comment mark \
                             first); read them with Python's `vertex_labels()` and `original_ids`"
                        )));
                    }
                }
                out.write_bytes(format!("{id} {l}\n").as_bytes())?;
            }
            out.commit()
        }
        LabelsCommand::Remove { graph } => {
            let removed = remove_labels(graph)?;
            eprintln!(
                "{}: {}",
                graph.display(),
                if removed { "labels removed" } else { "no labels to remove" }
            );
            Ok(())
        }
    }
}
