//! Bringing a workspace back to a snapshot: the plan first (what will be written and deleted,
//! and which of those files changed outside Arbor), then the restore, which snapshots the
//! present before touching anything so that it can itself be undone.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;

use super::{names, PlannedChange, SnapshotError, SnapshotId, Snapshots};
use git2::{FileMode, Oid};

/// What restoring a snapshot would change, before anything is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestorePlan {
    pub target: SnapshotId,
    /// The workspace as it is now (the undo point of the restore).
    pub present: SnapshotId,
    pub changes: Vec<PlannedChange>,
}

impl RestorePlan {
    /// The planned files that changed outside Arbor.
    pub fn changed_outside(&self) -> Vec<String> {
        self.changes
            .iter()
            .filter(|c| c.changed_outside)
            .map(|c| c.path.clone())
            .collect()
    }
}

/// A restore done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoreOutcome {
    /// The workspace before the restore: restoring this undoes it.
    pub undo: SnapshotId,
    /// The workspace after it (equal to the target).
    pub restored: SnapshotId,
    pub written: usize,
    pub deleted: usize,
}

impl Snapshots {
    /// What restoring `target` would change. Takes a snapshot of the present first. Files that
    /// differ between `recorded` (Arbor's last snapshot, if any) and the present are marked as
    /// changed outside Arbor.
    pub fn preview_restore(
        &mut self,
        target: &SnapshotId,
        recorded: Option<&SnapshotId>,
    ) -> Result<RestorePlan, SnapshotError> {
        let present = self.take()?;
        let wanted = self.files(target)?;
        let now = self.files(&present)?;
        let outside: BTreeSet<String> = match recorded {
            Some(recorded) if *recorded != present => self
                .changes(Some(recorded), &present)?
                .into_iter()
                .flat_map(|c| std::iter::once(c.path).chain(c.old_path))
                .collect(),
            _ => BTreeSet::new(),
        };
        let mut changes = Vec::new();
        for (path, entry) in &wanted {
            if now.get(path) != Some(entry) {
                changes.push(PlannedChange {
                    changed_outside: outside.contains(path),
                    path: path.clone(),
                    write: true,
                });
            }
        }
        for path in now.keys().filter(|p| !wanted.contains_key(*p)) {
            changes.push(PlannedChange {
                changed_outside: outside.contains(path),
                path: path.clone(),
                write: false,
            });
        }
        changes.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(RestorePlan {
            target: target.clone(),
            present,
            changes,
        })
    }

    /// Brings the workspace back to `target`: files changed since are written back, files
    /// created since are deleted, files deleted since are recreated, with their modes; ignored
    /// files are never touched. The present is snapshotted first (the outcome's `undo`).
    /// Refuses, changing nothing, when a file it would change was changed outside Arbor since
    /// `recorded`, unless `overwrite_outside`.
    pub fn restore(
        &mut self,
        target: &SnapshotId,
        recorded: Option<&SnapshotId>,
        overwrite_outside: bool,
    ) -> Result<RestoreOutcome, SnapshotError> {
        let plan = self.preview_restore(target, recorded)?;
        let outside = plan.changed_outside();
        if !overwrite_outside && !outside.is_empty() {
            return Err(SnapshotError::ChangedOutside { paths: outside });
        }
        let wanted = self.files(target)?;
        let (deletes, writes): (Vec<&PlannedChange>, Vec<&PlannedChange>) =
            plan.changes.iter().partition(|c| !c.write);
        // The state to record, made before a file is touched: if it cannot be made, nothing
        // has changed.
        let restored = self.state_after(&plan.present, &writes, &deletes, &wanted)?;
        // Deletions first: a folder may have to give way to a file of the same name.
        for change in &deletes {
            let path = self.workspace.join(names::to_path(&change.path));
            remove_file(&path)?;
            remove_empty_parents(&self.workspace, &path);
        }
        for change in &writes {
            if let Some((oid, mode)) = wanted.get(&change.path) {
                self.write_file(&change.path, *oid, *mode)?;
            }
        }
        Ok(RestoreOutcome {
            undo: plan.present,
            restored,
            written: writes.len(),
            deleted: deletes.len(),
        })
    }

