//! Code state for the conversation tree: snapshots of a workspace in a private git object store,
//! the differences between two of them, and bringing a workspace back to one — undoably.
//!
//! # Map
//! - [`Snapshots`] (this file): one per project, over a bare **shadow repository** in the data
//!   folder (`git2`; never the user's `.git`, refs, index or stash). [`Snapshots::take`] records
//!   the workspace and answers a [`SnapshotId`] (the git tree's id: an unchanged state gives the
//!   same id, so nodes that saw the same files share one).
//! - `scan.rs`: what a snapshot holds — tracked and untracked files that are not ignored
//!   (`.gitignore`, `.git/info/exclude`, the extra ignores of [`SnapshotOptions`]), files up to
//!   a size cap, no `.git` — and the stat cache that makes an unchanged workspace cheap to check
//!   (a file whose size, modification time and mode are unchanged is not read again).
//! - `stat_cache.rs`: that cache kept on disk in the shadow repository, so a new process's
//!   first snapshot does not read every file again.
//! - `diff.rs`: [`FileChange`]s (path, status, lines added and removed) and unified diffs
//!   between two snapshots.
//! - `restore.rs`: [`RestorePlan`] (what bringing the workspace back to a snapshot would write
//!   and delete, marking files changed outside Arbor since its last snapshot) and
//!   [`Snapshots::restore`], which first snapshots the present (the undo point) and never
//!   touches ignored files.
//!
//! - `tracker.rs`: [`CodeTracker`], the snapshots as a session uses them: opened on first use,
//!   stale temporary files removed after the first snapshot, Arbor's last recorded state (to tell changes made outside
//!   Arbor), the last restore's undo point (a reference in the shadow repository, so it
//!   survives a restart), per-file patches.
//!
//! The recorder (`sessions/code.rs`) snapshots at each user turn (beside the request the turn
//! starts) and after every tool call that may change files, and stores the snapshot id and the
//! files changed with the node.

mod ahead;
mod diff;
mod exclude;
mod file_stat;
pub mod names;
mod restore;
mod scan;
mod stat_cache;
mod tracker;

use arbor_error_code::ErrorCode;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use git2::{Oid, Repository};

// The views of files front ends are shown are arbor-protocol's; snapshots make them.
pub use ahead::ScanAhead;
pub use arbor_protocol::views::code::{
    ChangeStatus, FileChange, FileDiff, PlannedChange, SnapshotId,
};
pub use exclude::{is_temporary, TEMP_SUFFIX};
pub use restore::{RestoreOutcome, RestorePlan};
pub use tracker::{CodeTracker, PATCH_MAX_BYTES};

use exclude::Exclusions;
use scan::{CachedFile, ScannedFile};

/// Files larger than this are left out of snapshots unless [`SnapshotOptions`] says otherwise.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;

/// A workspace with more recorded files than this is not snapshotted (a home folder opened by
/// mistake must not be copied into the data folder).
pub const DEFAULT_MAX_FILES: usize = 100_000;

/// Nor one whose recorded files add up to more than this.
pub const DEFAULT_MAX_TOTAL_BYTES: u64 = 2 * 1024 * 1024 * 1024;

/// The git tree id a [`SnapshotId`] names.
fn oid(id: &SnapshotId) -> Result<Oid, SnapshotError> {
    Oid::from_str(&id.0).map_err(|_| SnapshotError::UnknownSnapshot(id.0.clone()))
}

/// What snapshots leave out beyond the workspace's own ignore files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotOptions {
    /// Files larger than this many bytes are not recorded (and never touched by a restore).
    pub max_file_bytes: u64,
    /// Extra ignore patterns, in `.gitignore` syntax (from the settings).
    pub extra_ignores: Vec<String>,
    /// More files than this: no snapshot ([`SnapshotError::TooLarge`]).
    pub max_files: usize,
    /// More bytes in all than this: no snapshot.
    pub max_total_bytes: u64,
    /// Arbor's own folders (the data folder): never recorded, restored, deleted or diffed, even
    /// when they lie inside the workspace (`arbor` run in `$HOME`).
    pub protected_paths: Vec<PathBuf>,
}

impl Default for SnapshotOptions {
    fn default() -> Self {
        Self {
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            extra_ignores: Vec::new(),
            max_files: DEFAULT_MAX_FILES,
            max_total_bytes: DEFAULT_MAX_TOTAL_BYTES,
            protected_paths: Vec::new(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("{} is not a folder Arbor can snapshot: {reason}", path.display())]
    Workspace { path: PathBuf, reason: String },
    #[error("the snapshot store at {} cannot be used: {detail}", path.display())]
    Store { path: PathBuf, detail: String },
    #[error("{0} is not a snapshot of this project")]
    UnknownSnapshot(String),
    #[error("an ignore pattern is not valid: {0}")]
    IgnorePattern(String),
    #[error(
        "{} changed outside Arbor since its last snapshot: look at the preview, then restore \
         with overwriting allowed if those changes may go (they stay in the undo snapshot)",
        paths.join(", ")
    )]
    ChangedOutside { paths: Vec<String> },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{} is too large to record its files (over {files} files or {} MB after ignores), so \
         going back cannot restore files here: ignore generated folders in .gitignore or in \
         the settings' snapshot ignores",
        path.display(),
        bytes / (1024 * 1024)
    )]
    TooLarge {
        path: PathBuf,
        files: usize,
        bytes: u64,
    },
    #[error("no restore to undo: nothing was restored in this project yet")]
    NothingToUndo,
    #[error("git: {}", git_message(.0))]
    Git(#[from] git2::Error),
}

