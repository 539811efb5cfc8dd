//! The coding crate's integration tests, in one binary (each linked binary costs a link on a
//! 2-core machine): a module per concern; `common` (a tool over a temp workspace) and `live`
//! (a live session against the mock provider) are shared.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod live;

mod app;
mod bash;
mod clone;
mod code_snapshots;
mod code_state;
mod compaction;
mod edit;
mod export;
mod find;
mod grep;
mod js_sandbox;
mod keychain;
mod large_output;
mod ls;
mod model_tools;
mod nothing_lost;
mod prompt_and_schemas;
mod read;
mod tree;
mod view_window;
mod write;
