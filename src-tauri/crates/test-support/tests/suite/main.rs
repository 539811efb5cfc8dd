//! arbor-test-support's integration tests, one binary (each linked test binary costs link time):
//! the `arbor-mock-provider` binary, server behaviour independent of the wire format, and each
//! wire format (`formats`); the loopback HTTP and SSE helpers in `common`.

// Helper fns outside #[test] fns panic on purpose; clippy.toml's allow-*-in-tests does not reach them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

mod binary;
mod formats;
mod server;
