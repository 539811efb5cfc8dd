//! MCP servers on [`ArborApp`]: the user's servers (the settings' `mcpServers`, trusted, for
//! every project) and a project's (its `.mcp.json`, untrusted: started only once the user
//! approved that exact definition, pinned by its hash — a changed definition asks again), one
//! [`McpHub`] running them, and the tools each server may offer: approved by a person after a
//! review, pinned to their hash (see [`arbor_mcp::pins`]). `mcp_session.rs` offers the
//! approved tools to a live session.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arbor_mcp::{
    review, HubLimits, McpError, McpHub, RemoteTool, ServerDefinition, ServerState, Transport,
};
use arbor_protocol::views::mcp::{
    McpScope, McpServerConfig, McpServerReview, McpServerStatus, McpServerView, McpServersView,
    McpToolEntry, McpToolsReview, McpTransport,
};
use arbor_store::mcp::USER_SCOPE;
use arbor_store::Store;

use crate::settings::SettingsError;
use crate::{AppError, ArborApp, Settings};

/// A server as a definition in Arbor's terms.
pub fn definition_of(config: &McpServerConfig) -> ServerDefinition {
    ServerDefinition {
        name: config.name.clone(),
        transport: match config.transport {
            McpTransport::Stdio => Transport::Stdio {
                command: config.command.clone(),
                args: config.args.clone(),
                env: config.env.clone(),
            },
            McpTransport::Http => Transport::Http {
                url: config.url.clone(),
                headers: config.headers.clone(),
                oauth: (!config.oauth_client_id.trim().is_empty()).then(|| {
                    arbor_mcp::definition::OAuthClient {
                        client_id: config.oauth_client_id.trim().to_owned(),
                        client_secret: given(&config.oauth_client_secret),
                        grant: given(&config.oauth_grant),
                        private_key: given(&config.oauth_private_key),
                        signing_algorithm: given(&config.oauth_signing_algorithm),
                    }
                }),
            },
            McpTransport::Sse => Transport::Sse {
                url: config.url.clone(),
                headers: config.headers.clone(),
            },
        },
    }
}

/// Checks the settings' servers: each usable, no name twice.
pub(crate) fn validate_configs(configs: &[McpServerConfig]) -> Result<(), SettingsError> {
    let mut seen = std::collections::HashSet::new();
    for config in configs {
        definition_of(config)
            .validate()
            .map_err(|e| SettingsError::Value(e.to_string()))?;
        if !seen.insert(config.name.as_str()) {
            return Err(SettingsError::Value(format!(
                "two MCP servers are named {:?}; give one another name",
                config.name
            )));
        }
    }
    Ok(())
}

/// One server of a project, with what decides whether it runs.
#[derive(Debug, Clone)]
pub(crate) struct McpEntry {
    pub scope: McpScope,
    pub definition: ServerDefinition,
    pub enabled: bool,
    /// User servers are trusted; a project's only when its definition's hash is approved.
    pub approved: bool,
}

impl McpEntry {
    /// Whether its approved tools are offered.
    pub fn usable(&self) -> bool {
        self.enabled && self.approved
    }
}

/// Where a server's tool approvals are kept: the user's for every project, a project's own.
pub(crate) fn scope_key(scope: McpScope, project_id: &str) -> &str {
    match scope {
        McpScope::User => USER_SCOPE,
        McpScope::Project => project_id,
    }
}

/// The hub's key of a server: each project folder runs its own (a stdio server works there).
pub(crate) fn hub_key(root: &Path, scope: McpScope, name: &str) -> String {
    let scope = match scope {
        McpScope::User => "user",
        McpScope::Project => "project",
    };
    format!("{}\u{0}{scope}\u{0}{name}", root.display())
}

/// The servers of the project at `root` (whose approvals are kept under `project_id`), and the
/// problems of its `.mcp.json`.
pub(crate) fn entries(
    settings: &Settings,
    store: &Store,
    root: &Path,
    project_id: &str,
) -> Result<(Vec<McpEntry>, Vec<String>), AppError> {
    let mut out = Vec::new();
    for config in &settings.mcp_servers {
        out.push(McpEntry {
            scope: McpScope::User,
            definition: definition_of(config),
            enabled: config.enabled,
            approved: true,
        });
    }
    let project = arbor_mcp::definition::read_project_file(root);
    let mut problems: Vec<String> = project
        .problems
        .into_iter()
        .map(|(name, why)| {
            if name.is_empty() {
                why
            } else {
                format!("{name}: {why}")
            }
        })
        .collect();
    let disabled = store.disabled_mcp_servers(project_id)?;
    for definition in project.servers {
        if settings
            .mcp_servers
            .iter()
            .any(|c| c.name == definition.name)
        {
            problems.push(format!(
                "{}: a server of your settings has this name, so the project's is left out",
                definition.name
            ));
            continue;
        }
        let approved = store
            .approved_mcp_server(project_id, &definition.name)?
            .is_some_and(|a| a.hash == definition.hash());
        out.push(McpEntry {
            scope: McpScope::Project,
            enabled: !disabled.contains(&definition.name),
            definition,
            approved,
        });
    }
    Ok((out, problems))
}

