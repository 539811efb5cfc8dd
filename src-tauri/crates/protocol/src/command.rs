//! Commands in: what front ends send to an agent session.

use arbor_llm::{ImageContent, ThinkingLevel};
use serde::{Deserialize, Serialize};

/// A command from a front end (one JSON line in the CLI's JSON and RPC modes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Command {
    /// Starts a run with a new user message (text, plus optional images).
    Prompt {
        message: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<ImageContent>,
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
}

impl Command {
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
        }
    }
}

/// A command with the optional `id` an RPC client uses to match the response:
/// `{"id":"7","type":"prompt","message":"…"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommandEnvelope {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(flatten)]
    pub command: Command,
}
