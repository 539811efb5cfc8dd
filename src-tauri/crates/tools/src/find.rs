//! `find {pattern, path?, limit?}`: files and folders whose name (or relative path) matches a
//! glob, over the same `.gitignore`-aware walk as `grep`.

use arbor_permissions::FileAccess;
use std::path::PathBuf;
use std::sync::Mutex;

use arbor_agent::{AgentTool, ToolContext, ToolError, ToolOutput};
use arbor_llm::{JsonObject, Tool as ToolSpec};
use globset::{GlobBuilder, GlobMatcher};
use ignore::WalkState;
use serde::Deserialize;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::args::{parse_arguments, spec};
use super::truncate::{join_within, MAX_OUTPUT_BYTES};
use super::{names, paths, walk};
use crate::workspace::Workspace;

pub const DEFAULT_LIMIT: usize = 1000;

#[derive(Debug, Deserialize)]
struct FindArguments {
    pattern: String,
    path: Option<String>,
    limit: Option<usize>,
}

pub struct FindTool {
    workspace: Workspace,
    spec: ToolSpec,
}

impl FindTool {
    pub fn new(workspace: Workspace) -> Self {
        let spec = spec(
            "find",
            &format!(
                "Find files and folders by glob, honouring .gitignore. A pattern without `/` \
                 matches names at any depth (`*.rs`); one with `/` matches the path relative to \
                 `path` (`src/**/*.rs`). Prints sorted paths relative to the working directory, \
                 folders ending in `/`, at most `limit` (default {DEFAULT_LIMIT})."
            ),
            json!({
                "type": "object",
                "properties": {
                    "pattern": {
                        "type": "string",
                        "description": "Glob to match, for example `*.rs`, `Cargo.toml` or `src/**/test_*.py`."
                    },
                    "path": {
                        "type": "string",
                        "description": "Folder to search (default: the working directory)."
                    },
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "description": format!("Maximum number of results (default {DEFAULT_LIMIT}).")
                    }
                },
                "required": ["pattern"]
            }),
        );
        Self { workspace, spec }
    }
}

#[async_trait::async_trait]
impl AgentTool for FindTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn execute(
        &self,
        arguments: JsonObject,
        context: ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let arguments: FindArguments = parse_arguments(arguments)?;
        let cwd = self.workspace.cwd().to_path_buf();
        let root = names::resolve_existing(&cwd, arguments.path.as_deref().unwrap_or("."))?;
        self.workspace
            .authorize(&context.call_id, FileAccess::Read, &root)?;
        if !root.is_dir() {
            let shown = paths::display(&cwd, &root);
            if root.exists() {
                return Err(ToolError::respond(format!(
                    "{shown} is a file, not a folder."
                )));
            }
            self.workspace.ensure_root()?;
            return Err(ToolError::respond(format!("Folder not found: {shown}.")));
        }
        let full_path = arguments.pattern.contains('/');
        let glob = GlobBuilder::new(&arguments.pattern)
            .literal_separator(full_path)
            .build()
            .map_err(|error| {
                ToolError::respond(format!("Invalid glob {:?}: {error}.", arguments.pattern))
            })?
            .compile_matcher();
        let limit = arguments.limit.unwrap_or(DEFAULT_LIMIT).max(1);
        let cancel = context.cancel.clone();
        let search = Search {
            cwd,
            root,
            hidden: self.workspace.guard().hidden_paths(),
            glob,
            full_path,
        };
        let mut found = tokio::task::spawn_blocking(move || search.run(&cancel))
            .await
            .map_err(|error| ToolError::respond(format!("The search failed: {error}.")))??;
        if found.is_empty() {
            return Ok(ToolOutput::text(format!(
                "No files found matching {:?}.",
                arguments.pattern
            )));
        }
        found.sort_unstable();
        let total = found.len();
        let (mut text, fitted) = join_within(&found[..total.min(limit)], MAX_OUTPUT_BYTES);
        if fitted < total {
            let cap = if fitted < total.min(limit) {
                format!("{} KiB", MAX_OUTPUT_BYTES / 1024)
            } else {
                format!("limit={limit}")
            };
            text.push_str(&format!(
                "\n\n[Showing {fitted} of {total} matches ({cap}). Use a narrower pattern or path, \
                 or a larger limit.]"
            ));
        }
        Ok(ToolOutput::text(text).with_details(json!({ "matches": total })))
    }
}

struct Search {
    cwd: PathBuf,
    root: PathBuf,
    /// The secret paths: never listed.
    hidden: Vec<PathBuf>,
    glob: GlobMatcher,
    full_path: bool,
}

impl Search {
    /// Every match, unsorted (the walk is parallel).
    fn run(&self, cancel: &CancellationToken) -> Result<Vec<String>, ToolError> {
        let found: Mutex<Vec<String>> = Mutex::new(Vec::new());
        walk::walker(&self.root, self.hidden.clone())
            .build_parallel()
            .run(|| {
                let mut batch = Batch {
                    local: Vec::new(),
                    shared: &found,
                };
                Box::new(move |entry| {
                    if cancel.is_cancelled() {
                        return WalkState::Quit;
                    }
                    let Ok(entry) = entry else {
                        return WalkState::Continue;
                    };
                    if entry.depth() == 0 {
                        return WalkState::Continue;
                    }
                    let path = entry.path();
                    let matched = if self.full_path {
                        path.strip_prefix(&self.root)
                            .is_ok_and(|relative| self.glob.is_match(relative))
                    } else {
                        self.glob.is_match(entry.file_name())
                    };
                    if matched {
                        let mut shown = paths::display(&self.cwd, path);
                        if entry.file_type().is_some_and(|t| t.is_dir()) {
                            shown.push('/');
                        }
                        let relative = path.strip_prefix(&self.cwd).unwrap_or(path);
                        if !names::is_utf8(relative.as_os_str()) {
                            shown.push_str(names::NOT_UTF8_MARKER);
                        }
                        batch.push(shown);
                    }
                    WalkState::Continue
                })
            });
        if cancel.is_cancelled() {
            return Err(ToolError::Aborted);
        }
        Ok(found
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner()))
    }
}

/// One walker thread's matches, moved into the shared list in batches (and when the thread ends),
/// which keeps the lock out of the hot path.
struct Batch<'a> {
    local: Vec<String>,
    shared: &'a Mutex<Vec<String>>,
}

impl Batch<'_> {
    fn push(&mut self, path: String) {
        self.local.push(path);
        if self.local.len() >= 256 {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if let Ok(mut shared) = self.shared.lock() {
            shared.append(&mut self.local);
        }
    }
}

impl Drop for Batch<'_> {
    fn drop(&mut self) {
        self.flush();
    }
}
