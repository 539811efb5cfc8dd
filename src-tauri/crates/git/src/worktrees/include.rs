//! `.worktreeinclude`: files a new worktree needs that git does not carry — `.env`, local
//! settings — named in `.gitignore` syntax in the main checkout's `.worktreeinclude`, copied
//! from the main checkout into the worktree.
//!
//! Only regular files are copied (a link is never followed, so a line cannot pull a file from
//! outside the project in), never over a file the worktree already has, and never from `.git`.
//! A folder that git ignores is not walked into unless a line names it, so `node_modules` is
//! not read to find a `.env`.

use std::path::{Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;

use super::WorktreeError;

/// The file that lists what a new worktree gets copied.
pub const INCLUDE_FILE: &str = ".worktreeinclude";

/// Copies the files `.worktreeinclude` names from `main_root` into `worktree`; answers their
/// paths relative to the root. No `.worktreeinclude`: nothing is copied.
pub fn copy_included(main_root: &Path, worktree: &Path) -> Result<Vec<String>, WorktreeError> {
    let list = main_root.join(INCLUDE_FILE);
    if !list.is_file() {
        return Ok(Vec::new());
    }
    let mut builder = GitignoreBuilder::new(main_root);
    if let Some(error) = builder.add(&list) {
        return Err(WorktreeError::Io {
            path: list,
            source: std::io::Error::other(error.to_string()),
        });
    }
    let include = builder.build().map_err(|error| WorktreeError::Io {
        path: list.clone(),
        source: std::io::Error::other(error.to_string()),
    })?;
    let (gitignore, _) = Gitignore::new(main_root.join(".gitignore"));
    let worktree_root =
        std::fs::canonicalize(worktree).map_err(|e| WorktreeError::io(worktree, e))?;
    let mut copied = Vec::new();
    let mut stack: Vec<PathBuf> = vec![main_root.to_owned()];
    while let Some(folder) = stack.pop() {
        let entries = std::fs::read_dir(&folder).map_err(|e| WorktreeError::io(&folder, e))?;
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let Ok(relative) = path.strip_prefix(main_root) else {
                continue;
            };
            if relative.starts_with(".git") {
                continue;
            }
            let is_dir = kind.is_dir();
            let included = matches!(
                include.matched_path_or_any_parents(relative, is_dir),
                Match::Ignore(_)
            );
            if is_dir {
                let ignored = matches!(
                    gitignore.matched_path_or_any_parents(relative, true),
                    Match::Ignore(_)
                );
                if !ignored || included {
                    stack.push(path);
                }
                continue;
            }
            if !kind.is_file() || !included {
                continue;
            }
            let target = worktree.join(relative);
            if target.symlink_metadata().is_ok() {
                continue;
            }
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).map_err(|e| WorktreeError::io(parent, e))?;
                // A folder the worktree's branch has as a link must not carry a copy outside.
                let inside = std::fs::canonicalize(parent)
                    .is_ok_and(|real| real.starts_with(&worktree_root));
                if !inside {
                    continue;
                }
            }
            std::fs::copy(&path, &target).map_err(|e| WorktreeError::io(&target, e))?;
            copied.push(relative.to_string_lossy().into_owned());
        }
    }
    copied.sort();
    Ok(copied)
}
