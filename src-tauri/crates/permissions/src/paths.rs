//! Paths as checks see them: absolute, with the links of their existing part followed
//! (realpath) and `..` taken out, so neither a symbolic link nor `a/../..` leads out of a
//! folder a check let it into. Also the secret-path list and the paths protected inside a
//! project.

use std::path::{Component, Path, PathBuf};

/// Hidden from commands and refused to the file tools unless the user edits the list.
pub const DEFAULT_SECRET_PATHS: &[&str] = &[
    "~/.ssh",
    "~/.gnupg",
    "~/.aws",
    "~/.azure",
    "~/.config/gcloud",
    "~/.config/gh",
    "~/.netrc",
    "~/.docker/config.json",
    "~/.kube",
    "~/.local/share/keyrings",
    "~/.git-credentials",
    "~/.config/git/credentials",
    "~/.npmrc",
    "~/.pypirc",
    "~/.cargo/credentials.toml",
];

/// Inside a project, paths whose content runs code later (git hooks, git configuration) or is
/// Arbor's own project data: never written without the user's yes (except in `full`).
pub const PROTECTED_IN_PROJECT: &[&str] = &[".git/hooks", ".git/config", ".arbor"];

/// `raw` as the model gave it (relative to `cwd`, `~` for home, absolute), made absolute and
/// resolved: the existing part canonicalized, the rest normalised without touching the disk.
pub fn resolve(cwd: &Path, raw: &str) -> PathBuf {
    let raw = raw.strip_prefix('@').unwrap_or(raw);
    let joined = expand_home(raw).unwrap_or_else(|| cwd.join(raw));
    resolve_existing(&joined)
}

/// `~` and `~/x` to the home folder; `None` for anything else.
pub fn expand_home(raw: &str) -> Option<PathBuf> {
    let home = dirs::home_dir()?;
    if raw == "~" {
        return Some(home);
    }
    raw.strip_prefix("~/").map(|rest| home.join(rest))
}

/// The deepest existing ancestor canonicalized, then the rest with `.` and `..` applied
/// lexically (nothing below it exists, so no link can change where `..` leads).
pub fn resolve_existing(path: &Path) -> PathBuf {
    let absolute = normalise(&std::path::absolute(path).unwrap_or_else(|_| path.to_owned()));
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            let mut result = real;
            for part in rest.iter().rev() {
                result.push(part);
            }
            return result;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                existing = parent;
            }
            _ => return absolute,
        }
    }
}

/// `.` and `..` applied lexically.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// A secret-path entry (`~/.ssh`, `/etc/secret`) made absolute and resolved.
pub fn secret_path(entry: &str) -> Option<PathBuf> {
    let entry = entry.trim();
    if entry.is_empty() {
        return None;
    }
    let path = expand_home(entry).unwrap_or_else(|| PathBuf::from(entry));
    path.is_absolute().then(|| resolve_existing(&path))
}

/// Whether `path` is `folder` or inside it.
pub fn within(path: &Path, folder: &Path) -> bool {
    path.starts_with(folder)
}

/// Whether `path` (resolved) is one of `root`'s protected paths: `.git/hooks/…`, `.git/config`,
/// `.arbor/…`, and the hooks and config of submodules (`.git/modules/…/hooks`, `…/config`).
pub fn is_protected(root: &Path, path: &Path) -> bool {
    let Ok(relative) = path.strip_prefix(root) else {
        return false;
    };
    let parts: Vec<&str> = relative
        .components()
        .filter_map(|c| c.as_os_str().to_str())
        .collect();
    match parts.as_slice() {
        [".arbor", ..] => true,
        // A worktree's `.git` is a file naming its git folder: rewritten, it could point git
        // at a folder whose config runs commands.
        [".git"] => true,
        [".git", rest @ ..] => git_dir_protected(rest),
        _ => false,
    }
}

/// Inside a git folder: `hooks/…`, `config`, or the same under `modules/<name>/…` (nested).
fn git_dir_protected(parts: &[&str]) -> bool {
    match parts {
        ["hooks", ..] | ["config"] => true,
        ["modules", rest @ ..] => {
            // `modules/<name…>/hooks` or `/config`: the submodule's name may hold slashes.
            (1..rest.len()).any(|split| git_dir_protected(&rest[split..]))
        }
        _ => false,
    }
}

/// The protected paths that exist under `root` now (for the sandbox to make read-only):
/// `.git/hooks`, `.git/config`, `.arbor`, those of every submodule in `.git/modules`, and a
/// worktree's `.git` file.
pub fn protected_paths(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for relative in PROTECTED_IN_PROJECT {
        let path = root.join(relative);
        if path.exists() {
            found.push(path);
        }
    }
    let git = root.join(".git");
    if git.is_file() {
        found.push(git);
    }
    collect_module_paths(&root.join(".git/modules"), 0, &mut found);
    found
}

fn collect_module_paths(dir: &Path, depth: usize, found: &mut Vec<PathBuf>) {
    if depth > 8 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if !entry.file_type().map(|t| t.is_dir()).unwrap_or(false) {
            continue;
        }
        let mut is_git_dir = false;
        for name in ["hooks", "config"] {
            let candidate = path.join(name);
            if candidate.exists() {
                found.push(candidate);
                is_git_dir = true;
            }
        }
        if is_git_dir {
            collect_module_paths(&path.join("modules"), depth + 1, found);
        } else {
            collect_module_paths(&path, depth + 1, found);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_and_dot_dots_are_resolved_before_any_check() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("project")).unwrap();
        std::os::unix::fs::symlink("/etc", root.join("project/out")).unwrap();
        let project = root.join("project");
        assert_eq!(
            resolve(&project, "out/passwd"),
            PathBuf::from("/etc/passwd")
        );
        assert_eq!(resolve(&project, "new/../../x"), root.join("x"));
        assert_eq!(resolve(&project, "a/./b"), project.join("a/b"));
        assert_eq!(resolve(&project, "/tmp/../etc"), PathBuf::from("/etc"));
        assert_eq!(resolve(&project, "@src/a.rs"), project.join("src/a.rs"));
    }

    #[test]
    fn protected_paths_cover_hooks_config_arbor_and_submodules() {
        let root = Path::new("/p");
        for yes in [
            "/p/.git/hooks",
            "/p/.git/hooks/pre-commit",
            "/p/.git/config",
            "/p/.arbor/x",
            "/p/.git/modules/lib/hooks/post-checkout",
            "/p/.git/modules/a/b/config",
            "/p/.git",
        ] {
            assert!(is_protected(root, Path::new(yes)), "{yes}");
        }
        for no in [
            "/p/.git/index",
            "/p/.git/HEAD",
            "/p/.git/refs/heads/main",
            "/p/src/.git/config.rs",
            "/p/config",
            "/q/.git/hooks",
        ] {
            assert!(!is_protected(root, Path::new(no)), "{no}");
        }
    }

    #[test]
    fn a_worktrees_git_file_is_kept_read_only() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(".git"),
            "gitdir: /elsewhere/.git/worktrees/x\n",
        )
        .unwrap();
        assert!(protected_paths(dir.path()).contains(&dir.path().join(".git")));
    }
}
