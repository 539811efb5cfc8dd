//! The session API's integration tests, in one binary (each linked binary costs a link on a
//! 2-core machine): a module per concern; `live` (a live session against the mock provider)
//! is shared.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod live;

mod app;
#[cfg(target_os = "linux")]
mod closing;
mod code_state;
mod composer;
mod documents;
mod js_sandbox;
mod keychain;
mod mcp;
mod mcp_elicitation;
mod model_tools;
mod tree;
mod view_window;
mod worktrees;
