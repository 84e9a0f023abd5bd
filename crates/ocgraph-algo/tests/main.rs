//! The integration tests of ocgraph-algo, one module per area, built as one test binary: the
//! kernels are generic, and each binary of their own compiled them anew (`cargo build --timings`).

mod common;
mod compressed;
mod grid;
mod hubs;
mod incremental;
mod kernels;
mod mining;
mod multi_block;
mod out_of_core;
mod packed_copy;
mod queries;
mod updates;
