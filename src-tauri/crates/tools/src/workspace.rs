//! The folder the agent works in, and what it has seen of the files there.
//!
//! Every tool that writes (`write`, `edit`, `bash`, the `js` tool's `write`) first asks
//! [`check_project_root`] whether the project folder is still there, and creates folders only
//! with [`create_dirs_within`]: a project deleted or moved while its window is open must never
//! be silently recreated, empty, by the next write.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use arbor_permissions::paths::{resolve_existing, secret_path, DEFAULT_SECRET_PATHS};
use arbor_permissions::{FileAccess, PermissionGuard, Policy, SandboxProbe};
use arbor_protocol::views::permissions::{PermissionMode, SandboxBackend};

/// The `workspace` mode over `cwd` with the default secret paths and this machine's sandbox.
pub fn default_policy(cwd: &Path) -> Policy {
    Policy {
        mode: PermissionMode::Workspace,
        project: resolve_existing(cwd),
        rules: Vec::new(),
        secret_paths: DEFAULT_SECRET_PATHS
            .iter()
            .filter_map(|entry| secret_path(entry))
            .collect(),
        sandbox: SandboxProbe::new(sandbox_backend),
    }
}

/// This machine's sandbox, as the policy names it.
pub fn sandbox_backend() -> SandboxBackend {
    match arbor_sandbox::detect().backend {
        arbor_sandbox::Backend::Bubblewrap { .. } => SandboxBackend::Bubblewrap,
        arbor_sandbox::Backend::Landlock { .. } => SandboxBackend::Landlock,
        arbor_sandbox::Backend::Seatbelt => SandboxBackend::Seatbelt,
        arbor_sandbox::Backend::None { .. } => SandboxBackend::None,
    }
}

/// The working directory the tools resolve relative paths against, the [`FileTracker`] they
/// share, and the project's [`PermissionGuard`] every tool asks before touching a path.
/// Cloning is cheap and shares both.
#[derive(Debug, Clone)]
pub struct Workspace {
    cwd: PathBuf,
    tracker: Arc<FileTracker>,
    guard: Arc<PermissionGuard>,
}

impl Workspace {
    /// A workspace with the default policy: the `workspace` mode, no rules, the default
    /// secret paths, this machine's sandbox (what a session gets before its own settings).
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        let cwd = cwd.into();
        let guard = Arc::new(PermissionGuard::new(default_policy(&cwd)));
        Self::with_guard(cwd, guard)
    }

    /// A workspace whose tools obey `guard`.
    pub fn with_guard(cwd: impl Into<PathBuf>, guard: Arc<PermissionGuard>) -> Self {
        Self {
            cwd: cwd.into(),
            tracker: Arc::new(FileTracker::default()),
            guard,
        }
    }

    pub fn guard(&self) -> &Arc<PermissionGuard> {
        &self.guard
    }

    /// `path` (already resolved by the tool) if the call `call_id` may `access` it; else the
    /// refusal the model reads.
    pub fn authorize(
        &self,
        call_id: &str,
        access: FileAccess,
        path: &Path,
    ) -> Result<(), arbor_agent::ToolError> {
        self.guard
            .check_path(call_id, access, path)
            .map(|_| ())
            .map_err(|refusal| arbor_agent::ToolError::respond(refusal.to_string()))
    }

    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    pub fn tracker(&self) -> &Arc<FileTracker> {
        &self.tracker
    }

    /// Whether the working directory is still there; see [`check_project_root`].
    pub fn ensure_root(&self) -> Result<(), ProjectGone> {
        check_project_root(&self.cwd)
    }
}

/// Arbor's own folders in this process (its data folder: `arbor.db`, its WAL, the snapshot
/// store). Process-wide on purpose: a process has one data folder, and every tool of every
/// session must refuse to write there, also when it lies inside a project (`arbor` run in
/// `$HOME`).
fn protected_paths() -> &'static RwLock<Vec<PathBuf>> {
    static PROTECTED: OnceLock<RwLock<Vec<PathBuf>>> = OnceLock::new();
    PROTECTED.get_or_init(|| RwLock::new(Vec::new()))
}

/// Marks `path` (a folder) as Arbor's own: no tool writes inside it (see [`check_writable`]).
pub fn protect_arbor_path(path: &Path) {
    // A path that does not exist yet (a settings file written later) is kept with its
    // existing part resolved, as `check_writable` resolves targets.
    let path = resolve_existing_part(path);
    let mut protected = protected_paths()
        .write()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if !protected.contains(&path) {
        protected.push(path);
    }
}

