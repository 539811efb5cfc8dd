//! [`McpTool`]: a server's approved tool as the agent offers it, `mcp__<server>__<tool>`.
//! Before every call it checks the server still offers the tool as it was approved: a tool
//! whose description or schema changed since is not run — the model is told, and the person
//! reviews the change.

use std::sync::Arc;

use arbor_agent::{AgentTool, ToolContext, ToolError, ToolOutput};
use arbor_llm::{JsonObject, Tool as ToolSpec};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::connection::RemoteTool;
use crate::elicitation::Elicitor;
use crate::hub::ServerSlot;
use crate::pins::tool_hash;
use crate::McpError;

/// Longest tool name providers accept.
pub const MAX_TOOL_NAME: usize = 64;
/// Longest description offered to the model.
pub const MAX_DESCRIPTION: usize = 4_000;

/// The name the model calls a server's tool by: `mcp__<server>__<tool>`, with characters
/// providers refuse replaced by `_`, and a long name cut with a short hash of the whole so two
/// tools never share one.
pub fn offered_name(server: &str, tool: &str) -> String {
    let clean: String = tool
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let name = format!("mcp__{server}__{clean}");
    if name.len() <= MAX_TOOL_NAME && clean == tool {
        return name;
    }
    let digest = Sha256::digest(tool.as_bytes());
    let suffix: String = digest.iter().take(3).map(|b| format!("{b:02x}")).collect();
    let keep = MAX_TOOL_NAME - suffix.len() - 1;
    format!("{}_{suffix}", &name[..name.len().min(keep)])
}

/// An approved tool of a server.
pub struct McpTool {
    spec: ToolSpec,
    tool: String,
    approved_hash: String,
    server: Arc<ServerSlot>,
    /// Who answers the server's questions during a call (the session's person).
    elicitor: Option<Arc<dyn Elicitor>>,
}

impl McpTool {
    /// Offers `approved` (the tool as a person approved it) of `server`.
    pub fn new(server: Arc<ServerSlot>, approved: &RemoteTool) -> Self {
        let description = crate::log::cut(&approved.description, MAX_DESCRIPTION);
        let parameters = match &approved.input_schema {
            Value::Object(schema)
                if schema.get("type").and_then(Value::as_str) == Some("object") =>
            {
                approved.input_schema.clone()
            }
            _ => serde_json::json!({"type": "object"}),
        };
        Self {
            spec: ToolSpec {
                name: offered_name(&server.definition().name, &approved.name),
                description,
                parameters,
            },
            tool: approved.name.clone(),
            approved_hash: tool_hash(approved),
            server,
            elicitor: None,
        }
    }

    /// A question the server asks during a call goes to `elicitor` (otherwise it is declined).
    pub fn with_elicitor(mut self, elicitor: Option<Arc<dyn Elicitor>>) -> Self {
        self.elicitor = elicitor;
        self
    }

    fn refuse(error: McpError) -> ToolError {
        match error {
            McpError::Aborted => ToolError::Aborted,
            other => ToolError::respond(other.to_string()),
        }
    }
}

#[async_trait::async_trait]
impl AgentTool for McpTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn execute(
        &self,
        arguments: JsonObject,
        context: ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let server = &self.server.definition().name;
        let offered = tokio::select! {
            tools = self.server.tools() => tools.map_err(Self::refuse)?,
            () = context.cancel.cancelled() => return Err(ToolError::Aborted),
        };
        let Some(now) = offered.iter().find(|t| t.name == self.tool) else {
            return Err(ToolError::respond(format!(
                "MCP server {server:?} no longer offers the tool {:?}",
                self.tool
            )));
        };
        if tool_hash(now) != self.approved_hash {
            return Err(ToolError::respond(format!(
                "the tool {:?} of MCP server {server:?} changed since it was approved, so it was \
                 not run; the user has to review the change (Settings → MCP servers) first",
                self.tool
            )));
        }
        let result = self
            .server
            .call_asking(
                &self.tool,
                arguments,
                &context.cancel,
                self.elicitor.clone(),
            )
            .await
            .map_err(Self::refuse)?;
        // A server's own secrets (its `${keychain:…}` values) never reach the model.
        let redactor = self.server.redactor();
        let clean = |text: String| redactor.text(&text).into_owned();
        match crate::result::tool_output(&result) {
            Ok(mut output) => {
                for part in &mut output.content {
                    if let arbor_llm::UserContent::Text(text) = part {
                        text.text = clean(std::mem::take(&mut text.text));
                    }
                }
                Ok(output)
            }
            Err(ToolError::RespondToModel { message, details }) => Err(ToolError::RespondToModel {
                message: clean(message),
                details,
            }),
            Err(other) => Err(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_fit_what_providers_accept_and_stay_distinct() {
        assert_eq!(offered_name("git", "git_status"), "mcp__git__git_status");
        let dotted = offered_name("fs", "read.file");
        assert!(
            dotted.starts_with("mcp__fs__read_file_") && dotted.len() <= MAX_TOOL_NAME,
            "{dotted}"
        );
        assert_ne!(
            offered_name("fs", "read.file"),
            offered_name("fs", "read file")
        );
        let long = offered_name("server", &"x".repeat(100));
        assert_eq!(long.len(), MAX_TOOL_NAME);
        assert_ne!(long, offered_name("server", &"x".repeat(101)));
    }
}
