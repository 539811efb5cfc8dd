//! arbor-store's integration tests, one binary (each linked test binary costs link time): a
//! module per area, the helpers in `common`. Child-process tests re-run this binary with their
//! full name (`module::name`).

// Helpers outside `#[test]` functions may panic: a broken fixture should fail loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

mod code;
mod concurrency;
mod crash;
mod errors;
mod first_node;
mod import;
mod import_crash;
mod migrations;
mod search;
mod tree;
