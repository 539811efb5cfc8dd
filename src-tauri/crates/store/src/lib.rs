//! Arbor's store: one SQLite database per data folder holding projects, sessions as trees of
//! nodes, labels and a full-text index. Content-agnostic: a node's `content` is opaque JSON
//! (the coding crate stores serialized LLM messages) and its `text` is the plain text the
//! caller wants searched.
//!
//! # Database
//!
//! `DATA_DIR/arbor.db` ([`Store::open`]: a quick check first, so a damaged file is refused for
//! writing with [`StoreError::Damaged`]; [`Store::open_read_only`] for readers, which also works in
//! a read-only folder), WAL journal (left beside the file at close: SQLite's automatic checkpoint
//! bounds it, and a short run pays no checkpoint), `foreign_keys=ON`, `synchronous=NORMAL`, a 5 s
//! busy timeout. Every write is one short `BEGIN IMMEDIATE` transaction (an import: one longer one
//! for the whole session), so several connections or processes can write the same file; a `kill -9`
//! at any moment leaves the database consistent, losing at most the write in flight. Forward-only
//! migrations in `migrations/NNNN_*.sql` are applied on open and tracked in `PRAGMA user_version`;
//! `PRAGMA application_id` marks the file as Arbor's, so a foreign or corrupt file is refused
//! ([`StoreError::NotArborDatabase`]) instead of being modified.
//!
//! # Schema (version 7)
//!
//! ```text
//! projects  id PK, root UNIQUE, origin_url, created_at, last_opened_at
//! sessions  id PK, project_id → projects ON DELETE CASCADE, title, title_is_custom,
//!           leaf_id (→ a node of this session, deferred FK; NULL = before the first node),
//!           model, thinking_level, created_at, updated_at
//! nodes     seq INTEGER PK (insertion order, FTS rowid), id UNIQUE,
//!           session_id → sessions ON DELETE CASCADE, parent_id (→ a node of the same session;
//!           NULL = a root), kind, role, content JSON, text, usage JSON, aborted,
//!           first_kept_id (compaction only, → a node of the same session), tokens_before,
//!           created_at; INDEX (session_id, parent_id); covering INDEX nodes_outline
//!           (session_id, seq, kind, id, parent_id, usage): the outline, usage and per-session
//!           figures never read a row's content or text, and whole rows of a session are read
//!           in insertion order
//! labels    node_id PK (→ a node of session_id), session_id, label, created_at
//! node_code node_id PK (→ a node of session_id), session_id, snapshot, files JSON: the code
//!           state a node recorded (see [`NodeCode`]); a node without a row saw the state of
//!           its nearest ancestor with one ([`Store::code_at`])
//! tool_approvals id PK, project_id → projects ON DELETE CASCADE, name, scope, hash, files JSON,
//!           reason, session_id, status (pending → approved | rejected; approved → revoked |
//!           superseded), decision_reason, created_at, decided_at: one version of a tool of
//!           the model's, pinned to its content hash ([`ToolApproval`])
//! tool_runs id PK, project_id → projects ON DELETE CASCADE, name, hash, arguments, result,
//!           is_error, duration_ms, created_at ([`ToolRun`])
//! projects (6) + permission_mode, trusted; permission_rules project_id → projects, effect,
//!           rule, created_at: a project's mode, trust and saved rules
//! worktrees project_id PK (the worktree folder's own project row), main_project_id →
//!           projects, name UNIQUE per main project, branch, base_branch, base_commit,
//!           archived_snapshot, archived_at, created_at ([`WorktreeRow`])
//! approved_setups project_id, hash PK: worktree setup commands the user approved, pinned
//! mcp_approved_servers project_id → projects, name PK, hash, definition: a project's MCP
//!           servers approved, pinned to their definition; mcp_disabled_servers project_id,
//!           name; mcp_approved_tools scope ('user' or a project id), server, tool PK, spec:
//!           a server's tools as approved ([`mcp`])
//! nodes_fts FTS5 external-content table over nodes.text (rowid = nodes.seq); a stored node's
//!           seq waits in nodes_fts_pending until a search indexes it ([`Store::index_pending`]),
//!           triggers keep a deleted or edited node out of both; search joins back to nodes /
//!           sessions / projects for filtering
//! ```
//!
//! Ids are UUID v7 strings (time-ordered); every `id` parameter also accepts a unique prefix
//! ([`StoreError::AmbiguousId`] lists the candidates). Times are Unix milliseconds.
//!
//! # Context rule
//!
//! [`Store::context`] returns, root first, the path from the root to the session's leaf, except
//! when that path holds a compaction node. Then the **latest** compaction `C` on the path (the
//! one nearest the leaf) stands in for everything before its `first_kept_id` node `K`:
//!
//! ```text
//! path:    n0 … n(k-1)  K … x  C  y … leaf
//! context: C  K … x  y … leaf
//! ```
//!
//! `C` comes first and is not repeated at its own position; older compaction nodes between `K`
//! and the leaf are left out (the latest summary already merges them). Because the rule only
//! looks at one path, a compaction on one branch never affects a sibling branch. Nothing is
//! deleted by compaction or branching: the tree keeps every node.
//!
//! Appends go under the current leaf (or an explicit parent in the same session) and move the
//! leaf; [`Store::append_under`] goes under a given node whatever the leaf is (a live session
//! writes under its own last node, so two processes on one session make branches, not one
//! woven chain); [`Store::set_leaf`] moves it anywhere in the session (branching);
//! [`Store::fork_session`] copies a path into a new session; [`Store::import_session`] creates
//! a whole session (nodes, labels, leaf, original timestamps) in one transaction.
//!
//! # Reading nodes
//!
//! A [`Node`]'s `content` and `usage` are handed out as the stored JSON text
//! ([`serde_json::value::RawValue`]), validated but not parsed: [`Node::content_as`]
//! deserializes straight into the caller's type, [`Node::content_value`] gives a `Value`.
//! [`Store::context_json`] is the one exception: the context as [`ContextNode`]s whose JSON is
//! handed out unchecked, for a caller that parses every message anyway (resuming a session).

mod appended;
mod check;
mod code;
mod context;
mod db;
mod error;
mod ids;
mod import;
pub mod mcp;
mod model;
mod nodes;
mod permissions;
mod projects;
mod search;
mod sessions;
mod stats;
mod tools;
mod tree;
mod worktrees;

pub use appended::AppendedNode;
pub use db::{
    AnotherConnection, Store, APPLICATION_ID, BUSY_TIMEOUT, DB_FILE_NAME, SCHEMA_VERSION,
};
pub use error::{Result, StoreError};
pub use import::{ImportedNode, ImportedSession};
pub use model::{
    CodeAt, ContextNode, NewNode, Node, NodeCode, NodeKind, OutlineNode, Project, SearchHit,
    SearchOptions, Session, SessionSummary, SessionTree, TreeNode,
};
pub use permissions::{ProjectPermissions, StoredRule};
pub use search::fts_query;
pub use stats::{NodeUsage, SessionStats};
pub use tools::{ApprovalStatus, NewToolApproval, NewToolRun, ToolApproval, ToolRun};
pub use worktrees::{NewWorktreeRow, WorktreeRow};
