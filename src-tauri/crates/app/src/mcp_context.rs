//! What a project's usable MCP servers offer the composer besides tools: their resources (the
//! `@` menu; one is attached to a message as a document of text) and their prompts (typed as
//! `/server:prompt`; filled with arguments into text the person reviews before sending). Only
//! servers whose tools a session may use are asked (switched on, and approved when the project
//! defines them); what they answer is hostile input, capped, and reaches the model only in a
//! message the person sends.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use arbor_mcp::McpError;
use arbor_protocol::views::attachments::DocumentAttachment;
use arbor_protocol::views::mcp::{
    McpComposerItems, McpPromptArgument, McpPromptView, McpResourceView, McpScope,
};

use crate::mcp::hub_key;
use crate::{AppError, ArborApp};

impl ArborApp {
    /// The resources and prompts of the project's usable servers (starting them as needed).
    pub async fn mcp_composer_items(&self, root: &Path) -> Result<McpComposerItems, AppError> {
        let (_, entries, _) = self.mcp_project(root)?;
        let hub = self.mcp_hub();
        let mut items = McpComposerItems {
            resources: Vec::new(),
            prompts: Vec::new(),
            problems: Vec::new(),
        };
        for entry in entries.into_iter().filter(|e| e.usable()) {
            let server = entry.definition.name.clone();
            let slot = hub.server(
                &hub_key(root, entry.scope, &server),
                &entry.definition,
                PathBuf::from(root),
            );
            match slot.resources().await {
                Ok(resources) => {
                    items
                        .resources
                        .extend(resources.into_iter().map(|r| McpResourceView {
                            server: server.clone(),
                            scope: entry.scope,
                            uri: r.uri,
                            name: r.name,
                            description: r.description,
                            mime_type: r.mime_type,
                        }))
                }
                Err(error) => {
                    items.problems.push(format!("{server}: {error}"));
                    continue;
                }
            }
            match slot.prompts().await {
                Ok(prompts) => items.prompts.extend(prompts.into_iter().map(|p| {
                    McpPromptView {
                        command: format!("/{server}:{}", p.name),
                        server: server.clone(),
                        scope: entry.scope,
                        name: p.name,
                        description: p.description,
                        arguments: p
                            .arguments
                            .into_iter()
                            .map(|a| McpPromptArgument {
                                name: a.name,
                                description: a.description,
                                required: a.required.unwrap_or(false),
                            })
                            .collect(),
                    }
                })),
                Err(error) => items.problems.push(format!("{server}: {error}")),
            }
        }
        Ok(items)
    }

    fn usable_slot(
        &self,
        root: &Path,
        scope: McpScope,
        server: &str,
    ) -> Result<std::sync::Arc<arbor_mcp::ServerSlot>, AppError> {
        let (_, entry, slot) = self.approved_slot(root, scope, server)?;
        if !entry.enabled {
            return Err(McpError::NotApproved(format!(
                "the MCP server {server:?} is switched off"
            ))
            .into());
        }
        Ok(slot)
    }

    /// A resource read as a document for the next message (`[server: resource, N lines]`).
    pub async fn mcp_read_resource(
        &self,
        root: &Path,
        scope: McpScope,
        server: &str,
        uri: &str,
    ) -> Result<DocumentAttachment, AppError> {
        let slot = self.usable_slot(root, scope, server)?;
        let text = slot.read_resource(uri).await?;
        let text = slot.redactor().text(&text).into_owned();
        let lines = text.lines().count();
        let plural = if lines == 1 { "" } else { "s" };
        let name = format!("{server}: {uri}");
        Ok(DocumentAttachment {
            label: "MCP resource".to_owned(),
            size: text.len() as u64,
            parts: u32::try_from(lines).unwrap_or(u32::MAX),
            part_name: "line".to_owned(),
            omitted_chars: 0,
            text: format!("[{name}: MCP resource, {lines} line{plural}]\n{text}"),
            name,
        })
    }

    /// A prompt filled with `arguments`: the text to put in the composer.
    pub async fn mcp_get_prompt(
        &self,
        root: &Path,
        scope: McpScope,
        server: &str,
        name: &str,
        arguments: BTreeMap<String, String>,
    ) -> Result<String, AppError> {
        let slot = self.usable_slot(root, scope, server)?;
        Ok(slot.get_prompt(name, arguments).await?)
    }
}