/// The tools of `server` approved in `scope`, as they were approved.
pub(crate) fn approved_tools(
    store: &Store,
    scope: &str,
    server: &str,
) -> Result<Vec<RemoteTool>, AppError> {
    Ok(store
        .approved_mcp_tools(scope, server)?
        .into_iter()
        .filter_map(|(_, spec)| serde_json::from_str(&spec).ok())
        .collect())
}

fn tool_entry(server: &str, tool: &RemoteTool, diff: Option<String>) -> McpToolEntry {
    McpToolEntry {
        name: tool.name.clone(),
        offered_as: arbor_mcp::offered_name(server, &tool.name),
        description: tool.description.clone(),
        text: arbor_mcp::pins::reviewed_text(tool),
        diff,
    }
}

/// A hub whose servers take secrets from `keys`' keychain and get `tool_environment`'s
/// scrubbed environment (a front end without an [`ArborApp`], like the CLI's session, makes
/// its own and stops it when done).
pub fn new_hub(
    keys: &crate::ProviderKeys,
    tool_environment: arbor_coding::secrets::ToolEnvironment,
) -> Arc<McpHub> {
    Arc::new(McpHub::new(
        keys.secret_store(),
        tool_environment,
        arbor_coding::secrets::Redactor::new(),
        HubLimits::default(),
    ))
}

impl ArborApp {
    /// The app's running servers (made on first use; nothing starts until needed).
    pub fn mcp_hub(&self) -> Arc<McpHub> {
        self.mcp
            .get_or_init(|| new_hub(&self.keys, self.tool_environment(&[])))
            .clone()
    }

    /// The project of `root` (a worktree answers its main project) and its servers.
    pub(crate) fn mcp_project(
        &self,
        root: &Path,
    ) -> Result<(String, Vec<McpEntry>, Vec<String>), AppError> {
        let project = self.main_project(root)?;
        let settings = self.settings();
        let (entries, problems) = entries(&settings, &self.store(), root, &project.id)?;
        Ok((project.id, entries, problems))
    }

    pub(crate) fn mcp_entry(
        &self,
        root: &Path,
        scope: McpScope,
        name: &str,
    ) -> Result<(String, McpEntry), AppError> {
        let (project_id, entries, _) = self.mcp_project(root)?;
        let entry = entries
            .into_iter()
            .find(|e| e.scope == scope && e.definition.name == name)
            .ok_or_else(|| McpError::UnknownServer(name.to_owned()))?;
        Ok((project_id, entry))
    }

    /// Every server of the project at `root`, with its status.
    pub fn mcp_servers(&self, root: &Path) -> Result<McpServersView, AppError> {
        let (project_id, entries, problems) = self.mcp_project(root)?;
        let hub = self.mcp_hub();
        let store = self.store();
        let mut servers = Vec::with_capacity(entries.len());
        for entry in entries {
            let name = entry.definition.name.clone();
            let scope = scope_key(entry.scope, &project_id).to_owned();
            let pinned = approved_tools(&store, &scope, &name)?;
            let slot = hub.existing(&hub_key(root, entry.scope, &name));
            let status = slot.as_ref().map(|s| s.status()).unwrap_or_default();
            let pending = slot
                .as_ref()
                .and_then(|s| s.known_tools())
                .map(|now| {
                    let review = review(&now, &pinned);
                    review.added.len() + review.changed.len()
                })
                .unwrap_or(0);
            let shown = if !entry.approved {
                McpServerStatus::Pending
            } else if !entry.enabled {
                McpServerStatus::Stopped
            } else {
                match status.state {
                    ServerState::Running => McpServerStatus::Running,
                    ServerState::Error => McpServerStatus::Error,
                    ServerState::NeedsAuth => McpServerStatus::NeedsAuth,
                    ServerState::Stopped | ServerState::Starting => McpServerStatus::Stopped,
                }
            };
            servers.push(McpServerView {
                summary: entry.definition.summary(),
                transport: match entry.definition.transport {
                    Transport::Stdio { .. } => McpTransport::Stdio,
                    Transport::Http { .. } => McpTransport::Http,
                    Transport::Sse { .. } => McpTransport::Sse,
                },
                hash: entry.definition.hash(),
                name,
                scope: entry.scope,
                enabled: entry.enabled,
                status: shown,
                error: status.error.filter(|_| {
                    matches!(shown, McpServerStatus::Error | McpServerStatus::NeedsAuth)
                }),
                tools_approved: pinned.len(),
                tools_pending: pending,
                start_ms: status.start_ms,
                calls: status.calls,
                last_call_ms: status.last_call_ms,
            });
        }
        Ok(McpServersView { servers, problems })
    }

