//! ocgraph-algo: analytics kernels generic over [`ocgraph_core::Adjacency`].
