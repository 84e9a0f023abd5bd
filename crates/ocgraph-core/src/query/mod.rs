//! Online queries (seed 000): workloads of edge, friends-of-friends and shortest-path queries,
//! a runner that answers them with latency statistics, and graph-aware prefetchers fed through
//! a lock-free ring.
//!
//! - [`workload`]: seeded generators and the binary workload file.
//! - [`ring`]: the fixed-size lock-free ring from the query threads to the advisor.
//! - [`prefetch`]: the advisor thread and its policies (neighbourhood, sequential, omniscient).
//! - [`runner`]: answering a stream with one or N clients; the answers file.
//! - [`timing`]: the latency histogram and progress checkpoints the runner records.

pub mod prefetch;
pub mod ring;
pub mod runner;
pub mod timing;
pub mod workload;

pub use prefetch::{AdvisorStats, PrefetchMode};
pub use runner::{run_queries, write_answers, Answer, Answerer, RunOptions, RunReport};
pub use timing::Latency;
pub use workload::{QueryKind, Workload};