    /// Adds a server to the user's settings (for every project).
    pub fn add_mcp_server(
        &self,
        root: &Path,
        config: McpServerConfig,
    ) -> Result<McpServersView, AppError> {
        let mut settings = self.settings();
        settings
            .mcp_servers
            .retain(|c| c.name != config.name || config.name.is_empty());
        settings.mcp_servers.push(config);
        validate_configs(&settings.mcp_servers)?;
        self.save_settings(settings)?;
        self.mcp_servers(root)
    }

    /// Removes a server from the user's settings and stops it. A project's servers are
    /// removed by editing its `.mcp.json`.
    pub async fn remove_mcp_server(
        &self,
        root: &Path,
        name: &str,
    ) -> Result<McpServersView, AppError> {
        let mut settings = self.settings();
        let before = settings.mcp_servers.len();
        settings.mcp_servers.retain(|c| c.name != name);
        if settings.mcp_servers.len() == before {
            return Err(McpError::UnknownServer(name.to_owned()).into());
        }
        self.save_settings(settings)?;
        self.mcp_hub()
            .remove(&hub_key(root, McpScope::User, name))
            .await;
        self.mcp_servers(root)
    }

    /// Switches a server on or off (off: stopped, its tools not offered).
    pub async fn set_mcp_server_enabled(
        &self,
        root: &Path,
        scope: McpScope,
        name: &str,
        enabled: bool,
    ) -> Result<McpServersView, AppError> {
        let (project_id, _) = self.mcp_entry(root, scope, name)?;
        match scope {
            McpScope::User => {
                let mut settings = self.settings();
                for config in settings.mcp_servers.iter_mut().filter(|c| c.name == name) {
                    config.enabled = enabled;
                }
                self.save_settings(settings)?;
            }
            McpScope::Project => {
                self.store()
                    .set_mcp_server_disabled(&project_id, name, !enabled)?
            }
        }
        if !enabled {
            if let Some(slot) = self.mcp_hub().existing(&hub_key(root, scope, name)) {
                slot.stop().await;
            }
        }
        self.mcp_servers(root)
    }

    /// A project server's definition as the user approves it, with the change since the last
    /// approval when there was one.
    pub fn mcp_server_review(&self, root: &Path, name: &str) -> Result<McpServerReview, AppError> {
        let (project_id, entry) = self.mcp_entry(root, McpScope::Project, name)?;
        let definition = entry.definition.reviewed_text();
        let diff = self
            .store()
            .approved_mcp_server(&project_id, name)?
            .filter(|approved| approved.hash != entry.definition.hash())
            .map(|approved| {
                similar::TextDiff::from_lines(&approved.definition, &definition)
                    .unified_diff()
                    .header("approved", "now")
                    .to_string()
            });
        Ok(McpServerReview {
            name: name.to_owned(),
            definition,
            diff,
            hash: entry.definition.hash(),
        })
    }

    /// Approves a project server whose definition hashes to `hash` — only if that is what
    /// the project's `.mcp.json` says now (an approval never covers a text not shown).
    pub fn approve_mcp_server(
        &self,
        root: &Path,
        name: &str,
        hash: &str,
    ) -> Result<McpServersView, AppError> {
        let (project_id, entry) = self.mcp_entry(root, McpScope::Project, name)?;
        if entry.definition.hash() != hash {
            return Err(McpError::NotApproved(format!(
                "the definition of {name:?} changed since it was shown; review it again"
            ))
            .into());
        }
        self.store().approve_mcp_server(
            &project_id,
            name,
            hash,
            &entry.definition.reviewed_text(),
        )?;
        self.mcp_servers(root)
    }

    /// Starts the server if needed and compares its tools with the approved ones.
    pub async fn mcp_tools_review(
        &self,
        root: &Path,
        scope: McpScope,
        name: &str,
    ) -> Result<McpToolsReview, AppError> {
        let (project_id, entry, now) = self.mcp_live_tools(root, scope, name).await?;
        let pinned = approved_tools(&self.store(), scope_key(scope, &project_id), name)?;
        let review = review(&now, &pinned);
        let server = &entry.definition.name;
        Ok(McpToolsReview {
            server: server.clone(),
            scope,
            added: review
                .added
                .iter()
                .map(|t| tool_entry(server, t, None))
                .collect(),
            changed: review
                .changed
                .iter()
                .map(|c| tool_entry(server, &c.now, Some(c.diff())))
                .collect(),
            removed: review.removed,
            unchanged: review
                .unchanged
                .iter()
                .map(|t| tool_entry(server, t, None))
                .collect(),
            hash: review.hash,
        })
    }

