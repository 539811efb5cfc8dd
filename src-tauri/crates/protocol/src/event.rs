//! Events out: what the agent loop reports to every front end.

use arbor_llm::{
    AssistantEvent, AssistantMessage, JsonObject, LlmError, ToolResultMessage, UserContent,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::message::AgentMessage;

/// One step of an agent run. See the crate docs for the order they come in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentEvent {
    /// A run begins (a prompt, or a continuation).
    AgentStart,
    /// A turn begins: messages delivered to the model (if any), one assistant response, and the
    /// tool calls it makes.
    TurnStart,
    /// A message begins. User, steering, follow-up and tool-result messages start and end at
    /// once; an assistant message starts empty and grows through `message_update`.
    MessageStart { message: AgentMessage },
    /// A provider delta of the assistant message being streamed. Fold it into the message from
    /// `message_start` with [`arbor_llm::AssistantMessage::apply_event`] to get the partial
    /// message; a `start` delta means the provider restarted the message.
    MessageUpdate { delta: AssistantEvent },
    /// A message is complete, and appended to the agent's messages.
    MessageEnd { message: AgentMessage },
    /// A tool call begins (unknown tools, invalid arguments and skipped calls too: every call
    /// gets a start and an end). `args` are the arguments as the model sent them.
    ToolExecutionStart {
        tool_call_id: String,
        tool_name: String,
        args: JsonObject,
    },
    /// A chunk of live output from a running tool (for example `bash` output), in order.
    ToolExecutionUpdate {
        tool_call_id: String,
        tool_name: String,
        output: String,
    },
    /// A tool call finished (in completion order; the results are added to the conversation in
    /// the model's order, as `message_start`/`message_end` pairs after the turn's calls).
    ToolExecutionEnd {
        tool_call_id: String,
        tool_name: String,
        result: ToolResult,
        is_error: bool,
    },
    /// A turn ended: its assistant message and the results of its tool calls, in model order.
    TurnEnd {
        message: AssistantMessage,
        tool_results: Vec<ToolResultMessage>,
    },
    /// The run ended: every message it added, how it ended, and the error if it failed.
    AgentEnd {
        messages: Vec<AgentMessage>,
        status: RunStatus,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional = nullable)]
        error: Option<LlmError>,
    },
}

impl AgentEvent {
    /// The serialized `type` tag (`agent_start`, `message_update`, …).
    pub fn kind(&self) -> &'static str {
        match self {
            AgentEvent::AgentStart => "agent_start",
            AgentEvent::TurnStart => "turn_start",
            AgentEvent::MessageStart { .. } => "message_start",
            AgentEvent::MessageUpdate { .. } => "message_update",
            AgentEvent::MessageEnd { .. } => "message_end",
            AgentEvent::ToolExecutionStart { .. } => "tool_execution_start",
            AgentEvent::ToolExecutionUpdate { .. } => "tool_execution_update",
            AgentEvent::ToolExecutionEnd { .. } => "tool_execution_end",
            AgentEvent::TurnEnd { .. } => "turn_end",
            AgentEvent::AgentEnd { .. } => "agent_end",
        }
    }
}

/// What a tool call produced, as a UI shows it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, ts_rs::TS)]
pub struct ToolResult {
    /// What the model reads.
    pub content: Vec<UserContent>,
    /// Structured data for UIs only (diffs, exit codes…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub details: Option<Value>,
}

impl From<&ToolResultMessage> for ToolResult {
    fn from(message: &ToolResultMessage) -> Self {
        ToolResult {
            content: message.content.clone(),
            details: message.details.clone(),
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// The model finished (stop reason `stop`, or `length`: a cut-off answer ends cleanly too).
    Completed,
    /// [`crate::Command::Abort`] (or the API's abort) cancelled it.
    Aborted,
    /// The provider failed; `error` says why. Retrying is the caller's decision.
    Failed,
}
