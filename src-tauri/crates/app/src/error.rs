//! [`AppError`]: everything the session API can refuse, with a stable [`AppError::code`] for
//! front ends to branch on. Messages are neutral; each front end adds its own hint (the CLI
//! names its flags, the desktop its buttons).

use arbor_error_code::ErrorCode;
use arbor_llm::catalog::CatalogError;
use arbor_llm::LlmError;
use arbor_store::StoreError;

use crate::custom_endpoints::EndpointError;
use crate::project::ProjectError;
use crate::selection::SelectionError;
use crate::settings::SettingsError;
use arbor_coding::compaction::CompactionError;
use arbor_coding::export::{ImportError, UnknownExportOption, WriteError};
use arbor_coding::secrets::SecretError;
use arbor_coding::{BuiltinToolsError, SessionsError};

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("cannot find the OS data folder: set ARBOR_DATA_DIR")]
    NoDataDir,
    #[error("loading the model catalogue: {0}")]
    Catalog(#[source] CatalogError),
    #[error(transparent)]
    Selection(#[from] SelectionError),
    #[error(transparent)]
    Project(#[from] ProjectError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Sessions(#[from] SessionsError),
    #[error(transparent)]
    Compaction(#[from] CompactionError),
    #[error(transparent)]
    Tools(#[from] BuiltinToolsError),
    #[error(transparent)]
    Client(#[from] LlmError),
    #[error(transparent)]
    ExportOption(#[from] UnknownExportOption),
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error(transparent)]
    Import(#[from] ImportError),
    #[error(transparent)]
    WrongProject(#[from] crate::stored::WrongProject),
    #[error(transparent)]
    Secret(#[from] SecretError),
    #[error(transparent)]
    Settings(#[from] SettingsError),
    #[error(transparent)]
    Endpoint(#[from] EndpointError),
    #[error(transparent)]
    Clone(#[from] arbor_coding::clone::CloneError),
    #[error(transparent)]
    Toolbox(#[from] arbor_coding::skills::ToolboxError),
    #[error(transparent)]
    Worktree(#[from] arbor_coding::worktrees::WorktreeError),
    #[error(transparent)]
    Snapshot(#[from] arbor_coding::snapshots::SnapshotError),
    #[error("this project has no worktree named `{0}`: `arbor worktrees list` shows them")]
    NoSuchWorktree(String),
    #[error("the worktree `{0}` is archived: restore it first")]
    WorktreeArchived(String),
    #[error(
        "the setup command `{0}` from .arbor/worktree.toml is not approved for this project:          approve it first (it runs in every new worktree)"
    )]
    SetupNotApproved(String),
    #[error(".arbor/worktree.toml: {0}")]
    WorktreeConfig(String),
    #[error("the key is empty: paste the key itself")]
    EmptyKey,
    #[error("{0}")]
    Unsupported(String),
    #[error(transparent)]
    Rule(#[from] arbor_permissions::RuleError),
    #[error(transparent)]
    PermissionRequest(#[from] arbor_permissions::UnknownRequest),
    #[error("there is no saved rule `{0}` to remove")]
    NoSuchRule(String),
    #[error("no question of an MCP server `{0}` is waiting (it was answered, or its call ended)")]
    UnknownElicitation(String),
    #[error(transparent)]
    ElicitationAnswer(#[from] arbor_mcp::elicitation::InvalidAnswer),
    #[error("the agent is busy: steer it, queue a follow-up, or abort the run first")]
    Busy,
    #[error("this session is not stored")]
    NotStored,
    #[error("the session's event stream is not attached")]
    NotAttached,
    #[error("nothing to export yet: send a prompt first")]
    NothingToExport,
    #[error("no project is open")]
    NoProject,
    #[error("{0} is not an http or https link; only web links are opened")]
    NotAWebLink(String),
    #[error("{0} is not a user message: only user messages can be edited")]
    NotAUserMessage(String),
    #[error("{0} is not an answer of the model: only answers can be regenerated")]
    NotAnAnswer(String),
    #[error("{0} is not on the branch shown: open its branch first")]
    NotOnBranch(String),
    #[error("a background task failed: {0}")]
    Task(String),
    #[error(transparent)]
    Document(#[from] arbor_documents::DocumentError),
    #[error(transparent)]
    Mcp(#[from] arbor_mcp::McpError),
    #[error(transparent)]
    Files(#[from] arbor_files::FilesError),
    #[error(
        "{name} is not a document Arbor reads (PDF, DOCX, PPTX, XLSX, XLS, ODS): attach images \
         as images, and paste text or mention the file with @"
    )]
    NotADocument { name: String },
    #[error("{name}'s text is longer than a message takes: read it again from the file")]
    DocumentTooLong { name: String },
}

impl AppError {
    /// A stable, machine-readable code (snake_case).
    pub fn code(&self) -> ErrorCode {
        match self {
            AppError::NoDataDir => ErrorCode::NoDataDir,
            AppError::Document(error) => error.code(),
            AppError::Mcp(error) => error.code(),
            AppError::UnknownElicitation(_) => ErrorCode::NotFound,
            AppError::ElicitationAnswer(error) => error.code(),
            AppError::Files(error) => error.code(),
            AppError::NotADocument { .. } => ErrorCode::Unsupported,
            AppError::DocumentTooLong { .. } => ErrorCode::DocumentTooLarge,
            AppError::Catalog(_) => ErrorCode::Catalog,
            AppError::Selection(error) => error.code(),
            AppError::Secret(error) => error.code(),
            AppError::Settings(error) => error.code(),
            AppError::Endpoint(error) => error.code(),
            AppError::EmptyKey => ErrorCode::EmptyKey,
            AppError::Clone(error) => error.code(),
            AppError::Worktree(error) => error.code(),
            AppError::Snapshot(error) => error.code(),
            AppError::NoSuchWorktree(_) => ErrorCode::NotFound,
            AppError::WorktreeArchived(_) => ErrorCode::InvalidCommand,
            AppError::SetupNotApproved(_) => ErrorCode::PermissionDenied,
            AppError::WorktreeConfig(_) => ErrorCode::InvalidSettings,
            AppError::Unsupported(_) => ErrorCode::Unsupported,
            AppError::Rule(error) => error.code(),
            AppError::PermissionRequest(error) => error.code(),
            AppError::NoSuchRule(_) => ErrorCode::NotFound,
            AppError::Project(error) => error.code(),
            AppError::Store(error) => store_code(error),
            AppError::Sessions(SessionsError::Store(error)) => store_code(error),
            AppError::Sessions(SessionsError::Busy) | AppError::Busy => ErrorCode::Busy,
            AppError::Sessions(SessionsError::NoSession) => ErrorCode::NoSession,
            AppError::Sessions(SessionsError::NothingToRegenerate) => {
                ErrorCode::NothingToRegenerate
            }
            AppError::Sessions(SessionsError::Decode(_)) => ErrorCode::Corrupt,
            AppError::Sessions(SessionsError::Snapshot(error)) => error.code(),
            AppError::Toolbox(error) => error.code(),
            AppError::Sessions(SessionsError::NoCodeState(_)) => ErrorCode::NoCodeState,
            AppError::Sessions(SessionsError::NoCodeTracking) => ErrorCode::NoCodeTracking,
            AppError::Sessions(SessionsError::StoreFailed(_)) => ErrorCode::StoreFailed,
            AppError::Compaction(CompactionError::Busy) => ErrorCode::Busy,
            AppError::Compaction(CompactionError::Aborted) => ErrorCode::Aborted,
            AppError::Compaction(CompactionError::NothingToCompact { .. }) => {
                ErrorCode::NothingToCompact
            }
            AppError::Compaction(_) => ErrorCode::Compaction,
            AppError::Tools(_) => ErrorCode::UnknownTool,
            AppError::Client(error) => error.code(),
            AppError::ExportOption(error) => error.code(),
            AppError::Write(_) => ErrorCode::Io,
            AppError::WrongProject(crate::stored::WrongProject::NoSessionsHere(_)) => {
                ErrorCode::NoProject
            }
            AppError::WrongProject(crate::stored::WrongProject::OtherProject { .. }) => {
                ErrorCode::InvalidNode
            }
            AppError::Import(_) => ErrorCode::InvalidImport,
            AppError::NotStored => ErrorCode::NotStored,
            AppError::NotAttached => ErrorCode::NotAttached,
            AppError::NothingToExport => ErrorCode::NoSession,
            AppError::NoProject => ErrorCode::NoProject,
            AppError::NotAWebLink(_) => ErrorCode::InvalidLink,
            AppError::NotAUserMessage(_) | AppError::NotAnAnswer(_) => ErrorCode::InvalidNode,
            AppError::NotOnBranch(_) => ErrorCode::NotOnBranch,
            AppError::Task(_) => ErrorCode::Internal,
        }
    }
}

fn store_code(error: &StoreError) -> ErrorCode {
    match error {
        StoreError::NotFound { .. } => ErrorCode::NotFound,
        StoreError::AmbiguousId { .. } | StoreError::InvalidId { .. } => ErrorCode::InvalidId,
        StoreError::Busy { .. } => ErrorCode::StoreBusy,
        StoreError::ReadOnly { .. } | StoreError::DataDir { .. } => ErrorCode::DataDir,
        _ => ErrorCode::Store,
    }
}
