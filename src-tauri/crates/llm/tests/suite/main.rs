//! arbor-llm's integration tests, one binary (each linked test binary costs link time): the
//! client against the mock provider and a scripted server, every recorded provider fixture, and
//! the "Nothing lost" streams; `expectations` maps EXPECTED.json onto Arbor's model.

// Helpers outside `#[test]` functions may panic: a broken fixture or test server should fail
// loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod expectations;

mod against_mock;
mod client;
mod fixtures;
mod nothing_lost;
