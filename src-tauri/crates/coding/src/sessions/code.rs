//! Code state in the session tree: the recorder snapshots the workspace at each user turn and
//! after every tool call that may change files, and stores the snapshot with the node (only
//! when the state changed: a node without one saw its nearest ancestor's); going back brings a
//! node's files back, undoably.

use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use arbor_agent::{AgentMessage, ToolCallDecision, ToolCallHook};
use arbor_llm::ToolCall;
pub use arbor_protocol::views::code::{NodeDiff, RestoreInfo, RestorePreview};
use arbor_store::NodeCode;
use tokio_util::sync::CancellationToken;

use super::recorder::{SessionRecorder, SessionsError};
use super::CodingEvent;
use crate::snapshots::{CodeTracker, FileChange, RestoreOutcome, SnapshotError, SnapshotId};

/// Built-in tools that only read (or, like `todo`, touch nothing): no snapshot after them. Every other tool (`write`, `edit`,
/// `bash`, `js`, the model's own tools) may change files.
pub const READ_ONLY_TOOLS: &[&str] = &["read", "ls", "grep", "find", "todo"];

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
        if let Some(tracker) = &tracker {
            // The shadow repository is opened and its stat cache read now, on a thread of its
            // own, instead of when the first user turn's snapshot starts: that snapshot is
            // then only the walk of the workspace, and a one-shot run waits less for it.
            let tracker = Arc::clone(tracker);
            let _detached = std::thread::Builder::new()
                .name("arbor-snapshot-open".into())
                .spawn(move || tracker.prepare());
        }
        self.lock().code = tracker;
    }

    pub fn code_tracker(&self) -> Option<Arc<CodeTracker>> {
        self.lock().code.clone()
    }

    fn tracker(&self) -> Result<Arc<CodeTracker>, SessionsError> {
        self.wait_for_snapshot();
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
        self.wait_for_snapshot();
        let previous = self.state_at_leaf()?;
        code_against(tracker, previous.as_ref())
    }

    /// For a user message, when code state is recorded: the state at the leaf it goes under
    /// (what its snapshot is compared with). Its snapshot is then taken beside the request the
    /// turn starts ([`SessionRecorder::snapshot_beside`]) instead of before it: the request
    /// goes out at once, and the snapshot is complete before any tool that may change files
    /// runs ([`SnapshotGate`]), before the next snapshot, a restore, and the run's end.
    pub(super) fn snapshots_beside(&self, message: &AgentMessage) -> Option<Option<SnapshotId>> {
        if !matches!(message, AgentMessage::User(_)) {
            return None;
        }
        self.code_tracker()?;
        self.wait_for_snapshot();
        // A store that cannot say is reported by the usual path (`code_for`).
        self.state_at_leaf().ok()
    }

    /// Takes the snapshot of the user turn `node_id` (stored without one) on its own thread and
    /// records it with the node, compared with `previous`.
    pub(super) fn snapshot_beside(&self, node_id: &str, previous: Option<SnapshotId>) {
        let Some(tracker) = self.code_tracker() else {
            return;
        };
        let recorder = self.clone();
        let node = node_id.to_owned();
        let take = move || recorder.record_turn_snapshot(&tracker, &node, previous.as_ref());
        let mut pending = self.pending_snapshot.lock();
        match std::thread::Builder::new()
            .name("arbor-turn-snapshot".into())
            .spawn(take.clone())
        {
            Ok(handle) => *pending = Some(handle),
            // No thread to be had: taken here, before the request, as it used to be.
            Err(_) => {
                drop(pending);
                take();
            }
        }
    }

    /// Takes the snapshot of the user turn `node_id` with `tracker` and records it with the
    /// node, compared with `previous` (a failure is reported, the node left without one).
    pub(super) fn record_turn_snapshot(
        &self,
        tracker: &CodeTracker,
        node_id: &str,
        previous: Option<&SnapshotId>,
    ) {
        let recorded = code_against(tracker, previous).and_then(|code| match code {
            Some(code) => Ok(self.with_store(|store| store.record_code(node_id, &code))?),
            None => Ok(false),
        });
        if let Err(error) = recorded {
            self.emit(&CodingEvent::SnapshotError {
                message: error.to_string(),
            });
        }
    }

    /// Waits until a user turn's snapshot taken beside its request is recorded (at once when
    /// there is none).
    pub fn wait_for_snapshot(&self) {
        let handle = self.pending_snapshot.lock().take();
        if let Some(handle) = handle {
            // The thread reports its own failures; a panic there leaves the node without code.
            let _finished = handle.join();
        }
    }

    /// [`SessionRecorder::wait_for_snapshot`] for async callers: the wait happens on a
    /// blocking thread, not on the runtime's.
    pub async fn snapshot_settled(&self) {
        if self.pending_snapshot.is_empty() {
            return;
        }
        let recorder = self.clone();
        let _finished = tokio::task::spawn_blocking(move || recorder.wait_for_snapshot()).await;
    }
}

/// The code state to store for a snapshot taken now by `tracker`, compared with `previous` (the
/// state of the path it extends): `None` when nothing changed or snapshots are off.
fn code_against(
    tracker: &CodeTracker,
    previous: Option<&SnapshotId>,
) -> Result<Option<NodeCode>, SessionsError> {
    let Some(snapshot) = tracker.take()? else {
        return Ok(None);
    };
    let files = match previous {
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

/// The thread taking a user turn's snapshot beside its request, if one is running.
#[derive(Clone, Default)]
pub(crate) struct PendingSnapshot(Arc<Mutex<Option<JoinHandle<()>>>>);

impl PendingSnapshot {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, Option<JoinHandle<()>>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn is_empty(&self) -> bool {
        self.lock().is_none()
    }
}

/// Holds back every tool that may change files (all but [`READ_ONLY_TOOLS`]) until the user
/// turn's snapshot, taken beside the request, is recorded: that snapshot must show the files as
/// they were before the turn's first change.
pub struct SnapshotGate(pub SessionRecorder);

#[async_trait::async_trait]
impl ToolCallHook for SnapshotGate {
    async fn before_tool_call(
        &self,
        call: &ToolCall,
        _cancel: &CancellationToken,
    ) -> ToolCallDecision {
        if !READ_ONLY_TOOLS.contains(&call.name.as_str()) {
            self.0.snapshot_settled().await;
        }
        ToolCallDecision::Allow
    }
}

impl SessionRecorder {
    /// The code state at this live session's own leaf, if any node on its path recorded one.
    pub(super) fn state_at_leaf(&self) -> Result<Option<SnapshotId>, SessionsError> {
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
