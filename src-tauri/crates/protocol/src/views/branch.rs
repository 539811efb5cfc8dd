//! A session's conversation as front ends see it: the current branch as entries (the chat), the
//! whole tree (the tree panel), two branches compared, and search hits. Made by `arbor-app`
//! from the store's rows, converted here at the boundary: a store row never crosses as it is.

use serde::{Deserialize, Serialize};

use crate::message::AgentMessage;
use crate::views::code::{FileChange, RestoreInfo};
use crate::views::SessionState;

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    User,
    Assistant,
    ToolResult,
    ModelChange,
    ThinkingLevelChange,
    /// Stands in for the conversation before it in the model's context.
    Compaction,
    /// A summary of a branch the user left, carried into the new one.
    BranchSummary,
    /// A label recorded as a tree entry (imports).
    Label,
}

impl NodeKind {
    /// The kind as it is sent (`user`, `tool_result`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::User => "user",
            NodeKind::Assistant => "assistant",
            NodeKind::ToolResult => "tool_result",
            NodeKind::ModelChange => "model_change",
            NodeKind::ThinkingLevelChange => "thinking_level_change",
            NodeKind::Compaction => "compaction",
            NodeKind::BranchSummary => "branch_summary",
            NodeKind::Label => "label",
        }
    }
}

/// The current branch of a session, root to leaf (its last `arbor_app::VIEW_TAIL` entries), and the
/// session's state.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct SessionView {
    /// `None` before the first message of a new session.
    pub session_id: Option<String>,
    pub title: Option<String>,
    pub entries: Vec<BranchEntry>,
    /// How many entries of the branch come before `entries` (not in this answer: the chat asks
    /// for them as the user scrolls back).
    pub earlier: usize,
    pub state: SessionState,
}

/// Entries of the current branch before a given one: `entries`, and how many come before them.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct BranchPage {
    pub entries: Vec<BranchEntry>,
    pub earlier: usize,
}

/// One node on the current branch.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct BranchEntry {
    pub node_id: String,
    pub parent_id: Option<String>,
    pub kind: NodeKind,
    /// The message (`None` for model and thinking-level markers).
    pub message: Option<AgentMessage>,
    pub aborted: bool,
    pub label: Option<String>,
    /// The children of this node's parent of the same kind, oldest first (this node among
    /// them): the branches a `‹ 2/3 ›` switcher moves between.
    pub sibling_ids: Vec<String>,
    /// Compaction and branch-summary nodes: the summary text.
    pub summary: Option<String>,
    /// Compaction nodes: the context size before compacting.
    pub tokens_before: Option<u64>,
}

/// One node of the tree panel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct TreeNodeView {
    pub id: String,
    pub parent_id: Option<String>,
    pub kind: NodeKind,
    /// First non-empty line of the node's text, shortened.
    pub first_line: String,
    pub label: Option<String>,
    pub aborted: bool,
    /// Tokens of this node's request and answer (assistant messages; 0 for others).
    pub tokens: u64,
    /// US dollars this node cost.
    pub cost: f64,
    /// The files this node changed (from the state of its nearest ancestor with one).
    pub files: Vec<FileChange>,
}

/// The session as a tree: nodes parents first, siblings oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct SessionTreeView {
    pub session_id: Option<String>,
    /// The node the conversation continues from.
    pub leaf_id: Option<String>,
    pub nodes: Vec<TreeNodeView>,
}

/// The nodes stored since a tree panel last read the tree: `nodes` are the session's nodes from
/// index `from` on (nodes are never removed and always listed in the order they were stored, so
/// a panel that knows `from` nodes appends these), with the current leaf. A panel that knows
/// another session, or another count, reads the whole tree instead.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct SessionTreeDelta {
    pub session_id: Option<String>,
    pub leaf_id: Option<String>,
    /// How many nodes the session had before `nodes`.
    pub from: usize,
    pub nodes: Vec<TreeNodeView>,
}

/// Where going to a node landed: the branch shown, and the text of a user message gone to
/// (handed back for editing: sending it makes a sibling branch).
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct NodeVisit {
    pub view: SessionView,
    pub editor_text: Option<String>,
}

/// The paths to two nodes from where they part.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct BranchComparison {
    pub session_id: String,
    /// The deepest node both paths go through (`None`: they share no node).
    pub ancestor_id: Option<String>,
    /// How many nodes the two paths share (root down to the ancestor).
    pub shared_nodes: usize,
    pub left: ComparedBranch,
    pub right: ComparedBranch,
}

/// One side of a [`BranchComparison`].
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct ComparedBranch {
    /// The node the branch was compared at (resolved from an id or prefix).
    pub node_id: String,
    /// The nodes below the common ancestor down to `node_id`, in order.
    pub entries: Vec<BranchEntry>,
    /// Tokens and US dollars of the whole path, root to `node_id`.
    pub tokens: u64,
    pub cost: f64,
    /// Tokens and US dollars of `entries` alone (what this branch added after the split).
    pub own_tokens: u64,
    pub own_cost: f64,
}

/// A restore from the tree: what it did, and the branch shown when it also went to the node.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct FilesRestored {
    pub restore: RestoreInfo,
    /// With "go there too": where the conversation landed.
    pub visit: Option<NodeVisit>,
}

/// A node whose text matches a search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct SearchHit {
    pub project_id: String,
    pub project_root: String,
    pub session_id: String,
    pub session_title: String,
    pub node_id: String,
    pub kind: NodeKind,
    /// The matching passage, matches wrapped in `[` `]`, cuts marked `…`.
    pub snippet: String,
    /// Unix milliseconds.
    pub created_at: i64,
}