impl SnapshotError {
    /// A stable, machine-readable code.
    pub fn code(&self) -> ErrorCode {
        match self {
            SnapshotError::Workspace { .. } => ErrorCode::SnapshotWorkspace,
            SnapshotError::Store { .. } => ErrorCode::SnapshotStore,
            SnapshotError::UnknownSnapshot(_) => ErrorCode::UnknownSnapshot,
            SnapshotError::IgnorePattern(_) => ErrorCode::InvalidIgnore,
            SnapshotError::ChangedOutside { .. } => ErrorCode::ChangedOutside,
            SnapshotError::Io { .. } => ErrorCode::Io,
            SnapshotError::NothingToUndo => ErrorCode::NothingToUndo,
            SnapshotError::TooLarge { .. } => ErrorCode::WorkspaceTooLarge,
            SnapshotError::Git(_) => ErrorCode::Git,
        }
    }

    fn io(path: &Path, source: std::io::Error) -> Self {
        SnapshotError::Io {
            path: path.to_owned(),
            source,
        }
    }
}

/// libgit2 reports some failed writes (a full disk) with an empty message or "no error":
/// say what that most likely means instead.
fn git_message(error: &git2::Error) -> String {
    let message = error.message().trim();
    if message.is_empty() || message.eq_ignore_ascii_case("no error") {
        format!(
            "writing to the snapshot store failed without a reason from git ({:?}/{:?}): the \
             disk may be full or the data folder read-only",
            error.class(),
            error.code()
        )
    } else {
        message.to_owned()
    }
}

/// The snapshots of one workspace, in its shadow repository.
pub struct Snapshots {
    repo: Repository,
    workspace: PathBuf,
    options: SnapshotOptions,
    /// What the last scan found, by path relative to the workspace (`/`-separated).
    cache: HashMap<String, CachedFile>,
    /// The tree the cache describes.
    last: Option<Oid>,
    /// The tree of the cache on disk (see `stat_cache`), as far as this process knows.
    persisted: Option<Oid>,
    /// The folders' trees of the last snapshot: an unchanged folder is not written again.
    trees: scan::FolderTrees,
    /// What is never recorded nor read back: Arbor's own folders, its temporary files.
    exclusions: Exclusions,
    /// Arbor's temporary files the last scan passed over (see [`Snapshots::remove_stale_temporaries`]).
    temporaries: Vec<PathBuf>,
}

impl std::fmt::Debug for Snapshots {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshots")
            .field("workspace", &self.workspace)
            .field("shadow", &self.repo.path())
            .finish_non_exhaustive()
    }
}

impl Snapshots {
    /// Opens (or creates) the shadow repository at `shadow` for `workspace`.
    pub fn open(
        shadow: &Path,
        workspace: &Path,
        options: SnapshotOptions,
    ) -> Result<Self, SnapshotError> {
        let workspace = workspace
            .canonicalize()
            .map_err(|e| SnapshotError::Workspace {
                path: workspace.to_owned(),
                reason: e.to_string(),
            })?;
        if !workspace.is_dir() {
            return Err(SnapshotError::Workspace {
                path: workspace,
                reason: "not a folder".into(),
            });
        }
        let store_error = |detail: String| SnapshotError::Store {
            path: shadow.to_owned(),
            detail,
        };
        let repo = if shadow.join("HEAD").is_file() {
            Repository::open_bare(shadow).map_err(|e| store_error(e.message().to_owned()))?
        } else {
            std::fs::create_dir_all(shadow).map_err(|e| store_error(e.to_string()))?;
            Repository::init_bare(shadow).map_err(|e| store_error(e.message().to_owned()))?
        };
        let mut protected = options.protected_paths.clone();
        // The shadow repository itself, wherever it is.
        protected.push(shadow.to_owned());
        let exclusions = Exclusions::new(&workspace, &protected);
        let (cache, last, trees) = match stat_cache::load(&repo, &workspace) {
            Some(loaded) => (loaded.files, Some(loaded.tree), loaded.folders),
            None => (HashMap::new(), None, scan::FolderTrees::default()),
        };
        Ok(Self {
            repo,
            workspace,
            options,
            cache,
            persisted: last,
            last,
            trees,
            exclusions,
            temporaries: Vec::new(),
        })
    }

    /// The workspace these snapshots are of.
    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    /// Records the workspace as it is now. Unchanged files are not read again (their size,
    /// modification time and mode are compared with the last scan), and an unchanged workspace
    /// answers the last id without writing anything.
    pub fn take(&mut self) -> Result<SnapshotId, SnapshotError> {
        let found = scan::scan(&self.workspace, &self.options, &self.exclusions);
        self.record(found)
    }

