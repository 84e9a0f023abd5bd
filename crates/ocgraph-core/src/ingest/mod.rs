//! Edge-list parsers and the budgeted CSR builder (TODO(ingest helper)).
