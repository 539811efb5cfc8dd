//! [`Toolbox`]: the model's tools of one project — what is on disk, what was approved (pinned to
//! a content hash), proposals waiting for the user, decisions, and the tools offered to the
//! model (only approved ones whose files are still exactly the approved files).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use arbor_agent::AgentTool;
use arbor_store::{ApprovalStatus, NewToolApproval, Store, StoreError, ToolApproval, ToolRun};
use serde::Serialize;
use tokio::sync::oneshot;

use super::dynamic::ModelTool;
use super::folder::{
    check_files, content_hash, discover, read_folder, ToolFiles, ToolFolder, ToolScope,
    PROJECT_TOOLS_DIR,
};
use super::manifest::{ManifestProblem, SKILL_FILE};
use crate::sessions::{CodingEvent, EventSink};

/// What can go wrong with the model's tools.
#[derive(Debug, thiserror::Error)]
pub enum ToolboxError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{} — fix these and propose it again", problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Invalid { problems: Vec<ManifestProblem> },
    #[error("no tool named `{0}` in this project (see the tools list)")]
    UnknownTool(String),
    #[error("tool approval {id} is {status}, not pending: list the tools again")]
    NotPending { id: String, status: &'static str },
    #[error("cannot write the tool's files in {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the stored files of tool approval {0} do not decode")]
    Corrupt(String),
}

impl ToolboxError {
    pub fn code(&self) -> &'static str {
        match self {
            ToolboxError::Store(StoreError::NotFound { .. }) => "not_found",
            ToolboxError::Store(StoreError::InvalidId { .. } | StoreError::AmbiguousId { .. }) => {
                "invalid_id"
            }
            ToolboxError::Store(_) => "store",
            ToolboxError::Invalid { .. } => "invalid_tool",
            ToolboxError::UnknownTool(_) => "unknown_tool",
            ToolboxError::NotPending { .. } => "not_pending",
            ToolboxError::Write { .. } => "io",
            ToolboxError::Corrupt(_) => "corrupt",
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

/// The files that differ between the approved version and the proposed one.
fn file_changes(previous: &ToolFiles, files: &ToolFiles) -> Vec<ToolFileChange> {
    let mut paths: Vec<&String> = previous.keys().chain(files.keys()).collect();
    paths.sort();
    paths.dedup();
    paths
        .into_iter()
        .filter_map(|path| {
            let (old, new) = (previous.get(path), files.get(path));
            let status = match (old, new) {
                (None, Some(_)) => "added",
                (Some(_), None) => "deleted",
                (Some(a), Some(b)) if a != b => "modified",
                _ => return None,
            };
            let patch = similar::TextDiff::from_lines(
                old.map_or("", String::as_str),
                new.map_or("", String::as_str),
            )
            .unified_diff()
            .header(&format!("a/{path}"), &format!("b/{path}"))
            .to_string();
            Some(ToolFileChange {
                path: path.clone(),
                status: status.into(),
                patch,
            })
        })
        .collect()
}

/// A decision reached the proposal's waiting `create_tool` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Approved,
    Rejected(Option<String>),
}

struct State {
    store: Store,
    sink: Option<EventSink>,
    waiting: HashMap<String, oneshot::Sender<Decision>>,
    /// Called after a decision or a revoke: the session offers the new set of tools.
    on_change: Option<Arc<dyn Fn() + Send + Sync>>,
}

/// The model's tools of one project.
pub struct Toolbox {
    workspace: PathBuf,
    data_dir: PathBuf,
    project_id: String,
    /// A person can answer approvals now (desktop, interactive, RPC): `create_tool` waits.
    answerable: AtomicBool,
    /// The built-in tools' names and descriptions, for the list.
    builtins: Mutex<Vec<(String, String)>>,
    /// Cleans keys out of what runs record (a script may read a file holding one).
    redactor: Mutex<Option<crate::secrets::Redactor>>,
    state: Mutex<State>,
}

impl std::fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Toolbox")
            .field("workspace", &self.workspace)
            .field("project_id", &self.project_id)
            .finish_non_exhaustive()
    }
}

