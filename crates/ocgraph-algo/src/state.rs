//! The per-vertex state a kernel keeps in RAM (docs/guide.md, "Memory"), asked for before it
//! is allocated: on billions of vertices it can exceed what the machine has, and a refused
//! allocation would abort the process.

use ocgraph_core::memory::ensure_available;
use ocgraph_core::Result;

/// Fails with `Error::OutOfMemory` when `kernel`'s state of about `bytes_per_vertex` for each
/// of `n` vertices cannot be allocated now.
pub(crate) fn check_state(kernel: &str, n: usize, bytes_per_vertex: u64) -> Result<()> {
    ensure_available((n as u64).saturating_mul(bytes_per_vertex), || {
        format!("{kernel}'s per-vertex state on {n} vertices")
    })
}
