//! Worktrees: a session's own checkout of the project on its own branch, so several agents can
//! change one repository at once without touching the main checkout — and the way back: a
//! review of what the branch changed, commit, merge into its base and push.
//!
//! # Map
//! - this file: names, [`create`] (`git worktree add` on a new branch `arbor/<name>`), the
//!   [`status`] of one (ahead/behind its base, uncommitted files, size), [`remove_folder`] and
//!   [`add_back`] (archive and restore: the caller keeps a snapshot of the folder first),
//!   [`WorktreeError`].
//! - `include.rs`: `.worktreeinclude` — the main checkout's ignored files a new worktree needs
//!   (`.env`, local settings) copied in.
//! - `review.rs`: what the branch committed since it left its base and what is not committed,
//!   per file and hunk; discarding a file's or one hunk's uncommitted change.
//! - `integrate.rs`: commit everything in the worktree; merge the branch into its base
//!   (fast-forward or a merge commit; a conflict changes nothing anywhere; the main checkout's
//!   files are updated only when none of its own changes is in the way).
//! - `push.rs`: push the branch to `origin` over HTTP(S), a token only for its host.
//!
//! All through `git2`: no repository hook ever runs, and the user's git config is only read.

mod include;
mod integrate;
mod push;
mod review;

use std::path::{Path, PathBuf};

use arbor_error_code::ErrorCode;
use git2::{BranchType, Repository, WorktreeAddOptions, WorktreePruneOptions};

pub use include::{copy_included, INCLUDE_FILE};
pub use integrate::{commit_all, merge_into_base};
pub use push::push_branch;
pub use review::{discard_file, discard_hunk, review};

pub use arbor_protocol::views::worktrees::{
    CommitResult, MergeOutcome, PushResult, ReviewFile, ReviewHunk, WorktreeReview,
};

/// Every worktree branch lives under this prefix.
pub const BRANCH_PREFIX: &str = "arbor/";

/// Longest worktree name.
pub const MAX_NAME_LEN: usize = 64;

#[derive(Debug, thiserror::Error)]
pub enum WorktreeError {
    #[error(
        "{} is not a git repository with a working folder: worktrees need the repository's \
         main checkout (run `git init` there first)",
        path.display()
    )]
    NotARepository { path: PathBuf },
    #[error(
        "`{name}` cannot name a worktree: use letters, digits, `-`, `_` or `.`, at most \
         {MAX_NAME_LEN}, not starting with `.` or `-`"
    )]
    InvalidName { name: String },
    #[error(
        "a worktree or branch named `{name}` already exists: pick another name, or restore the \
         archived one"
    )]
    Exists { name: String },
    #[error("{} is in the way of the new worktree: remove it or pick another name", path.display())]
    FolderExists { path: PathBuf },
    #[error(
        "`{base}` is not a branch of this repository: name a local branch (`main`) or a remote \
         one (`origin/main`)"
    )]
    UnknownBase { base: String },
    #[error(
        "the project's HEAD is not on a branch (detached at {commit}): name the base branch \
         the worktree starts from"
    )]
    DetachedHead { commit: String },
    #[error("the worktree's branch `{branch}` is gone: it cannot be restored")]
    BranchGone { branch: String },
    #[error("`{base}` is not a local branch: merge into a local branch (check it out first)")]
    BaseNotLocal { base: String },
    #[error(
        "the main checkout has uncommitted changes in {}: commit or stash them there, then \
         merge again (nothing was changed)",
        files.join(", ")
    )]
    CheckoutDirty { files: Vec<String> },
    #[error(
        "`{base}` is checked out in the worktree `{worktree}`: switch that worktree to another \
         branch, then merge again (nothing was changed)"
    )]
    BaseCheckedOut { base: String, worktree: String },
    #[error("{path} changed since it was reviewed: review again")]
    StaleReview { path: String },
    #[error("nothing to commit in the worktree: no file differs from the branch's last commit")]
    NothingToCommit,
    #[error("a commit message is needed")]
    EmptyMessage,
    #[error(
        "git has no author for commits: set `user.name` and `user.email` with `git config \
         --global`, then try again"
    )]
    NoSignature,
    #[error("the repository has no `origin` remote to push to: add one with `git remote add`")]
    NoRemote,
    #[error("{url}: {message}")]
    Remote { url: String, message: String },
    #[error("{url} refused the push of {branch}: {message}")]
    PushRejected {
        url: String,
        branch: String,
        message: String,
    },
    #[error("{url} needs credentials: save a GitHub token in the settings for {host}")]
    AuthRequired { url: String, host: String },
    #[error("{url} refused the token: check the token saved for {host}")]
    AuthFailed { url: String, host: String },
    #[error("git: {0}")]
    Git(#[from] git2::Error),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl WorktreeError {
    pub fn code(&self) -> ErrorCode {
        match self {
            WorktreeError::NotARepository { .. } => ErrorCode::NotARepository,
            WorktreeError::InvalidName { .. } => ErrorCode::InvalidWorktreeName,
            WorktreeError::Exists { .. } | WorktreeError::FolderExists { .. } => {
                ErrorCode::WorktreeExists
            }
            WorktreeError::UnknownBase { .. }
            | WorktreeError::DetachedHead { .. }
            | WorktreeError::BaseNotLocal { .. }
            | WorktreeError::EmptyMessage => ErrorCode::InvalidCommand,
            WorktreeError::BranchGone { .. } => ErrorCode::NotFound,
            WorktreeError::CheckoutDirty { .. } | WorktreeError::BaseCheckedOut { .. } => {
                ErrorCode::CheckoutDirty
            }
            WorktreeError::StaleReview { .. } => ErrorCode::StaleReview,
            WorktreeError::NothingToCommit => ErrorCode::NothingToCommit,
            WorktreeError::NoSignature | WorktreeError::NoRemote => ErrorCode::Unsupported,
            WorktreeError::PushRejected { .. } => ErrorCode::PushRejected,
            WorktreeError::AuthRequired { .. } => ErrorCode::AuthRequired,
            WorktreeError::AuthFailed { .. } => ErrorCode::AuthFailed,
            WorktreeError::Remote { .. } => ErrorCode::Network,
            WorktreeError::Git(_) => ErrorCode::Git,
            WorktreeError::Io { .. } => ErrorCode::Io,
        }
    }

    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        WorktreeError::Io {
            path: path.to_owned(),
            source,
        }
    }
}

