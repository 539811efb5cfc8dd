//! [`Toolbox`]: the model's tools of one project — what is on disk, what was approved (pinned to
//! a content hash), proposals waiting for the user, decisions, and the tools offered to the
//! model (only approved ones whose files are still exactly the approved files).

use arbor_error_code::ErrorCode;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use arbor_agent::AgentTool;
use arbor_protocol::views::tools::ToolRun;
use arbor_store::{AnotherConnection, ApprovalStatus, Store, StoreError, ToolApproval};
use tokio::sync::oneshot;

use super::dynamic::ModelTool;
use super::folder::{read_folder, ToolFolder, ToolScope, PROJECT_TOOLS_DIR};
use super::listing::ToolStatus;
use super::manifest::ManifestProblem;
use super::review::{decode_files, write_folder};
use crate::EventSink;
use arbor_protocol::CodingEvent;

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
    pub fn code(&self) -> ErrorCode {
        match self {
            ToolboxError::Store(StoreError::NotFound { .. }) => ErrorCode::NotFound,
            ToolboxError::Store(StoreError::InvalidId { .. } | StoreError::AmbiguousId { .. }) => {
                ErrorCode::InvalidId
            }
            ToolboxError::Store(_) => ErrorCode::Store,
            ToolboxError::Invalid { .. } => ErrorCode::InvalidTool,
            ToolboxError::UnknownTool(_) => ErrorCode::UnknownTool,
            ToolboxError::NotPending { .. } => ErrorCode::NotPending,
            ToolboxError::Write { .. } => ErrorCode::Io,
            ToolboxError::Corrupt(_) => ErrorCode::Corrupt,
        }
    }
}

/// A decision reached the proposal's waiting `create_tool` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Approved,
    Rejected(Option<String>),
}

/// The toolbox's own connection to the store: opened at its first use when it was not given
/// open (a run whose project has no tools of the model's never opens it).
struct Connection {
    store: Option<Store>,
    later: AnotherConnection,
}

impl Connection {
    fn open(store: Store) -> Self {
        let later = store.another_later();
        Self {
            store: Some(store),
            later,
        }
    }

    fn store(&mut self) -> Result<&Store, StoreError> {
        match &mut self.store {
            Some(store) => Ok(store),
            empty @ None => Ok(empty.insert(self.later.open()?)),
        }
    }
}

struct State {
    store: Connection,
    sink: Option<EventSink>,
    waiting: HashMap<String, oneshot::Sender<Decision>>,
    /// Proposals announced to a person who can answer, whose `create_tool` call is about to
    /// wait: a decision that comes before the call waits is kept here for it (the front end
    /// sees `approval_requested` before the call reaches [`Toolbox::wait_for`]).
    announced: HashMap<String, Option<Decision>>,
    /// Called after a decision or a revoke: the session offers the new set of tools.
    on_change: Option<Arc<dyn Fn() + Send + Sync>>,
}

/// The model's tools of one project.
pub struct Toolbox {
    pub(super) workspace: PathBuf,
    pub(super) data_dir: PathBuf,
    pub(super) project_id: String,
    /// A person can answer approvals now (desktop, interactive, RPC): `create_tool` waits.
    answerable: AtomicBool,
    /// The built-in tools' names and descriptions, for the list.
    pub(super) builtins: Mutex<Vec<(String, String)>>,
    /// Cleans keys out of what runs record (a script may read a file holding one).
    redactor: Mutex<Option<arbor_secrets::Redactor>>,
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
        Self::with_connection(Connection::open(store), workspace, data_dir, project_id)
    }

    /// [`Toolbox::new`] with a connection of its own opened when the store is first needed
    /// (a session's toolbox: most runs list no tools of the model's and record none).
    pub fn connecting_later(
        store: AnotherConnection,
        workspace: &Path,
        data_dir: &Path,
        project_id: &str,
    ) -> Arc<Self> {
        Self::with_connection(
            Connection {
                store: None,
                later: store,
            },
            workspace,
            data_dir,
            project_id,
        )
    }

    fn with_connection(
        store: Connection,
        workspace: &Path,
        data_dir: &Path,
        project_id: &str,
    ) -> Arc<Self> {
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
                announced: HashMap::new(),
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
    pub fn set_redactor(&self, redactor: arbor_secrets::Redactor) {
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

    pub(crate) fn with_store<T>(
        &self,
        f: impl FnOnce(&Store) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        f(self.lock().store.store()?)
    }

    /// Whether the toolbox's own connection is open yet.
    #[cfg(test)]
    pub(crate) fn is_connected(&self) -> bool {
        self.lock().store.store.is_some()
    }

    pub(crate) fn project_id(&self) -> &str {
        &self.project_id
    }

    pub(super) fn emit(&self, event: CodingEvent) {
        let sink = self.lock().sink.clone();
        if let Some(sink) = sink {
            sink(&event);
        }
    }

    pub(super) fn changed(&self) {
        let on_change = self.lock().on_change.clone();
        if let Some(on_change) = on_change {
            on_change();
        }
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
        self.resolved(&decided);
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
        self.resolved(&decided);
        Ok(decided)
    }

    fn resolved(&self, decided: &ToolApproval) {
        self.emit(CodingEvent::ApprovalResolved {
            approval_id: decided.id.clone(),
            name: decided.name.clone(),
            status: decided.status.as_str().to_owned(),
        });
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
        let runs = self.with_store(|s| s.tool_runs(&self.project_id, name, 200))?;
        Ok(runs
            .into_iter()
            .map(|run| ToolRun {
                id: run.id,
                name: run.name,
                hash: run.hash,
                arguments: run.arguments,
                result: run.result,
                is_error: run.is_error,
                duration_ms: run.duration_ms,
                created_at: run.created_at,
            })
            .collect())
    }

    /// Waits for the decision on `approval_id` (a `create_tool` call).
    pub(crate) fn wait_for(&self, approval_id: &str) -> oneshot::Receiver<Decision> {
        let (sender, receiver) = oneshot::channel();
        let mut state = self.lock();
        match state.announced.remove(approval_id).flatten() {
            // Decided between the announcement and now.
            Some(decision) => {
                let _ = sender.send(decision);
            }
            None => {
                state.waiting.insert(approval_id.to_owned(), sender);
            }
        }
        receiver
    }

    /// Marks `approval_id` as announced to someone who can answer, before the announcement
    /// goes out: see `State::announced`.
    pub(super) fn expect_wait(&self, approval_id: &str) {
        self.lock().announced.insert(approval_id.to_owned(), None);
    }

    pub(crate) fn stop_waiting(&self, approval_id: &str) {
        let mut state = self.lock();
        state.waiting.remove(approval_id);
        state.announced.remove(approval_id);
    }

    fn notify(&self, approval_id: &str, decision: Decision) {
        let mut state = self.lock();
        if let Some(sender) = state.waiting.remove(approval_id) {
            drop(state);
            let _ = sender.send(decision);
        } else if let Some(early) = state.announced.get_mut(approval_id) {
            *early = Some(decision);
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
        let Ok((list, folders)) = self.list_with_folders(super::listing::Proposals::Left) else {
            return Vec::new();
        };
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
