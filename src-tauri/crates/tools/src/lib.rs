//! `arbor-tools` — the built-in tools (`read`, `write`, `edit`, `bash`, `ls`, `grep`, `find`) over a
//! [`workspace::Workspace`], and the constructor that picks the enabled ones. The tools the
//! session builds itself (`js`, `create_tool`: they need the model's tools and the store) are
//! left to it ([`SESSION_TOOLS`]).
//!
//! Map: one module per tool — `read`, `write`, `edit` (matching, applying, diff, loading within
//! a size cap), `bash` (process group, output log, the watchdog that kills the group when Arbor
//! dies) —; the shared helpers `paths` (resolving paths the model gives), `names` (names that
//! are not UTF-8), `special` (FIFOs, sockets, devices refused), `truncate` (caps and their
//! notices), `walk` and `args` (typed arguments, errors that name the field); `redacting`
//! (every tool's output cleaned of the session's secrets); [`workspace`] (the folder, the file
//! tracker, and the writing rules: a deleted project folder is never recreated, Arbor's own
//! data is never written).

pub mod args;
pub mod bash;
pub mod edit;
pub mod find;
pub mod grep;
pub mod ls;
pub mod names;
mod paths;
pub mod preview;
pub mod read;
mod redacting;
pub mod special;
pub mod todo;
pub mod truncate;
pub mod walk;
pub mod workspace;
pub mod write;

use std::sync::Arc;

use arbor_agent::AgentTool;

use crate::workspace::{ProjectGone, Workspace};
use arbor_secrets::{Redactor, ToolEnvironment};

pub use bash::BashTool;
pub use edit::EditTool;
pub use edit::{MAX_DIFF_BYTES, MAX_EDIT_FILE_BYTES};
pub use find::FindTool;
pub use grep::GrepTool;
pub use ls::LsTool;
pub use names::{AmbiguousName, NOT_UTF8_MARKER};
pub use read::ReadTool;
pub use redacting::RedactingTool;
pub use todo::TodoTool;
pub use truncate::{MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES};
pub use write::WriteTool;

/// The tools enabled when nothing else is asked for, in the order they are offered to the model.
pub const DEFAULT_TOOLS: &[&str] = &[
    "read",
    "write",
    "edit",
    "bash",
    "ls",
    "grep",
    "find",
    "todo",
    "js",
    "create_tool",
];

// What the model is told when the project folder is gone or a name is ambiguous: the errors'
// own words.
impl From<ProjectGone> for arbor_agent::ToolError {
    fn from(error: ProjectGone) -> Self {
        Self::respond(error.to_string())
    }
}

impl From<crate::workspace::ArborOwnedPath> for arbor_agent::ToolError {
    fn from(error: crate::workspace::ArborOwnedPath) -> Self {
        Self::respond(error.to_string())
    }
}

impl From<AmbiguousName> for arbor_agent::ToolError {
    fn from(error: AmbiguousName) -> Self {
        Self::respond(error.to_string())
    }
}

/// Tools the session builds itself (they need the model's tools or its store):
/// [`builtin_tools`] skips them.
pub const SESSION_TOOLS: &[&str] = &["js", "create_tool"];

/// Which built-in tools to build, and how.
#[derive(Debug, Clone)]
pub struct BuiltinToolOptions {
    /// Tool names, in order; duplicates are ignored. Empty means no tools.
    pub names: Vec<String>,
    /// Whether the model accepts images: `read` returns PNG/JPEG/GIF/WebP files as image blocks
    /// only then, and a clear error otherwise.
    pub accepts_images: bool,
    /// What `bash` processes must not inherit (the default withholds the usual key variables).
    pub environment: ToolEnvironment,
    /// The secrets every tool's output is cleaned of.
    pub redactor: Redactor,
}

impl Default for BuiltinToolOptions {
    fn default() -> Self {
        Self {
            names: DEFAULT_TOOLS.iter().map(|name| name.to_string()).collect(),
            accepts_images: false,
            environment: ToolEnvironment::new([], []),
            redactor: Redactor::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuiltinToolsError {
    #[error("unknown tool `{name}` (built-in tools: {})", DEFAULT_TOOLS.join(", "))]
    UnknownTool { name: String },
}

/// Builds the enabled built-in tools over `workspace` (they share its file tracker), each
/// behind a [`RedactingTool`].
pub fn builtin_tools(
    workspace: &Workspace,
    options: &BuiltinToolOptions,
) -> Result<Vec<Arc<dyn AgentTool>>, BuiltinToolsError> {
    let mut tools: Vec<Arc<dyn AgentTool>> = Vec::new();
    let mut built: Vec<&str> = Vec::new();
    for name in &options.names {
        let name = name.as_str();
        if built.contains(&name) {
            continue;
        }
        let tool: Arc<dyn AgentTool> = match name {
            "read" => Arc::new(ReadTool::new(workspace.clone(), options.accepts_images)),
            "write" => Arc::new(WriteTool::new(workspace.clone())),
            "edit" => Arc::new(EditTool::new(workspace.clone())),
            "bash" => Arc::new(BashTool::new(
                workspace.clone(),
                options.environment.clone(),
                options.redactor.clone(),
            )),
            "ls" => Arc::new(LsTool::new(workspace.clone())),
            "grep" => Arc::new(GrepTool::new(workspace.clone())),
            "find" => Arc::new(FindTool::new(workspace.clone())),
            "todo" => Arc::new(TodoTool::new()),
            name if SESSION_TOOLS.contains(&name) => continue,
            _ => {
                return Err(BuiltinToolsError::UnknownTool {
                    name: name.to_string(),
                })
            }
        };
        built.push(name);
        tools.push(RedactingTool::wrap(tool, options.redactor.clone()));
    }
    Ok(tools)
}

/// Splits a comma-separated list such as `read,bash, grep` (the CLI's `--tools`) into names.
pub fn parse_tool_list(list: &str) -> Vec<String> {
    list.split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(str::to_string)
        .collect()
}
