//! Each wire format against the running mock over loopback: the streamed events parse as that
//! format, reassemble to what the script said, and have the shape of the real recordings.

// Helper fns outside #[test] fns panic on purpose; clippy.toml's allow-*-in-tests does not reach them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../common/mod.rs"]
mod common;

mod anthropic;
mod google;
mod openai_completions;
mod openai_responses;
