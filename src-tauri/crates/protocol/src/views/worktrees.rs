//! Worktrees as front ends see them: a project's worktrees (each a git worktree on its own
//! branch `arbor/<name>`, where one or more sessions work apart from the main checkout), what
//! archiving one would lose, the review of what a worktree changed against its base, and the
//! outcomes of commit, merge and push. Made by `arbor-git` (`worktrees`) and `arbor-app`.

use serde::{Deserialize, Serialize};

use super::code::FileChange;

/// Whether a worktree's folder is there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum WorktreeState {
    /// The folder exists; sessions can work in it.
    Active,
    /// The folder was removed after a snapshot of it was kept; it can be restored.
    Archived,
}

/// One worktree of a project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct WorktreeView {
    /// Unique within the project; also the last part of its branch and folder.
    pub name: String,
    pub path: String,
    /// `arbor/<name>`.
    pub branch: String,
    /// The branch it was made from (and merges into).
    pub base_branch: String,
    /// The commit it was made from.
    pub base_commit: String,
    pub state: WorktreeState,
    /// Commits on the branch that the base branch does not have.
    pub ahead: usize,
    /// Commits on the base branch that the branch does not have.
    pub behind: usize,
    /// Files changed, added or deleted and not committed (0 when archived).
    pub uncommitted: usize,
    /// Bytes on disk, ignored files included (0 when archived).
    pub size_bytes: u64,
    /// Unix milliseconds.
    pub created_at: i64,
    #[ts(optional = nullable)]
    pub archived_at: Option<i64>,
    /// The worktree's own status could not be read (the folder was removed by hand, …).
    #[ts(optional = nullable)]
    pub problem: Option<String>,
}

/// What removing a worktree's folder would lose, were it not snapshotted first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct ArchivePreview {
    pub name: String,
    /// Changed, added or deleted files that are not committed (the snapshot keeps them).
    pub uncommitted: Vec<String>,
    /// Ignored files (build output, installed dependencies): not kept; made again by the setup
    /// command.
    pub ignored_bytes: u64,
    /// Commits on the branch not merged into its base (the branch stays).
    pub unmerged_commits: usize,
}

/// One hunk of a file's patch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct ReviewHunk {
    /// Names this hunk as shown — its header and its lines — and is sent back to discard it:
    /// a hunk whose lines changed since (same header or not) is refused as stale.
    pub id: String,
    /// Git's `@@ -a,b +c,d @@` line.
    pub header: String,
    /// The hunk's lines, each starting with ` `, `+` or `-`.
    pub lines: String,
}

/// One file of a review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct ReviewFile {
    pub change: FileChange,
    pub hunks: Vec<ReviewHunk>,
    /// The patch was longer than a review shows: only the first hunks are listed.
    pub truncated: bool,
}

/// What a worktree changed against its base.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct WorktreeReview {
    pub name: String,
    pub branch: String,
    pub base_branch: String,
    /// Committed on the branch since it left the base (merge base → branch head).
    pub committed: Vec<ReviewFile>,
    /// Not committed yet (branch head → the folder, new files included).
    pub uncommitted: Vec<ReviewFile>,
}

/// How a merge into the base branch went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum MergeOutcome {
    /// The base branch had nothing of its own: it now points at the branch's head.
    FastForward { commit: String },
    /// A merge commit joins both.
    Merged { commit: String },
    /// Both changed the same lines: nothing was changed anywhere.
    Conflict { files: Vec<String> },
    /// The base branch already has every commit of the branch.
    UpToDate,
}

/// A commit made from a worktree's changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct CommitResult {
    pub commit: String,
    pub branch: String,
    pub files: usize,
}

/// A branch pushed to its remote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct PushResult {
    pub branch: String,
    /// The remote's URL, without credentials.
    pub url: String,
    pub commit: String,
}

/// The project's worktree setup command (`setup` in `.arbor/worktree.toml`): it runs in every
/// new worktree, in the sandbox, once the user approved this exact command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct WorktreeSetup {
    pub command: String,
    /// What an approval is pinned to; a changed command asks again.
    pub hash: String,
    pub approved: bool,
}

/// A worktree just made, with the files `.worktreeinclude` copied into it and the setup command
/// still to run (if the project has one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct WorktreeCreated {
    pub worktree: WorktreeView,
    pub included: Vec<String>,
    #[ts(optional = nullable)]
    pub setup: Option<WorktreeSetup>,
}

/// How a setup command ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct SetupOutcome {
    pub command: String,
    /// `None`: killed by a signal, or timed out.
    #[ts(optional = nullable)]
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    /// The command ran in the OS sandbox (bubblewrap or Landlock).
    pub sandboxed: bool,
}

/// What a live session of a window is doing, for the sidebar: sent whenever it changes, for
/// the shown session and for those running in the background.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ActivityState {
    /// A run is going on.
    Running,
    /// The run waits for the user (a permission request or a tool proposal).
    Waiting,
    /// The last run finished.
    Done,
    /// The last run failed.
    Error,
    /// Open, nothing run yet.
    Idle,
}

impl ActivityState {
    /// The state a session's event moves it to, if it changes one.
    pub fn after(event: &crate::SessionEvent) -> Option<Self> {
        use crate::{AgentEvent, CodingEvent, RunStatus, SessionEvent};
        match event {
            SessionEvent::Agent(AgentEvent::AgentStart) => Some(Self::Running),
            SessionEvent::Agent(AgentEvent::AgentEnd { status, .. }) => Some(match status {
                RunStatus::Failed => Self::Error,
                _ => Self::Done,
            }),
            SessionEvent::Coding(
                CodingEvent::PermissionRequested { .. }
                | CodingEvent::ApprovalRequested { .. }
                | CodingEvent::ElicitationRequested { .. },
            ) => Some(Self::Waiting),
            SessionEvent::Coding(
                CodingEvent::PermissionResolved { .. }
                | CodingEvent::ApprovalResolved { .. }
                | CodingEvent::ElicitationResolved { .. },
            ) => Some(Self::Running),
            _ => None,
        }
    }
}

/// A live session's activity, as the window's sidebar is told.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct SessionActivity {
    /// `None` until its first message is stored.
    #[ts(optional = nullable)]
    pub session_id: Option<String>,
    pub state: ActivityState,
    /// The worktree it works in.
    #[ts(optional = nullable)]
    pub worktree: Option<String>,
    /// It is the session the window shows.
    pub shown: bool,
}

/// A branch of a conversation carried on in a new worktree: the worktree (its files as the
/// branch's node left them) and the new session holding that branch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct WorktreeFork {
    pub created: WorktreeCreated,
    pub session_id: String,
}
