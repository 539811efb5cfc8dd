//! A project's files as front ends see them: snapshots, the files a node changed with their
//! diffs, and restores — what they would change and what they did. Made by `arbor-git` (the
//! snapshots) and `arbor-coding` (a node's files).

use serde::{Deserialize, Serialize};

/// The id of a recorded workspace state (a git tree id in the shadow repository, hex).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ts_rs::TS)]
pub struct SnapshotId(pub String);

impl std::fmt::Display for SnapshotId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// How a file differs between two snapshots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ChangeStatus {
    Added,
    Deleted,
    Modified,
    Renamed,
    /// Only its mode changed (the executable bit, or a file became a link).
    ModeChanged,
}

/// One file that differs, with the lines added and removed (0 and 0 for binary files).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct FileChange {
    pub path: String,
    /// A renamed file's path before.
    pub old_path: Option<String>,
    pub status: ChangeStatus,
    pub added: usize,
    pub removed: usize,
    pub binary: bool,
}

/// A file's differences between two states: its change and its unified diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct FileDiff {
    pub change: FileChange,
    /// The file's patch (git's format), cut at `arbor_git`'s `PATCH_MAX_BYTES`; empty for binary files.
    pub patch: String,
    /// The patch was cut.
    pub truncated: bool,
}

/// What a restore does to one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct PlannedChange {
    pub path: String,
    /// `true`: the file is written (changed back, or recreated); `false`: it is deleted.
    pub write: bool,
    /// The file differs from Arbor's last snapshot: someone changed it outside Arbor.
    pub changed_outside: bool,
}

/// What restoring a node's files would do, before anything is written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct RestorePreview {
    /// The node whose files would come back (full id).
    pub node_id: String,
    pub snapshot: SnapshotId,
    /// Every file that would be written or deleted, by path; those marked `changed_outside`
    /// were changed outside Arbor since its last snapshot and are only overwritten when asked.
    pub changes: Vec<PlannedChange>,
}

/// A restore done (or undone).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct RestoreInfo {
    /// The node whose files came back; `None` for an undo.
    pub node_id: Option<String>,
    pub written: usize,
    pub deleted: usize,
    /// The state before: "undo restore" brings it back.
    pub undo: SnapshotId,
    pub restored: SnapshotId,
}

/// The code of two nodes compared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct NodeDiff {
    pub from_node: String,
    pub to_node: String,
    pub from_snapshot: SnapshotId,
    pub to_snapshot: SnapshotId,
    pub files: Vec<FileDiff>,
}
