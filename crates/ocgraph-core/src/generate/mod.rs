//! Deterministic graph generators (TODO(ingest helper)).
