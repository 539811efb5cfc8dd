//! Paths as the model gives them: relative to the working directory, `~` expanded, absolute
//! allowed (no sandbox: DESIGN §6 leaves that to approvals).

use std::path::{Path, PathBuf};

/// Resolves `path` against `cwd`.
pub(crate) fn resolve(cwd: &Path, path: &str) -> PathBuf {
    // Models sometimes copy the `@file` mention syntax; the `@` is never part of the path.
    let path = path.strip_prefix('@').unwrap_or(path);
    if path == "~" {
        if let Some(home) = home_dir() {
            return home;
        }
    }
    if let Some(rest) = path.strip_prefix("~/") {
        if let Some(home) = home_dir() {
            return home.join(rest);
        }
    }
    cwd.join(path)
}

/// How to name `path` in messages: relative to `cwd` when inside it, absolute otherwise.
pub(crate) fn display(cwd: &Path, path: &Path) -> String {
    match path.strip_prefix(cwd) {
        Ok(relative) if relative.as_os_str().is_empty() => ".".to_string(),
        Ok(relative) => relative.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}

fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from)
}

/// For a path that does not exist: a sibling with a similar name, if one is close enough to be
/// what was meant (a typo, another case, another extension).
pub(crate) fn close_match(path: &Path) -> Option<PathBuf> {
    let parent = path.parent()?;
    let wanted = path.file_name()?.to_string_lossy().to_string();
    let wanted_lower = wanted.to_lowercase();
    let wanted_stem = stem(&wanted_lower);
    let mut best: Option<(usize, String)> = None;
    for entry in std::fs::read_dir(parent).ok()?.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        let lower = name.to_lowercase();
        let score = if lower == wanted_lower {
            0
        } else if stem(&lower) == wanted_stem {
            1
        } else {
            let distance = edit_distance(&lower, &wanted_lower);
            let allowed = (wanted_lower.chars().count() / 3).clamp(1, 3);
            if distance > allowed {
                continue;
            }
            1 + distance
        };
        let better = match &best {
            Some((best_score, best_name)) => (score, &name) < (*best_score, best_name),
            None => true,
        };
        if better {
            best = Some((score, name));
        }
    }
    best.map(|(_, name)| parent.join(name))
}

fn stem(name: &str) -> &str {
    match name.rfind('.') {
        Some(0) | None => name,
        Some(dot) => &name[..dot],
    }
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        current[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_relative_home_and_absolute_paths() {
        let cwd = Path::new("/work/project");
        assert_eq!(resolve(cwd, "src/a.rs"), cwd.join("src/a.rs"));
        assert_eq!(resolve(cwd, "/etc/hosts"), PathBuf::from("/etc/hosts"));
        assert_eq!(resolve(cwd, "@src/a.rs"), cwd.join("src/a.rs"));
        if let Some(home) = home_dir() {
            assert_eq!(resolve(cwd, "~/x"), home.join("x"));
        }
        assert_eq!(display(cwd, &cwd.join("src/a.rs")), "src/a.rs");
        assert_eq!(display(cwd, Path::new("/etc/hosts")), "/etc/hosts");
    }

    #[test]
    fn edit_distance_counts_single_character_edits() {
        assert_eq!(edit_distance("main.rs", "mian.rs"), 2);
        assert_eq!(edit_distance("main.rs", "main.rs"), 0);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}
