//! arbor-cli's integration tests, one binary (each linked test binary costs link time): the real
//! `arbor` binary (`env!("CARGO_BIN_EXE_arbor")`, run by `support`) in every mode against the
//! mock provider, a module per area; the "Nothing lost" trials in `nothing_lost`.

// Helpers outside #[test] functions panic on broken fixtures, like the tests that call them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

mod agent_runs;
mod auth;
mod cli_surface;
mod clone;
mod code_state;
mod compaction;
mod interactive;
mod mcp;
mod mcp_serve;
mod nothing_lost;
mod permissions;
mod print_mode;
mod secrets_stay_secret;
mod sessions;
mod tools;
mod transfer;
mod worktrees;
