//! `arbor-app` — the one session API every front end drives: the desktop shell and each mode of the `arbor`
//! CLI only adapt it (to Tauri commands and a channel, to terminal output, to JSON lines).
//!
//! Map:
//! - [`ArborApp`] (this module): app-wide — the data folder (shared by desktop and CLI, so
//!   both use one `arbor.db`), the model catalogue with `models.json`, where keys come from,
//!   projects, session lists, search; it starts [`LiveSession`]s.
//! - [`live`]: [`LiveSession`] — the agent with its tools, recorder, compactor and request
//!   hook, and **one** event stream ([`arbor_protocol::SessionEvent`]) in which a message's
//!   `node_appended` follows its `message_end` by construction; model and thinking changes.
//! - [`commands`]: the session's command set (the CLI's RPC commands), answering with the
//!   typed structs of [`responses`].
//! - [`view`]: what a chat window shows — the current branch with node ids and siblings, and
//!   the header's figures; [`tree_view`]: the whole session as a tree, and going to a node.
//! - [`selection`]: resolving a model and its key; [`keys`]: [`ProviderKeys`] — where a
//!   provider's key comes from (its variable, then the OS keychain; see [`arbor_coding::secrets`]) and
//!   what tool processes must not inherit ([`tool_environment`]); [`key_check`]: one cheap
//!   request that says whether a key works; [`settings`]: `settings.json` (defaults, the
//!   tool-environment pass-through list); [`custom_endpoints`]: adding a provider to
//!   `models.json`; [`cloning`]: cloning into the workspaces folder with the keychain's GitHub
//!   token, recorded as a project; [`user_config`]: those as [`ArborApp`] methods; [`project`]: checking a folder before it becomes a project; [`data_dir`].
//! - [`error`]: [`AppError`] with a stable `code()`.
//! - Below it: `arbor-coding` (recording, compaction, the request hook, the offered tools) and
//!   the capability crates; what front ends name of those is re-exported here, so the desktop
//!   shell and the CLI depend on this crate only.
//!
//! Store work of the app-wide calls is synchronous; async front ends run it through
//! [`blocking`], off the runtime's worker threads.

pub mod cloning;
pub mod code_state;
pub mod commands;
pub mod compare;
pub mod custom_endpoints;
pub mod data_dir;
pub mod documents;
pub mod error;
pub mod key_check;
pub mod keys;
pub mod live;
mod live_elicitation;
mod live_permissions;
pub mod mcp;
mod mcp_context;
mod mcp_session;
mod model_tools;
pub mod permissions;
pub mod plan_mode;

/// When this process was started as the sandbox's helper (Arbor re-executing itself), sets
/// the restrictions and becomes the command; never returns then. Call first in `main`.
pub fn run_sandbox_helper_if_requested() {
    arbor_sandbox::helper::run_if_requested();
    if let Ok(exe) = std::env::current_exe() {
        arbor_sandbox::register_helper(exe);
    }
}

/// Makes this process's memory and `/proc` entries unreadable to other processes of the user
/// (tool processes among them): not dumpable. Failing to is not fatal (the sandbox's PID
/// namespace hides Arbor anyway).
pub fn protect_this_process() {
    arbor_sandbox::protect_this_process();
}
pub mod project;
pub mod project_files;
pub mod project_prompt;
/// What each session command answers (RPC responses), the wire's.
pub use arbor_protocol::responses;
pub mod selection;
mod session_setup;
pub mod settings;
pub mod stored;
pub mod tree_view;
pub mod user_config;
pub mod view;
mod worktree_setup;
pub mod worktrees;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use arbor_llm::catalog::Catalog;
use arbor_protocol::views::branch::SearchHit;
pub use arbor_protocol::views::{
    ModelEntry, ModelGroup, ProjectInfo, RecentProject, SessionListItem,
};
use arbor_store::{SearchOptions, Store};

