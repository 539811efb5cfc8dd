//! Working git repositories for tests, made with the `git` command (so what a test checks was
//! written by real git, not by the code under test): [`git`] runs one command, and
//! [`working_repository`] makes a repository on `main` with an author configured and its files
//! in a first commit.

use std::path::Path;
use std::process::Command;

/// Runs `git ARGS` in `dir` (default branch `main`, no signing); answers its stdout.
pub fn git(dir: &Path, args: &[&str]) -> std::io::Result<String> {
    let output = Command::new("git")
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()?;
    if !output.status.success() {
        return Err(std::io::Error::other(format!(
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        )));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// A repository at `root` on `main`, author "Ada Tester", with `files` (path, text) committed.
pub fn working_repository(root: &Path, files: &[(&str, &str)]) -> std::io::Result<()> {
    std::fs::create_dir_all(root)?;
    git(root, &["init", "-q"])?;
    git(root, &["config", "user.name", "Ada Tester"])?;
    git(root, &["config", "user.email", "ada@example.invalid"])?;
    for (path, text) in files {
        let file = root.join(path);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(file, text)?;
    }
    git(root, &["add", "."])?;
    git(root, &["commit", "-q", "-m", "first"])?;
    Ok(())
}
