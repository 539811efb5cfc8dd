//! What a worktree's branch changed: committed since it left its base (merge base → head) and
//! not committed yet (head → the folder, new files included), per file and hunk; and taking an
//! uncommitted change back, a whole file or one hunk at a time.
//!
//! A discard names the file (and the hunk's header) it was shown; if the folder no longer has
//! that change the discard is refused as stale rather than guessing.

use std::path::Path;

use git2::{ApplyLocation, ApplyOptions, BranchType, Delta, Diff, DiffOptions, Patch, Repository};

use super::{ReviewFile, ReviewHunk, WorktreeError, WorktreeReview};
use arbor_protocol::views::code::{ChangeStatus, FileChange};

/// Most patch bytes a review shows per file; later hunks are left out (marked truncated).
pub const REVIEW_MAX_BYTES: usize = 256 * 1024;

fn open(path: &Path) -> Result<Repository, WorktreeError> {
    Repository::open(path).map_err(|_| WorktreeError::NotARepository {
        path: path.to_owned(),
    })
}

fn options(path: Option<&str>, reverse: bool) -> DiffOptions {
    let mut options = DiffOptions::new();
    options
        .include_untracked(true)
        .recurse_untracked_dirs(true)
        .show_untracked_content(true)
        .ignore_submodules(true)
        .reverse(reverse);
    if let Some(path) = path {
        options.pathspec(path).disable_pathspec_match(true);
    }
    options
}

fn uncommitted_diff<'r>(
    repo: &'r Repository,
    path: Option<&str>,
    reverse: bool,
) -> Result<Diff<'r>, WorktreeError> {
    let head = repo.head()?.peel_to_tree()?;
    Ok(repo.diff_tree_to_workdir_with_index(Some(&head), Some(&mut options(path, reverse)))?)
}

fn status_of(delta: &git2::DiffDelta<'_>) -> ChangeStatus {
    match delta.status() {
        Delta::Added | Delta::Untracked | Delta::Copied => ChangeStatus::Added,
        Delta::Deleted => ChangeStatus::Deleted,
        Delta::Renamed => ChangeStatus::Renamed,
        Delta::Typechange => ChangeStatus::ModeChanged,
        _ if delta.old_file().id() == delta.new_file().id() => ChangeStatus::ModeChanged,
        _ => ChangeStatus::Modified,
    }
}

fn path_text(file: &git2::DiffFile<'_>) -> Option<String> {
    file.path().map(|p| p.to_string_lossy().into_owned())
}

/// Every file of `diff`, with its hunks.
fn files_of(diff: &Diff<'_>) -> Result<Vec<ReviewFile>, WorktreeError> {
    let mut files = Vec::new();
    for index in 0..diff.deltas().len() {
        let Some(delta) = diff.get_delta(index) else {
            continue;
        };
        let status = status_of(&delta);
        let path = path_text(&delta.new_file())
            .or_else(|| path_text(&delta.old_file()))
            .unwrap_or_default();
        let old_path = (status == ChangeStatus::Renamed)
            .then(|| path_text(&delta.old_file()))
            .flatten();
        let patch = Patch::from_diff(diff, index)?;
        let binary = delta.flags().is_binary() || patch.is_none();
        let (mut added, mut removed) = (0, 0);
        let mut hunks = Vec::new();
        let mut truncated = false;
        if let Some(patch) = &patch {
            let (_, adds, dels) = patch.line_stats()?;
            (added, removed) = (adds, dels);
            let mut bytes = 0;
            for h in 0..patch.num_hunks() {
                let (hunk, count) = patch.hunk(h)?;
                let mut lines = String::new();
                for l in 0..count {
                    let line = patch.line_in_hunk(h, l)?;
                    let origin = match line.origin() {
                        '+' | '-' | ' ' => line.origin(),
                        // "\ No newline at end of file" markers.
                        _ => '\\',
                    };
                    lines.push(origin);
                    if origin == '\\' {
                        lines.push_str(" No newline at end of file\n");
                    } else {
                        lines.push_str(&String::from_utf8_lossy(line.content()));
                        if !lines.ends_with('\n') {
                            lines.push('\n');
                        }
                    }
                }
                bytes += lines.len();
                if bytes > REVIEW_MAX_BYTES {
                    truncated = true;
                    break;
                }
                let header = String::from_utf8_lossy(hunk.header()).trim_end().to_owned();
                hunks.push(ReviewHunk {
                    id: hunk_id(&header, &lines),
                    header,
                    lines,
                });
            }
        }
        files.push(ReviewFile {
            change: FileChange {
                path,
                old_path,
                status,
                added,
                removed,
                binary,
            },
            hunks,
            truncated,
        });
    }
    Ok(files)
}

