//! `write {path, content}`: creates or replaces a whole file, atomically.

use arbor_agent::{AgentTool, ToolContext, ToolError, ToolOutput};
use arbor_llm::{JsonObject, Tool as ToolSpec};
use arbor_permissions::FileAccess;
use serde::Deserialize;
use serde_json::json;

use super::args::{parse_arguments, spec};
use super::{names, paths};
use crate::workspace::{self, Workspace};
use arbor_fs as atomic;

#[derive(Debug, Deserialize)]
struct WriteArguments {
    path: String,
    content: String,
}

pub struct WriteTool {
    workspace: Workspace,
    spec: ToolSpec,
}

impl WriteTool {
    pub fn new(workspace: Workspace) -> Self {
        let spec = spec(
            "write",
            "Create a file, or replace a file's whole content. Parent folders are created. \
             Prefer `edit` to change part of an existing file.",
            json!({
                "type": "object",
                "properties": {
                    "path": {
                        "type": "string",
                        "description": "File to write, relative to the working directory (or absolute, or starting with ~)."
                    },
                    "content": {
                        "type": "string",
                        "description": "The complete new content of the file."
                    }
                },
                "required": ["path", "content"]
            }),
        );
        Self { workspace, spec }
    }
}

#[async_trait::async_trait]
impl AgentTool for WriteTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn execute(
        &self,
        arguments: JsonObject,
        context: ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let arguments: WriteArguments = parse_arguments(arguments)?;
        if context.cancel.is_cancelled() {
            return Err(ToolError::Aborted);
        }
        self.workspace.ensure_root()?;
        let cwd = self.workspace.cwd();
        let path = names::resolve_existing(cwd, &arguments.path)?;
        self.workspace
            .authorize(&context.call_id, FileAccess::Write, &path)?;
        let shown = paths::display(cwd, &path);
        workspace::check_writable(&path)?;
        if path.is_dir() {
            return Err(ToolError::respond(format!(
                "{shown} is a directory; give the path of a file."
            )));
        }
        let existed = path.exists();
        let content = arguments.content.into_bytes();
        let target = path.clone();
        let root = cwd.to_path_buf();
        let written = tokio::task::spawn_blocking(move || -> std::io::Result<Vec<u8>> {
            if let Some(parent) = target.parent() {
                workspace::create_dirs_within(&root, parent)?;
            }
            atomic::write_atomic(&target, &content)?;
            Ok(content)
        })
        .await
        .map_err(|error| ToolError::respond(format!("Cannot write {shown}: {error}.")))?
        .map_err(|error| match self.workspace.ensure_root() {
            // The folder went away between the check and the write.
            Err(gone) => ToolError::from(gone),
            Ok(()) => ToolError::respond(format!("Cannot write {shown}: {error}.")),
        })?;
        self.workspace.tracker().record(&path, &written);
        let bytes = written.len();
        let verb = if existed { "Overwrote" } else { "Created" };
        Ok(ToolOutput::text(format!("{verb} {shown} ({bytes} bytes)."))
            .with_details(json!({ "path": shown, "bytes": bytes, "created": !existed })))
    }
}
