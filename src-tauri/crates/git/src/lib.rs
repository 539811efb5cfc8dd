//! `arbor-git` — everything Arbor does with git, through `git2` (never the user's `.git`,
//! index, refs or stash):
//!
//! - [`snapshots`]: code state for the conversation tree — snapshots of a workspace in a
//!   private shadow repository, the changes between two, restores with a preview and an undo
//!   point, and what is never recorded (Arbor's own data, its temporary files).
//! - [`clone`]: cloning a repository into a workspace, with progress, cancel, a token only for
//!   its host, and nothing half-made.
//! - [`worktrees`]: a session's own checkout on its own branch `arbor/<name>` (create, status,
//!   archive and restore the folder, `.worktreeinclude`), the review of what it changed,
//!   discarding a file or hunk, commit, merge into its base and push.
//! - `http`: git's smart HTTP(S) for clones and pushes, over `reqwest` (libgit2 is built
//!   without OpenSSL, so a local snapshot initialises no TLS), tokens only where allowed.
//!
//! Knows nothing of sessions, tools or the store; `arbor-coding` re-exports both modules under
//! their old paths.

pub mod clone;
mod http;
pub mod snapshots;
pub mod worktrees;