/// A hunk's id: its header and a fingerprint of its lines, so a discard names exactly what
/// the user was shown.
fn hunk_id(header: &str, lines: &str) -> String {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::hash::DefaultHasher::new();
    header.hash(&mut hasher);
    lines.hash(&mut hasher);
    format!("{header}#{:016x}", hasher.finish())
}

/// The review of the worktree at `path` on `branch` against `base_branch`.
pub fn review(
    name: &str,
    path: &Path,
    branch: &str,
    base_branch: &str,
) -> Result<WorktreeReview, WorktreeError> {
    let repo = open(path)?;
    let head = repo.head()?.peel_to_commit()?;
    let base_tip = repo
        .find_branch(base_branch, BranchType::Local)
        .or_else(|_| repo.find_branch(base_branch, BranchType::Remote))
        .map_err(|_| WorktreeError::UnknownBase {
            base: base_branch.to_owned(),
        })?
        .get()
        .peel_to_commit()?;
    let merge_base = repo.merge_base(base_tip.id(), head.id())?;
    let from = repo.find_commit(merge_base)?.tree()?;
    let mut committed_options = options(None, false);
    let mut committed = repo.diff_tree_to_tree(
        Some(&from),
        Some(&head.tree()?),
        Some(&mut committed_options),
    )?;
    committed.find_similar(None)?;
    let uncommitted = uncommitted_diff(&repo, None, false)?;
    Ok(WorktreeReview {
        name: name.to_owned(),
        branch: branch.to_owned(),
        base_branch: base_branch.to_owned(),
        committed: files_of(&committed)?,
        uncommitted: files_of(&uncommitted)?,
    })
}

/// The uncommitted change of `file` in the worktree at `path`, or a stale-review error.
fn change_of(repo: &Repository, file: &str) -> Result<ReviewFile, WorktreeError> {
    let diff = uncommitted_diff(repo, Some(file), false)?;
    files_of(&diff)?
        .into_iter()
        .find(|f| f.change.path == file)
        .ok_or_else(|| WorktreeError::StaleReview {
            path: file.to_owned(),
        })
}

/// Takes back every uncommitted change of `file`: a new file is deleted, a changed or deleted
/// one is brought back as the branch's last commit has it.
pub fn discard_file(path: &Path, file: &str) -> Result<(), WorktreeError> {
    let repo = open(path)?;
    let change = change_of(&repo, file)?;
    let head = repo.head()?.peel_to_commit()?;
    if change.change.status == ChangeStatus::Added {
        let target = path.join(file);
        // Only ever the file the review named, inside the worktree (no `..`: git paths).
        if target.symlink_metadata().is_ok() {
            std::fs::remove_file(&target).map_err(|e| WorktreeError::io(&target, e))?;
        }
        let mut index = repo.index()?;
        if index.get_path(Path::new(file), 0).is_some() {
            index.remove_path(Path::new(file))?;
            index.write()?;
        }
        return Ok(());
    }
    // The name is a path, never a pattern (`app/[id]/page.tsx`, a file called `*`).
    let mut checkout = git2::build::CheckoutBuilder::new();
    checkout
        .force()
        .path(file)
        .disable_pathspec_match(true)
        .update_index(true);
    repo.checkout_tree(head.as_object(), Some(&mut checkout))?;
    Ok(())
}

/// Takes back one hunk (named by the id the review showed) of `file`'s uncommitted change.
pub fn discard_hunk(path: &Path, file: &str, hunk: &str) -> Result<(), WorktreeError> {
    let repo = open(path)?;
    let change = change_of(&repo, file)?;
    let stale = || WorktreeError::StaleReview {
        path: file.to_owned(),
    };
    let wanted = change
        .hunks
        .iter()
        .position(|h| h.id == hunk)
        .ok_or_else(stale)?;
    let reverse = uncommitted_diff(&repo, Some(file), true)?;
    let mut seen = 0usize;
    let mut applied = false;
    let mut apply = ApplyOptions::new();
    apply.hunk_callback(|_| {
        let take = seen == wanted;
        seen += 1;
        applied |= take;
        take
    });
    repo.apply(&reverse, ApplyLocation::WorkDir, Some(&mut apply))?;
    drop(apply);
    if !applied {
        return Err(stale());
    }
    Ok(())
}