/// Checks a worktree name: it becomes a folder, a branch (`arbor/<name>`) and git's own
/// worktree entry, so only a small safe alphabet is allowed.
pub fn validate_name(name: &str) -> Result<(), WorktreeError> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && !name.starts_with(['.', '-'])
        && !name.ends_with(".lock")
        && !name.ends_with('.')
        && !name.contains("..")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(WorktreeError::InvalidName {
            name: name.to_owned(),
        })
    }
}

/// The branch of the worktree `name`.
pub fn branch_of(name: &str) -> String {
    format!("{BRANCH_PREFIX}{name}")
}

/// Opens the repository whose main checkout is `root`.
pub(crate) fn open_main(root: &Path) -> Result<Repository, WorktreeError> {
    let not_a_repository = || WorktreeError::NotARepository {
        path: root.to_owned(),
    };
    let repo = Repository::open(root).map_err(|_| not_a_repository())?;
    if repo.is_bare() || repo.workdir().is_none() {
        return Err(not_a_repository());
    }
    Ok(repo)
}

/// What to create.
#[derive(Debug, Clone)]
pub struct NewWorktree {
    /// The project's main checkout.
    pub repo_root: PathBuf,
    pub name: String,
    /// The branch to start from (`main`, `origin/main`); `None`: the branch HEAD is on.
    pub base: Option<String>,
    /// Where the worktree's folder goes; must not exist.
    pub folder: PathBuf,
}

/// A worktree just made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreatedWorktree {
    pub path: PathBuf,
    pub branch: String,
    pub base_branch: String,
    pub base_commit: String,
}

/// The remote's default branch as a remote-tracking branch (`origin/main`), from
/// `refs/remotes/origin/HEAD`; `None` when the clone does not know it.
pub fn remote_default_branch(repo_root: &Path) -> Option<String> {
    let repo = open_main(repo_root).ok()?;
    let head = repo.find_reference("refs/remotes/origin/HEAD").ok()?;
    let target = head.symbolic_target()?;
    target.strip_prefix("refs/remotes/").map(str::to_owned)
}

