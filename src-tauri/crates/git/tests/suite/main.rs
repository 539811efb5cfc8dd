//! `arbor-git`'s integration tests, on real repositories (made with `git2`, served over
//! loopback smart HTTP by `arbor-test-support` for pushes).

mod worktrees;
