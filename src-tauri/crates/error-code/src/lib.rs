//! `arbor-error-code`: [`ErrorCode`], the stable code of every error a front end can be shown.
//!
//! Every library error's `code()` answers one of these (never a bare string), so the set is
//! closed and known at compile time: the desktop sends it as `{code, message}`, the RPC mode as
//! `error.code`, the CLI's `--json` modes as `"code"`, and the UI receives it as the generated
//! TypeScript union `ErrorCode`. A leaf crate because leaves (`secrets`, `js`, `llm`) answer
//! codes too and sit below `arbor-protocol`, which re-exports it.
//!
//! Codes are part of the public contract: add new ones, never rename one.

use serde::{Deserialize, Serialize};

macro_rules! error_codes {
    ($($(#[doc = $doc:literal])* $variant:ident = $name:literal,)*) => {
        /// A stable, machine-readable error code (snake_case on the wire).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
        #[serde(rename_all = "snake_case")]
        pub enum ErrorCode {
            $($(#[doc = $doc])* $variant,)*
        }

        impl ErrorCode {
            /// Every code, in declaration order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The code as it is sent (`rate_limited`, `busy`, …).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $name,)*
                }
            }
        }
    };
}

error_codes! {
    // Input and state.
    /// A path that is empty, relative or names an unknown home folder.
    InvalidPath = "invalid_path",
    NotFound = "not_found",
    NotADirectory = "not_a_directory",
    /// A node or session id that is malformed or matches several.
    InvalidId = "invalid_id",
    InvalidNode = "invalid_node",
    NotOnBranch = "not_on_branch",
    InvalidLink = "invalid_link",
    InvalidImport = "invalid_import",
    InvalidExportOption = "invalid_export_option",
    InvalidSettings = "invalid_settings",
    InvalidEndpoint = "invalid_endpoint",
    InvalidIgnore = "invalid_ignore",
    /// A permission rule that is not `Tool(specifier)` or a tool's name.
    InvalidRule = "invalid_rule",
    /// The project's mode or a rule refused an action (or the user denied it).
    PermissionDenied = "permission_denied",
    Unsupported = "unsupported",
    /// An RPC line that is not a command, or a command with wrong fields.
    InvalidCommand = "invalid_command",
    // Sessions and projects.
    NoProject = "no_project",
    NoSession = "no_session",
    NotStored = "not_stored",
    NotAttached = "not_attached",
    /// A run is going on: wait for it or stop it.
    Busy = "busy",
    Aborted = "aborted",
    NothingToRegenerate = "nothing_to_regenerate",
    NothingToCompact = "nothing_to_compact",
    Compaction = "compaction",
    // The store.
    Store = "store",
    StoreBusy = "store_busy",
    /// Storing a message failed: the run stopped; the unsaved turn can be sent again.
    StoreFailed = "store_failed",
    /// The data folder is read-only or cannot be made.
    DataDir = "data_dir",
    NoDataDir = "no_data_dir",
    Corrupt = "corrupt",
    Io = "io",
    // Models and keys.
    Catalog = "catalog",
    UnknownModel = "unknown_model",
    UnknownProvider = "unknown_provider",
    MissingKey = "missing_key",
    EmptyKey = "empty_key",
    KeyTooLong = "key_too_long",
    KeyMalformed = "key_malformed",
    KeychainUnavailable = "keychain_unavailable",
    KeychainLocked = "keychain_locked",
    Keychain = "keychain",
    // A provider's answer (the classes of `LlmError`).
    Authentication = "authentication",
    RateLimited = "rate_limited",
    QuotaExceeded = "quota_exceeded",
    Overloaded = "overloaded",
    ContextOverflow = "context_overflow",
    InvalidRequest = "invalid_request",
    Refused = "refused",
    Network = "network",
    Provider = "provider",
    // Code state.
    NoCodeState = "no_code_state",
    NoCodeTracking = "no_code_tracking",
    SnapshotWorkspace = "snapshot_workspace",
    SnapshotStore = "snapshot_store",
    UnknownSnapshot = "unknown_snapshot",
    /// Files changed outside Arbor would be overwritten: ask before overwriting.
    ChangedOutside = "changed_outside",
    NothingToUndo = "nothing_to_undo",
    WorkspaceTooLarge = "workspace_too_large",
    Git = "git",
    // Cloning.
    InvalidSource = "invalid_source",
    SshUnsupported = "ssh_unsupported",
    CredentialsInUrl = "credentials_in_url",
    InvalidDestination = "invalid_destination",
    DestinationExists = "destination_exists",
    AlreadyCloned = "already_cloned",
    AuthFailed = "auth_failed",
    AuthRequired = "auth_required",
    DiskFull = "disk_full",
    Cancelled = "cancelled",
    // Worktrees, review, commit, merge, push.
    NotARepository = "not_a_repository",
    InvalidWorktreeName = "invalid_worktree_name",
    WorktreeExists = "worktree_exists",
    /// The main checkout has uncommitted changes a merge would overwrite.
    CheckoutDirty = "checkout_dirty",
    /// A review's hunk no longer matches the file: review again.
    StaleReview = "stale_review",
    NothingToCommit = "nothing_to_commit",
    PushRejected = "push_rejected",
    // The model's tools and scripts.
    InvalidTool = "invalid_tool",
    UnknownTool = "unknown_tool",
    NotPending = "not_pending",
    ScriptError = "script_error",
    TimeLimit = "time_limit",
    MemoryLimit = "memory_limit",
    StackLimit = "stack_limit",
    OutputLimit = "output_limit",
    Sandbox = "sandbox",
    // Documents (PDF, DOCX, XLSX/ODS, PPTX) read as text.
    /// A document, or what it unpacks to, is over the size the reader takes.
    DocumentTooLarge = "document_too_large",
    /// A document that cannot be read: damaged, encrypted, or not what its name says.
    InvalidDocument = "invalid_document",
    // MCP servers and their tools.
    /// An MCP server definition that cannot be used (bad name, no command or URL, a secret
    /// reference that cannot be resolved).
    InvalidMcpServer = "invalid_mcp_server",
    /// An MCP server that did not start, stopped answering or broke the protocol.
    McpServer = "mcp_server",
    /// A project's MCP server, or a server's tool list, not approved (yet, or since it changed).
    McpNotApproved = "mcp_not_approved",
    // The desktop shell.
    Window = "window",
    /// A bug: something that should not fail did (a task that panicked).
    Internal = "internal",
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Lets tests and callers compare a code with its wire name (`error.code() == "busy"`).
impl PartialEq<&str> for ErrorCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<str> for ErrorCode {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_serializes_as_its_name_and_names_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            let json = serde_json::to_value(code).unwrap();
            assert_eq!(json, serde_json::Value::String(code.as_str().to_owned()));
            let back: ErrorCode = serde_json::from_value(json).unwrap();
            assert_eq!(back, *code);
            assert!(seen.insert(code.as_str()), "{code} twice");
            assert!(code
                .as_str()
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '_'));
        }
        assert_eq!(ErrorCode::Busy, "busy");
        assert_eq!(ErrorCode::ALL.len(), seen.len());
    }
}
