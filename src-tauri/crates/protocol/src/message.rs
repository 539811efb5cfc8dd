//! Messages as the agent keeps them: the LLM's messages plus app-only ones.

use arbor_llm::{AssistantMessage, Message, ToolResultMessage, UserMessage};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One entry of an agent's conversation ("app message").
///
/// The first three variants serialize exactly like [`arbor_llm::Message`] (tagged `"role"`:
/// `user`, `assistant`, `tool_result`), so stored conversations and events read the same.
/// [`AgentMessage::Custom`] holds what the app wants in the history without the model seeing it
/// as is (a compaction summary, a notice…); the agent's message transformer decides what, if
/// anything, of it reaches the model (by default: nothing).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum AgentMessage {
    User(UserMessage),
    Assistant(AssistantMessage),
    ToolResult(ToolResultMessage),
    Custom(CustomMessage),
}

/// An app-defined message: `kind` names it, `data` is the app's own payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CustomMessage {
    pub kind: String,
    #[serde(default)]
    pub data: Value,
}

impl AgentMessage {
    /// The LLM message this is, if it is one (custom messages are not).
    pub fn as_llm(&self) -> Option<Message> {
        match self {
            AgentMessage::User(user) => Some(Message::User(user.clone())),
            AgentMessage::Assistant(assistant) => Some(Message::Assistant(assistant.clone())),
            AgentMessage::ToolResult(result) => Some(Message::ToolResult(result.clone())),
            AgentMessage::Custom(_) => None,
        }
    }

    /// The assistant message, if this is one.
    pub fn as_assistant(&self) -> Option<&AssistantMessage> {
        match self {
            AgentMessage::Assistant(assistant) => Some(assistant),
            _ => None,
        }
    }

    /// The tool result, if this is one.
    pub fn as_tool_result(&self) -> Option<&ToolResultMessage> {
        match self {
            AgentMessage::ToolResult(result) => Some(result),
            _ => None,
        }
    }

    /// `user`, `assistant`, `tool_result` or `custom`: the serialized `role`.
    pub fn role(&self) -> &'static str {
        match self {
            AgentMessage::User(_) => "user",
            AgentMessage::Assistant(_) => "assistant",
            AgentMessage::ToolResult(_) => "tool_result",
            AgentMessage::Custom(_) => "custom",
        }
    }
}

impl From<Message> for AgentMessage {
    fn from(message: Message) -> Self {
        match message {
            Message::User(user) => AgentMessage::User(user),
            Message::Assistant(assistant) => AgentMessage::Assistant(assistant),
            Message::ToolResult(result) => AgentMessage::ToolResult(result),
        }
    }
}

impl From<UserMessage> for AgentMessage {
    fn from(message: UserMessage) -> Self {
        AgentMessage::User(message)
    }
}

impl From<AssistantMessage> for AgentMessage {
    fn from(message: AssistantMessage) -> Self {
        AgentMessage::Assistant(message)
    }
}

impl From<ToolResultMessage> for AgentMessage {
    fn from(message: ToolResultMessage) -> Self {
        AgentMessage::ToolResult(message)
    }
}

impl From<CustomMessage> for AgentMessage {
    fn from(message: CustomMessage) -> Self {
        AgentMessage::Custom(message)
    }
}