/// A tool's spec, for front ends that describe tools (`arbor tools`).
pub use arbor_agent::AgentTool;
/// The model catalogue (`models.json`), for front ends that list or pick models.
pub use arbor_llm::catalog;
/// Every answer front ends are shown, by concern (the wire's, re-exported here).
pub use arbor_protocol::views;
pub use code_state::{code_tracker, FilesMode, FilesRestored, NavigationWithFiles, SNAPSHOTS_DIR};
pub use commands::NavigateTo;
pub use compare::{BranchComparison, ComparedBranch};
pub use custom_endpoints::CustomEndpoint;
pub use data_dir::{resolve_data_dir, DATA_DIR_ENV};
pub use documents::{read_document, read_document_base64};
pub use error::AppError;
pub use key_check::{check_key, KeyCheck};
pub use keys::{tool_environment, ApiKey, KeySource, ProviderKeyStatus, ProviderKeys};
pub use live::{request_options, Interrupter, LiveSession, SessionConfig, SessionStart};
pub use project::{check_folder, ProjectError, ProjectFolder};
pub use selection::{select, ModelRequest, Selection, SelectionError};
pub use settings::{Settings, SettingsError, SettingsFile};
pub use stored::{DatabaseCheck, ImportedSession, StoredSessions, WrongProject};
pub use tree_view::{stored_tree_view, NodeVisit, SessionTreeDelta, SessionTreeView, TreeNodeView};
pub use user_config::{KeyStatusList, KeychainProblem, GITHUB_TOKEN_VARIABLES};
pub use view::{BranchEntry, BranchPage, SessionState, SessionView, VIEW_TAIL};

/// What front ends name from the layers below, so that they depend on this crate only.
pub use arbor_coding::{
    builtin_tools, clone, export, parse_tool_list, secrets, sessions, skills, snapshots,
    BuiltinToolOptions, CodingEvent, CompactionReason, SessionRecorder, Workspace, DEFAULT_TOOLS,
};

/// Reads an environment variable (injected so tests do not depend on the process's).
pub type EnvReader = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// The store's search hits as front ends are shown them.
pub(crate) fn search_hits(
    store: &Store,
    query: &str,
    options: &SearchOptions,
) -> Result<Vec<SearchHit>, arbor_store::StoreError> {
    let hits = store.search(query, options)?;
    Ok(hits
        .into_iter()
        .map(|hit| SearchHit {
            project_id: hit.project_id,
            project_root: hit.project_root,
            session_id: hit.session_id,
            session_title: hit.session_title,
            node_id: hit.node_id,
            kind: view::node_kind(hit.kind),
            snippet: hit.snippet,
            created_at: hit.created_at,
        })
        .collect())
}

/// Store rows → list items, with each session's figures (read once per project).
pub(crate) fn session_list_items(
    store: &Store,
    summaries: Vec<arbor_store::SessionSummary>,
) -> Result<Vec<SessionListItem>, arbor_store::StoreError> {
    let mut stats = std::collections::HashMap::new();
    let mut worktrees = std::collections::HashMap::new();
    let mut items = Vec::with_capacity(summaries.len());
    for summary in summaries {
        let project = summary.session.project_id.clone();
        if !stats.contains_key(&project) {
            stats.insert(project.clone(), store.session_stats(&project)?);
            let worktree = store.worktree_of_project(&project)?.map(|w| w.name);
            worktrees.insert(project.clone(), worktree);
        }
        let worktree = worktrees.get(&project).cloned().flatten();
        let figures = stats
            .get(&project)
            .and_then(|by_session| by_session.get(&summary.session.id))
            .copied()
            .unwrap_or_default();
        let session = summary.session;
        items.push(SessionListItem {
            id: session.id,
            title: session.title,
            leaf_id: session.leaf_id,
            model: session.model,
            thinking_level: session.thinking_level,
            created_at: session.created_at,
            updated_at: session.updated_at,
            project_root: summary.project_root,
            node_count: summary.node_count,
            message_count: figures.message_count,
            cost: figures.cost,
            worktree,
        });
    }
    Ok(items)
}

/// App-wide state: one per process.
pub struct ArborApp {
    data_dir: PathBuf,
    /// Replaced whole when `models.json` changes (a custom endpoint added).
    catalog: std::sync::RwLock<Arc<Catalog>>,
    store: Mutex<Store>,
    keys: Arc<ProviderKeys>,
    settings: Mutex<Settings>,
    /// The MCP servers, made on first use (`mcp.rs`).
    mcp: std::sync::OnceLock<Arc<arbor_mcp::McpHub>>,
}

impl std::fmt::Debug for ArborApp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArborApp")
            .field("data_dir", &self.data_dir)
            .finish_non_exhaustive()
    }
}