/// The base branch and its commit: a local branch, else a remote-tracking one, else (`None`)
/// the branch HEAD is on. Started from a remote-tracking branch (`origin/main`) whose local
/// branch exists, the worktree merges into that local branch (`main`).
fn resolve_base(
    repo: &Repository,
    base: Option<&str>,
) -> Result<(String, git2::Oid), WorktreeError> {
    match base.map(str::trim).filter(|b| !b.is_empty()) {
        Some(base) => {
            if let Ok(local) = repo.find_branch(base, BranchType::Local) {
                return Ok((base.to_owned(), local.get().peel_to_commit()?.id()));
            }
            let remote = repo.find_branch(base, BranchType::Remote).map_err(|_| {
                WorktreeError::UnknownBase {
                    base: base.to_owned(),
                }
            })?;
            let commit = remote.get().peel_to_commit()?.id();
            let local_name = base.split_once('/').map(|(_, name)| name.to_owned());
            let merges_into = local_name
                .filter(|name| repo.find_branch(name, BranchType::Local).is_ok())
                .unwrap_or_else(|| base.to_owned());
            Ok((merges_into, commit))
        }
        None => {
            let head = repo.head()?;
            let commit = head.peel_to_commit()?;
            if !head.is_branch() {
                return Err(WorktreeError::DetachedHead {
                    commit: commit.id().to_string(),
                });
            }
            let name = head.shorthand().unwrap_or_default().to_owned();
            Ok((name, commit.id()))
        }
    }
}

/// `git worktree add -b arbor/<name> <folder> <base>`, through git2 (no hook runs). Nothing is
/// left behind on failure: a branch made for it is deleted again.
pub fn create(new: &NewWorktree) -> Result<CreatedWorktree, WorktreeError> {
    validate_name(&new.name)?;
    let repo = open_main(&new.repo_root)?;
    let (base_branch, base_commit) = resolve_base(&repo, new.base.as_deref())?;
    let branch_name = branch_of(&new.name);
    if repo.find_branch(&branch_name, BranchType::Local).is_ok()
        || repo.find_worktree(&new.name).is_ok()
    {
        return Err(WorktreeError::Exists {
            name: new.name.clone(),
        });
    }
    if new.folder.exists() {
        return Err(WorktreeError::FolderExists {
            path: new.folder.clone(),
        });
    }
    if let Some(parent) = new.folder.parent() {
        std::fs::create_dir_all(parent).map_err(|e| WorktreeError::io(parent, e))?;
    }
    let commit = repo.find_commit(base_commit)?;
    let branch = repo.branch(&branch_name, &commit, false)?;
    let mut options = WorktreeAddOptions::new();
    options.reference(Some(branch.get()));
    if let Err(error) = repo.worktree(&new.name, &new.folder, Some(&options)) {
        // Leave nothing half-made: the branch goes, and so does a folder git began.
        if let Ok(mut branch) = repo.find_branch(&branch_name, BranchType::Local) {
            let _ = branch.delete();
        }
        let _ = std::fs::remove_dir_all(&new.folder);
        prune_entry(&repo, &new.name);
        return Err(error.into());
    }
    Ok(CreatedWorktree {
        path: new.folder.clone(),
        branch: branch_name,
        base_branch,
        base_commit: base_commit.to_string(),
    })
}

/// Removes git's record of the worktree `name` when its folder is gone.
fn prune_entry(repo: &Repository, name: &str) {
    if let Ok(worktree) = repo.find_worktree(name) {
        let mut options = WorktreePruneOptions::new();
        options.valid(true).locked(false).working_tree(false);
        let _ = worktree.prune(Some(&mut options));
    }
}

/// A worktree's state against its base.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorktreeStatus {
    pub ahead: usize,
    pub behind: usize,
    /// Changed, added or deleted files that are not committed (ignored files left out).
    pub uncommitted: Vec<String>,
    /// Bytes on disk, ignored files included.
    pub size_bytes: u64,
}

/// Commits on `branch` not on `base` and the other way round (0, 0 when either is missing).
pub fn ahead_behind(
    repo_root: &Path,
    branch: &str,
    base: &str,
) -> Result<(usize, usize), WorktreeError> {
    let repo = open_main(repo_root)?;
    let tip = |name: &str| {
        repo.find_branch(name, BranchType::Local)
            .or_else(|_| repo.find_branch(name, BranchType::Remote))
            .ok()
            .and_then(|b| b.get().target())
    };
    match (tip(branch), tip(base)) {
        (Some(ours), Some(theirs)) => Ok(repo.graph_ahead_behind(ours, theirs)?),
        _ => Ok((0, 0)),
    }
}

