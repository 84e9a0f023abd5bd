//! ocgraph-algo: analytics kernels generic over [`ocgraph_core::Adjacency`].
//!
//! Every kernel reads neighbour lists only through the `Adjacency` trait, so it runs unchanged on
//! an mmap-backed graph, the buffer pool, or an in-memory adjacency. Kernels that need in-edges
//! take a second adjacency for the in-direction (for an undirected graph pass the same one
//! twice). Each kernel has a serial `verify_*` function that checks its result's invariants.
//!
//! Threads: parallel kernels run on the caller's current rayon pool. To choose the thread count,
//! run them inside `rayon::ThreadPoolBuilder::new().num_threads(t).build()?.install(|| ...)`.
//! Through a buffer pool, use at most [`ocgraph_core::Graph::reading_threads`] threads (one per
//! two frames): readers that each hold a frame while waiting for another stall, and the read
//! fails after 10 s. A failed page read panics naming the file and offset; run the kernel inside
//! [`ocgraph_core::page::catch_read_errors`] to get it as an error (the CLI and Python do both).

mod bitmap;
mod chunks;
mod stash;
mod state;
mod weights;

pub mod bfs;
pub mod diameter;
pub mod grid;
pub mod harness;
pub mod incremental;
pub mod khop;
pub mod mine;
pub mod pagerank;
pub mod queries;
pub mod shortest_path;
pub mod spmv;
pub mod sssp;
pub mod triangles;
pub mod wcc;

pub use bfs::{bfs, bfs_with_hubs, bfs_with_stash, verify_bfs, BfsResult, STASH_BYTES_PER_VERTEX};
pub use diameter::{diameter_estimate, verify_diameter_estimate, DiameterEstimate};
pub use grid::{pagerank_grid, spmv_grid, wcc_grid};
pub use harness::{run_trials, KernelReport};
pub use khop::{friends_of_friends, k_hop, verify_friends_of_friends, verify_k_hop};
pub use mine::{count_cliques, list_cliques, motif_census, triad_census, Pattern, Watch};
pub use pagerank::{pagerank, verify_pagerank, Method as PageRankMethod, PageRankOptions, PageRankResult};
pub use shortest_path::{shortest_path, verify_shortest_path};
pub use spmv::{spmv, verify_spmv};
pub use sssp::{default_delta, dijkstra, sssp, verify_sssp};
pub use triangles::{triangle_count, verify_triangle_count};
pub use wcc::{count_components_serial, verify_wcc, wcc, wcc_with_hubs};