    async fn mcp_live_tools(
        &self,
        root: &Path,
        scope: McpScope,
        name: &str,
    ) -> Result<(String, McpEntry, Vec<RemoteTool>), AppError> {
        let (project_id, entry, slot) = self.approved_slot(root, scope, name)?;
        let now = slot.tools().await?;
        Ok((project_id, entry, now))
    }

    /// The server `name` of `scope`, refused while a project's definition is not approved
    /// (it never starts then); with the project approvals are kept under.
    pub(crate) fn approved_slot(
        &self,
        root: &Path,
        scope: McpScope,
        name: &str,
    ) -> Result<(String, McpEntry, Arc<arbor_mcp::ServerSlot>), AppError> {
        let (project_id, entry) = self.mcp_entry(root, scope, name)?;
        if !entry.approved {
            return Err(McpError::NotApproved(format!(
                "the project's server {name:?} is not approved: review its definition first"
            ))
            .into());
        }
        let slot = self.mcp_hub().server(
            &hub_key(root, scope, name),
            &entry.definition,
            PathBuf::from(root),
        );
        Ok((project_id, entry, slot))
    }

    /// Approves the server's tools exactly as reviewed (the review's `hash`): they are offered
    /// from the next request on. A list that changed since the review is refused.
    pub async fn approve_mcp_tools(
        &self,
        root: &Path,
        scope: McpScope,
        name: &str,
        hash: &str,
    ) -> Result<McpServersView, AppError> {
        let (project_id, _, now) = self.mcp_live_tools(root, scope, name).await?;
        if review(&now, &[]).hash != hash {
            return Err(McpError::NotApproved(format!(
                "the tools of {name:?} changed since they were shown; review them again"
            ))
            .into());
        }
        let pins: Vec<(String, String)> = now
            .iter()
            .map(|t| (t.name.clone(), serde_json::to_string(t).unwrap_or_default()))
            .collect();
        self.store()
            .approve_mcp_tools(scope_key(scope, &project_id), name, &pins)?;
        self.mcp_servers(root)
    }

    /// Signs in to an HTTP server: its authorization page is opened with `open` (the system
    /// browser), the redirect caught on a loopback port, the tokens kept in the keychain; the
    /// server starts again with them at the next need. Waits for the browser at most
    /// [`arbor_mcp::oauth::SIGN_IN_TIMEOUT`].
    pub async fn mcp_sign_in(
        &self,
        root: &Path,
        scope: McpScope,
        name: &str,
        open: &(dyn Fn(String) + Send + Sync),
    ) -> Result<McpServersView, AppError> {
        let (_, _, slot) = self.approved_slot(root, scope, name)?;
        slot.sign_in(open, arbor_mcp::oauth::SIGN_IN_TIMEOUT)
            .await?;
        self.mcp_servers(root)
    }

    /// A server's stderr and Arbor's lines about it (empty before it first started).
    pub fn mcp_server_log(&self, root: &Path, scope: McpScope, name: &str) -> Vec<String> {
        self.mcp_hub()
            .existing(&hub_key(root, scope, name))
            .map(|slot| slot.log())
            .unwrap_or_default()
    }

    /// Keeps `value` in the keychain as the secret a definition names `${keychain:NAME}`.
    pub fn set_mcp_secret(&self, name: &str, value: &str) -> Result<(), AppError> {
        arbor_mcp::definition::check_name(name).map_err(|_| McpError::InvalidServer {
            name: name.to_owned(),
            why: "a secret's name has only letters, digits, '-' and '_'".into(),
        })?;
        let secret = arbor_coding::secrets::Secret::new(value.to_owned()).ok_or_else(|| {
            McpError::InvalidServer {
                name: name.to_owned(),
                why: "the secret is empty".into(),
            }
        })?;
        secret.validate().map_err(McpError::from)?;
        self.keys
            .secret_store()
            .set(&arbor_mcp::environment::keychain_account(name), &secret)
            .map_err(McpError::from)?;
        Ok(())
    }

    /// Stops every server (the app is closing).
    pub async fn stop_mcp_servers(&self) {
        if let Some(hub) = self.mcp.get() {
            hub.stop_all().await;
        }
    }
}

/// A settings field's value, when it has one.
fn given(field: &str) -> Option<String> {
    Some(field.trim().to_owned()).filter(|s| !s.is_empty())
}
