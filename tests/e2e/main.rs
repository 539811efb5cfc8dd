//! The desktop's end-to-end suites, in one test binary (one link of the app's crates instead of
//! nine): the real app under Xvfb, driven over WebDriver through the public `data-testid`s
//! (AGENTS.md), against the project's mock provider; every state saves a screenshot. Each test
//! holds `support::one_app_at_a_time` for its whole run.

#[path = "../support/mod.rs"]
mod support;

mod chat;
mod clone;
mod code_state;
mod composer;
mod desktop;
mod long_chat;
mod mcp;
mod mcp_elicitation;
mod nothing_lost;
mod package;
mod permissions;
mod renderer;
mod settings;
mod tools;
mod tree;
mod worktrees;
