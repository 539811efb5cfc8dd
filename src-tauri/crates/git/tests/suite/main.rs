//! `arbor-git`'s integration tests, on real repositories (made with `git2`, served over
//! loopback smart HTTP by `arbor-test-support` for pushes).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod worktrees;
