//! The values the store hands out and takes in.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::error::{Result, StoreError};

/// A folder the user works in. One per distinct root path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Project {
    pub id: String,
    /// Canonical absolute path of the project folder.
    pub root: String,
    /// Where it was cloned from, when known.
    pub origin_url: Option<String>,
    /// Unix milliseconds.
    pub created_at: i64,
    /// Unix milliseconds; bumped by [`crate::Store::open_project`].
    pub last_opened_at: i64,
}

/// One conversation: a tree of nodes plus the node the user is currently at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    pub id: String,
    pub project_id: String,
    /// The first line of the first user prompt, until the user renames the session.
    pub title: String,
    /// `true` once renamed; the automatic title no longer applies.
    pub title_is_custom: bool,
    /// The current leaf; `None` before the first node (or after moving above the first root).
    pub leaf_id: Option<String>,
    pub model: Option<String>,
    pub thinking_level: Option<String>,
    /// Unix milliseconds.
    pub created_at: i64,
    /// Unix milliseconds of the last append, move, rename or label.
    pub updated_at: i64,
}

/// A session as listed: with its project's root and its size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionSummary {
    #[serde(flatten)]
    pub session: Session,
    pub project_root: String,
    pub node_count: u64,
}

/// What a node is. Stored as its snake_case name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    User,
    Assistant,
    ToolResult,
    ModelChange,
    ThinkingLevelChange,
    /// Stands in for everything before its `first_kept_id` (see the crate docs).
    Compaction,
    /// A summary of a branch the user left, carried into the new one.
    BranchSummary,
    /// A label recorded as a tree entry (for imports); [`crate::Store::set_label`] is the usual
    /// way to label and does not add nodes.
    Label,
}

impl NodeKind {
    /// Every kind, in a stable order.
    pub const ALL: [NodeKind; 8] = [
        NodeKind::User,
        NodeKind::Assistant,
        NodeKind::ToolResult,
        NodeKind::ModelChange,
        NodeKind::ThinkingLevelChange,
        NodeKind::Compaction,
        NodeKind::BranchSummary,
        NodeKind::Label,
    ];

    /// The stored name (`"tool_result"`, ...).
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

    /// Parses a stored name.
    pub fn parse(s: &str) -> Result<NodeKind> {
        NodeKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| StoreError::Corrupt(format!("unknown node kind {s:?}")))
    }

    /// The role a message of this kind has, if it is a message.
    pub fn default_role(self) -> Option<&'static str> {
        match self {
            NodeKind::User => Some("user"),
            NodeKind::Assistant => Some("assistant"),
            NodeKind::ToolResult => Some("tool_result"),
            _ => None,
        }
    }
}

/// A stored node of a session tree.
///
/// `content` and `usage` are the stored JSON text, unparsed: building a context of thousands
/// of nodes then costs one validation scan per node instead of a tree of allocations, and the
/// caller deserializes straight into its own types ([`Node::content_as`]). Equality compares
/// that text, which the store always writes in `serde_json`'s compact form.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Node {
    pub id: String,
    pub session_id: String,
    /// `None` for a root.
    pub parent_id: Option<String>,
    pub kind: NodeKind,
    pub role: Option<String>,
    /// Opaque to the store (the coding crate keeps serialized LLM messages here).
    pub content: Box<RawValue>,
    /// Plain text given by the caller; searched and used for titles and tree lines.
    pub text: String,
    pub usage: Option<Box<RawValue>>,
    /// A partial assistant message the user aborted.
    pub aborted: bool,
    /// Compaction only: the first node kept verbatim after the summary.
    pub first_kept_id: Option<String>,
    /// Compaction only: context tokens before compacting.
    pub tokens_before: Option<u64>,
    /// Unix milliseconds.
    pub created_at: i64,
}

impl Node {
    /// `content` deserialized into `T`, straight from the stored JSON text.
    pub fn content_as<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.content.get())
    }

    /// `content` as a [`Value`] (allocates the whole tree; prefer [`Node::content_as`]).
    pub fn content_value(&self) -> Result<Value, serde_json::Error> {
        self.content_as()
    }

    /// `usage` as a [`Value`], if the node has one.
    pub fn usage_value(&self) -> Result<Option<Value>, serde_json::Error> {
        self.usage
            .as_deref()
            .map(|u| serde_json::from_str(u.get()))
            .transpose()
    }
}

impl PartialEq for Node {
    fn eq(&self, other: &Node) -> bool {
        let raw_eq = |a: &RawValue, b: &RawValue| a.get() == b.get();
        self.id == other.id
            && self.session_id == other.session_id
            && self.parent_id == other.parent_id
            && self.kind == other.kind
            && self.role == other.role
            && raw_eq(&self.content, &other.content)
            && self.text == other.text
            && match (&self.usage, &other.usage) {
                (None, None) => true,
                (Some(a), Some(b)) => raw_eq(a, b),
                _ => false,
            }
            && self.aborted == other.aborted
            && self.first_kept_id == other.first_kept_id
            && self.tokens_before == other.tokens_before
            && self.created_at == other.created_at
    }
}

/// Stored JSON text as a [`RawValue`]; fails if the column does not hold JSON.
pub(crate) fn raw_json(text: String) -> Result<Box<RawValue>> {
    Ok(RawValue::from_string(text)?)
}

