//! Bringing a worktree's work back: commit everything in it, and merge its branch into the base
//! branch — a fast-forward when the base has nothing of its own, else a merge commit. A
//! conflict changes nothing: the merge is computed in memory and only a clean result is
//! written. When the main checkout is on the base branch its files are updated by a safe
//! checkout, which refuses before writing anything if one of the user's uncommitted changes is
//! in the way; the branch reference moves only after that succeeded.

use std::path::Path;

use git2::{BranchType, ErrorCode as GitCode, IndexAddOption, Oid, Repository};

use super::{open_main, signature, CommitResult, MergeOutcome, WorktreeError};

/// Stages every change in the worktree at `path` (new and deleted files too; ignored files
/// not) and commits it on the worktree's branch with `message`, as the user's git identity.
/// No line is added to the message.
pub fn commit_all(path: &Path, message: &str) -> Result<CommitResult, WorktreeError> {
    let message = message.trim();
    if message.is_empty() {
        return Err(WorktreeError::EmptyMessage);
    }
    let repo = Repository::open(path).map_err(|_| WorktreeError::NotARepository {
        path: path.to_owned(),
    })?;
    let head = repo.head()?;
    let branch = head.shorthand().unwrap_or_default().to_owned();
    let parent = head.peel_to_commit()?;
    let mut index = repo.index()?;
    index.add_all(["*"], IndexAddOption::DEFAULT, None)?;
    index.update_all(["*"], None)?;
    let tree_id = index.write_tree()?;
    if tree_id == parent.tree_id() {
        return Err(WorktreeError::NothingToCommit);
    }
    let tree = repo.find_tree(tree_id)?;
    let files = repo
        .diff_tree_to_tree(Some(&parent.tree()?), Some(&tree), None)?
        .deltas()
        .len();
    let author = signature(&repo)?;
    let commit = repo.commit(Some("HEAD"), &author, &author, message, &tree, &[&parent])?;
    index.write()?;
    Ok(CommitResult {
        commit: commit.to_string(),
        branch,
        files,
    })
}

/// The files of the main checkout with uncommitted changes among `paths` (all when empty).
fn dirty_among(repo: &Repository, paths: &[String]) -> Vec<String> {
    let mut options = git2::StatusOptions::new();
    options.include_untracked(true).include_ignored(false);
    let Ok(statuses) = repo.statuses(Some(&mut options)) else {
        return Vec::new();
    };
    statuses
        .iter()
        .filter_map(|e| e.path().map(str::to_owned))
        .filter(|p| paths.is_empty() || paths.contains(p))
        .collect()
}

/// Moves `base` to `target`, updating the main checkout's files first when it is on `base`.
fn advance(
    repo: &Repository,
    base: &str,
    current: Oid,
    target: Oid,
    log: &str,
) -> Result<(), WorktreeError> {
    // A worktree on `base` would find its branch moved under it.
    if let Ok(names) = repo.worktrees() {
        for name in names.iter().flatten() {
            let elsewhere = repo
                .find_worktree(name)
                .ok()
                .and_then(|w| Repository::open_from_worktree(&w).ok())
                .and_then(|r| r.head().ok().and_then(|h| h.shorthand().map(str::to_owned)));
            if elsewhere.as_deref() == Some(base) {
                return Err(WorktreeError::BaseCheckedOut {
                    base: base.to_owned(),
                    worktree: name.to_owned(),
                });
            }
        }
    }
    let on_base = repo
        .head()
        .ok()
        .filter(|h| h.is_branch())
        .and_then(|h| h.shorthand().map(str::to_owned))
        .is_some_and(|name| name == base);
    if on_base {
        let target_commit = repo.find_commit(target)?;
        let mut checkout = git2::build::CheckoutBuilder::new();
        checkout.safe().overwrite_ignored(false);
        if let Err(error) = repo.checkout_tree(target_commit.as_object(), Some(&mut checkout)) {
            if error.code() == GitCode::Conflict {
                let changed: Vec<String> = repo
                    .diff_tree_to_tree(
                        Some(&repo.find_commit(current)?.tree()?),
                        Some(&target_commit.tree()?),
                        None,
                    )?
                    .deltas()
                    .filter_map(|d| {
                        d.new_file()
                            .path()
                            .map(|p| p.to_string_lossy().into_owned())
                    })
                    .collect();
                let mut files = dirty_among(repo, &changed);
                if files.is_empty() {
                    files = dirty_among(repo, &[]);
                }
                return Err(WorktreeError::CheckoutDirty { files });
            }
            return Err(error.into());
        }
    }
    let mut reference = repo.find_reference(&format!("refs/heads/{base}"))?;
    reference.set_target(target, log)?;
    Ok(())
}

/// Merges `branch` into the local branch `base` of the repository whose main checkout is
/// `repo_root`.
pub fn merge_into_base(
    repo_root: &Path,
    branch: &str,
    base: &str,
) -> Result<MergeOutcome, WorktreeError> {
    let repo = open_main(repo_root)?;
    let base_ref =
        repo.find_branch(base, BranchType::Local)
            .map_err(|_| WorktreeError::BaseNotLocal {
                base: base.to_owned(),
            })?;
    let ours = base_ref.get().peel_to_commit()?;
    let theirs = repo
        .find_branch(branch, BranchType::Local)
        .map_err(|_| WorktreeError::BranchGone {
            branch: branch.to_owned(),
        })?
        .get()
        .peel_to_commit()?;
    if ours.id() == theirs.id() || repo.graph_descendant_of(ours.id(), theirs.id())? {
        return Ok(MergeOutcome::UpToDate);
    }
    if repo.graph_descendant_of(theirs.id(), ours.id())? {
        advance(
            &repo,
            base,
            ours.id(),
            theirs.id(),
            &format!("merge {branch}: fast-forward"),
        )?;
        return Ok(MergeOutcome::FastForward {
            commit: theirs.id().to_string(),
        });
    }
    let mut index = repo.merge_commits(&ours, &theirs, None)?;
    if index.has_conflicts() {
        let mut files: Vec<String> = index
            .conflicts()?
            .filter_map(Result::ok)
            .filter_map(|c| c.our.or(c.their).or(c.ancestor))
            .map(|entry| String::from_utf8_lossy(&entry.path).into_owned())
            .collect();
        files.sort();
        files.dedup();
        return Ok(MergeOutcome::Conflict { files });
    }
    let tree = repo.find_tree(index.write_tree_to(&repo)?)?;
    let author = signature(&repo)?;
    let message = format!("Merge branch '{branch}' into {base}");
    // Written as a loose object first: nothing points at it until `advance` succeeds.
    let commit = repo.commit(None, &author, &author, &message, &tree, &[&ours, &theirs])?;
    advance(&repo, base, ours.id(), commit, &format!("merge {branch}"))?;
    Ok(MergeOutcome::Merged {
        commit: commit.to_string(),
    })
}
