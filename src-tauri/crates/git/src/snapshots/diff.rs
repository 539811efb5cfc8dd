//! Differences between two snapshots: the files changed with their line counts, and unified
//! diffs.

use git2::{Delta, Diff, DiffFindOptions, DiffOptions, Patch};
use std::collections::HashMap;

use super::{names, ChangeStatus, FileChange, SnapshotError, SnapshotId, Snapshots};

/// A diff side's path as snapshots key it (bytes kept, see [`names`]).
fn delta_path(file: git2::DiffFile<'_>) -> String {
    file.path_bytes().map(names::encode).unwrap_or_default()
}

impl Snapshots {
    /// The files that differ from `from` (`None`: an empty workspace) to `to`, by path.
    pub fn changes(
        &self,
        from: Option<&SnapshotId>,
        to: &SnapshotId,
    ) -> Result<Vec<FileChange>, SnapshotError> {
        let diff = self.diff(from, to)?;
        let mut changes = Vec::new();
        for (index, delta) in diff.deltas().enumerate() {
            let new_path = delta_path(delta.new_file());
            let old_path = delta_path(delta.old_file());
            // Arbor's own files, which an older snapshot may hold, are never shown.
            if self.excludes(&new_path) || self.excludes(&old_path) {
                continue;
            }
            let status = match delta.status() {
                Delta::Added | Delta::Copied => ChangeStatus::Added,
                Delta::Deleted => ChangeStatus::Deleted,
                Delta::Renamed => ChangeStatus::Renamed,
                Delta::Typechange => ChangeStatus::ModeChanged,
                Delta::Modified if delta.old_file().id() == delta.new_file().id() => {
                    ChangeStatus::ModeChanged
                }
                _ => ChangeStatus::Modified,
            };
            let binary = delta.flags().is_binary();
            let (added, removed) = match Patch::from_diff(&diff, index)? {
                Some(patch) if !binary => {
                    let (_, added, removed) = patch.line_stats()?;
                    (added, removed)
                }
                _ => (0, 0),
            };
            changes.push(FileChange {
                path: if status == ChangeStatus::Deleted {
                    old_path.clone()
                } else {
                    new_path
                },
                old_path: (status == ChangeStatus::Renamed).then_some(old_path),
                status,
                added,
                removed,
                binary,
            });
        }
        changes.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(changes)
    }

    /// The unified diff (git's patch format) from `from` (`None`: empty) to `to`.
    pub fn unified_diff(
        &self,
        from: Option<&SnapshotId>,
        to: &SnapshotId,
    ) -> Result<String, SnapshotError> {
        let mut patches: Vec<(String, String)> = self.file_patches(from, to)?.into_iter().collect();
        patches.sort();
        Ok(patches.into_iter().map(|(_, patch)| patch).collect())
    }

    /// Each changed file's patch (git's format, header included), by the path
    /// [`Snapshots::changes`] names it with.
    pub fn file_patches(
        &self,
        from: Option<&SnapshotId>,
        to: &SnapshotId,
    ) -> Result<HashMap<String, String>, SnapshotError> {
        let diff = self.diff(from, to)?;
        let mut patches = HashMap::new();
        for (index, delta) in diff.deltas().enumerate() {
            let file = match delta.status() {
                Delta::Deleted => delta.old_file(),
                _ => delta.new_file(),
            };
            let path = delta_path(file);
            if self.excludes(&path) {
                continue;
            }
            if let Some(mut patch) = Patch::from_diff(&diff, index)? {
                let text = String::from_utf8_lossy(&patch.to_buf()?).into_owned();
                patches.insert(path, text);
            }
        }
        Ok(patches)
    }

    fn diff(&self, from: Option<&SnapshotId>, to: &SnapshotId) -> Result<Diff<'_>, SnapshotError> {
        let tree = |id: &SnapshotId| {
            self.repo
                .find_tree(super::oid(id)?)
                .map_err(|_| SnapshotError::UnknownSnapshot(id.0.clone()))
        };
        let old = from.map(tree).transpose()?;
        let new = tree(to)?;
        let mut options = DiffOptions::new();
        options.include_typechange(true);
        let mut diff = self
            .repo
            .diff_tree_to_tree(old.as_ref(), Some(&new), Some(&mut options))?;
        diff.find_similar(Some(DiffFindOptions::new().renames(true)))?;
        Ok(diff)
    }
}
