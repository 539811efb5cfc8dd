//! What a snapshot never holds, whatever the ignore files say: Arbor's own paths (the data
//! folder with `arbor.db`, its WAL and the shadow repositories) when they lie inside the
//! workspace, and the temporary files Arbor's atomic writes leave behind when killed.
//!
//! Running `arbor` in `$HOME` with the default data folder puts the data folder inside the
//! project: a snapshot that recorded it, restored later, deleted the shadow repository's own
//! objects and reset `arbor.db`. So these paths are left out of scans *and* filtered out of
//! every snapshot read back (older snapshots may still hold them): a restore, a preview or a
//! diff never sees them.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Suffix of the temporary file of an atomic write in the project (`tools/atomic.rs`).
pub const TEMP_SUFFIX: &str = ".arbor-tmp";

/// Prefixes of Arbor's other temporary files in a project: a restore's file being written,
/// a tool folder being staged.
const TEMP_PREFIXES: &[&str] = &[".arbor-restore-", ".arbor-tool-"];

/// A temporary file older than this is stale: no atomic write takes that long, so its writer
/// was killed.
const STALE_AFTER: Duration = Duration::from_secs(10 * 60);

/// Whether a file name is one of Arbor's temporary files.
pub fn is_temporary(name: &str) -> bool {
    name.ends_with(TEMP_SUFFIX) || TEMP_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// The workspace-relative folders a snapshot leaves out (`/`-separated, no trailing slash).
#[derive(Debug, Clone, Default)]
pub(super) struct Exclusions {
    prefixes: Vec<String>,
}

impl Exclusions {
    /// The `protected` paths that lie inside `workspace` (canonical), as relative prefixes.
    /// A protected path that does not exist yet is compared as given (made absolute).
    pub fn new(workspace: &Path, protected: &[PathBuf]) -> Self {
        let prefixes = protected
            .iter()
            .filter_map(|path| {
                let path = path
                    .canonicalize()
                    .or_else(|_| std::path::absolute(path))
                    .ok()?;
                if workspace.starts_with(&path) {
                    // The workspace lies inside Arbor's own folder: nothing of it is recorded.
                    return Some(String::new());
                }
                let relative = path.strip_prefix(workspace).ok()?;
                let parts: Option<Vec<&str>> = relative
                    .components()
                    .map(|c| c.as_os_str().to_str())
                    .collect();
                Some(parts?.join("/"))
            })
            .collect();
        Self { prefixes }
    }

    /// Whether everything `other` leaves out of the workspace, this leaves out too (Arbor's
    /// temporary files are left out by both). Protected paths outside the workspace do not
    /// count: a file that came or went in a data folder elsewhere changes no walk.
    pub fn covers(&self, other: &Exclusions) -> bool {
        other.prefixes.iter().all(|path| self.leaves_out(path))
    }

    /// Whether a workspace-relative path (`/`-separated) is left out of snapshots: inside a
    /// protected folder (the whole workspace when one is the workspace itself or above it), or
    /// one of Arbor's temporary files.
    pub fn excludes(&self, path: &str) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        is_temporary(name) || self.leaves_out(path)
    }

    /// Whether `path` is a protected folder, lies inside one, or the whole workspace is left out.
    fn leaves_out(&self, path: &str) -> bool {
        self.prefixes.iter().any(|prefix| {
            prefix.is_empty()
                || path == prefix
                || (path.starts_with(prefix.as_str())
                    && path.as_bytes().get(prefix.len()) == Some(&b'/'))
        })
    }
}

/// Removes the temporary files in `found` that are stale (older than a running write could
/// be); a file that vanished meanwhile is fine. Returns how many were removed.
pub(super) fn remove_stale(found: &[PathBuf]) -> usize {
    let now = SystemTime::now();
    found
        .iter()
        .filter(|path| {
            std::fs::symlink_metadata(path)
                .and_then(|meta| meta.modified())
                .ok()
                .and_then(|modified| now.duration_since(modified).ok())
                .is_some_and(|age| age >= STALE_AFTER)
        })
        .filter(|path| std::fs::remove_file(path).is_ok())
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protected_folders_inside_the_workspace_and_temporary_files_are_excluded() {
        let dir = tempfile::tempdir().unwrap();
        let workspace = dir.path().canonicalize().unwrap();
        let data = workspace.join(".local/share/arbor");
        std::fs::create_dir_all(&data).unwrap();
        let outside = tempfile::tempdir().unwrap();
        let exclusions = Exclusions::new(
            &workspace,
            &[
                data.clone(),
                outside.path().to_owned(),
                workspace.join("not-yet"),
            ],
        );
        assert!(exclusions.excludes(".local/share/arbor"));
        assert!(exclusions.excludes(".local/share/arbor/arbor.db"));
        assert!(exclusions.excludes(".local/share/arbor/snapshots/x.git/objects/ab/cd"));
        assert!(exclusions.excludes("not-yet/file"));
        assert!(!exclusions.excludes(".local/share/arbor2/file"));
        assert!(!exclusions.excludes(".local/share/notes.txt"));
        assert!(exclusions.excludes("src/.main.rs.Ab12Cd.arbor-tmp"));
        assert!(exclusions.excludes(".arbor-restore-x1y2"));
        assert!(!exclusions.excludes("src/main.rs"));
        // The data folder *is* the workspace (or above it): nothing is recorded.
        let all = Exclusions::new(&workspace, &[dir.path().parent().unwrap().to_owned()]);
        assert!(all.excludes("src/main.rs"));
    }

    #[test]
    fn exclusions_cover_each_other_by_what_they_leave_out_of_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let workspace = dir.path().canonicalize().unwrap();
        let data = workspace.join("data");
        let outside = tempfile::tempdir().unwrap();
        let probe = outside.path().join(".arbor-write-probe-1");
        let data_only = Exclusions::new(&workspace, std::slice::from_ref(&data));
        let with_outside = Exclusions::new(&workspace, &[data.clone(), probe]);
        assert!(data_only.covers(&with_outside) && with_outside.covers(&data_only));
        // A folder inside one already left out adds nothing.
        let shadow = Exclusions::new(&workspace, &[data.clone(), data.join("snapshots/p.git")]);
        assert!(data_only.covers(&shadow) && shadow.covers(&data_only));
        let nothing = Exclusions::new(&workspace, &[]);
        assert!(data_only.covers(&nothing));
        assert!(
            !nothing.covers(&data_only),
            "the data folder would be walked"
        );
        let all = Exclusions::new(&workspace, std::slice::from_ref(&workspace));
        assert!(all.covers(&data_only) && !data_only.covers(&all));
    }

    #[test]
    fn only_stale_temporary_files_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let stale = dir.path().join(".main.rs.Xy12Ab.arbor-tmp");
        let fresh = dir.path().join(".lib.rs.Zz34Cd.arbor-tmp");
        std::fs::write(&stale, "half").unwrap();
        std::fs::write(&fresh, "being written").unwrap();
        let old = SystemTime::now() - STALE_AFTER - Duration::from_secs(60);
        std::fs::File::options()
            .write(true)
            .open(&stale)
            .unwrap()
            .set_modified(old)
            .unwrap();
        let gone = dir.path().join(".gone.arbor-tmp");
        assert_eq!(remove_stale(&[stale.clone(), fresh.clone(), gone]), 1);
        assert!(!stale.exists());
        assert!(fresh.exists(), "a write in progress keeps its file");
    }
}
