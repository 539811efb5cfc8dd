//! Events of the coding layer (storage, retries, compaction), sent beside the agent's events.

use serde::{Deserialize, Serialize};

use crate::event::AgentEvent;
use crate::views::branch::TreeNodeView;
use crate::views::elicitation::{ElicitationAction, ElicitationRequest};
use crate::views::permissions::{PermissionDecision, PermissionMode, PermissionRequest};

/// Why a compaction ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum CompactionReason {
    /// The context passed the window minus the reserve.
    Threshold,
    /// The provider said the context does not fit.
    Overflow,
    /// The user asked (`/compact`, RPC `compact`).
    Manual,
}

/// Events of the coding layer, sent to front ends beside the agent's events. Serialized flat
/// with a snake_case `"type"`, like [`AgentEvent`], so both share one stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum CodingEvent {
    /// A node was stored (after the message's `message_end`, or a model/thinking change). A
    /// live session's stream carries what the chat and the tree panel need of it, so neither
    /// reads the session again after a run: its siblings and its tree view.
    NodeAppended {
        node_id: String,
        parent_id: Option<String>,
        session_id: String,
        /// The children of its parent of the same kind, oldest first (this node among them):
        /// a regenerated answer's `‹ 2/2 ›`. Absent when the stream could not read them.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional = nullable)]
        sibling_ids: Option<Vec<String>>,
        /// The node as the tree panel shows it (first line, tokens, cost, files changed).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional = nullable)]
        node: Option<TreeNodeView>,
    },
    /// Storing a message failed (full disk, damaged database, a message too large): the run
    /// is stopped, nothing more of it is stored, and the conversation in memory goes back to
    /// what is stored before the next prompt. The front end keeps the unsaved turn on screen
    /// and offers to send it again.
    StoreError { message: String },
    /// Another process (a second window or `arbor -c`) wrote to this session since this live
    /// session last wrote or moved in it. This session's next nodes go under its own last node,
    /// so the other writer's turns show as a branch; a front end reloads its view of the tree.
    SessionWrittenElsewhere {
        session_id: String,
        /// The session's leaf as the other writer left it.
        #[ts(optional = nullable)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        other_leaf_id: Option<String>,
    },
    /// Something the user should know about a provider's stream that did not stop the run:
    /// e.g. events that were not valid JSON and were skipped (`skipped` counts them).
    StreamNotice { message: String, skipped: u32 },
    /// Recording the workspace's files for a node failed (the message is stored without them;
    /// going back to it cannot bring files back).
    SnapshotError { message: String },
    /// The model proposed a tool (or a change to one): the user reviews its files and
    /// approves or rejects it (`approve_tool` / `reject_tool`). `previous` holds the approved
    /// version's files when this changes one.
    ApprovalRequested {
        approval_id: String,
        /// `create_tool` or `edit_tool`.
        kind: String,
        name: String,
        skill_md: String,
        #[ts(type = "Record<string, string>")]
        files: std::collections::BTreeMap<String, String>,
        allowed_tools: Vec<String>,
        reason: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional = nullable, type = "Record<string, string> | null")]
        previous: Option<std::collections::BTreeMap<String, String>>,
    },
    /// A proposal was answered (here or from another front end): `status` is `approved` or
    /// `rejected`. A dialog still showing it closes.
    ApprovalResolved {
        approval_id: String,
        name: String,
        status: String,
    },
    /// A tool call needs the user's yes (a command no rule allows, a write outside the
    /// project, an escalation): the front end shows the request and answers it with
    /// `answer_permission`. The call waits; an aborted run denies it.
    PermissionRequested { request: PermissionRequest },
    /// A permission request was answered (here, from another front end, or denied by an
    /// abort or by a front end that cannot ask). A dialog still showing it closes.
    PermissionResolved {
        request_id: String,
        decision: PermissionDecision,
    },
    /// An MCP server asks the person for input in the middle of a call: the front end shows
    /// the form and answers with `answer_elicitation`. An aborted run cancels it.
    ElicitationRequested { request: ElicitationRequest },
    /// An elicitation was answered (here, from another front end, or cancelled by an abort).
    ElicitationResolved {
        request_id: String,
        action: ElicitationAction,
    },
    /// The project's permission mode changed (the header's padlock, `set_permission_mode`).
    PermissionModeChanged { mode: PermissionMode },
    /// A request failed with a transient error (rate limit, overload, network) before its
    /// answer started, and will be sent again after `delay_ms`. `attempt` counts from 1.
    RetryScheduled {
        attempt: u32,
        delay_ms: u64,
        error: arbor_llm::LlmError,
    },
    /// A compaction began: the older part of the conversation is being summarised.
    CompactionStart { reason: CompactionReason },
    /// A compaction ended. On success `summary`, `tokens_after` and (when the session is
    /// stored) `node_id` of the compaction node are set; otherwise `error` says why not.
    CompactionEnd {
        reason: CompactionReason,
        tokens_before: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional = nullable)]
        tokens_after: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional = nullable)]
        summary: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional = nullable)]
        node_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional = nullable)]
        error: Option<String>,
    },
}

/// The one stream a live session sends its front end: every agent event and every coding
/// event, flat (each tagged by its own `"type"`). A stored message's `node_appended` always
/// follows its `message_end`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(untagged)]
pub enum SessionEvent {
    Agent(AgentEvent),
    Coding(CodingEvent),
}

impl From<AgentEvent> for SessionEvent {
    fn from(event: AgentEvent) -> Self {
        SessionEvent::Agent(event)
    }
}

impl From<CodingEvent> for SessionEvent {
    fn from(event: CodingEvent) -> Self {
        SessionEvent::Coding(event)
    }
}