impl ArborApp {
    /// Opens the data folder (`explicit`, else `$ARBOR_DATA_DIR`, else the OS data folder):
    /// its `arbor.db`, `models.json` and `settings.json`. Keys come from the process environment,
    /// then the OS keychain.
    pub fn open(explicit: Option<&Path>) -> Result<Self, AppError> {
        let data_dir = resolve_data_dir(explicit)?;
        let catalog = Catalog::load(&data_dir).map_err(AppError::Catalog)?;
        let settings = Settings::load(&data_dir)?;
        let store = Store::open(&data_dir)?;
        for owned in crate::data_dir::owned_data_paths(&data_dir) {
            arbor_coding::workspace::protect_arbor_path(&owned);
        }
        let app = Self {
            data_dir,
            catalog: std::sync::RwLock::new(Arc::new(catalog)),
            store: Mutex::new(store),
            keys: Arc::new(ProviderKeys::for_app()),
            settings: Mutex::new(settings),
            mcp: std::sync::OnceLock::new(),
        };
        // What a clone that crashed left behind goes at the next start.
        cloning::clean_clone_leftovers(&app.data_dir, &app.workspaces_dir());
        Ok(app)
    }

    /// Reads keys through `env` and an in-memory store instead of the process environment and
    /// the keychain (tests).
    pub fn with_env(self, env: EnvReader) -> Self {
        self.with_keys(ProviderKeys::new(
            env,
            Arc::new(arbor_coding::secrets::MemoryStore::new()),
        ))
    }

    /// Reads keys through `keys`.
    pub fn with_keys(mut self, keys: ProviderKeys) -> Self {
        self.keys = Arc::new(keys);
        self
    }

