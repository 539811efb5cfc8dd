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
//! - `user_turn`: a user turn stored on a thread beside the request it starts, for front ends
//!   that show no tree.
//! - [`code`]: the code state of nodes — a snapshot at each user turn and after every tool call
//!   that may change files, stored with the node; previews, restores, undo and diffs of nodes'
//!   files.
//!
//! [`AgentMessage`]: arbor_agent::AgentMessage

pub mod code;
pub mod convert;
mod editing;
pub mod recorder;
mod user_turn;

pub use code::{NodeDiff, RestoreInfo, RestorePreview, SnapshotGate, READ_ONLY_TOOLS};
pub use convert::{
    compaction_summary_message, context_json_messages, context_messages, is_compaction_summary,
    message_text, message_to_node, node_to_message,
};
pub use recorder::{EventSink, Navigation, SessionRecorder, SessionsError};

/// The coding layer's events live in the protocol crate, beside the agent's.
pub use arbor_protocol::CodingEvent;
