//! MCP servers as front ends see them: a user's server as the settings keep it
//! ([`McpServerConfig`]), each server of a project with its scope, status and log
//! ([`McpServerView`]), the review of a project's server definition ([`McpServerReview`]) and of
//! a server's tools against what was approved ([`McpToolsReview`]). Made by `arbor-app`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// How a server is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum McpTransport {
    /// A command Arbor starts, speaking over stdin and stdout.
    #[default]
    Stdio,
    /// A URL, over Streamable HTTP.
    Http,
    /// A URL, over the legacy HTTP+SSE transport (servers that do not speak Streamable HTTP).
    Sse,
}

/// A server as the user's settings keep it (`settings.json`'s `mcpServers`) and the settings
/// form sends it. Values of `env` and `headers` may name a keychain secret
/// (`${keychain:NAME}`) or one of Arbor's variables (`${NAME}`), never hold a provider key.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct McpServerConfig {
    pub name: String,
    #[serde(default)]
    pub transport: McpTransport,
    /// The command (stdio).
    #[serde(default)]
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The endpoint (http).
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// An OAuth client registered beforehand with the server's authorization server (http;
    /// empty: the client registers itself, when the server allows it).
    #[serde(default)]
    pub oauth_client_id: String,
    /// That client's secret as `${keychain:NAME}` (never the secret itself); empty: none.
    #[serde(default)]
    pub oauth_client_secret: String,
    /// `client_credentials`: that client is a machine client (it signs in by itself with its
    /// secret or private key, no browser); empty: a person signs in.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub oauth_grant: String,
    /// A machine client's private key (PEM, kept on one line) as `${keychain:NAME}`; its
    /// algorithm (ES256 when empty).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub oauth_private_key: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub oauth_signing_algorithm: String,
    /// Off: its tools are not offered and it is never started.
    #[serde(default = "enabled")]
    pub enabled: bool,
}

fn enabled() -> bool {
    true
}

/// Where a server is defined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum McpScope {
    /// The user's settings: trusted, for every project.
    User,
    /// The project's `.mcp.json`: starts only once its exact definition is approved.
    Project,
}

/// What a server is doing (the settings row's `data-status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum McpServerStatus {
    Running,
    Stopped,
    Error,
    /// A project's server whose definition is not approved (yet, or since it changed).
    Pending,
    /// An HTTP server that asks to be signed in.
    NeedsAuth,
}

/// One server of a project, as the settings list it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct McpServerView {
    pub name: String,
    pub scope: McpScope,
    pub transport: McpTransport,
    /// `command arg…` or the URL.
    pub summary: String,
    pub enabled: bool,
    pub status: McpServerStatus,
    /// Why it is in error (or why its definition cannot be used).
    #[ts(optional = nullable)]
    pub error: Option<String>,
    /// Tools offered to the model (approved and unchanged).
    pub tools_approved: usize,
    /// Tools waiting for a review (new or changed), when the server was last asked.
    pub tools_pending: usize,
    /// How long its last start took.
    #[ts(optional = nullable)]
    pub start_ms: Option<u64>,
    pub calls: u64,
    #[ts(optional = nullable)]
    pub last_call_ms: Option<u64>,
    /// The definition's hash (what a project server's approval is pinned to).
    pub hash: String,
}

/// A project's servers and what was wrong with its `.mcp.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct McpServersView {
    pub servers: Vec<McpServerView>,
    /// `.mcp.json` entries left out, each `name: why` (or the file's own problem).
    pub problems: Vec<String>,
}

/// A project's server definition, as a person approves it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct McpServerReview {
    pub name: String,
    /// The definition as JSON (command, arguments, variables as written — never a secret).
    pub definition: String,
    /// When a changed definition asks again: the change as a unified diff.
    #[ts(optional = nullable)]
    pub diff: Option<String>,
    pub hash: String,
}

/// One tool in a review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct McpToolEntry {
    /// As the server names it.
    pub name: String,
    /// As the model calls it (`mcp__server__tool`).
    pub offered_as: String,
    pub description: String,
    /// The tool as JSON: name, description, input schema.
    pub text: String,
    /// For a changed tool: the change since approval, as a unified diff.
    #[ts(optional = nullable)]
    pub diff: Option<String>,
}

/// A server's tools now against what was approved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct McpToolsReview {
    pub server: String,
    pub scope: McpScope,
    pub added: Vec<McpToolEntry>,
    pub changed: Vec<McpToolEntry>,
    pub removed: Vec<String>,
    pub unchanged: Vec<McpToolEntry>,
    /// Approving approves exactly this list.
    pub hash: String,
}

/// A resource of a usable server, as the composer's `@` menu lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct McpResourceView {
    pub server: String,
    pub scope: McpScope,
    pub uri: String,
    pub name: String,
    #[ts(optional = nullable)]
    pub description: Option<String>,
    #[ts(optional = nullable)]
    pub mime_type: Option<String>,
}

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct McpPromptArgument {
    pub name: String,
    #[ts(optional = nullable)]
    pub description: Option<String>,
    pub required: bool,
}

/// A prompt of a usable server, offered as the composer's (and the CLI's) `/server:prompt`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct McpPromptView {
    pub server: String,
    pub scope: McpScope,
    pub name: String,
    /// `/server:prompt`, as typed.
    pub command: String,
    #[ts(optional = nullable)]
    pub description: Option<String>,
    pub arguments: Vec<McpPromptArgument>,
}

/// What a usable server offers the composer; servers that could not be asked are named.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct McpComposerItems {
    pub resources: Vec<McpResourceView>,
    pub prompts: Vec<McpPromptView>,
    /// `server: why` for each server that did not answer.
    pub problems: Vec<String>,
}
