//! Code state in the session tree: the recorder snapshots the workspace at each user turn and
//! after every tool call that may change files, and stores the snapshot with the node (only
//! when the state changed: a node without one saw its nearest ancestor's); going back brings a
//! node's files back, undoably.

use std::sync::Arc;

use arbor_agent::AgentMessage;
pub use arbor_protocol::views::code::{NodeDiff, RestoreInfo, RestorePreview};
use arbor_store::NodeCode;

use super::recorder::{SessionRecorder, SessionsError};
use super::CodingEvent;
use crate::snapshots::{CodeTracker, FileChange, RestoreOutcome, SnapshotError, SnapshotId};

/// Built-in tools that only read: no snapshot after them. Every other tool (`write`, `edit`,
/// `bash`, `js`, the model's own tools) may change files.
pub const READ_ONLY_TOOLS: &[&str] = &["read", "ls", "grep", "find"];

/// Does storing `message` call for a snapshot? A user message starts a turn (the user may have
/// changed files since); a tool result follows a tool that may have changed them.
pub fn snapshots_after(message: &AgentMessage) -> bool {
    match message {
        AgentMessage::User(_) => true,
        AgentMessage::ToolResult(result) => !READ_ONLY_TOOLS.contains(&result.tool_name.as_str()),
        AgentMessage::Assistant(_) | AgentMessage::Custom(_) => false,
    }
}

/// What a restore of `node_id`'s files (`None`: an undo) did, as front ends are told.
fn restore_info(node_id: Option<String>, outcome: RestoreOutcome) -> RestoreInfo {
    RestoreInfo {
        node_id,
        written: outcome.written,
        deleted: outcome.deleted,
        undo: outcome.undo,
        restored: outcome.restored,
    }
}

impl SessionRecorder {
    /// Snapshots are taken with `tracker` from now on (`None`: no code state is recorded).
    pub fn set_code_tracker(&self, tracker: Option<Arc<CodeTracker>>) {
        self.lock().code = tracker;
    }

    pub fn code_tracker(&self) -> Option<Arc<CodeTracker>> {
        self.lock().code.clone()
    }

    fn tracker(&self) -> Result<Arc<CodeTracker>, SessionsError> {
        self.code_tracker().ok_or(SessionsError::NoCodeTracking)
    }

    /// The code state to store with `message`'s node: a snapshot when the message calls for one
    /// and the state differs from the path's last one (with the files changed since). A failed
    /// snapshot is reported and the message is stored without one.
    pub(super) fn code_for(&self, message: &AgentMessage) -> Option<NodeCode> {
        let tracker = self.code_tracker()?;
        if !snapshots_after(message) {
            return None;
        }
        match self.code_since_leaf(&tracker) {
            Ok(code) => code,
            Err(error) => {
                self.emit(&CodingEvent::SnapshotError {
                    message: error.to_string(),
                });
                None
            }
        }
    }

    fn code_since_leaf(&self, tracker: &CodeTracker) -> Result<Option<NodeCode>, SessionsError> {
        let previous = self.state_at_leaf()?;
        let Some(snapshot) = tracker.take()? else {
            return Ok(None);
        };
        let files = match &previous {
            Some(previous) if *previous == snapshot => return Ok(None),
            Some(previous) => tracker.changes(Some(previous), &snapshot)?,
            // The first state of a path: nothing to compare with.
            None => Vec::new(),
        };
        Ok(Some(NodeCode {
            snapshot: snapshot.0,
            files: serde_json::to_string(&files)?,
        }))
    }

    /// The code state at this live session's own leaf, if any node on its path recorded one.
    fn state_at_leaf(&self) -> Result<Option<SnapshotId>, SessionsError> {
        let inner = self.lock();
        let Some(leaf) = &inner.leaf else {
            return Ok(None);
        };
        Ok(inner.store.code_at(leaf)?.map(|at| SnapshotId(at.snapshot)))
    }

    /// The code state at `session_id`'s leaf: the last state that session stored.
    fn state_at_leaf_of(&self, session_id: &str) -> Result<Option<SnapshotId>, SessionsError> {
        let inner = self.lock();
        let Some(leaf) = inner.store.get_session(session_id)?.leaf_id else {
            return Ok(None);
        };
        Ok(inner
            .store
            .code_at(&leaf)?
            .map(|at| SnapshotId(at.snapshot)))
    }

    /// The files `node` changed (its own record; empty when it changed none).
    pub fn files_changed(&self, node: &str) -> Result<Vec<FileChange>, SessionsError> {
        let files = self.with_store(|store| store.node_files(node))?;
        Ok(match files {
            Some(json) => serde_json::from_str(&json)?,
            None => Vec::new(),
        })
    }

    /// The code state at `node` (id or unique prefix, in any session of the store): its full
    /// id, its session and the snapshot.
    fn code_at_node(&self, node: &str) -> Result<(String, String, SnapshotId), SessionsError> {
        let inner = self.lock();
        let found = inner.store.get_node(node)?;
        let at = inner
            .store
            .code_at(&found.id)?
            .ok_or_else(|| SessionsError::NoCodeState(found.id.clone()))?;
        Ok((found.id, found.session_id, SnapshotId(at.snapshot)))
    }

    /// What bringing `node`'s files back would change.
    pub fn preview_restore(&self, node: &str) -> Result<RestorePreview, SessionsError> {
        let tracker = self.tracker()?;
        let (node_id, session_id, snapshot) = self.code_at_node(node)?;
        let stored = self.state_at_leaf_of(&session_id)?;
        let plan = tracker.preview(&snapshot, stored.as_ref())?;
        Ok(RestorePreview {
            node_id,
            snapshot,
            changes: plan.changes,
        })
    }

    /// Brings `node`'s files back (the present is kept for [`SessionRecorder::undo_restore`]).
    /// Refused, with nothing written, when a file to change was changed outside Arbor, unless
    /// `overwrite_outside`.
    pub fn restore_files(
        &self,
        node: &str,
        overwrite_outside: bool,
    ) -> Result<RestoreInfo, SessionsError> {
        let tracker = self.tracker()?;
        let (node_id, session_id, snapshot) = self.code_at_node(node)?;
        let stored = self.state_at_leaf_of(&session_id)?;
        let outcome = tracker.restore(&snapshot, stored.as_ref(), overwrite_outside)?;
        Ok(restore_info(Some(node_id), outcome))
    }

    /// Brings back the files as they were before the last restore (undoing twice redoes).
    pub fn undo_restore(&self, overwrite_outside: bool) -> Result<RestoreInfo, SessionsError> {
        let outcome = self.tracker()?.undo_restore(overwrite_outside)?;
        Ok(restore_info(None, outcome))
    }

    /// Whether a restore can be undone now.
    pub fn can_undo_restore(&self) -> Result<bool, SessionsError> {
        Ok(self.tracker()?.undo_point()?.is_some())
    }

    /// The files that differ from `from`'s state to `to`'s, with their patches.
    pub fn diff_nodes(&self, from: &str, to: &str) -> Result<NodeDiff, SessionsError> {
        let tracker = self.tracker()?;
        let (from_node, _, from_snapshot) = self.code_at_node(from)?;
        let (to_node, _, to_snapshot) = self.code_at_node(to)?;
        let files = tracker.file_diffs(Some(&from_snapshot), &to_snapshot)?;
        Ok(NodeDiff {
            from_node,
            to_node,
            from_snapshot,
            to_snapshot,
            files,
        })
    }
}

impl From<SnapshotError> for SessionsError {
    fn from(error: SnapshotError) -> Self {
        SessionsError::Snapshot(error)
    }
}