    /// The state a restore leaves, as Arbor's own: `present` with the planned changes applied.
    /// Built from what was written, never by scanning the workspace again: an edit someone makes
    /// while the files are being written must count as changed outside Arbor at the next
    /// restore, not as Arbor's.
    fn state_after(
        &self,
        present: &SnapshotId,
        writes: &[&PlannedChange],
        deletes: &[&PlannedChange],
        wanted: &std::collections::HashMap<String, (Oid, i32)>,
    ) -> Result<SnapshotId, SnapshotError> {
        let base = self
            .repo
            .find_tree(super::oid(present)?)
            .map_err(|_| SnapshotError::UnknownSnapshot(present.0.clone()))?;
        // Two passes, as the files are written: libgit2 refuses, in one update, a path that
        // turns from a file into a folder or back (`a` → `a/b`); removing first (emptied
        // folders are pruned) and adding on top of that makes either way a plain change.
        let mut removals = git2::build::TreeUpdateBuilder::new();
        for change in deletes {
            removals.remove(names::decode(&change.path));
        }
        let pruned = removals.create_updated(&self.repo, &base)?;
        let pruned = self.repo.find_tree(pruned)?;
        let mut additions = git2::build::TreeUpdateBuilder::new();
        for change in writes {
            if let Some((oid, mode)) = wanted.get(&change.path) {
                additions.upsert(names::decode(&change.path), *oid, file_mode(*mode));
            }
        }
        let tree = additions.create_updated(&self.repo, &pruned)?;
        Ok(SnapshotId(tree.to_string()))
    }

    /// Writes blob `oid` at `path` with `mode`: through a temporary file renamed into place, so
    /// a crash never leaves a half-written file.
    fn write_file(&self, relative: &str, oid: Oid, mode: i32) -> Result<(), SnapshotError> {
        let path = self.workspace.join(names::to_path(relative));
        let blob = self.repo.find_blob(oid)?;
        let parent = path.parent().unwrap_or(&self.workspace);
        std::fs::create_dir_all(parent).map_err(|e| SnapshotError::io(parent, e))?;
        if path.is_dir() && !path.is_symlink() {
            // A folder where the file belongs: only an empty one (ignored files inside stay).
            std::fs::remove_dir(&path).map_err(|e| SnapshotError::io(&path, e))?;
        }
        if mode == i32::from(FileMode::Link) {
            return write_link(&path, blob.content());
        }
        let mut temp = tempfile::Builder::new()
            .prefix(".arbor-restore-")
            .tempfile_in(parent)
            .map_err(|e| SnapshotError::io(parent, e))?;
        temp.write_all(blob.content())
            .map_err(|e| SnapshotError::io(&path, e))?;
        set_executable(temp.path(), mode == i32::from(FileMode::BlobExecutable))?;
        if path.is_symlink() {
            remove_file(&path)?;
        }
        temp.persist(&path)
            .map_err(|e| SnapshotError::io(&path, e.error))?;
        Ok(())
    }
}

/// A recorded file's mode as git2 names it.
fn file_mode(mode: i32) -> FileMode {
    if mode == i32::from(FileMode::Link) {
        FileMode::Link
    } else if mode == i32::from(FileMode::BlobExecutable) {
        FileMode::BlobExecutable
    } else {
        FileMode::Blob
    }
}

fn remove_file(path: &Path) -> Result<(), SnapshotError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(SnapshotError::io(path, e)),
    }
}

/// Removes the folders above `path` that are left empty, up to (not including) `root`.
fn remove_empty_parents(root: &Path, path: &Path) {
    let mut at = path.parent();
    while let Some(folder) = at {
        if folder == root || !folder.starts_with(root) || std::fs::remove_dir(folder).is_err() {
            break;
        }
        at = folder.parent();
    }
}

#[cfg(unix)]
fn write_link(path: &Path, target: &[u8]) -> Result<(), SnapshotError> {
    use std::os::unix::ffi::OsStrExt;
    remove_file(path)?;
    std::os::unix::fs::symlink(std::ffi::OsStr::from_bytes(target), path)
        .map_err(|e| SnapshotError::io(path, e))
}

#[cfg(not(unix))]
fn write_link(path: &Path, target: &[u8]) -> Result<(), SnapshotError> {
    // Where links need privileges, the link's target is written as the file's text (as git does
    // with core.symlinks=false).
    remove_file(path)?;
    std::fs::write(path, target).map_err(|e| SnapshotError::io(path, e))
}

#[cfg(unix)]
fn set_executable(path: &Path, executable: bool) -> Result<(), SnapshotError> {
    use std::os::unix::fs::PermissionsExt;
    let mode = if executable { 0o755 } else { 0o644 };
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .map_err(|e| SnapshotError::io(path, e))
}

#[cfg(not(unix))]
fn set_executable(_path: &Path, _executable: bool) -> Result<(), SnapshotError> {
    Ok(())
}
