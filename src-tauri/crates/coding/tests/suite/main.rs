//! The coding crate's integration tests, in one binary (each linked binary costs a link on a
//! 2-core machine): a module per concern; `common` (a tool over a temp workspace) is shared; the session
//! API's tests (a live session against the mock provider) are `arbor-app`'s.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

mod bash;
mod clone;
mod code_snapshots;
mod compaction;
mod edit;
mod export;
mod find;
mod grep;
mod large_output;
mod ls;
mod nothing_lost;
mod permissions;
mod prompt_and_schemas;
mod read;
mod snapshot_ahead;
mod snapshot_cache;
mod user_turn;
mod write;
