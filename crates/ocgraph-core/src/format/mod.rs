//! Graph format v1: a directory with a checksummed manifest and page-aligned little-endian
//! files. The byte-by-byte layout is in `docs/design.md`.

mod check;
pub mod compressed;
pub mod grid;
pub mod hubs;
mod layout;
mod manifest;
mod output_file;
pub mod packed;
mod place;
mod weight_range;
mod writer;

pub use check::check_graph;
pub use check::CHECKED_ON_OPEN;
pub(crate) use check::{checksum_mismatch, verify_small_files, with_way_out, with_way_out_of_file};
pub use layout::{pad_len, FileRole, ALIGN};
pub(crate) use manifest::while_manifest_changes;
pub use manifest::{
    generation_name, FileEntry, IdMapKind, LabelLogEntry, LevelEntry, Manifest, UpdateState, FORMAT_VERSION,
    MANIFEST_FILE, MANIFEST_MAGIC,
};
pub use output_file::{names_standard_output, OutputFile};
pub use place::{
    one_file, refuse_input_inside_replaced, refuse_inside_graph, refuse_missing_directory,
    refuse_one_file_twice, refuse_output_place, CommandFile,
};
pub use weight_range::WeightRange;
pub(crate) use writer::{absolute, fsync_dir};
pub use writer::{remove_stale_temp_dirs, FileWriter, GraphWriter, StaleTempDir};
