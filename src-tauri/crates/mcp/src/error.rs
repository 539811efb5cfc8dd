//! [`McpError`]: what can go wrong with a server or one of its tools, with a stable code.

use arbor_error_code::ErrorCode;

/// An MCP server or tool failure. Messages say what happened and what to do.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    #[error("MCP server {name:?} cannot be used: {why}")]
    InvalidServer { name: String, why: String },
    #[error("MCP server {name:?} did not start: {why}")]
    Start { name: String, why: String },
    #[error("MCP server {name:?} failed: {why}")]
    Server { name: String, why: String },
    #[error("MCP server {name:?} did not answer within {seconds} s; it was stopped and starts again on the next call")]
    Timeout { name: String, seconds: u64 },
    #[error("MCP server {name:?} waits {seconds} s before it is started again, after it crashed")]
    BackingOff { name: String, seconds: u64 },
    #[error("MCP server {name:?} asks you to sign in (Settings → MCP servers, or `arbor mcp login {name}`)")]
    NeedsAuth {
        name: String,
        challenge: Option<String>,
    },
    #[error("{0}")]
    NotApproved(String),
    #[error("no MCP server {0:?}")]
    UnknownServer(String),
    #[error("the call was stopped")]
    Aborted,
    #[error("{0}")]
    Secret(#[from] arbor_secrets::SecretError),
}

impl McpError {
    /// The stable code front ends compare.
    pub fn code(&self) -> ErrorCode {
        match self {
            McpError::InvalidServer { .. } => ErrorCode::InvalidMcpServer,
            McpError::Start { .. }
            | McpError::Server { .. }
            | McpError::Timeout { .. }
            | McpError::BackingOff { .. } => ErrorCode::McpServer,
            McpError::NotApproved(_) => ErrorCode::McpNotApproved,
            McpError::NeedsAuth { .. } => ErrorCode::AuthRequired,
            McpError::UnknownServer(_) => ErrorCode::NotFound,
            McpError::Aborted => ErrorCode::Aborted,
            McpError::Secret(error) => error.code(),
        }
    }
}
