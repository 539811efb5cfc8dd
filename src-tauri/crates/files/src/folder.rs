//! One folder of the files panel: every entry, the ignored ones marked.

use std::collections::HashSet;
use std::path::Path;

use arbor_protocol::views::files::{FileNode, FolderListing};
use ignore::WalkBuilder;

use crate::paths::{relative, resolve_inside};
use crate::{Excluded, FilesError};

/// A folder shows at most this many entries (the rest: `truncated`).
pub const MAX_FOLDER_ENTRIES: usize = 5_000;

/// The entries of `folder` (relative to `root`, empty for the project itself): folders first,
/// then files, by name; `.git` and excluded folders left out; what the ignore files leave out
/// marked `ignored` (the ignore files of the folders above count too).
pub fn list_folder(
    root: &Path,
    folder: &str,
    excluded: &Excluded,
) -> Result<FolderListing, FilesError> {
    let resolved = resolve_inside(root, folder, excluded)?;
    if !resolved.is_dir() {
        return Err(FilesError::NotAFolder {
            path: folder.to_owned(),
        });
    }
    let root = root.canonicalize().map_err(|source| FilesError::Io {
        path: String::new(),
        source,
    })?;
    let io = |source| FilesError::Io {
        path: folder.to_owned(),
        source,
    };
    // What a walk of one level keeps is what the ignore files let through.
    let kept: HashSet<std::ffi::OsString> = WalkBuilder::new(&resolved)
        .hidden(false)
        .require_git(false)
        .max_depth(Some(1))
        .build()
        .filter_map(Result::ok)
        .filter(|entry| entry.depth() == 1)
        .map(|entry| entry.file_name().to_owned())
        .collect();
    let mut entries = Vec::new();
    let mut truncated = false;
    for entry in std::fs::read_dir(&resolved).map_err(io)? {
        let entry = entry.map_err(io)?;
        let path = entry.path();
        if excluded.contains(&path) {
            continue;
        }
        let Some(relative_path) = relative(&root, &path) else {
            continue;
        };
        if entries.len() >= MAX_FOLDER_ENTRIES {
            truncated = true;
            break;
        }
        // A link is shown as what it points to; a broken one as a file.
        let metadata = std::fs::metadata(&path).or_else(|_| entry.metadata());
        let (is_dir, size) = match metadata {
            Ok(metadata) => (
                metadata.is_dir(),
                if metadata.is_dir() { 0 } else { metadata.len() },
            ),
            Err(_) => (false, 0),
        };
        let name = entry.file_name();
        entries.push(FileNode {
            ignored: !kept.contains(&name),
            name: name.to_string_lossy().into_owned(),
            path: relative_path,
            is_dir,
            size,
        });
    }
    entries.sort_by(|a, b| {
        b.is_dir
            .cmp(&a.is_dir)
            .then_with(|| a.name.to_lowercase().cmp(&b.name.to_lowercase()))
            .then_with(|| a.name.cmp(&b.name))
    });
    Ok(FolderListing {
        path: relative(&root, &resolved).unwrap_or_default(),
        entries,
        truncated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignored_entries_are_marked_and_git_is_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for file in [
            "src/main.rs",
            "target/out",
            ".git/HEAD",
            "Zeta.md",
            "alpha.md",
            "src/gen/x.rs",
        ] {
            std::fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
            std::fs::write(root.join(file), "x").unwrap();
        }
        std::fs::write(root.join(".gitignore"), "target/\ngen/\n").unwrap();
        let top = list_folder(root, "", &Excluded::default()).unwrap();
        let shown: Vec<(&str, bool, bool)> = top
            .entries
            .iter()
            .map(|e| (e.name.as_str(), e.is_dir, e.ignored))
            .collect();
        assert_eq!(
            shown,
            [
                ("src", true, false),
                ("target", true, true),
                (".gitignore", false, false),
                ("alpha.md", false, false),
                ("Zeta.md", false, false),
            ]
        );
        // The project's .gitignore counts in a folder below it.
        let src = list_folder(root, "src", &Excluded::default()).unwrap();
        assert_eq!(src.path, "src");
        let gen = src.entries.iter().find(|e| e.name == "gen").unwrap();
        assert!(gen.ignored);
        assert_eq!(gen.path, "src/gen");
    }

    #[test]
    fn paths_out_of_the_project_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("p")).unwrap();
        let root = dir.path().join("p");
        for bad in ["..", "../", "/etc", "a/../../x"] {
            let error = list_folder(&root, bad, &Excluded::default()).unwrap_err();
            assert!(
                matches!(error, FilesError::Outside { .. }),
                "{bad}: {error}"
            );
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path(), root.join("up")).unwrap();
            let error = list_folder(&root, "up", &Excluded::default()).unwrap_err();
            assert!(matches!(error, FilesError::Outside { .. }), "{error}");
        }
        let error = list_folder(&root, ".git", &Excluded::default()).unwrap_err();
        assert!(
            matches!(
                error,
                FilesError::NotFound { .. } | FilesError::ArborOwned { .. }
            ),
            "{error}"
        );
    }
}
