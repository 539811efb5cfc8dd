//! `arbor-protocol`: the vocabulary every Arbor front end speaks — the events an agent run
//! reports ([`AgentEvent`]) and the commands a front end sends ([`Command`]).
//!
//! Everything is plain serde data tagged `"type"` in snake_case, so the same values travel over
//! a Tauri channel, as JSON lines on stdout (the CLI's JSON mode), or in an RPC stream.
//!
//! **Dependency direction.** DESIGN §1 draws `protocol ← llm`; here it is the other way round on
//! purpose: messages, content blocks and provider deltas are defined once, in `arbor-llm`, and
//! the protocol carries them unchanged (`arbor-protocol` depends on `arbor-llm`, not vice versa).
//!
//! # Events
//!
//! | `type` | fields | when |
//! |---|---|---|
//! | `agent_start` | — | a run begins (a prompt, or a continuation) |
//! | `turn_start` | — | a turn begins: delivered messages, one assistant response, its tool calls |
//! | `message_start` | `message` | a message begins; user, steering, follow-up and tool-result messages start and end at once; an assistant message starts (nearly) empty |
//! | `message_update` | `delta` | a provider delta of the streamed assistant message: an [`arbor_llm::AssistantEvent`] (`text_delta`, `thinking_delta`, `tool_call_delta`, `*_start`, `*_end`, or `start` when the provider restarts the message). Fold it into the `message_start` message with [`arbor_llm::AssistantMessage::apply_event`] |
//! | `message_end` | `message` | the message is complete and appended to the conversation |
//! | `tool_execution_start` | `tool_call_id`, `tool_name`, `args` | a tool call begins; `args` as the model sent them (before coercion) |
//! | `tool_execution_update` | `tool_call_id`, `tool_name`, `output` | a chunk of a running tool's live output, in order |
//! | `tool_execution_end` | `tool_call_id`, `tool_name`, `result` (`content`, `details?`), `is_error` | a tool call finished (in completion order) |
//! | `turn_end` | `message` (the assistant message), `tool_results` (model order) | the turn is over |
//! | `agent_end` | `messages` (every message the run added), `status` (`completed`/`aborted`/`failed`), `error?` (an [`arbor_llm::LlmError`], tagged `kind`) | the run is over |
//!
//! Beside them, the coding layer's [`CodingEvent`]s travel in the same flat form; a live session
//! sends both as one stream of [`SessionEvent`]s:
//!
//! | `type` | fields | when |
//! |---|---|---|
//! | `node_appended` | `node_id`, `parent_id`, `session_id`, `sibling_ids?`, `node?` (a [`views::branch::TreeNodeView`]) | a node was stored: right after its `message_end`, a model/thinking change, or a compaction's or branch summary's node; the session API fills in its siblings and tree view |
//! | `store_error` | `message` | storing failed: the run stops, the unsaved turn can be sent again |
//! | `session_written_elsewhere` | `session_id`, `other_leaf_id?` | another process wrote to the session: read it again |
//! | `stream_notice` | `message`, `skipped` | something in the provider's stream was skipped; the run goes on |
//! | `snapshot_error` | `message` | a step's files could not be recorded; the run goes on |
//! | `approval_requested` | `approval_id`, `kind`, `name`, `skill_md`, `files`, `allowed_tools`, `reason`, `previous?` | the model proposed a tool (or a change): the user decides |
//! | `approval_resolved` | `approval_id`, `name`, `status` | a proposal was approved or rejected |
//! | `permission_requested` | `request` (a [`views::permissions::PermissionRequest`]: `request_id`, `tool_name`, `command?`, `target?`, `parts`, `confinement?`, `reason?`, `diff?`, `always_rule?`) | a tool call needs the user's yes; answer with `answer_permission` |
//! | `permission_resolved` | `request_id`, `decision` | a permission request was answered (or denied by an abort) |
//! | `elicitation_requested` | `request` (a [`views::elicitation::ElicitationRequest`]: `request_id`, `server`, `message`, `fields`, `initial`) | an MCP server asks the person for input mid-call; answer with `answer_elicitation` |
//! | `elicitation_resolved` | `request_id`, `action` | an elicitation was answered (or cancelled by an abort) |
//! | `permission_mode_changed` | `mode` | the project's permission mode changed |
//! | `retry_scheduled` | `attempt`, `delay_ms`, `error` | a transient failure; the request is sent again |
//! | `compaction_start` / `compaction_end` | `reason`; `tokens_before`, `tokens_after?`, `summary?`, `node_id?`, `error?` | a compaction ran |
//!
//! Every failure a front end is shown carries an [`ErrorCode`] (`busy`, `not_found`,
//! `changed_outside`, …): the desktop's `{code, message}`, RPC responses' `code`.
//!
//! Beside the stream, [`views`] holds every answer front ends are shown on request: projects,
//! session lists, the session's state, model pickers, key statuses, the chat's branch and the
//! tree panel's tree (`views::branch`), files and restores (`views::code`), the model's tools
//! (`views::tools`), settings and the clone form. The session API and the crates under it make
//! them (from store rows and the catalogue, never passing a row on as it is).
//!
//! Messages are [`AgentMessage`]s, tagged `"role"`: `user`, `assistant`, `tool_result` (exactly
//! as [`arbor_llm::Message`] serializes) or `custom` (app-only messages, `{kind, data}`).
//!
//! # Order
//!
//! ```text
//! agent_start
//!   turn_start
//!     message_start/message_end          the prompt (and any queued steering or follow-ups)
//!     message_start                      the assistant message
//!     message_update*                    its deltas
//!     message_end                        complete (stop, length, tool_use, error or aborted)
//!     ( tool_execution_start             one per tool call, in model order
//!       tool_execution_update*
//!       tool_execution_end )*            as each finishes
//!     ( message_start/message_end )*     one tool_result per call, in model order
//!   turn_end
//!   turn_start …                         while the model calls tools, or steering/follow-ups arrive
//! agent_end
//! ```
//!
//! Every tool call of every assistant message gets exactly one `tool_result` message — also
//! when it was not run (unknown tool, invalid arguments, blocked, skipped, aborted, or cut off
//! by the output limit): such results have `is_error: true` and a text saying why.
//!
//! # Commands
//!
//! | `type` | fields | meaning |
//! |---|---|---|
//! | `prompt` | `message`, `images?` (`[{data, mime_type}]`, base64) | start a run with a new user message |
//! | `steer` | `message` | interrupt: delivered after the running tool call(s) finish; calls of the turn not yet started are skipped with an error result |
//! | `follow_up` | `message` | delivered when the agent would otherwise stop; the run goes on |
//! | `abort` | — | cancel the stream and every running tool; queued steering/follow-ups are dropped |
//! | `get_state`, `get_messages` | — | ask for the session's state / conversation |
//! | `set_model` | `model`, `provider?` | switch model for the next request |
//! | `set_thinking_level` | `level` (`off`…`high`) | switch thinking level for the next request |
//! | `new_session` | — | start an empty conversation |
//! | `get_tree` | — | the stored session's tree, as the tree panel shows it |
//! | `navigate` | `node_id`, `summarize?`, `files?` (`keep`/`restore`), `overwrite?` | go to a node (a user message comes back for editing); with `summarize`, a summary of the branch left behind; with `files: restore`, the node's files come back too |
//! | `preview_restore` | `node_id` | what bringing a node's files back would write and delete |
//! | `undo_restore` | `overwrite?` | put the files back as they were before the last restore |
//! | `diff_nodes` | `from`, `to` | the files that differ between two nodes, with patches |
//! | `list_tools`, `tool_history` | `name?` (history) | the model's tools; their runs |
//! | `approve_tool`, `reject_tool` | `approval_id`, `reason?` (reject) | answer a proposed tool |
//! | `revoke_tool` | `name` | take an approval back |
//! | `compact` | `focus?` | summarise the older conversation now |
//! | `export` | `format?`, `scope?`, `path?` | the session as Markdown, JSONL or HTML |
//! | `label` | `node_id`, `label?` | label a node (none removes it) |
//! | `fork` | `node_id?` | copy the path to a node into a new session |
//! | `switch_session` | `session_id` | make a stored session current |
//! | `list_sessions` | `all?` | the project's (or every) session |
//! | `regenerate` | — | ask again from the branch's last user message |
//! | `rename_session` | `title` | rename the current session |
//! | `answer_permission` | `request_id`, `decision` (`allow_once`/`allow_session`/`allow_always`/`deny`), `reason?` | answer a permission request |
//! | `get_permissions` | — | the project's mode, rules and sandbox |
//! | `set_permission_mode` | `mode` (`read-only`/`workspace`/`full`) | switch the project's permission mode |
//!
//! What each answers is documented in `docs/rpc.md` and typed in [`responses`].
//! A [`CommandEnvelope`] adds an optional `id` (RPC clients match responses by it; any JSON
//! value).
//! Tests snapshot one serialized example of every event and command (`tests/snapshots/`).

pub mod coding_event;
pub mod command;
pub mod event;
pub mod message;
pub mod responses;
pub mod views;

pub use coding_event::{CodingEvent, CompactionReason, SessionEvent};
pub use command::{Command, CommandEnvelope, FilesMode};
pub use event::{AgentEvent, RunStatus, ToolResult};
pub use message::{AgentMessage, CustomMessage};
// The message vocabulary is the LLM layer's; front ends name it from here.
/// The stable code of every error front ends are shown.
pub use arbor_error_code::ErrorCode;
pub use arbor_llm::{
    Api, AssistantEvent, ImageContent, JsonObject, LlmError, StopReason, TextContent,
    ThinkingLevel, Usage, UserContent,
};
