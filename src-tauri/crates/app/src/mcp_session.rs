//! A live session's MCP tools: at every run's start, the approved tools of the project's
//! usable servers (enabled, and approved when the project defines them), as they were
//! approved — offered without starting a server; the server starts at the first call. The
//! settings and `.mcp.json` are read again each time, so a server added, switched off or
//! approved in another window counts from the next run.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use arbor_agent::AgentTool;
use arbor_coding::SessionRecorder;
use arbor_mcp::search::{schema_tokens, LoadedTools, ToolSearch, DEFAULT_SHARE_PERCENT};
use arbor_mcp::{tool_hash, McpHub, McpTool};
use arbor_store::Store;

use crate::mcp::{approved_tools, entries, hub_key, scope_key};
use crate::settings::SettingsFile;
use crate::Settings;

/// Where a session's MCP tools come from.
pub(crate) struct McpSource {
    hub: Arc<McpHub>,
    data_dir: PathBuf,
    root: PathBuf,
    /// The project approvals are kept under (a worktree's main project).
    project_id: String,
    /// Its own connection, opened the first time a server is configured (a session without
    /// MCP servers never opens it).
    store: std::sync::OnceLock<Mutex<Store>>,
    /// The tools the model found with the search tool (offered although schemas are many).
    loaded: LoadedTools,
    /// Offers the session's tools again (set by `SessionTools::set_mcp`).
    pub(crate) on_load: std::sync::OnceLock<Arc<dyn Fn() + Send + Sync>>,
    /// Who answers a server's questions during the session's calls.
    elicitor: Arc<dyn arbor_mcp::elicitation::Elicitor>,
}

impl McpSource {
    /// The source of a session stored by `recorder`, working in `root`: approvals are kept
    /// under the project (a worktree's main project), read through a connection of its own.
    pub(crate) fn for_recorder(
        hub: Arc<McpHub>,
        recorder: &SessionRecorder,
        root: &Path,
        elicitor: Arc<dyn arbor_mcp::elicitation::Elicitor>,
    ) -> Option<Self> {
        let project = recorder.project();
        recorder.with_store(|store| {
            let data_dir = store.path().parent()?.to_owned();
            // (The worktree lookup is one indexed query on the recorder's own connection.)
            let project_id = match store.worktree_of_project(&project.id).ok()? {
                Some(worktree) => worktree.main_project_id,
                None => project.id.clone(),
            };
            Some(Self {
                hub,
                data_dir,
                root: root.to_owned(),
                project_id,
                store: std::sync::OnceLock::new(),
                loaded: LoadedTools::default(),
                on_load: std::sync::OnceLock::new(),
                elicitor,
            })
        })
    }

    /// The approved tools of the usable servers — or, when their definitions would take more
    /// than the settings' share (default [`DEFAULT_SHARE_PERCENT`] %) of `context_window`, the search tool and the tools the
    /// model found with it.
    pub(crate) fn offered(&self, context_window: u32) -> Vec<Arc<dyn AgentTool>> {
        let (all, servers, percent) = self.approved();
        let budget = context_window as usize * percent / 100;
        if all.is_empty() || context_window == 0 || schema_tokens(&all) <= budget {
            return all;
        }
        let on_load = self
            .on_load
            .get()
            .cloned()
            .unwrap_or_else(|| Arc::new(|| {}));
        let specs = all.iter().map(|t| t.spec().clone()).collect();
        let search: Arc<dyn AgentTool> = Arc::new(ToolSearch::new(
            specs,
            &servers,
            self.loaded.clone(),
            on_load,
        ));
        std::iter::once(search)
            .chain(
                all.into_iter()
                    .filter(|t| self.loaded.contains(&t.spec().name)),
            )
            .collect()
    }

    /// The settings and the store connection, or `None` when no server is configured at all
    /// (none in the settings, no `.mcp.json`): then nothing else is read.
    fn configured(&self) -> Option<(Settings, std::sync::MutexGuard<'_, Store>)> {
        let settings = Settings::load(&self.data_dir).unwrap_or_default();
        if settings.mcp_servers.is_empty() && !self.root.join(arbor_mcp::PROJECT_FILE).exists() {
            return None;
        }
        let store = match self.store.get() {
            Some(store) => store,
            None => {
                let opened = Store::open(&self.data_dir).ok()?;
                self.store.get_or_init(|| Mutex::new(opened))
            }
        };
        Some((settings, store.lock().unwrap_or_else(|p| p.into_inner())))
    }

    /// The usable server `name` (switched on, approved when the project defines it).
    pub(crate) fn usable_slot(&self, name: &str) -> Option<Arc<arbor_mcp::ServerSlot>> {
        let (settings, store) = self.configured()?;
        let (servers, _) = entries(&settings, &store, &self.root, &self.project_id).ok()?;
        let entry = servers
            .into_iter()
            .find(|e| e.usable() && e.definition.name == name)?;
        Some(self.hub.server(
            &hub_key(&self.root, entry.scope, name),
            &entry.definition,
            self.root.clone(),
        ))
    }

    /// The approved tools of the usable servers, and those servers' names. A server whose
    /// configuration cannot be read offers nothing (it is shown with its problem in the
    /// settings).
    fn approved(&self) -> (Vec<Arc<dyn AgentTool>>, Vec<String>, usize) {
        let Some((settings, store)) = self.configured() else {
            return (Vec::new(), Vec::new(), DEFAULT_SHARE_PERCENT as usize);
        };
        let percent = settings
            .mcp_search_at_percent
            .map_or(DEFAULT_SHARE_PERCENT as usize, usize::from);
        let Ok((servers, _)) = entries(&settings, &store, &self.root, &self.project_id) else {
            return (Vec::new(), Vec::new(), percent);
        };
        let mut tools: Vec<Arc<dyn AgentTool>> = Vec::new();
        let mut names = Vec::new();
        for entry in servers.into_iter().filter(|e| e.usable()) {
            let name = &entry.definition.name;
            let Ok(approved) =
                approved_tools(&store, scope_key(entry.scope, &self.project_id), name)
            else {
                continue;
            };
            if approved.is_empty() {
                continue;
            }
            names.push(name.clone());
            let slot = self.hub.server(
                &hub_key(&self.root, entry.scope, name),
                &entry.definition,
                self.root.clone(),
            );
            // When the server was asked lately, a tool it now offers otherwise (or no more) is
            // left out until reviewed; otherwise the call itself checks (see `McpTool`).
            let known = slot.known_tools();
            for tool in &approved {
                let unchanged = known.as_ref().is_none_or(|now| {
                    now.iter()
                        .any(|t| t.name == tool.name && tool_hash(t) == tool_hash(tool))
                });
                if unchanged {
                    tools.push(Arc::new(
                        McpTool::new(slot.clone(), tool).with_elicitor(Some(self.elicitor.clone())),
                    ));
                }
            }
        }
        (tools, names, percent)
    }
}