/// Arbor's own folders in this process (see [`protect_arbor_path`]): walks skip them and
/// model-written scripts may not use them.
pub fn arbor_owned_paths() -> Vec<PathBuf> {
    protected_paths()
        .read()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clone()
}

/// A write a tool must not make: the target lies in Arbor's own data.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{} is inside Arbor's own data folder ({}): tools never write there (it holds the \
     conversation history and the file snapshots). Write somewhere else in the project.",
    target.display(),
    folder.display()
)]
pub struct ArborOwnedPath {
    pub target: PathBuf,
    pub folder: PathBuf,
}

/// Refuses `target` (a file about to be written or created) when it lies inside one of
/// Arbor's own folders. Links in the existing part of the path are resolved first, so a link
/// into the data folder does not get around it.
pub fn check_writable(target: &Path) -> Result<(), ArborOwnedPath> {
    let protected = protected_paths()
        .read()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if protected.is_empty() {
        return Ok(());
    }
    let resolved = resolve_existing_part(target);
    match protected.iter().find(|folder| resolved.starts_with(folder)) {
        Some(folder) => Err(ArborOwnedPath {
            target: target.to_owned(),
            folder: folder.clone(),
        }),
        None => Ok(()),
    }
}

/// `path` with its deepest existing ancestor canonicalized (links followed) and the rest
/// appended as given.
fn resolve_existing_part(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            return rest.iter().rev().fold(real, |acc, part| acc.join(part));
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

/// The project folder is gone: deleted, moved, or replaced by a file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "The project folder {} no longer exists (deleted or moved). Arbor will not recreate it: \
     restore the folder or open another project.",
    root.display()
)]
pub struct ProjectGone {
    pub root: PathBuf,
}

/// `Err` when `root` no longer exists as a folder. Other failures to look (permissions) are
/// not proof it is gone, so they pass: the operation itself then says what is wrong.
pub fn check_project_root(root: &Path) -> Result<(), ProjectGone> {
    let gone = || ProjectGone {
        root: root.to_path_buf(),
    };
    match std::fs::metadata(root) {
        Ok(metadata) if metadata.is_dir() => Ok(()),
        Ok(_) => Err(gone()),
        Err(error)
            if matches!(
                error.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            Err(gone())
        }
        Err(_) => Ok(()),
    }
}

/// Creates folder `dir` and the missing folders above it, but never `root` or anything above
/// it: below `root` one `mkdir` at a time, so if the project folder disappears after
/// [`check_project_root`] said it was there, this fails (`NotFound`) instead of bringing it
/// back. A `dir` outside `root` is created like `mkdir -p`.
pub fn create_dirs_within(root: &Path, dir: &Path) -> io::Result<()> {
    let Ok(relative) = dir.strip_prefix(root) else {
        return std::fs::create_dir_all(dir);
    };
    let mut current = root.to_path_buf();
    for component in relative.components() {
        current.push(component);
        match std::fs::create_dir(&current) {
            Ok(()) => {}
            // A file in the way is reported by the write that follows, with its path.
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err(error),
        }
    }
    Ok(())
}

/// Remembers, per absolute path, the content the agent last saw (read, wrote or edited), so `edit`
/// can say when someone else changed the file in between.
#[derive(Debug, Default)]
pub struct FileTracker {
    /// Path → hash of the content last seen. A hash rather than the mtime: a touch or a checkout
    /// that leaves the bytes alone is no change worth warning about.
    seen: Mutex<HashMap<PathBuf, u64>>,
}

impl FileTracker {
    /// Records that the agent now knows `content` as the file's content.
    pub fn record(&self, path: &Path, content: &[u8]) {
        if let Ok(mut seen) = self.seen.lock() {
            seen.insert(path.to_path_buf(), hash_bytes(content));
        }
    }

    /// Whether the file's current `content` differs from what the agent last saw. `None` when the
    /// agent has not seen this file in this session.
    pub fn changed_since_seen(&self, path: &Path, content: &[u8]) -> Option<bool> {
        let seen = self.seen.lock().ok()?;
        let last_hash = seen.get(path)?;
        Some(*last_hash != hash_bytes(content))
    }
}

fn hash_bytes(content: &[u8]) -> u64 {
    let mut hasher = DefaultHasher::new();
    content.hash(&mut hasher);
    hasher.finish()
}