impl Toolbox {
    /// The tools of the project `project_id` at `workspace`, with the user's in `data_dir`;
    /// `store` is a connection of its own.
    pub fn new(store: Store, workspace: &Path, data_dir: &Path, project_id: &str) -> Arc<Self> {
        Arc::new(Self {
            workspace: workspace.to_owned(),
            data_dir: data_dir.to_owned(),
            project_id: project_id.to_owned(),
            answerable: AtomicBool::new(false),
            builtins: Mutex::default(),
            redactor: Mutex::default(),
            state: Mutex::new(State {
                store,
                sink: None,
                waiting: HashMap::new(),
                on_change: None,
            }),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    /// Whether a person can answer approvals (then `create_tool` waits for the answer).
    pub fn set_answerable(&self, answerable: bool) {
        self.answerable.store(answerable, Ordering::Relaxed);
    }

    pub fn is_answerable(&self) -> bool {
        self.answerable.load(Ordering::Relaxed)
    }

    /// Where `approval_requested` events go.
    pub fn set_sink(&self, sink: Option<EventSink>) {
        self.lock().sink = sink;
    }

    /// Called after every decision or revoke.
    pub fn set_on_change(&self, on_change: Option<Arc<dyn Fn() + Send + Sync>>) {
        self.lock().on_change = on_change;
    }

    /// The toolbox of the project at `workspace` (found, or recorded as a project), outside a
    /// session: the CLI's `arbor tools`.
    pub fn open(data_dir: &Path, workspace: &Path) -> Result<Arc<Self>, ToolboxError> {
        let store = Store::open(data_dir)?;
        let project = store.open_project(workspace, None)?;
        let root = PathBuf::from(&project.root);
        Ok(Self::new(store, &root, data_dir, &project.id))
    }

    /// The session's redactor: runs are recorded without its keys.
    pub fn set_redactor(&self, redactor: crate::secrets::Redactor) {
        if let Ok(mut slot) = self.redactor.lock() {
            *slot = Some(redactor);
        }
    }

    /// `text` without the session's keys.
    pub(crate) fn redact(&self, text: &str) -> String {
        match self.redactor.lock().ok().and_then(|r| r.clone()) {
            Some(redactor) => redactor.text(text).into_owned(),
            None => text.to_owned(),
        }
    }

    /// The built-in tools shown in the list.
    pub fn set_builtins(&self, builtins: Vec<(String, String)>) {
        if let Ok(mut slot) = self.builtins.lock() {
            *slot = builtins;
        }
    }

    pub(crate) fn with_store<R>(&self, f: impl FnOnce(&Store) -> R) -> R {
        f(&self.lock().store)
    }

    pub(crate) fn project_id(&self) -> &str {
        &self.project_id
    }

    fn emit(&self, event: CodingEvent) {
        let sink = self.lock().sink.clone();
        if let Some(sink) = sink {
            sink(&event);
        }
    }

    fn changed(&self) {
        let on_change = self.lock().on_change.clone();
        if let Some(on_change) = on_change {
            on_change();
        }
    }

    /// Every tool: built-ins, then the folders found (project first), then proposals not on
    /// disk yet. A folder without an approval of its exact files is put up for review (so it
    /// has an approval to answer).
    pub fn list(&self) -> Result<ToolList, ToolboxError> {
        let (folders, shadowed) = discover(&self.workspace, &self.data_dir);
        let mut tools: Vec<ToolEntry> = self
            .builtins
            .lock()
            .map(|b| b.clone())
            .unwrap_or_default()
            .into_iter()
            .map(|(name, description)| ToolEntry {
                name,
                status: ToolStatus::Builtin,
                scope: None,
                description,
                executable: true,
                permissions: Vec::new(),
                files: Vec::new(),
                approval_id: None,
                changed_since_approval: false,
                problems: Vec::new(),
                shadows_user_tool: false,
            })
            .collect();
        let builtin_names: Vec<String> = tools.iter().map(|t| t.name.clone()).collect();
        let mut on_disk = Vec::new();
        for folder in &folders {
            on_disk.push(folder.name.clone());
            let mut entry = self.entry_of(folder, &builtin_names)?;
            entry.shadows_user_tool = shadowed.contains(&folder.name);
            tools.push(entry);
        }
        // Proposals whose files are not written yet.
        let approvals = self.with_store(|s| s.tool_approvals(&self.project_id, None))?;
        let mut listed = on_disk;
        for approval in approvals {
            if approval.status != ApprovalStatus::Pending || listed.contains(&approval.name) {
                continue;
            }
            listed.push(approval.name.clone());
            let files = decode_files(&approval)?;
            let manifest = check_files(&approval.name, &approval.name, &files).ok();
            tools.push(ToolEntry {
                name: approval.name.clone(),
                status: ToolStatus::Pending,
                scope: ToolScope::parse(&approval.scope),
                description: manifest
                    .as_ref()
                    .map(|m| m.description.clone())
                    .unwrap_or_default(),
                executable: manifest.as_ref().is_some_and(|m| m.is_executable()),
                permissions: manifest
                    .as_ref()
                    .map(|m| {
                        m.allowed_tools
                            .iter()
                            .map(|h| h.describe().to_owned())
                            .collect()
                    })
                    .unwrap_or_default(),
                files: files.keys().cloned().collect(),
                approval_id: Some(approval.id.clone()),
                changed_since_approval: false,
                problems: Vec::new(),
                shadows_user_tool: false,
            });
        }
        Ok(ToolList { tools })
    }

    /// A folder's line, putting it up for review when its files have no approval yet.
    fn entry_of(
        &self,
        folder: &ToolFolder,
        builtins: &[String],
    ) -> Result<ToolEntry, ToolboxError> {
        let mut entry = ToolEntry {
            name: folder.name.clone(),
            status: ToolStatus::Invalid,
            scope: Some(folder.scope),
            description: String::new(),
            executable: false,
            permissions: Vec::new(),
            files: folder.files.keys().cloned().collect(),
            approval_id: None,
            changed_since_approval: false,
            problems: Vec::new(),
            shadows_user_tool: false,
        };
        let manifest = match &folder.manifest {
            Ok(manifest) if builtins.contains(&manifest.name) => {
                entry.problems.push(ManifestProblem {
                    file: format!("{}/{SKILL_FILE}", folder.name),
                    line: 1,
                    field: "name".into(),
                    message: format!(
                        "`{}` is a built-in tool's name: choose another",
                        manifest.name
                    ),
                });
                return Ok(entry);
            }
            Ok(manifest) => manifest,
            Err(problems) => {
                entry.problems = problems.clone();
                return Ok(entry);
            }
        };
        entry.description = manifest.description.clone();
        entry.executable = manifest.is_executable();
        entry.permissions = manifest
            .allowed_tools
            .iter()
            .map(|h| h.describe().to_owned())
            .collect();
        let (approved, approvals) = self.with_store(|s| {
            Ok::<_, StoreError>((
                s.approved_tool(&self.project_id, &folder.name)?,
                s.tool_approvals(&self.project_id, Some(&folder.name))?,
            ))
        })?;
        if let Some(approved) = &approved {
            if approved.hash == folder.hash {
                entry.status = ToolStatus::Approved;
                entry.approval_id = Some(approved.id.clone());
                return Ok(entry);
            }
        }
        entry.status = ToolStatus::Pending;
        entry.changed_since_approval = approved.is_some();
        let pending = approvals
            .iter()
            .find(|a| a.status == ApprovalStatus::Pending && a.hash == folder.hash);
        let pending = match pending {
            Some(pending) => pending.clone(),
            None => {
                let reason = if approved.is_some() {
                    "its files changed after it was approved".to_owned()
                } else {
                    format!("found in {} (never approved here)", shown_dir(folder.scope))
                };
                self.with_store(|s| {
                    s.add_tool_approval(NewToolApproval {
                        project_id: self.project_id.clone(),
                        name: folder.name.clone(),
                        scope: folder.scope.as_str().to_owned(),
                        hash: folder.hash.clone(),
                        files: encode_files(&folder.files),
                        reason,
                        session_id: None,
                    })
                })?
            }
        };
        entry.approval_id = Some(pending.id);
        Ok(entry)
    }

    /// Stores a proposal from the model (`create_tool`) as pending and announces it. Refused,
    /// with every problem, when the files are not a valid tool.
    pub fn propose(
        &self,
        name: &str,
        files: ToolFiles,
        reason: &str,
        session_id: Option<String>,
    ) -> Result<ToolReview, ToolboxError> {
        if let Some(message) = super::manifest::name_problem(name) {
            return Err(ToolboxError::Invalid {
                problems: vec![ManifestProblem {
                    file: "create_tool".into(),
                    line: 1,
                    field: "name".into(),
                    message,
                }],
            });
        }
        let builtins: Vec<String> = self
            .builtins
            .lock()
            .map(|b| b.iter().map(|(n, _)| n.clone()).collect())
            .unwrap_or_default();
        if builtins.iter().any(|b| b == name) {
            return Err(ToolboxError::Invalid {
                problems: vec![ManifestProblem {
                    file: "create_tool".into(),
                    line: 1,
                    field: "name".into(),
                    message: format!("`{name}` is a built-in tool's name: choose another"),
                }],
            });
        }
        check_files(name, name, &files).map_err(|problems| ToolboxError::Invalid { problems })?;
        let approval = self.with_store(|s| {
            s.add_tool_approval(NewToolApproval {
                project_id: self.project_id.clone(),
                name: name.to_owned(),
                scope: ToolScope::Project.as_str().to_owned(),
                hash: content_hash(&files),
                files: encode_files(&files),
                reason: reason.to_owned(),
                session_id,
            })
        })?;
        let review = self.review(&approval.id)?;
        self.emit(CodingEvent::ApprovalRequested {
            approval_id: review.approval_id.clone(),
            kind: review.kind.clone(),
            name: review.name.clone(),
            skill_md: review.skill_md.clone(),
            files: review.files.clone(),
            allowed_tools: review.allowed_tools.clone(),
            reason: review.reason.clone(),
            previous: review.previous.clone(),
        });
        Ok(review)
    }

    /// Everything to show before deciding on `approval_id`.
    pub fn review(&self, approval_id: &str) -> Result<ToolReview, ToolboxError> {
        let (approval, approved) = self.with_store(|s| {
            let approval = s.tool_approval(approval_id)?;
            let approved = s.approved_tool(&approval.project_id, &approval.name)?;
            Ok::<_, StoreError>((approval, approved))
        })?;
        let files = decode_files(&approval)?;
        let previous = match approved.filter(|a| a.id != approval.id) {
            Some(approved) => Some(decode_files(&approved)?),
            None => None,
        };
        let manifest = check_files(&approval.name, &approval.name, &files).ok();
        let helpers: Vec<arbor_sandbox::Helper> = manifest
            .map(|m| m.allowed_tools.into_iter().collect())
            .unwrap_or_default();
        Ok(ToolReview {
            approval_id: approval.id.clone(),
            kind: if previous.is_some() {
                "edit_tool"
            } else {
                "create_tool"
            }
            .into(),
            name: approval.name.clone(),
            reason: approval.reason.clone(),
            skill_md: files.get(SKILL_FILE).cloned().unwrap_or_default(),
            allowed_tools: helpers.iter().map(|h| h.name().to_owned()).collect(),
            permissions: helpers.iter().map(|h| h.describe().to_owned()).collect(),
            changes: previous
                .as_ref()
                .map(|previous| file_changes(previous, &files))
                .unwrap_or_default(),
            files,
            previous,
            status: approval.status.as_str().to_owned(),
        })
    }

    /// Approves a pending version: its files are written to `.tools/<name>/` when the folder
    /// does not hold exactly them, the approval is pinned to their hash, and the model is
    /// offered the tool from its next request.
    pub fn approve(&self, approval_id: &str) -> Result<ToolApproval, ToolboxError> {
        let approval = self.with_store(|s| s.tool_approval(approval_id))?;
        if approval.status != ApprovalStatus::Pending {
            return Err(ToolboxError::NotPending {
                id: approval.id,
                status: approval.status.as_str(),
            });
        }
        let files = decode_files(&approval)?;
        let scope = ToolScope::parse(&approval.scope).unwrap_or(ToolScope::Project);
        let dir = self.folder_of(scope, &approval.name);
        if read_folder(&dir, &approval.name, scope).hash != approval.hash {
            write_folder(&dir, &files)?;
        }
        let decided = self
            .with_store(|s| s.decide_tool_approval(&approval.id, ApprovalStatus::Approved, None))?;
        // Offered before the waiting call is woken: its run's next request must see the tool.
        self.changed();
        self.notify(&decided.id, Decision::Approved);
        Ok(decided)
    }

    /// Rejects a pending version (the folder is left as it is; never offered).
    pub fn reject(
        &self,
        approval_id: &str,
        reason: Option<&str>,
    ) -> Result<ToolApproval, ToolboxError> {
        let reason = reason.map(str::trim).filter(|r| !r.is_empty());
        let decided = self.with_store(|s| {
            s.decide_tool_approval(approval_id, ApprovalStatus::Rejected, reason)
        })?;
        self.changed();
        self.notify(&decided.id, Decision::Rejected(reason.map(str::to_owned)));
        Ok(decided)
    }

    /// Takes a tool's approval back: it is no longer offered (its files stay).
    pub fn revoke(&self, name: &str) -> Result<(), ToolboxError> {
        let changed = self.with_store(|s| s.revoke_tool(&self.project_id, name))?;
        if changed == 0 {
            return Err(ToolboxError::UnknownTool(name.to_owned()));
        }
        self.changed();
        Ok(())
    }

    /// The runs of the model's tools (of `name`), newest first.
    pub fn history(&self, name: Option<&str>) -> Result<Vec<ToolRun>, ToolboxError> {
        Ok(self.with_store(|s| s.tool_runs(&self.project_id, name, 200))?)
    }

    /// Waits for the decision on `approval_id` (a `create_tool` call).
    pub(crate) fn wait_for(&self, approval_id: &str) -> oneshot::Receiver<Decision> {
        let (sender, receiver) = oneshot::channel();
        self.lock().waiting.insert(approval_id.to_owned(), sender);
        receiver
    }

    pub(crate) fn stop_waiting(&self, approval_id: &str) {
        self.lock().waiting.remove(approval_id);
    }

    fn notify(&self, approval_id: &str, decision: Decision) {
        let waiting = self.lock().waiting.remove(approval_id);
        if let Some(sender) = waiting {
            let _ = sender.send(decision);
        }
    }

    fn folder_of(&self, scope: ToolScope, name: &str) -> PathBuf {
        match scope {
            ToolScope::Project => self.workspace.join(PROJECT_TOOLS_DIR).join(name),
            ToolScope::User => self.data_dir.join(super::folder::USER_TOOLS_DIR).join(name),
        }
    }

    /// The tools the model is offered now: approved ones whose files are exactly the approved
    /// files (anything else is pending, or invalid).
    pub fn offered(self: &Arc<Self>) -> Vec<Arc<dyn AgentTool>> {
        let Ok(list) = self.list() else {
            return Vec::new();
        };
        let (folders, _) = discover(&self.workspace, &self.data_dir);
        let mut offered: Vec<Arc<dyn AgentTool>> = Vec::new();
        for entry in list
            .tools
            .iter()
            .filter(|t| t.status == ToolStatus::Approved)
        {
            let Some(folder) = folders.iter().find(|f| f.name == entry.name) else {
                continue;
            };
            if let Ok(manifest) = &folder.manifest {
                offered.push(Arc::new(ModelTool::new(
                    Arc::clone(self),
                    folder.clone(),
                    manifest.clone(),
                )));
            }
        }
        offered
    }

    /// The folder of an offered tool as it is now, if its files are still `hash`.
    pub(crate) fn still_approved(&self, folder: &ToolFolder, hash: &str) -> bool {
        read_folder(&folder.dir, &folder.name, folder.scope).hash == hash
            && self
                .with_store(|s| s.approved_tool(&self.project_id, &folder.name))
                .ok()
                .flatten()
                .is_some_and(|a| a.hash == hash)
    }
}

fn shown_dir(scope: ToolScope) -> &'static str {
    match scope {
        ToolScope::Project => "the project's .tools/",
        ToolScope::User => "your tools folder",
    }
}

pub(crate) fn encode_files(files: &ToolFiles) -> String {
    serde_json::to_string(files).unwrap_or_else(|_| "{}".into())
}

fn decode_files(approval: &ToolApproval) -> Result<ToolFiles, ToolboxError> {
    serde_json::from_str::<BTreeMap<String, String>>(&approval.files)
        .map_err(|_| ToolboxError::Corrupt(approval.id.clone()))
}

/// Replaces the folder `dir` with exactly `files`: written beside it first, then swapped in, so
/// a failure leaves the old folder (or none), never half a tool.
fn write_folder(dir: &Path, files: &ToolFiles) -> Result<(), ToolboxError> {
    let error = |path: &Path| {
        let path = path.to_owned();
        move |source| ToolboxError::Write { path, source }
    };
    let parent = dir.parent().unwrap_or(dir);
    std::fs::create_dir_all(parent).map_err(error(parent))?;
    let staging = tempfile::Builder::new()
        .prefix(".arbor-tool-")
        .tempdir_in(parent)
        .map_err(error(parent))?;
    for (path, text) in files {
        let target = staging.path().join(path);
        if let Some(folder) = target.parent() {
            std::fs::create_dir_all(folder).map_err(error(folder))?;
        }
        std::fs::write(&target, text).map_err(error(&target))?;
    }
    let staged = staging.keep();
    if dir.exists() {
        let old = parent.join(format!(
            ".arbor-tool-old-{}",
            dir.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        ));
        let _ = std::fs::remove_dir_all(&old);
        std::fs::rename(dir, &old).map_err(error(dir))?;
        std::fs::rename(&staged, dir).map_err(error(dir))?;
        let _ = std::fs::remove_dir_all(&old);
    } else {
        std::fs::rename(&staged, dir).map_err(error(dir))?;
    }
    Ok(())
}
