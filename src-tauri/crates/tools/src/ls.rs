//! `ls {path?, limit?}`: a folder's entries, sorted, `/` after folders, dotfiles included.

use arbor_agent::{AgentTool, ToolContext, ToolError, ToolOutput};
use arbor_llm::{JsonObject, Tool as ToolSpec};
use arbor_permissions::FileAccess;
use serde::Deserialize;
use serde_json::json;

use super::args::{parse_arguments, spec};
use super::names::{self, NOT_UTF8_MARKER};
use super::paths;
use super::truncate::{join_within, MAX_OUTPUT_BYTES};
use crate::workspace::Workspace;

pub const DEFAULT_LIMIT: usize = 500;

#[derive(Debug, Deserialize)]
struct LsArguments {
    path: Option<String>,
    limit: Option<usize>,
}

pub struct LsTool {
    workspace: Workspace,
    spec: ToolSpec,
}

impl LsTool {
    pub fn new(workspace: Workspace) -> Self {
        let spec = spec(
            "ls",
            &format!(
                "List a folder: entries sorted by name, `/` after folders, dotfiles included, at \
                 most `limit` entries (default {DEFAULT_LIMIT})."
            ),
            json!({
                "type": "object",
                "properties": {
                    "path": {
                        "type": "string",
                        "description": "Folder to list (default: the working directory)."
                    },
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "description": format!("Maximum number of entries (default {DEFAULT_LIMIT}).")
                    }
                }
            }),
        );
        Self { workspace, spec }
    }
}

#[async_trait::async_trait]
impl AgentTool for LsTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn execute(
        &self,
        arguments: JsonObject,
        context: ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let arguments: LsArguments = parse_arguments(arguments)?;
        let cwd = self.workspace.cwd();
        let path = names::resolve_existing(cwd, arguments.path.as_deref().unwrap_or("."))?;
        self.workspace
            .authorize(&context.call_id, FileAccess::Read, &path)?;
        let shown = paths::display(cwd, &path);
        let limit = arguments.limit.unwrap_or(DEFAULT_LIMIT).max(1);
        let listed_path = path.clone();
        let entries = tokio::task::spawn_blocking(move || list(&listed_path))
            .await
            .map_err(|error| ToolError::respond(format!("Cannot list {shown}: {error}.")))?
            .map_err(|error| match error.kind() {
                std::io::ErrorKind::NotFound => match self.workspace.ensure_root() {
                    Err(gone) => gone.into(),
                    Ok(()) => {
                        let suggestion = paths::close_match(&path)
                            .map(|found| format!(" Did you mean {}?", paths::display(cwd, &found)))
                            .unwrap_or_default();
                        ToolError::respond(format!("Folder not found: {shown}.{suggestion}"))
                    }
                },
                std::io::ErrorKind::NotADirectory => ToolError::respond(format!(
                    "{shown} is a file, not a folder. Use read to see it."
                )),
                _ => ToolError::respond(format!("Cannot list {shown}: {error}.")),
            })?;
        if entries.is_empty() {
            return Ok(ToolOutput::text("(empty folder)"));
        }
        let total = entries.len();
        let shown_entries = &entries[..total.min(limit)];
        let (mut text, fitted) = join_within(shown_entries, MAX_OUTPUT_BYTES);
        if fitted < total {
            let cap = if fitted < shown_entries.len() {
                format!("{} KiB", MAX_OUTPUT_BYTES / 1024)
            } else {
                format!("limit={limit}")
            };
            text.push_str(&format!(
                "\n\n[Showing {fitted} of {total} entries ({cap}). Use limit={total} to see all, or \
                 find/grep to narrow down.]"
            ));
        }
        Ok(ToolOutput::text(text).with_details(json!({ "entries": total })))
    }
}

/// Sorted entry names, case-insensitively (then exactly, for a stable order), folders with `/`,
/// names that are not UTF-8 shown lossily with [`NOT_UTF8_MARKER`].
fn list(path: &std::path::Path) -> std::io::Result<Vec<String>> {
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(path)? {
        let entry = entry?;
        let file_name = entry.file_name();
        let mut name = file_name.to_string_lossy().into_owned();
        // `metadata` follows symlinks, so a link to a folder lists as a folder.
        if std::fs::metadata(entry.path()).is_ok_and(|m| m.is_dir()) {
            name.push('/');
        }
        if !names::is_utf8(&file_name) {
            name.push_str(NOT_UTF8_MARKER);
        }
        entries.push(name);
    }
    entries.sort_by(|a, b| a.to_lowercase().cmp(&b.to_lowercase()).then(a.cmp(b)));
    Ok(entries)
}
