//! The user's settings and custom endpoints as the settings view edits them. `arbor-app` reads,
//! checks and writes them (`settings.json`, `models.json`).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Settings {
    /// The model new sessions start with (`provider/id`), when its key is at hand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub default_model: Option<String>,
    /// The thinking level new sessions start with (`off`, `minimal`, `low`, `medium`, `high`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub default_thinking: Option<String>,
    /// Environment variables tool processes may see although they hold keys (passed through on
    /// purpose; by default every provider's key variable is withheld).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_env_pass_through: Vec<String>,
    /// Where clones go by default (`<folder>/<owner>/<repo>`); default `<data dir>/workspaces`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub workspaces_dir: Option<String>,
    /// Where worktrees go (`<folder>/<project>/<name>`); default `<data dir>/worktrees`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub worktrees_dir: Option<String>,
    /// What a new worktree starts from when no base is named: `current` (the branch the
    /// project is on; the default) or `remote` (the remote's default branch, `origin/HEAD`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub worktree_base: Option<String>,
    /// The host the GitHub token is for (a GitHub Enterprise server); default `github.com`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub github_host: Option<String>,
    /// Extra patterns (`.gitignore` syntax) left out of code snapshots, beside the project's
    /// own ignore files: such files are never recorded, restored or deleted by a restore.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub snapshot_ignores: Vec<String>,
    /// Seconds a provider's stream may stay silent before the request is given up as a
    /// (retryable) network error; default [`arbor_llm::DEFAULT_STREAM_IDLE_TIMEOUT`] (120 s).
    /// Slow local models may need more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub stream_idle_timeout_secs: Option<u64>,
    /// Compaction starts when the conversation takes this share of the model's context window
    /// (50 to 95 %); absent: when less than 16,384 tokens are left for the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub compact_at_percent: Option<u8>,
    /// The user's permission rules, for every project (`Bash(cargo test *)`, `Read(~/x/**)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub permissions: Option<crate::views::permissions::PermissionLists>,
    /// The secret-path list (hidden from commands, refused to the file tools); absent: the
    /// default list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub secret_paths: Option<Vec<String>>,
    /// MCP tools are found through a search tool instead of being offered whole when their
    /// definitions would take more than this share of the model's context window (1 to 100 %;
    /// absent: 10 %).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub mcp_search_at_percent: Option<u8>,
    /// The user's MCP servers, for every project (a project's own come from its `.mcp.json`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mcp_servers: Vec<crate::views::mcp::McpServerConfig>,
}

/// An endpoint as the settings form describes it.
#[derive(Debug, Clone, PartialEq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct CustomEndpoint {
    /// The provider id (letters, digits, `-` and `_`), e.g. `my-vllm`.
    pub name: String,
    /// The wire protocol: `openai-completions`, `openai-responses`, `anthropic-messages` or
    /// `google-generative-ai`.
    pub api: String,
    pub base_url: String,
    pub models: Vec<CustomModel>,
}

/// A model of a [`CustomEndpoint`].
#[derive(Debug, Clone, PartialEq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct CustomModel {
    pub id: String,
    #[ts(optional = nullable)]
    pub context_window: Option<u32>,
    #[ts(optional = nullable)]
    pub max_output_tokens: Option<u32>,
    #[serde(default)]
    pub reasoning: bool,
    #[serde(default)]
    pub images: bool,
    /// Dollars per million input tokens.
    #[ts(optional = nullable)]
    pub input_price: Option<f64>,
    /// Dollars per million output tokens.
    #[ts(optional = nullable)]
    pub output_price: Option<f64>,
}

impl Settings {
    /// How long a stream may stay silent (the setting, else the default).
    pub fn stream_idle_timeout(&self) -> std::time::Duration {
        self.stream_idle_timeout_secs.map_or(
            arbor_llm::DEFAULT_STREAM_IDLE_TIMEOUT,
            std::time::Duration::from_secs,
        )
    }
}
