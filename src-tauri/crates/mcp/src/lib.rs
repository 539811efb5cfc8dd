//! # arbor-mcp: the tools of any MCP server, under Arbor's rules
//!
//! Map:
//! - [`definition`]: a server — a command over stdio or a URL over Streamable HTTP —, a
//!   project's `.mcp.json`, and the hash a project server's approval is pinned to.
//! - [`environment`]: what a server's process and requests get: the scrubbed environment of
//!   tool processes plus its own variables, secrets from the keychain (`${keychain:NAME}`).
//! - [`connection`]: one running server through `rmcp` (the official SDK); its tools.
//! - [`context`]: resources (attached to a message) and prompts (`/server:prompt`) as text.
//! - [`elicitation`]: a server's question to the person mid-call, as a form pre-filled with
//!   its defaults; the answer checked against it; asked of the session whose call runs.
//! - [`hub`]: the app's servers: started lazily, restarted with backoff, every call time
//!   limited and ended with its run, status and stderr log per server.
//! - [`legacy_sse`]: the HTTP+SSE transport of 2024-11-05, for servers that still need it.
//! - [`oauth`]: signing in to HTTP servers (OAuth 2.1 through `rmcp`), tokens in the keychain.
//! - [`pins`]: tools pinned to a hash; what changed since approval, as a diff.
//! - [`tool`]: an approved tool as the agent offers it (`mcp__<server>__<tool>`), checked
//!   against its pin before every call; [`result`]: its answer as the model reads it, capped.
//! - [`search`]: when the tools' schemas would take more than a share of the context, a
//!   search tool offered instead, whose finds are offered from the model's next step.
//!
//! Knows nothing of the store or the settings: `arbor-app` keeps the definitions, the
//! approvals and the pins, and asks this crate to run them.

pub mod connection;
pub mod context;
pub mod definition;
pub mod elicitation;
pub mod environment;
mod error;
pub mod hub;
pub mod legacy_sse;
pub mod log;
pub mod oauth;
pub mod pins;
pub mod result;
pub mod search;
pub mod tool;

pub use connection::RemoteTool;
pub use definition::{ServerDefinition, Transport, PROJECT_FILE};
pub use error::McpError;
pub use hub::{HubLimits, McpHub, ServerSlot, ServerState, ServerStatus};
pub use pins::{review, tool_hash, ToolsReview};
pub use tool::{offered_name, McpTool};
