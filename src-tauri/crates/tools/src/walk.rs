//! The folder walk `grep` and `find` share: `.gitignore` honoured (inside a git repository or
//! not: a workspace that is not one yet still means its ignore files), hidden files included,
//! `.git` itself skipped.

use std::path::Path;

use ignore::WalkBuilder;

pub fn walker(root: &Path) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    builder
        .hidden(false)
        .require_git(false)
        .filter_entry(|entry| entry.file_name() != ".git");
    builder
}