    /// Records what a walk of the workspace `found` (see [`Snapshots::take`]).
    fn record(
        &mut self,
        found: Result<scan::Scan, SnapshotError>,
    ) -> Result<SnapshotId, SnapshotError> {
        let scan::Scan {
            files: scanned,
            temporaries,
        } = found?;
        self.temporaries = temporaries;
        let mut next = HashMap::with_capacity(scanned.len());
        let mut dirty = HashSet::new();
        // Files read again only because they were racily clean, and now are not: worth
        // writing the cache for, so the next process does not read them again either.
        let mut settled = false;
        for file in scanned {
            let cached = self.cache.get(&file.path);
            let oid = match cached {
                Some(cached) if cached.matches(&file) => cached.oid,
                _ => self.write_blob(&file, cached.map(|c| c.oid))?,
            };
            if cached.is_none_or(|c| c.oid != oid || c.mode != file.mode) {
                dirty.insert(file.path.clone());
            }
            settled |= cached.is_some_and(|c| c.racy && !file.racy);
            next.insert(file.path.clone(), CachedFile::of(&file, oid));
        }
        dirty.extend(
            self.cache
                .keys()
                .filter(|p| !next.contains_key(*p))
                .cloned(),
        );
        let tree = match self.last {
            // Same files, same contents and modes: the same tree, nothing written.
            Some(last) if dirty.is_empty() => last,
            _ => self.trees.write(&self.repo, &next, &dirty)?,
        };
        self.cache = next;
        self.last = Some(tree);
        if self.persisted != Some(tree) || settled {
            stat_cache::save(&self.repo, &self.workspace, tree, &self.cache, &self.trees);
            self.persisted = Some(tree);
        }
        Ok(SnapshotId(tree.to_string()))
    }

    /// Deletes the temporary files of writes that were killed (older than any running write),
    /// found by the last scan. Returns how many.
    pub fn remove_stale_temporaries(&mut self) -> usize {
        exclude::remove_stale(&std::mem::take(&mut self.temporaries))
    }

    /// Whether a workspace-relative path is left out of snapshots (Arbor's own files).
    pub(crate) fn excludes(&self, path: &str) -> bool {
        self.exclusions.excludes(path)
    }

    /// Stores a file's content (a link's target) as a blob. A file read again whose content is
    /// still `known` (a racily clean one, or one only touched) is only hashed.
    fn write_blob(&self, file: &ScannedFile, known: Option<Oid>) -> Result<Oid, SnapshotError> {
        let path = self.workspace.join(names::to_path(&file.path));
        let bytes = if file.symlink {
            let target = std::fs::read_link(&path).map_err(|e| SnapshotError::io(&path, e))?;
            link_target_bytes(&target)
        } else {
            std::fs::read(&path).map_err(|e| SnapshotError::io(&path, e))?
        };
        if let Some(known) = known {
            if Oid::hash_object(git2::ObjectType::Blob, &bytes)? == known {
                return Ok(known);
            }
        }
        Ok(self.repo.blob(&bytes)?)
    }

    /// The files of a snapshot: path → (blob id, git file mode). Arbor's own files are left
    /// out even when an older snapshot recorded them.
    fn files(&self, id: &SnapshotId) -> Result<HashMap<String, (Oid, i32)>, SnapshotError> {
        let tree = self
            .repo
            .find_tree(oid(id)?)
            .map_err(|_| SnapshotError::UnknownSnapshot(id.0.clone()))?;
        let mut files = HashMap::new();
        self.collect_files(&tree, &mut Vec::new(), &mut files)?;
        Ok(files)
    }
}

impl Snapshots {
    /// Adds the blobs under `tree` (at `prefix`, bytes) to `files`. Walked by hand: git2's
    /// `Tree::walk` gives folder names as `&str` and stops at one that is not UTF-8.
    fn collect_files(
        &self,
        tree: &git2::Tree<'_>,
        prefix: &mut Vec<u8>,
        files: &mut HashMap<String, (Oid, i32)>,
    ) -> Result<(), SnapshotError> {
        for entry in tree.iter() {
            let start = prefix.len();
            prefix.extend_from_slice(entry.name_bytes());
            match entry.kind() {
                Some(git2::ObjectType::Blob) => {
                    let path = names::encode(prefix);
                    if !self.exclusions.excludes(&path) {
                        files.insert(path, (entry.id(), entry.filemode()));
                    }
                }
                Some(git2::ObjectType::Tree)
                    if !self.exclusions.excludes(&names::encode(prefix)) =>
                {
                    let sub = self.repo.find_tree(entry.id())?;
                    prefix.push(b'/');
                    self.collect_files(&sub, prefix, files)?;
                }
                _ => {}
            }
            prefix.truncate(start);
        }
        Ok(())
    }
}

/// A link's target as the bytes git records.
#[cfg(unix)]
fn link_target_bytes(target: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    target.as_os_str().as_bytes().to_vec()
}

#[cfg(not(unix))]
fn link_target_bytes(target: &Path) -> Vec<u8> {
    target.to_string_lossy().into_owned().into_bytes()
}
