//! The contract between the agent loop and a tool.
//!
//! The loop validates the model's arguments against [`AgentTool::spec`]'s JSON Schema (coercing
//! obvious type slips such as `"5"` → `5`) before calling [`AgentTool::execute`], so a tool can
//! deserialize them into its own typed struct. Anything a tool returns — success or
//! [`ToolError::RespondToModel`] — becomes a tool result the model reads; only
//! [`ToolError::Aborted`] means the run was cancelled.

use arbor_llm::{JsonObject, TextContent, Tool as ToolSpec, UserContent};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// A successful result: what the model reads, and structured data only user interfaces see.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolOutput {
    pub content: Vec<UserContent>,
    /// Diffs, full logs, exit codes… for UIs; never sent to the model.
    pub details: Option<Value>,
}

impl ToolOutput {
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![UserContent::Text(TextContent::new(text))],
            details: None,
        }
    }

    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }
}

/// Why a tool did not succeed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ToolError {
    /// An error result the model reads and can correct (bad arguments, a missing file, a
    /// non-zero exit status…). The run goes on.
    #[error("{message}")]
    RespondToModel {
        message: String,
        details: Option<Value>,
    },
    /// The tool stopped because the run was aborted.
    #[error("the tool was aborted")]
    Aborted,
}

impl ToolError {
    pub fn respond(message: impl Into<String>) -> Self {
        ToolError::RespondToModel {
            message: message.into(),
            details: None,
        }
    }

    pub fn respond_with_details(message: impl Into<String>, details: Value) -> Self {
        ToolError::RespondToModel {
            message: message.into(),
            details: Some(details),
        }
    }
}

/// Live progress of a running tool (for example a chunk of `bash` output), shown by UIs as
/// `tool_execution_update`. Chunks are appended in order.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolUpdate {
    pub call_id: String,
    pub output: String,
}

/// What a running tool gets besides its arguments.
#[derive(Debug, Clone)]
pub struct ToolContext {
    pub call_id: String,
    /// Cancelled when the run is aborted: stop promptly and return [`ToolError::Aborted`].
    pub cancel: CancellationToken,
    updates: Option<mpsc::UnboundedSender<ToolUpdate>>,
}

impl ToolContext {
    pub fn new(
        call_id: impl Into<String>,
        cancel: CancellationToken,
        updates: Option<mpsc::UnboundedSender<ToolUpdate>>,
    ) -> Self {
        Self {
            call_id: call_id.into(),
            cancel,
            updates,
        }
    }

    /// A context for calling a tool outside the loop (tests, scripts): never cancelled, no updates.
    pub fn detached(call_id: impl Into<String>) -> Self {
        Self::new(call_id, CancellationToken::new(), None)
    }

    /// Reports live output; a UI that stopped listening is not an error for the tool.
    pub fn update(&self, output: impl Into<String>) {
        if let Some(updates) = &self.updates {
            let _ = updates.send(ToolUpdate {
                call_id: self.call_id.clone(),
                output: output.into(),
            });
        }
    }
}

/// A tool the agent can call.
#[async_trait::async_trait]
pub trait AgentTool: Send + Sync {
    /// Name, description and JSON Schema of the arguments, as sent to the model.
    fn spec(&self) -> &ToolSpec;

    /// Runs the tool with arguments already validated against the schema.
    async fn execute(
        &self,
        arguments: JsonObject,
        context: ToolContext,
    ) -> Result<ToolOutput, ToolError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn updates_reach_the_listener_and_a_missing_one_is_fine() {
        let (sender, mut receiver) = mpsc::unbounded_channel();
        let context = ToolContext::new("call_1", CancellationToken::new(), Some(sender));
        context.update("line 1\n");
        let update = receiver.try_recv().unwrap();
        assert_eq!(
            (update.call_id.as_str(), update.output.as_str()),
            ("call_1", "line 1\n")
        );
        drop(receiver);
        context.update("nobody listens");
        ToolContext::detached("call_2").update("no listener at all");
    }

    #[test]
    fn outputs_and_errors_carry_text_and_details() {
        let output = ToolOutput::text("ok").with_details(serde_json::json!({"diff": "+x"}));
        assert_eq!(
            output.content,
            vec![UserContent::Text(TextContent::new("ok"))]
        );
        assert_eq!(output.details.unwrap()["diff"], "+x");
        assert_eq!(
            ToolError::respond("no such file").to_string(),
            "no such file"
        );
    }
}
