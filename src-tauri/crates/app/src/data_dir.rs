//! Where Arbor keeps its data (`arbor.db`, `models.json`): one folder shared by the desktop app
//! and the CLI, so both see the same projects and sessions.

use std::path::{Path, PathBuf};

use crate::AppError;

/// The environment variable that overrides the data folder.
pub const DATA_DIR_ENV: &str = "ARBOR_DATA_DIR";

/// `explicit` (the CLI's `--data-dir`), else `$ARBOR_DATA_DIR`, else the OS data folder
/// (`~/.local/share/arbor` on Linux, `~/Library/Application Support/arbor` on macOS,
/// `%APPDATA%\arbor` on Windows). A relative folder is made absolute against the current
/// directory now, as every CLI does: call this before changing directory (`arbor -C`), so
/// `--data-dir` never silently lands inside the project.
pub fn resolve_data_dir(explicit: Option<&Path>) -> Result<PathBuf, AppError> {
    let given = explicit.map(Path::to_owned).or_else(|| {
        std::env::var_os(DATA_DIR_ENV)
            .filter(|dir| !dir.is_empty())
            .map(PathBuf::from)
    });
    if let Some(dir) = given {
        // `absolute` fails only for an empty path, which is filtered out above.
        return Ok(std::path::absolute(&dir).unwrap_or(dir));
    }
    dirs::data_dir()
        .map(|dir| dir.join("arbor"))
        .ok_or(AppError::NoDataDir)
}

/// The data folder's subfolders that hold projects rather than Arbor's own data: clones (the
/// default workspaces folder) and worktrees. Tools work inside them like in any project.
pub const PROJECT_FOLDERS: &[&str] = &["workspaces", "worktrees"];

/// What Arbor owns in the data folder: the database and its journal, snapshots, the model's
/// tools, settings — everything but [`PROJECT_FOLDERS`]. Tools never write there, commands do
/// not see it, snapshots never record it. Known names are listed whether they exist yet or
/// not, so a file made later is covered too.
pub fn owned_data_paths(data_dir: &Path) -> Vec<PathBuf> {
    const KNOWN: &[&str] = &[
        "arbor.db",
        "arbor.db-wal",
        "arbor.db-shm",
        "arbor.db-journal",
        "snapshots",
        "tools",
        "settings.json",
        "models.json",
        "clone-folders.txt",
    ];
    let mut paths: Vec<PathBuf> = KNOWN.iter().map(|name| data_dir.join(name)).collect();
    if let Ok(entries) = std::fs::read_dir(data_dir) {
        for entry in entries.flatten() {
            let name = entry.file_name();
            let path = entry.path();
            if !PROJECT_FOLDERS.iter().any(|p| name == *p) && !paths.contains(&path) {
                paths.push(path);
            }
        }
    }
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owned_paths_leave_out_the_folders_that_hold_projects() {
        let dir = tempfile::tempdir().unwrap();
        for folder in ["workspaces", "worktrees", "snapshots", "other"] {
            std::fs::create_dir(dir.path().join(folder)).unwrap();
        }
        let owned = owned_data_paths(dir.path());
        assert!(
            owned.contains(&dir.path().join("arbor.db")),
            "listed before it exists"
        );
        assert!(owned.contains(&dir.path().join("snapshots")));
        assert!(
            owned.contains(&dir.path().join("other")),
            "anything else found there"
        );
        assert!(!owned
            .iter()
            .any(|p| p.ends_with("worktrees") || p.ends_with("workspaces")));
    }
}
