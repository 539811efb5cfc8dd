//! `arbor-coding`: the conversation — how a run is recorded into the session tree, compacted,
//! retried, and what a session offers the model. The session API every front end drives is the
//! crate above this one (`arbor-app`); the capabilities below it are their own crates
//! (`arbor-tools`, `arbor-skills`, `arbor-git`, `arbor-secrets`, `arbor-export`), re-exported
//! here under their old paths.
//!
//! Module map:
//! - [`sessions`]: the conversation stored as a tree — [`SessionRecorder`] (appends under its own
//!   last node, reports another writer, stops a run whose write failed), node ↔ message
//!   conversion, [`CodingEvent`]s, editing (labels, forks, going to a node), and `code.rs`: the
//!   snapshots a node records and the restores, undo and diffs of nodes' files.
//! - [`compaction`]: token counts, where to cut, the summary request, [`Compactor`], branch
//!   summaries; [`request_hook`]: [`SessionRequestHook`], which the agent asks before every
//!   request (compaction) and after a failed one (compact-and-retry on overflow, mid-stream
//!   retries).
//! - [`system_prompt`]: the system prompt: tools with guidance, `AGENTS.md`/`CLAUDE.md` context
//!   files, custom and appended text, date and working directory.
//! - `offered.rs`: [`builtin_tools`] — the built-in tools by name, with `js` and `create_tool`
//!   built over `arbor-skills` (so `arbor-tools` needs to know nothing of the model's tools).
//! - Re-exported: [`tools`] and [`workspace`] (`arbor-tools`), [`skills`] (`arbor-skills`),
//!   [`snapshots`] and [`clone`] (`arbor-git`), [`secrets`] (`arbor-secrets`), [`export`]
//!   (`arbor-export`).

pub mod compaction;
pub mod request_hook;
/// Exports, secrets, snapshots and cloning live in their own crates; re-exported under their old paths.
pub use arbor_export as export;
pub use arbor_git::{clone, snapshots, worktrees};
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
