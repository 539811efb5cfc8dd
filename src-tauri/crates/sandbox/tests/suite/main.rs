//! Attacks on the sandbox, run for real against each Linux backend (bubblewrap and the
//! reduced Landlock one), as root and — since root hides permission mistakes — as an
//! unprivileged user. Every check looks at the host afterwards (the file outside is
//! unchanged, the listener saw no connection), not only at the command's exit code.

#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(target_os = "linux")]

mod attacks;
mod harness;