/// The files of the worktree at `path` that differ from its branch's last commit.
pub fn uncommitted_files(path: &Path) -> Result<Vec<String>, WorktreeError> {
    let repo = Repository::open(path).map_err(|_| WorktreeError::NotARepository {
        path: path.to_owned(),
    })?;
    let mut options = git2::StatusOptions::new();
    options
        .include_untracked(true)
        .recurse_untracked_dirs(true)
        .include_ignored(false)
        .renames_head_to_index(false);
    let statuses = repo.statuses(Some(&mut options))?;
    Ok(statuses
        .iter()
        .filter_map(|entry| entry.path().map(str::to_owned))
        .collect())
}

/// The worktree's status: ahead/behind its base, uncommitted files, size on disk.
pub fn status(
    repo_root: &Path,
    path: &Path,
    branch: &str,
    base: &str,
) -> Result<WorktreeStatus, WorktreeError> {
    let (ahead, behind) = ahead_behind(repo_root, branch, base)?;
    Ok(WorktreeStatus {
        ahead,
        behind,
        uncommitted: uncommitted_files(path)?,
        size_bytes: folder_size(path),
    })
}

/// Bytes of the regular files under `path` (links not followed; unreadable entries skipped).
pub fn folder_size(path: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![path.to_owned()];
    while let Some(folder) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                stack.push(entry.path());
            } else if kind.is_file() {
                total += entry.metadata().map(|m| m.len()).unwrap_or(0);
            }
        }
    }
    total
}

/// Removes the worktree `name`'s folder and git's record of it; its branch stays. The caller
/// has kept a snapshot of the folder first. Refuses a folder that is not where git says the
/// worktree is, so nothing else is ever deleted.
pub fn remove_folder(repo_root: &Path, name: &str, path: &Path) -> Result<(), WorktreeError> {
    let repo = open_main(repo_root)?;
    if let Ok(worktree) = repo.find_worktree(name) {
        let recorded = std::fs::canonicalize(worktree.path()).unwrap_or(worktree.path().to_owned());
        let given = std::fs::canonicalize(path).unwrap_or(path.to_owned());
        if recorded != given {
            return Err(WorktreeError::FolderExists {
                path: path.to_owned(),
            });
        }
    }
    if path.exists() {
        std::fs::remove_dir_all(path).map_err(|e| WorktreeError::io(path, e))?;
    }
    prune_entry(&repo, name);
    Ok(())
}

/// Undoes [`create`] when what follows it failed: the folder, git's record and the branch go.
pub fn discard_new(repo_root: &Path, name: &str, path: &Path) -> Result<(), WorktreeError> {
    remove_folder(repo_root, name, path)?;
    let repo = open_main(repo_root)?;
    if let Ok(mut branch) = repo.find_branch(&branch_of(name), BranchType::Local) {
        branch.delete()?;
    }
    Ok(())
}

/// Makes the worktree `name` again at `path`, on its existing branch (restoring an archived
/// one: the caller then writes the snapshot's files back).
pub fn add_back(repo_root: &Path, name: &str, path: &Path) -> Result<(), WorktreeError> {
    validate_name(name)?;
    let repo = open_main(repo_root)?;
    let branch_name = branch_of(name);
    let branch = repo
        .find_branch(&branch_name, BranchType::Local)
        .map_err(|_| WorktreeError::BranchGone {
            branch: branch_name.clone(),
        })?;
    if path.exists() {
        return Err(WorktreeError::FolderExists {
            path: path.to_owned(),
        });
    }
    prune_entry(&repo, name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| WorktreeError::io(parent, e))?;
    }
    let mut options = WorktreeAddOptions::new();
    options.reference(Some(branch.get()));
    repo.worktree(name, path, Some(&options))?;
    Ok(())
}

/// The signature commits are made with: the user's git identity, never an invented one.
pub(crate) fn signature(repo: &Repository) -> Result<git2::Signature<'static>, WorktreeError> {
    repo.signature().map_err(|_| WorktreeError::NoSignature)
}
