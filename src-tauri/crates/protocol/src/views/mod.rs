//! What front ends are shown that is not an event: every answer to a front end's request. This
//! module holds projects, session lists, the session's state, model pickers, key statuses and the
//! shell's own answers; beside it:
//!
//! | module | what |
//! |---|---|
//! | [`branch`] | the chat's branch, the tree panel's tree, two branches compared, search hits |
//! | [`code`] | snapshots, the files a node changed, diffs, restores |
//! | [`tools`] | the model's tools: the list, a proposal's review, runs |
//! | [`permissions`] | the project's mode, rules, the sandbox, a permission request |
//! | [`settings`] | the settings file and custom endpoints |
//! | [`clone`] | the clone form and its progress |
//! | [`attachments`] | documents attached to a message |
//! | [`files`] | the project's files: the `@` finder, the files panel and its preview |
//! | [`worktrees`] | a project's worktrees, a review of what one changed, commit, merge, push |
//!
//! Made by the session API (`arbor-app`) and the crates under it from the store and the
//! catalogue; a store row never crosses as it is (the store's rows are converted in `arbor-app`).

pub mod attachments;
pub mod branch;
pub mod clone;
pub mod code;
pub mod elicitation;
pub mod files;
pub mod mcp;
pub mod permissions;
pub mod settings;
pub mod tools;
pub mod worktrees;

use serde::Serialize;

/// A project as front ends show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct ProjectInfo {
    /// The store's project id.
    pub id: String,
    pub name: String,
    /// The canonical absolute path.
    pub path: String,
    pub is_git_repo: bool,
}

/// A project the user opened before.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct RecentProject {
    pub id: String,
    pub name: String,
    pub path: String,
    /// Whether the folder is still there.
    pub exists: bool,
    /// Unix milliseconds.
    pub last_opened_at: i64,
}

/// A provider and its models, for model pickers.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct ModelGroup {
    pub provider: String,
    pub display_name: String,
    /// Where its key comes from: `keychain`, `env`, `none` (missing) or `not-needed`.
    #[ts(type = "'keychain' | 'env' | 'none' | 'not-needed'")]
    pub key: &'static str,
    pub key_env: Option<String>,
    pub models: Vec<ModelEntry>,
}

#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct ModelEntry {
    pub id: String,
    pub reasoning: bool,
    pub images: bool,
    pub context_window: u32,
}

/// A session in a list: the desktop's sidebar and RPC's `list_sessions` (one type for both).
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct SessionListItem {
    pub id: String,
    pub title: String,
    /// The stored leaf (the last place any front end left it).
    pub leaf_id: Option<String>,
    /// The model and thinking level it last used.
    pub model: Option<String>,
    pub thinking_level: Option<String>,
    /// Unix milliseconds.
    pub created_at: i64,
    /// Unix milliseconds.
    pub updated_at: i64,
    /// The root folder of its project.
    pub project_root: String,
    /// Stored nodes (every branch, tool results included).
    pub node_count: u64,
    /// Messages, and US dollars spent (every branch).
    pub message_count: u64,
    pub cost: f64,
    /// The worktree it works in (its name), if any.
    #[ts(optional = nullable)]
    pub worktree: Option<String>,
}

/// The session's state: the chat header's figures (model, thinking level, streaming flag,
/// context use, cost) and RPC's `get_state` — one type for both.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct SessionState {
    pub provider: String,
    pub model: String,
    pub api: arbor_llm::Api,
    pub thinking_level: arbor_llm::ThinkingLevel,
    /// Whether the model can reason (the thinking picker applies).
    pub reasoning: bool,
    /// Whether the model takes images.
    pub images: bool,
    pub is_streaming: bool,
    pub message_count: usize,
    pub tools: Vec<String>,
    pub cwd: String,
    /// The last run's error.
    pub error: Option<arbor_llm::LlmError>,
    /// Tool calls of the run in progress still waiting for their results.
    pub pending_tool_calls: Vec<String>,
    /// Where the model's key comes from: `given` (`--api-key`), `env`, `keychain`, `none` or
    /// `not-needed` — never the key.
    #[ts(type = "'given' | 'env' | 'keychain' | 'none' | 'not-needed'")]
    pub key_source: &'static str,
    /// Estimated tokens of the conversation the next request sends.
    pub context_tokens: u64,
    pub context_window: u32,
    /// US dollars spent in this session (every branch).
    pub cost: f64,
    /// The session plans before it builds: read-only, told to answer with a plan.
    pub plan_mode: bool,
}

/// The result of a key check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct KeyCheck {
    pub provider: String,
    /// The model the request went to (`provider/id`).
    pub model: String,
    pub ok: bool,
    /// The error class when it failed (`authentication`, `rate_limited`, `network`, …).
    pub error_class: Option<String>,
    /// What the provider said, cleaned of the key.
    pub message: Option<String>,
}

/// A provider's key status, as settings and `arbor auth list` show it.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct ProviderKeyStatus {
    pub provider: String,
    pub display_name: String,
    /// `keychain`, `env`, `none` or `not-needed`.
    #[ts(type = "'keychain' | 'env' | 'none' | 'not-needed'")]
    pub source: &'static str,
    /// The environment variable the key is (or would be) read from.
    pub variable: Option<String>,
    /// The key is kept for this run only (no keychain was reachable when it was set).
    pub run_only: bool,
    /// Whether the provider is reached without a key when none is set (local servers).
    pub key_optional: bool,
}

/// Every provider's key status, and why the keychain could not be read if it could not.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct KeyStatusList {
    pub providers: Vec<ProviderKeyStatus>,
    /// Where the GitHub token (for cloning private repositories) comes from.
    pub github: ProviderKeyStatus,
    #[ts(optional = nullable)]
    pub keychain_error: Option<KeychainProblem>,
}

/// The keychain's last error, as front ends show it.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct KeychainProblem {
    pub code: crate::ErrorCode,
    pub message: String,
}

/// The app's name and version (the desktop's start view).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct AppInfo {
    pub name: String,
    pub version: String,
}

/// Which window a project opened in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum OpenedIn {
    /// The window that asked (it had no project, or already showed this one).
    This,
    /// Another window: a new one, or the one already showing the project (focused).
    Other,
}

/// A project opened (or focused) by the desktop.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct OpenedProject {
    pub project: ProjectInfo,
    pub window: OpenedIn,
}
