//! The model's tools as front ends see them: the tools list, what a person reviews before
//! approving a proposal, and the record of runs. Made by `arbor-skills`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A tool's files by path (relative to its folder), as text.
pub type ToolFiles = BTreeMap<String, String>;

/// Where a tool folder lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ToolScope {
    /// `<workspace>/.tools/` (wins over a user tool of the same name).
    Project,
    /// `<data dir>/tools/`.
    User,
}

impl ToolScope {
    pub fn as_str(self) -> &'static str {
        match self {
            ToolScope::Project => "project",
            ToolScope::User => "user",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "project" => Some(ToolScope::Project),
            "user" => Some(ToolScope::User),
            _ => None,
        }
    }
}

/// Where a tool stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    /// One of Arbor's own tools.
    Builtin,
    /// Approved, and its files are the approved ones: offered to the model.
    Approved,
    /// Waiting for the user: new, proposed, or changed since it was approved.
    Pending,
    /// Its `SKILL.md` or folder has problems: never offered.
    Invalid,
}

/// One line of the tools list.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ToolEntry {
    pub name: String,
    pub status: ToolStatus,
    /// `project` or `user`; `None` for built-ins.
    pub scope: Option<ToolScope>,
    pub description: String,
    /// An executable tool (an entry script), or an instruction skill.
    pub executable: bool,
    /// The helpers its script may use, in plain words.
    pub permissions: Vec<String>,
    pub files: Vec<String>,
    /// The approval to answer (pending) or the approved version (approved).
    pub approval_id: Option<String>,
    /// Pending because its files changed after it was approved.
    pub changed_since_approval: bool,
    /// What is wrong (invalid).
    pub problems: Vec<ManifestProblem>,
    /// A user-wide tool of the same name is hidden by this project's.
    pub shadows_user_tool: bool,
}

/// The tools list.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ToolList {
    pub tools: Vec<ToolEntry>,
}

/// One thing wrong with a `SKILL.md`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct ManifestProblem {
    /// The file, as the caller named it.
    pub file: String,
    /// 1-based; the field's line, or the front matter's first line.
    pub line: usize,
    /// The field (`front matter` for the file's shape).
    pub field: String,
    /// What is wrong and what to do.
    pub message: String,
}

/// What a person reviews before deciding: the version proposed and the approved one before it.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ToolReview {
    pub approval_id: String,
    /// `create_tool` (new) or `edit_tool` (a change of an approved tool).
    pub kind: String,
    pub name: String,
    pub reason: String,
    pub skill_md: String,
    #[ts(type = "Record<string, string>")]
    pub files: ToolFiles,
    /// The helpers it asks for, by name, and in plain words.
    pub allowed_tools: Vec<String>,
    pub permissions: Vec<String>,
    /// The approved version's files, when this changes one.
    #[ts(type = "Record<string, string> | null")]
    pub previous: Option<ToolFiles>,
    /// With `previous`: each file that differs, with its unified diff.
    pub changes: Vec<ToolFileChange>,
    pub status: String,
}

/// A file of a tool that differs from the approved version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct ToolFileChange {
    pub path: String,
    /// `added`, `deleted` or `modified`.
    pub status: String,
    /// Unified diff from the approved version.
    pub patch: String,
}

impl std::fmt::Display for ManifestProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: {}: {}",
            self.file, self.line, self.field, self.message
        )
    }
}

/// One run of a model's tool, for its history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ToolRun {
    pub id: String,
    pub name: String,
    /// The hash of the version that ran.
    pub hash: String,
    /// The arguments as JSON text.
    pub arguments: String,
    pub result: String,
    pub is_error: bool,
    pub duration_ms: u64,
    /// Unix milliseconds.
    pub created_at: i64,
}
