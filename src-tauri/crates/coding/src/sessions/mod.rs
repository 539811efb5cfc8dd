//! Conversations persisted as trees in the store (`arbor-store`), and the branching semantics
//! on top of them (the design document's §8).
//!
//! - [`convert`]: agent messages ↔ store nodes. Each completed message is one node (kind
//!   `user` / `assistant` / `tool_result`, `content` = the serialized [`AgentMessage`], `text` =
//!   its plain text for search and tree lines); a compaction or branch summary becomes a user
//!   message carrying the summary; model/thinking changes and labels are not shown to the model.
//! - [`recorder`]: [`SessionRecorder`] subscribes to an [`arbor_agent::Agent`] and appends every
//!   message when it completes (`message_end`), emitting [`CodingEvent::NodeAppended`]; it also
//!   resumes, navigates, regenerates, forks and switches sessions.
//!
//! [`AgentMessage`]: arbor_agent::AgentMessage

pub mod convert;
mod editing;
pub mod recorder;

use serde::{Deserialize, Serialize};

pub use convert::{
    compaction_summary_message, context_messages, is_compaction_summary, message_text,
    message_to_node, node_to_message,
};
pub use recorder::{EventSink, Navigation, SessionRecorder, SessionsError};

/// Events of the coding layer, sent to front ends beside the agent's events. Serialized flat
/// with a snake_case `"type"`, like [`arbor_agent::AgentEvent`], so both share one stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum CodingEvent {
    /// A node was stored (after the message's `message_end`, or a model/thinking change).
    NodeAppended {
        node_id: String,
        parent_id: Option<String>,
        session_id: String,
    },
    /// Storing failed; the conversation goes on in memory only for that message.
    StoreError { message: String },
    /// A request failed with a transient error (rate limit, overload, network) before its
    /// answer started, and will be sent again after `delay_ms`. `attempt` counts from 1.
    RetryScheduled {
        attempt: u32,
        delay_ms: u64,
        error: arbor_llm::LlmError,
    },
    /// A compaction began: the older part of the conversation is being summarised.
    CompactionStart {
        reason: crate::compaction::CompactionReason,
    },
    /// A compaction ended. On success `summary`, `tokens_after` and (when the session is
    /// stored) `node_id` of the compaction node are set; otherwise `error` says why not.
    CompactionEnd {
        reason: crate::compaction::CompactionReason,
        tokens_before: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tokens_after: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        summary: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        node_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
}
