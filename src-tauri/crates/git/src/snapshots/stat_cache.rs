//! The stat cache kept on disk, in the shadow repository, so that a new process (each `arbor -p`
//! run, the desktop after a restart) does not read and hash every file of the workspace again
//! for its first snapshot: a file whose size, modification time and mode match what the last
//! snapshot recorded is taken as recorded.
//!
//! The file names the workspace it describes and the tree it was written with; it is used only
//! when both match (the same shadow repository also snapshots a project's files over another
//! folder) and that tree is in the object store — its blobs, written before it, are there too
//! (nothing in a shadow repository is ever pruned). A missing, damaged or foreign file costs
//! one full read, never a wrong snapshot. It is written whole to a temporary file and renamed
//! over the old one, so a reader never sees half of it, and two processes writing it leave one
//! of their states, each right.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use git2::{Oid, Repository};
use serde::{Deserialize, Serialize};

use super::scan::{CachedFile, FolderTrees};

/// The cache's file in the shadow repository.
const FILE_NAME: &str = "arbor-stat-cache.json";

/// Bumped whenever what is stored changes meaning: an older file is then ignored.
const VERSION: u32 = 1;

/// What a loaded cache gives back: the files by path, the tree they make and its folders' trees.
pub(super) struct Loaded {
    pub files: HashMap<String, CachedFile>,
    pub tree: Oid,
    pub folders: FolderTrees,
}

#[derive(Serialize, Deserialize)]
struct OnDisk {
    version: u32,
    workspace: String,
    tree: String,
    /// `[path, len, mtime_ns, mode, racy, blob]`.
    files: Vec<(String, u64, u128, i32, bool, String)>,
    /// `[folder path, tree]`.
    folders: Vec<(String, String)>,
}

/// The cache of `workspace`'s snapshots in `repo`, when there is one that can be trusted.
pub(super) fn load(repo: &Repository, workspace: &Path) -> Option<Loaded> {
    let bytes = std::fs::read(repo.path().join(FILE_NAME)).ok()?;
    let disk: OnDisk = serde_json::from_slice(&bytes).ok()?;
    if disk.version != VERSION || disk.workspace != workspace.to_string_lossy() {
        return None;
    }
    let tree = Oid::from_str(&disk.tree).ok()?;
    if !repo.odb().ok()?.exists(tree) {
        return None;
    }
    let mut files = HashMap::with_capacity(disk.files.len());
    for (path, len, mtime_ns, mode, racy, blob) in disk.files {
        let oid = Oid::from_str(&blob).ok()?;
        files.insert(
            path,
            CachedFile {
                len,
                mtime_ns,
                mode,
                racy,
                oid,
            },
        );
    }
    let mut folders = HashMap::with_capacity(disk.folders.len());
    for (path, tree) in disk.folders {
        folders.insert(path, Oid::from_str(&tree).ok()?);
    }
    Some(Loaded {
        files,
        tree,
        folders: FolderTrees::from_map(folders),
    })
}

/// Writes the cache of `workspace`'s snapshot `tree` (best effort: a cache that cannot be
/// written only makes the next process's first snapshot read everything).
pub(super) fn save(
    repo: &Repository,
    workspace: &Path,
    tree: Oid,
    files: &HashMap<String, CachedFile>,
    folders: &FolderTrees,
) {
    let disk = OnDisk {
        version: VERSION,
        workspace: workspace.to_string_lossy().into_owned(),
        tree: tree.to_string(),
        files: files
            .iter()
            .map(|(path, file)| {
                (
                    path.clone(),
                    file.len,
                    file.mtime_ns,
                    file.mode,
                    file.racy,
                    file.oid.to_string(),
                )
            })
            .collect(),
        folders: folders
            .iter()
            .map(|(path, oid)| (path.clone(), oid.to_string()))
            .collect(),
    };
    let Ok(json) = serde_json::to_vec(&disk) else {
        return;
    };
    let dir = repo.path();
    let Ok(mut temporary) = tempfile::NamedTempFile::new_in(dir) else {
        return;
    };
    // Not synced: a file left empty or cut short by a crash does not parse, and is ignored.
    if temporary.write_all(&json).is_ok() {
        // A failed rename leaves the old cache, which is still right for its tree.
        let _kept_old = temporary.persist(dir.join(FILE_NAME));
    }
}