    /// Where provider keys come from.
    pub fn keys(&self) -> &ProviderKeys {
        &self.keys
    }

    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// The model catalogue as it is now.
    pub fn catalog(&self) -> Arc<Catalog> {
        self.catalog
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    pub(crate) fn store(&self) -> std::sync::MutexGuard<'_, Store> {
        self.store
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A connection of its own for a live session (SQLite in WAL mode: sessions of several
    /// windows write side by side).
    pub fn session_store(&self) -> Result<Store, AppError> {
        Ok(Store::open(&self.data_dir)?)
    }

    /// Checks a folder and records it as a (recently opened) project.
    pub fn open_project(&self, raw_path: &str) -> Result<ProjectInfo, AppError> {
        let folder = check_folder(raw_path)?;
        let project = self.store().open_project(Path::new(&folder.path), None)?;
        self.index_search_in_background();
        Ok(ProjectInfo {
            id: project.id,
            name: folder.name,
            path: folder.path,
            is_git_repo: folder.is_git_repo,
        })
    }

    /// Indexes for search, on a thread and a connection of its own, the nodes stored since the
    /// last search (`arbor -p` runs store without indexing): the window's first search then
    /// does not wait for them. A failure is left for that search to meet and report.
    fn index_search_in_background(&self) {
        // A second connection to the open database: not checked again at open.
        let another = self.store().another_later();
        let _detached = std::thread::Builder::new()
            .name("arbor-index-search".into())
            .spawn(move || another.open().and_then(|store| store.index_pending()));
    }

    /// Every project, most recently opened first, with whether its folder still exists.
    pub fn recent_projects(&self) -> Result<Vec<RecentProject>, AppError> {
        let mut projects = self.store().list_projects()?;
        projects.sort_by_key(|p| std::cmp::Reverse(p.last_opened_at));
        Ok(projects
            .into_iter()
            .map(|project| {
                let path = Path::new(&project.root);
                RecentProject {
                    name: path
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_else(|| project.root.clone()),
                    exists: path.is_dir(),
                    id: project.id,
                    path: project.root,
                    last_opened_at: project.last_opened_at,
                }
            })
            .collect())
    }

    /// Resolves a model request with this app's keys.
    pub fn select(&self, request: &ModelRequest) -> Result<Selection, AppError> {
        Ok(select(&self.catalog(), request, &self.keys)?)
    }

    /// The model a new window starts with: the one `preferred` names (`provider/id`, e.g. what
    /// the project's last session used) when its key is at hand, else the settings' default
    /// model, else the catalogue default when its key is at hand, else the first provider whose
    /// key is in the environment or the keychain, else
    /// the first `models.json` provider that needs no key, else the catalogue default without
    /// a key (requests then fail with an authentication error that says which variable to set).
    pub fn default_selection(&self, preferred: Option<&str>) -> Result<Selection, AppError> {
        let try_model = |model: Option<&str>, provider: Option<&str>| {
            self.select(&ModelRequest {
                model: model.map(str::to_owned),
                provider: provider.map(str::to_owned),
                ..ModelRequest::default()
            })
            .ok()
        };
        if let Some(found) = preferred.and_then(|name| try_model(Some(name), None)) {
            return Ok(found);
        }
        let default_model = self.settings().default_model;
        if let Some(found) = default_model.and_then(|name| try_model(Some(&name), None)) {
            return Ok(found);
        }
        if let Some(found) = try_model(None, None) {
            return Ok(found);
        }
        let builtin: HashSet<String> = Catalog::builtin()
            .map(|c| c.providers().iter().map(|p| p.name.clone()).collect())
            .unwrap_or_default();
        let catalog = self.catalog();
        let providers = catalog.providers();
        let with_env_key = providers.iter().find(|p| {
            p.api_key_env.is_some()
                && self
                    .keys
                    .lookup(&p.name, p.api_key_env.as_deref())
                    .is_some()
        });
        let keyless_custom = || {
            providers
                .iter()
                .find(|p| p.api_key_env.is_none() && !builtin.contains(&p.name))
        };
        if let Some(found) = with_env_key
            .or_else(keyless_custom)
            .and_then(|p| try_model(None, Some(&p.name)))
        {
            return Ok(found);
        }
        let (model, catalogued) = catalog.resolve(None, None).map_err(AppError::Catalog)?;
        let api_key_env = catalog
            .provider(&model.provider)
            .map_err(AppError::Catalog)?
            .api_key_env
            .clone();
        Ok(Selection {
            model,
            catalogued,
            api_key: None,
            key_source: KeySource::Missing {
                variable: api_key_env.clone(),
            },
            api_key_env,
        })
    }

    /// The catalogue by provider, each marked with where its key would come from.
    pub fn model_groups(&self) -> Vec<ModelGroup> {
        self.catalog()
            .providers()
            .iter()
            .map(|provider| {
                let source = self
                    .keys
                    .source(&provider.name, provider.api_key_env.as_deref());
                ModelGroup {
                    provider: provider.name.clone(),
                    display_name: provider.display_name.clone(),
                    key: source.kind(),
                    key_env: provider.api_key_env.clone(),
                    models: provider
                        .models
                        .iter()
                        .map(|m| ModelEntry {
                            id: m.id.clone(),
                            reasoning: m.reasoning,
                            images: m.images,
                            context_window: m.context_window,
                        })
                        .collect(),
                }
            })
            .collect()
    }

    /// The sessions of the project at `root`, most recent first, with message counts and cost.
    pub fn project_sessions(&self, root: &Path) -> Result<Vec<SessionListItem>, AppError> {
        let store = self.store();
        let Some(project) = store.find_project(root)? else {
            return Ok(Vec::new());
        };
        // With the sessions of its worktrees, most recent first.
        let mut summaries = store.list_sessions(Some(&project.id), None)?;
        for worktree in store.worktrees(&project.id)? {
            summaries.extend(store.list_sessions(Some(&worktree.project_id), None)?);
        }
        summaries.sort_by_key(|s| std::cmp::Reverse(s.session.updated_at));
        Ok(session_list_items(&store, summaries)?)
    }

    /// Full-text search over the messages of the project at `root`.
    pub fn search(&self, root: &Path, query: &str) -> Result<Vec<SearchHit>, AppError> {
        let store = self.store();
        let Some(project) = store.find_project(root)? else {
            return Ok(Vec::new());
        };
        Ok(search_hits(
            &store,
            query,
            &SearchOptions {
                project_id: Some(project.id),
                session_id: None,
                limit: Some(50),
            },
        )?)
    }

    pub fn rename_session(&self, session_id: &str, title: &str) -> Result<(), AppError> {
        self.store().rename_session(session_id, title)?;
        Ok(())
    }

    pub fn delete_session(&self, session_id: &str) -> Result<(), AppError> {
        self.store().delete_session(session_id)?;
        Ok(())
    }

    /// The model the project's most recent session last used (`provider/id`).
    pub fn last_model(&self, root: &Path) -> Result<Option<String>, AppError> {
        let store = self.store();
        let Some(project) = store.find_project(root)? else {
            return Ok(None);
        };
        Ok(store.latest_session(&project.id)?.and_then(|s| s.model))
    }

    /// Starts a live session on `config`, stored in this app's database from `start`'s
    /// session (`None`: not stored).
    pub fn start_session(
        &self,
        config: SessionConfig,
        start: Option<SessionStart>,
    ) -> Result<LiveSession, AppError> {
        let mut session = LiveSession::start(config)?;
        session.compaction.threshold_percent = self.settings().compact_at_percent;
        session.set_mcp_hub(self.mcp_hub());
        if let Some(start) = start {
            session.connect_store(self.session_store()?, start)?;
        }
        Ok(session)
    }
}

/// Runs store work off the async runtime's worker threads.
pub async fn blocking<R: Send + 'static>(
    work: impl FnOnce() -> R + Send + 'static,
) -> Result<R, AppError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|error| AppError::Task(error.to_string()))
}
