//! The agent loop against the mock provider over real HTTP, in several wire formats.
//! Only the LLM is mocked; the tools are small fakes defined in `common`.

// Helpers outside `#[test]` functions may panic: a broken fixture should fail loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod messages;
mod queues_abort;
mod request_hook;
mod tools;
