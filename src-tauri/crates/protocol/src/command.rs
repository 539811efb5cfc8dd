//! Commands in: what front ends send to an agent session.

use arbor_llm::{ImageContent, ThinkingLevel};

use crate::views::permissions::{PermissionDecision, PermissionMode};
use serde::{Deserialize, Serialize};

/// What going to a node does with the workspace's files.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum FilesMode {
    /// The conversation only; the files stay as they are.
    #[default]
    Keep,
    /// The conversation and the node's files.
    Restore,
}

impl FilesMode {
    fn is_keep(&self) -> bool {
        *self == FilesMode::Keep
    }
}

/// A command from a front end (one JSON line in the CLI's JSON and RPC modes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Command {
    /// Starts a run with a new user message (text, plus optional images and documents read
    /// as text — see `views::attachments`).
    Prompt {
        message: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<ImageContent>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        documents: Vec<crate::views::attachments::DocumentAttachment>,
    },
    /// Interrupts a running agent: delivered after the running tool call(s) finish; the turn's
    /// calls that have not started are skipped with an error result saying so.
    Steer { message: String },
    /// Waits until the agent would otherwise stop, then continues the run with this message.
    FollowUp { message: String },
    /// Cancels the stream and every running tool; queued steering and follow-ups are dropped.
    Abort,
    /// Asks for the session's state (model, thinking level, streaming flag, …).
    GetState,
    /// Asks for the conversation's messages.
    GetMessages,
    /// Switches the model for the next request (`provider` defaults to the current one).
    SetModel {
        model: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        provider: Option<String>,
    },
    /// Switches the thinking level for the next request.
    SetThinkingLevel { level: ThinkingLevel },
    /// Starts a new, empty conversation.
    NewSession,
    /// Asks for the stored session's tree.
    GetTree,
    /// Goes to a node of the tree (id or unique prefix): a user message comes back for
    /// editing, any other node becomes the leaf. With `summarize`, the model summarises the
    /// branch left behind (answered when done).
    ///
    /// `files: "restore"` also brings the node's files back (the preview's list is in the
    /// answer); a file changed outside Arbor since its last snapshot refuses the restore (and
    /// the move) with `changed_outside`, unless `overwrite`.
    Navigate {
        node_id: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        summarize: bool,
        #[serde(default, skip_serializing_if = "FilesMode::is_keep")]
        files: FilesMode,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        overwrite: bool,
    },
    /// What bringing a node's files back would write and delete, marking files changed outside
    /// Arbor; nothing is written.
    PreviewRestore { node_id: String },
    /// Brings back the files as they were before the last restore (undoing twice redoes).
    UndoRestore {
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        overwrite: bool,
    },
    /// The files that differ between two nodes' states, each with its unified diff.
    DiffNodes { from: String, to: String },
    /// Lists every tool: built-in, approved, pending (with its approval id), invalid (with why).
    ListTools,
    /// Approves a pending tool: its files are written and it is offered from the next request.
    ApproveTool { approval_id: String },
    /// Rejects a pending tool; the reason reaches the model when its `create_tool` is waiting.
    RejectTool {
        approval_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// Takes a tool's approval back.
    RevokeTool { name: String },
    /// The runs of the model's tools (of `name`), newest first.
    ToolHistory {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// Summarises the older conversation now, optionally focused on `focus`.
    Compact {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        focus: Option<String>,
    },
    /// Exports the session: `format` `markdown`, `jsonl` (default) or `html`; `scope`
    /// `branch` or `tree`; written atomically to `path` when given, else returned.
    Export {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        format: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        scope: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        path: Option<std::path::PathBuf>,
    },
    /// Labels a node; no or an empty `label` removes it.
    Label {
        node_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        label: Option<String>,
    },
    /// Copies the path to `node_id` (default: the leaf) into a new session.
    Fork {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        node_id: Option<String>,
    },
    /// Makes a stored session current.
    SwitchSession { session_id: String },
    /// Lists the project's sessions (every project's with `all`).
    ListSessions {
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        all: bool,
    },
    /// Asks again from the last user message of the branch (a sibling answer).
    Regenerate,
    /// Renames the current session.
    RenameSession { title: String },
    /// Answers a `permission_requested` event; a denial's `reason` reaches the model.
    AnswerPermission {
        request_id: String,
        decision: PermissionDecision,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// Answers an `elicitation_requested` event; `content` (for `accept`) is checked against
    /// the request's fields, a field left out taking its default.
    AnswerElicitation {
        request_id: String,
        action: crate::views::elicitation::ElicitationAction,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<serde_json::Map<String, serde_json::Value>>,
    },
    /// The project's mode, its rules and the sandbox on this machine.
    GetPermissions,
    /// Switches the project's permission mode (kept for the project).
    SetPermissionMode { mode: PermissionMode },
}

impl Command {
    /// Every command's `type` tag, in declaration order.
    pub const KINDS: [&'static str; 31] = [
        "prompt",
        "steer",
        "follow_up",
        "abort",
        "get_state",
        "get_messages",
        "set_model",
        "set_thinking_level",
        "new_session",
        "get_tree",
        "navigate",
        "preview_restore",
        "undo_restore",
        "diff_nodes",
        "list_tools",
        "approve_tool",
        "reject_tool",
        "revoke_tool",
        "tool_history",
        "compact",
        "export",
        "label",
        "fork",
        "switch_session",
        "list_sessions",
        "regenerate",
        "rename_session",
        "answer_permission",
        "answer_elicitation",
        "get_permissions",
        "set_permission_mode",
    ];

    /// The serialized `type` tag (`prompt`, `follow_up`, …).
    pub fn kind(&self) -> &'static str {
        match self {
            Command::Prompt { .. } => "prompt",
            Command::Steer { .. } => "steer",
            Command::FollowUp { .. } => "follow_up",
            Command::Abort => "abort",
            Command::GetState => "get_state",
            Command::GetMessages => "get_messages",
            Command::SetModel { .. } => "set_model",
            Command::SetThinkingLevel { .. } => "set_thinking_level",
            Command::NewSession => "new_session",
            Command::GetTree => "get_tree",
            Command::Navigate { .. } => "navigate",
            Command::PreviewRestore { .. } => "preview_restore",
            Command::UndoRestore { .. } => "undo_restore",
            Command::DiffNodes { .. } => "diff_nodes",
            Command::ListTools => "list_tools",
            Command::ApproveTool { .. } => "approve_tool",
            Command::RejectTool { .. } => "reject_tool",
            Command::RevokeTool { .. } => "revoke_tool",
            Command::ToolHistory { .. } => "tool_history",
            Command::Compact { .. } => "compact",
            Command::Export { .. } => "export",
            Command::Label { .. } => "label",
            Command::Fork { .. } => "fork",
            Command::SwitchSession { .. } => "switch_session",
            Command::ListSessions { .. } => "list_sessions",
            Command::Regenerate => "regenerate",
            Command::RenameSession { .. } => "rename_session",
            Command::AnswerPermission { .. } => "answer_permission",
            Command::AnswerElicitation { .. } => "answer_elicitation",
            Command::GetPermissions => "get_permissions",
            Command::SetPermissionMode { .. } => "set_permission_mode",
        }
    }
}

/// A command with the optional `id` an RPC client uses to match the response:
/// `{"id":"7","type":"prompt","message":"…"}`. The id may be any JSON value (string, number,
/// object…); it is echoed as it came.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommandEnvelope {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<serde_json::Value>,
    #[serde(flatten)]
    pub command: Command,
}
