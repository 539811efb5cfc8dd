//! The folder walk `grep` and `find` share: `.gitignore` honoured (inside a git repository or
//! not: a workspace that is not one yet still means its ignore files), hidden files included,
//! `.git` itself skipped, and nothing on the secret-path list entered (`grep` over the home
//! folder must not read `~/.ssh`).

use std::path::{Path, PathBuf};

use ignore::WalkBuilder;

pub fn walker(root: &Path, hidden: Vec<PathBuf>) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    builder
        .hidden(false)
        .require_git(false)
        .filter_entry(move |entry| {
            entry.file_name() != ".git" && !hidden.iter().any(|h| entry.path().starts_with(h))
        });
    builder
}
