//! `arbor-coding`: the coding agent's built-in tools and its system prompt (the
//! design document's §6).
//!
//! Each tool is a struct implementing [`arbor_agent::AgentTool`], built over a [`Workspace`]
//! (the working directory plus the [`FileTracker`] that `read`, `write` and `edit` share, so `edit`
//! can tell the model when a file changed on disk since it was last read).
//!
//! Module map:
//! - [`app`]: **the session API every front end drives** — [`app::ArborApp`] (app-wide) and
//!   [`app::LiveSession`] (one conversation, one event stream). Start there.
//! - [`clone`]: cloning a git repository into a workspace (progress, cancel, a token for its
//!   host only, nothing half-made).
//! - [`workspace`]: [`Workspace`] and [`FileTracker`].
//! - [`tools`]: [`builtin_tools`] and one module per tool — `read`, `write`, `edit` (matching,
//!   applying, diff), `bash` (process group, output log), `ls`, `grep`, `find` — plus the shared
//!   helpers `paths` (resolving paths the model gives), `truncate` (caps and their notices), `atomic`
//!   (temp file + rename) and `args` (typed arguments, errors that name the field).
//! - [`sessions`]: the conversation stored as a tree (recording, navigation, branching);
//!   [`export`]: Markdown / JSONL / HTML export and JSONL import.
//! - [`compaction`]: summarising the older conversation near the context window, branch
//!   summaries; [`request_hook`]: [`SessionRequestHook`], which the agent asks before every
//!   request (compaction) and after a failed one (compact-and-retry on overflow, mid-stream
//!   retries).
//! - [`secrets`]: [`secrets::Secret`], the keychain and in-memory [`secrets::SecretStore`]s,
//!   redacting tool output and withholding keys from tool processes.
//! - [`system_prompt`]: the system prompt: tools with guidance, `AGENTS.md`/`CLAUDE.md` context
//!   files, custom and appended text, date and working directory.

pub mod app;
/// Files written whole (`arbor-fs`).
use arbor_fs as atomic;
pub mod compaction;
pub mod request_hook;
/// Exports, secrets, snapshots and cloning live in their own crates; re-exported under their old paths.
pub use arbor_export as export;
pub use arbor_git::{clone, snapshots};
pub use arbor_secrets as secrets;
pub mod sessions;
/// The model's own tools (`arbor-skills`).
pub use arbor_skills as skills;
pub mod system_prompt;
/// The built-in tools live in their own crate; `js` and `create_tool` are built here
/// ([`builtin_tools`]).
pub use arbor_tools as tools;
pub use arbor_tools::workspace;
mod offered;

pub use compaction::{
    Compaction, CompactionError, CompactionReason, CompactionSettings, Compactor,
};
pub use offered::builtin_tools;
pub use request_hook::SessionRequestHook;
pub use sessions::{CodingEvent, EventSink, Navigation, SessionRecorder, SessionsError};
pub use system_prompt::{
    build_system_prompt, load_context_files, today_utc, ContextFile, SystemPromptOptions,
};
pub use tools::{parse_tool_list, BuiltinToolOptions, BuiltinToolsError, DEFAULT_TOOLS};
pub use workspace::{FileTracker, Workspace};
