//! What the session commands answer, as typed structs. They serialize exactly as the RPC
//! responses documented in `docs/rpc.md` (the CLI writes them as they are); the desktop shell
//! returns them from its commands. Made by `arbor-app` (re-exported as `arbor_app::responses`)
//! from the views, never from a store row.

use std::path::PathBuf;

use crate::views::branch::SessionTreeView;
use crate::views::code::{RestoreInfo, RestorePreview};
use serde::Serialize;

/// `abort`: how many queued messages were dropped.
#[derive(Debug, Clone, Serialize)]
pub struct AbortInfo {
    pub dropped_steering: usize,
    pub dropped_follow_ups: usize,
    /// The texts of the messages dropped, steering first: a front end gives them back to its
    /// user instead of losing them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undelivered: Vec<String>,
}

/// `set_model`.
#[derive(Debug, Clone, Serialize)]
pub struct ModelInfo {
    pub provider: String,
    pub model: String,
}

/// `get_tree`: the tree panel's view of the session; `null` before the first message.
#[derive(Debug, Clone, Serialize)]
pub struct TreeInfo {
    pub tree: Option<SessionTreeView>,
}

/// `navigate`.
#[derive(Debug, Clone, Serialize)]
pub struct NavigationInfo {
    pub session_id: Option<String>,
    pub leaf_id: Option<String>,
    /// The text of a user message navigated to, handed back for editing.
    pub editor_text: Option<String>,
    pub message_count: usize,
}

/// `compact`.
#[derive(Debug, Clone, Serialize)]
pub struct CompactionInfo {
    pub summary: String,
    pub tokens_before: u64,
    pub tokens_after: u64,
    pub node_id: Option<String>,
    pub message_count: usize,
}

/// `label`.
#[derive(Debug, Clone, Serialize)]
pub struct LabelInfo {
    pub node_id: String,
    pub label: Option<String>,
}

/// `export`: the text, or where it was written.
#[derive(Debug, Clone, Serialize)]
pub struct ExportInfo {
    pub session_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<usize>,
}

/// `fork`.
#[derive(Debug, Clone, Serialize)]
pub struct ForkInfo {
    pub session_id: String,
    pub leaf_id: Option<String>,
    pub message_count: usize,
}

/// `switch_session`.
#[derive(Debug, Clone, Serialize)]
pub struct SwitchInfo {
    pub session_id: String,
    pub title: String,
    pub leaf_id: Option<String>,
    pub message_count: usize,
}

/// `list_sessions`.
#[derive(Debug, Clone, Serialize)]
pub struct SessionsInfo {
    pub sessions: Vec<crate::views::SessionListItem>,
}

/// `regenerate`: the user message the new answer will follow.
#[derive(Debug, Clone, Serialize)]
pub struct RegenerateInfo {
    pub user_node_id: String,
}

/// `rename_session`.
#[derive(Debug, Clone, Serialize)]
pub struct RenameInfo {
    pub session_id: String,
    pub title: String,
}

/// `navigate` with `files`: where going to a node landed, and the restore done on the way.
#[derive(Debug, Clone, Serialize)]
pub struct NavigationWithFiles {
    #[serde(flatten)]
    pub navigation: NavigationInfo,
    /// With `files: restore`: what was written and deleted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restore: Option<RestoreInfo>,
    /// With `files: restore`: the preview's list, as it was done.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preview: Option<RestorePreview>,
}