/// A node to append. Build with [`NewNode::new`] or [`NewNode::compaction`] and the `with_*`
/// methods; fields are public for anything else.
#[derive(Debug, Clone, PartialEq)]
pub struct NewNode {
    pub kind: NodeKind,
    pub role: Option<String>,
    pub content: Value,
    pub text: String,
    pub usage: Option<Value>,
    pub aborted: bool,
    /// `None`: append under the session's current leaf. `Some(id)`: under that node (which must
    /// be in the same session).
    pub parent_id: Option<String>,
    pub first_kept_id: Option<String>,
    pub tokens_before: Option<u64>,
    /// The code state recorded with this node (stored in the same transaction).
    pub code: Option<NodeCode>,
}

/// The code state a node recorded: the workspace snapshot after it, and what changed since the
/// state of its nearest ancestor that has one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeCode {
    /// The snapshot's id (the caller's: the store does not look inside).
    pub snapshot: String,
    /// The files changed, as JSON text the caller owns (kept as written).
    pub files: String,
}

/// Where a node's code state comes from: the node itself or its nearest ancestor with one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeAt {
    /// The node that recorded the state.
    pub node_id: String,
    pub snapshot: String,
}

impl NewNode {
    /// A node of `kind` with its default role, under the current leaf.
    pub fn new(kind: NodeKind, content: Value, text: impl Into<String>) -> NewNode {
        NewNode {
            kind,
            role: kind.default_role().map(str::to_string),
            content,
            text: text.into(),
            usage: None,
            aborted: false,
            parent_id: None,
            first_kept_id: None,
            tokens_before: None,
            code: None,
        }
    }

    /// A compaction node: `summary` stands in for every node before `first_kept_id` on the path.
    /// `content` is `{"summary", "first_kept_id", "tokens_before"}`; replace it to store more.
    pub fn compaction(
        summary: impl Into<String>,
        first_kept_id: impl Into<String>,
        tokens_before: u64,
    ) -> NewNode {
        let summary = summary.into();
        let first_kept_id = first_kept_id.into();
        let content = serde_json::json!({
            "summary": summary,
            "first_kept_id": first_kept_id,
            "tokens_before": tokens_before,
        });
        NewNode {
            first_kept_id: Some(first_kept_id),
            tokens_before: Some(tokens_before),
            ..NewNode::new(NodeKind::Compaction, content, summary)
        }
    }

    pub fn with_role(mut self, role: impl Into<String>) -> NewNode {
        self.role = Some(role.into());
        self
    }

    pub fn with_usage(mut self, usage: Value) -> NewNode {
        self.usage = Some(usage);
        self
    }

    /// Marks a partial assistant message that the user aborted.
    pub fn with_aborted(mut self, aborted: bool) -> NewNode {
        self.aborted = aborted;
        self
    }

    /// Records the code state seen after this node (see [`NodeCode`]).
    pub fn with_code(mut self, code: NodeCode) -> NewNode {
        self.code = Some(code);
        self
    }

    /// Appends under `parent_id` instead of the current leaf.
    pub fn with_parent(mut self, parent_id: impl Into<String>) -> NewNode {
        self.parent_id = Some(parent_id.into());
        self
    }
}

/// One line of [`SessionTree`]: enough to draw the tree without loading contents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeNode {
    pub id: String,
    pub parent_id: Option<String>,
    pub kind: NodeKind,
    pub role: Option<String>,
    /// First non-empty line of the node's text, shortened.
    pub first_line: String,
    pub label: Option<String>,
    pub aborted: bool,
    pub is_leaf: bool,
    pub created_at: i64,
    /// The files this node changed, as its [`NodeCode::files`] JSON; `None` when it recorded
    /// no code state.
    pub files: Option<String>,
}

/// A node of a model context as stored (see [`Store::context_json`](crate::Store::context_json)):
/// its stored JSON unchecked, and its text only for compaction and branch-summary nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextNode {
    pub id: String,
    pub kind: NodeKind,
    /// The stored JSON text, as written (not checked on the way out).
    pub content: String,
    /// Summaries' text; empty for other kinds.
    pub text: String,
}

/// A node of a session's outline: where it hangs, what it is and its label, nothing read from
/// its content (see [`Store::session_outline`](crate::Store::session_outline)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutlineNode {
    pub id: String,
    pub parent_id: Option<String>,
    pub kind: NodeKind,
    pub label: Option<String>,
}

/// All nodes of a session, parents before children, siblings oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionTree {
    pub session: Session,
    pub nodes: Vec<TreeNode>,
}

/// Limits a search.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchOptions {
    /// Only this project's sessions.
    pub project_id: Option<String>,
    /// Only this session.
    pub session_id: Option<String>,
    /// At most this many hits (default 50).
    pub limit: Option<usize>,
}

/// A node whose text matches a search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchHit {
    pub project_id: String,
    pub project_root: String,
    pub session_id: String,
    pub session_title: String,
    pub node_id: String,
    pub kind: NodeKind,
    /// The matching passage, matches wrapped in `[` `]`, cuts marked `…`.
    pub snippet: String,
    pub created_at: i64,
}

/// First non-empty line of `text`, trimmed and cut to `max` characters (with `…`).
pub(crate) fn first_line(text: &str, max: usize) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    if line.chars().count() <= max {
        return line.to_string();
    }
    match line.char_indices().nth(max.saturating_sub(1)) {
        None => line.to_string(),
        Some((cut, _)) => {
            let mut s = line[..cut].trim_end().to_string();
            s.push('…');
            s
        }
    }
}
