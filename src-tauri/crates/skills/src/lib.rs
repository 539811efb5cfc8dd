//! `arbor-skills` — the model's own tools: folders with a `SKILL.md` (and a script) that run only after the user
//! approved exactly their files, and the `js` tool — both in the JavaScript sandbox
//! (`arbor-js`).
//!
//! # Map
//! - `manifest.rs`: `SKILL.md` — YAML front matter (Agent Skills `name`/`description` rules,
//!   `parameters` as JSON Schema, `entry`, `allowed-tools`) and instructions; every problem
//!   with its file, line and what to fix.
//! - `folder.rs`: tool folders on disk (`<workspace>/.tools/`, `<data dir>/tools/`; the
//!   project's wins), read whole, and the content hash approvals are pinned to.
//! - `toolbox.rs`: [`Toolbox`] — approve / reject / revoke, run history, waiting proposals,
//!   and the tools offered to the model; `listing.rs`: the list (built-in, approved, pending,
//!   invalid); `review.rs`: proposals, what a person reviews (with the diff against the
//!   approved version), how a version's files are kept and written.
//! - `dynamic.rs`: the approved tools as agent tools (checked against their hash before every
//!   run, every run recorded) and `create_tool`, which waits for the user where one can answer.
//! - `js_tool.rs`: `js {code}` and the runner both share; `host.rs`: the helpers confined to
//!   the project folder.

use std::sync::Arc;

/// Where the toolbox sends its events (proposals waiting, decisions).
pub type EventSink = Arc<dyn Fn(&arbor_protocol::CodingEvent) + Send + Sync>;

#[cfg(test)]
mod connection_tests;
mod dynamic;
mod folder;
mod host;
mod js_tool;
mod listing;
mod manifest;
mod review;
mod toolbox;
#[cfg(test)]
mod waiting_tests;

/// The file helpers a script may be granted (`allowed-tools`), with their plain words.
pub use arbor_js::Helper;
pub use dynamic::{CreateToolTool, ModelTool};
pub use folder::{
    content_hash, discover, read_folder, ToolFiles, ToolFolder, ToolScope, PROJECT_TOOLS_DIR,
    USER_TOOLS_DIR,
};
pub use host::WorkspaceHost;
pub use js_tool::JsTool;
pub use listing::{ToolEntry, ToolList, ToolStatus};
pub use manifest::{name_problem, parse_manifest, ManifestProblem, SkillManifest, SKILL_FILE};
pub use review::{ToolFileChange, ToolReview};
pub use toolbox::{Decision, Toolbox, ToolboxError};
