//! Python bindings (TODO).
