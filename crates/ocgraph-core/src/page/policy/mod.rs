//! Replacement policies for the buffer pool (TODO(page-layer helper)).
