//! [`SessionRecorder`]: keeps an agent's conversation in the store, one node per completed
//! message, and moves around the tree (resume, navigate, regenerate, fork, switch).

use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use arbor_agent::{Agent, AgentEvent, AgentMessage, SubscriptionId};
use arbor_store::{NewNode, Node, NodeKind, Project, Session, SessionSummary, Store, StoreError};
use serde_json::json;

use super::convert::{context_json_messages, message_to_node};
use super::CodingEvent;

/// Where a recorder sends [`CodingEvent`]s (called on the agent's loop task; keep it quick).
pub type EventSink = Arc<dyn Fn(&CodingEvent) + Send + Sync>;

/// What can go wrong persisting or moving around a session.
#[derive(Debug, thiserror::Error)]
pub enum SessionsError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("a stored message does not decode: {0}")]
    Decode(#[from] serde_json::Error),
    #[error("the agent is running: abort it or wait for it to finish first")]
    Busy,
    #[error("no session yet: send a prompt first")]
    NoSession,
    #[error("nothing to regenerate: the current branch has no user message")]
    NothingToRegenerate,
    #[error(transparent)]
    Snapshot(crate::snapshots::SnapshotError),
    #[error(
        "node {0} has no recorded files: it was stored before Arbor recorded code state \
         (or with snapshots off), so its files cannot be compared or restored"
    )]
    NoCodeState(String),
    #[error("code state is not recorded for this session (it is not stored)")]
    NoCodeTracking,
    #[error(
        "nothing more of this run is stored after an earlier write failed ({0}): free the \
         disk or fix the data folder, then send the prompt again"
    )]
    StoreFailed(String),
}

/// Where [`SessionRecorder::navigate`] left the session.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Navigation {
    /// The new leaf (`None` = before the first message).
    pub leaf_id: Option<String>,
    /// When the target was a user message: its text, handed back for editing. Sending it (or
    /// an edit) makes a sibling branch.
    pub editor_text: Option<String>,
}

pub(super) struct Inner {
    pub(super) store: Store,
    pub(super) project: Project,
    /// Whether this recorder set the project's `last_opened_at` yet: a project found in the
    /// store is marked by the first node stored, in that node's transaction when it starts a
    /// session (a run that stores nothing writes nothing).
    project_marked: bool,
    /// `None` until the first node of a new session is stored (no empty sessions are left).
    pub(super) session_id: Option<String>,
    /// The node this live session last wrote or moved to (`None`: before the first node). New
    /// nodes go under it, not under the session's stored leaf, which another process writing
    /// the same session may have moved.
    pub(super) leaf: Option<String>,
    /// The stored leaf another writer left that was last reported (reported once each).
    elsewhere_reported: Option<String>,
    /// A store write of this run failed: nothing more is stored (a node would go under the
    /// wrong parent) until the conversation is reloaded from the store.
    pub(super) failed: Option<String>,
    /// The model (`provider/id`) and thinking level the session runs with now.
    model: Option<String>,
    thinking_level: Option<String>,
    sink: Option<EventSink>,
    /// Snapshots the workspace for the nodes' code state (`None`: none recorded).
    pub(super) code: Option<Arc<crate::snapshots::CodeTracker>>,
}

/// Persists an agent's conversation into the store and navigates the session tree. Cheap to
/// clone (shared state); every store write is its own transaction.
#[derive(Clone)]
pub struct SessionRecorder {
    inner: Arc<Mutex<Inner>>,
    /// A user turn's snapshot still being taken beside the request it started (`code.rs`), or
    /// its node still being stored (`user_turn.rs`).
    pub(super) pending_snapshot: super::code::PendingSnapshot,
    /// Closed while a user turn's node is stored beside its request (`user_turn.rs`).
    pub(super) user_turn: super::user_turn::UserTurnGate,
    /// Whether user turns are stored beside their request (`user_turn.rs`).
    pub(super) user_turns_beside: Arc<std::sync::atomic::AtomicBool>,
}

impl std::fmt::Debug for SessionRecorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.lock();
        f.debug_struct("SessionRecorder")
            .field("project", &inner.project.root)
            .field("session_id", &inner.session_id)
            .finish()
    }
}

impl Inner {
    /// The event to send when another process moved `session_id`'s stored leaf away from this
    /// live session's own place since it last wrote there (once per place the other left).
    fn written_elsewhere(
        &mut self,
        session_id: &str,
    ) -> Result<Option<CodingEvent>, SessionsError> {
        let stored = self.store.get_session(session_id)?.leaf_id;
        Ok(self.elsewhere_if_moved(session_id, stored))
    }

    /// [`Inner::written_elsewhere`] for the stored leaf `stored` (read by the caller, e.g. in
    /// the transaction of an append), before this live session's leaf moves on.
    fn elsewhere_if_moved(
        &mut self,
        session_id: &str,
        stored: Option<String>,
    ) -> Option<CodingEvent> {
        if stored == self.leaf || stored == self.elsewhere_reported || self.leaf.is_none() {
            return None;
        }
        self.elsewhere_reported = stored.clone();
        Some(CodingEvent::SessionWrittenElsewhere {
            session_id: session_id.to_owned(),
            other_leaf_id: stored,
        })
    }

    /// Appends `node` under `parent` in `session_id` and makes it this live session's leaf;
    /// with the event to send when another process had moved the stored leaf (seen in the
    /// append's own transaction, so no write of the other can slip in between).
    fn append_seeing(
        &mut self,
        session_id: &str,
        parent: Option<&str>,
        node: NewNode,
    ) -> Result<(Node, Option<CodingEvent>), SessionsError> {
        let (node, stored) = self.store.append_under_seeing(session_id, parent, node)?;
        let elsewhere = self.elsewhere_if_moved(session_id, stored);
        self.leaf = Some(node.id.clone());
        Ok((node, elsewhere))
    }
}

impl SessionRecorder {
    /// A recorder for the project at `cwd` (found, or created and marked opened), with no
    /// session yet: the first stored message creates one (and marks a found project opened).
    pub fn new(store: Store, cwd: &Path) -> Result<Self, SessionsError> {
        let (project, project_marked) = match store.find_project(cwd)? {
            Some(project) => (project, false),
            None => (store.open_project(cwd, None)?, true),
        };
        Ok(Self {
            inner: Arc::new(Mutex::new(Inner {
                store,
                project,
                project_marked,
                session_id: None,
                leaf: None,
                elsewhere_reported: None,
                failed: None,
                model: None,
                thinking_level: None,
                sink: None,
                code: None,
            })),
            pending_snapshot: Default::default(),
            user_turn: Default::default(),
            user_turns_beside: Default::default(),
        })
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, Inner> {
        // A user turn being stored beside its request comes first: what follows goes under it.
        self.user_turn.wait_open();
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs `f` with the store (for listings, search and the like).
    pub fn with_store<R>(&self, f: impl FnOnce(&Store) -> R) -> R {
        f(&self.lock().store)
    }

    pub fn project(&self) -> Project {
        self.lock().project.clone()
    }

    /// The current session's id; `None` before the first message of a new session.
    pub fn session_id(&self) -> Option<String> {
        self.lock().session_id.clone()
    }

    /// The current session, if it exists yet.
    pub fn session(&self) -> Result<Option<Session>, SessionsError> {
        let inner = self.lock();
        match &inner.session_id {
            None => Ok(None),
            Some(id) => Ok(Some(inner.store.get_session(id)?)),
        }
    }

    /// Sets the model and thinking level new sessions record, without adding nodes (use at
    /// start-up; [`SessionRecorder::record_model`] records a change).
    pub fn set_initial_model(&self, model: &str, thinking_level: &str) {
        let mut inner = self.lock();
        inner.model = Some(model.to_owned());
        inner.thinking_level = Some(thinking_level.to_owned());
    }

    /// Subscribes to `agent`: every completed message (`message_end`) is stored as a node and
    /// reported to `sink` as [`CodingEvent::NodeAppended`]; a failed write is reported as
    /// [`CodingEvent::StoreError`]. Subscribe after the front end's own listener so
    /// `node_appended` follows the `message_end` it belongs to.
    pub fn attach(&self, agent: &Agent, sink: EventSink) -> SubscriptionId {
        self.set_sink(Some(sink));
        let recorder = self.clone();
        agent.subscribe(move |event| match event {
            AgentEvent::MessageEnd { message } => {
                recorder.record_reported(message);
            }
            // A run is over only once its user turn's snapshot is stored.
            AgentEvent::AgentEnd { .. } => recorder.wait_for_snapshot(),
            _ => {}
        })
    }

    /// Where [`CodingEvent`]s of this recorder go (`None`: nowhere).
    pub fn set_sink(&self, sink: Option<EventSink>) {
        self.lock().sink = sink;
    }

    /// [`SessionRecorder::record`], reporting the outcome to the sink: `node_appended`, or
    /// `store_error`. A failed write returns `false`: the caller must stop the run (nothing
    /// after it is stored), and the recorder refuses further writes until
    /// [`SessionRecorder::recover`].
    pub fn record_reported(&self, message: &AgentMessage) -> bool {
        match self.record(message) {
            Ok(_) => true,
            Err(SessionsError::StoreFailed(_)) => false,
            Err(error) => {
                self.mark_failed(error.to_string());
                false
            }
        }
    }

    /// Records that the stored conversation no longer follows the one in memory (a write
    /// failed elsewhere, e.g. moving the leaf back before a retry): reports `store_error`, and
    /// the run stops at its next message, as after a failed message write.
    pub fn mark_failed(&self, message: String) {
        self.lock().failed = Some(message.clone());
        self.emit(&CodingEvent::StoreError { message });
    }

    /// Sends `session_written_elsewhere` when another process wrote to the current session
    /// since this live session last wrote or moved in it (front ends check while idle, and
    /// before each run). Returns whether it did.
    pub fn check_written_elsewhere(&self) -> Result<bool, SessionsError> {
        let event = {
            let mut inner = self.lock();
            let Some(session_id) = inner.session_id.clone() else {
                return Ok(false);
            };
            inner.written_elsewhere(&session_id)?
        };
        match event {
            Some(event) => {
                self.emit(&event);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Whether a store write failed since the last [`SessionRecorder::recover`].
    pub fn store_failed(&self) -> Option<String> {
        self.lock().failed.clone()
    }

    /// After a failed write: puts `agent`'s conversation back to what is stored (the unsaved
    /// messages are dropped from memory; the front end still shows them and can send the
    /// prompt again), and allows writes again. Does nothing when no write failed.
    pub fn recover(&self, agent: &Agent) -> Result<(), SessionsError> {
        if self.lock().failed.is_none() {
            return Ok(());
        }
        self.load_into(agent)?;
        Ok(())
    }

    /// The node this live session last wrote or moved to.
    pub fn leaf(&self) -> Option<String> {
        self.lock().leaf.clone()
    }

    /// Undoes [`SessionRecorder::attach`]: unsubscribes and drops the sink.
    pub fn detach(&self, agent: &Agent, subscription: SubscriptionId) {
        agent.unsubscribe(subscription);
        self.lock().sink = None;
    }

    pub(super) fn emit(&self, event: &CodingEvent) {
        let sink = self.lock().sink.clone();
        if let Some(sink) = sink {
            sink(event);
        }
    }

    pub(super) fn emit_appended(&self, node: &Node) {
        self.emit(&CodingEvent::NodeAppended {
            node_id: node.id.clone(),
            parent_id: node.parent_id.clone(),
            session_id: node.session_id.clone(),
            // The session API fills these in for its front ends.
            sibling_ids: None,
            node: None,
        });
    }

    /// Stores one completed message under the current leaf (creating the session on the first
    /// one); custom messages are not stored (`Ok(None)`), nor, here, a user message stored
    /// beside its request ([`SessionRecorder::store_user_turns_beside`]).
    pub fn record(&self, message: &AgentMessage) -> Result<Option<Node>, SessionsError> {
        let Some(mut new) = message_to_node(message)? else {
            return Ok(None);
        };
        if matches!(message, AgentMessage::User(_)) && self.store_user_turn_beside(&new) {
            // Stored, reported and snapshotted on a thread of its own (`user_turn.rs`).
            return Ok(None);
        }
        // A user turn is stored at once and snapshotted beside the request it starts; any
        // other node waits for its snapshot (taken before the store's lock: it reads the
        // workspace).
        let beside = self.snapshots_beside(message);
        if beside.is_none() {
            if let Some(code) = self.code_for(message) {
                new = new.with_code(code);
            }
        }
        let node = self.append(new)?;
        if let Some(previous) = beside {
            self.snapshot_beside(&node.id, previous);
        }
        self.emit_appended(&node);
        Ok(Some(node))
    }

    pub(super) fn append(&self, node: NewNode) -> Result<Node, SessionsError> {
        let (node, elsewhere) = {
            let mut inner = self.lock();
            if let Some(reason) = &inner.failed {
                return Err(SessionsError::StoreFailed(reason.clone()));
            }
            let parent = node.parent_id.clone().or_else(|| inner.leaf.clone());
            let session_id = match &inner.session_id {
                Some(id) => id.clone(),
                // A new conversation's first message: the session and its first node in one
                // transaction (nobody else can have written to a session made just now).
                None if parent.is_none() => {
                    let (session, node) = inner.store.create_session_with_node(
                        &inner.project.id,
                        inner.model.as_deref(),
                        inner.thinking_level.as_deref(),
                        node,
                        !inner.project_marked,
                    )?;
                    inner.project_marked = true;
                    inner.session_id = Some(session.id);
                    inner.leaf = Some(node.id.clone());
                    return Ok(node);
                }
                None => {
                    let session = inner.store.create_session(
                        &inner.project.id,
                        inner.model.as_deref(),
                        inner.thinking_level.as_deref(),
                    )?;
                    inner.session_id = Some(session.id.clone());
                    session.id
                }
            };
            if !inner.project_marked {
                let root = std::path::PathBuf::from(&inner.project.root);
                inner.store.open_project(&root, None)?;
                inner.project_marked = true;
            }
            inner.append_seeing(&session_id, parent.as_deref(), node)?
        };
        if let Some(event) = elsewhere {
            self.emit(&event);
        }
        Ok(node)
    }

    /// Records a model change (`provider/id`): a `model_change` node when a session exists and
    /// the model differs from the one it has.
    pub fn record_model(&self, model: &str) -> Result<Option<Node>, SessionsError> {
        self.record_setting(NodeKind::ModelChange, model)
    }

    /// Records a thinking-level change (a `thinking_level_change` node, as for the model).
    pub fn record_thinking_level(&self, level: &str) -> Result<Option<Node>, SessionsError> {
        self.record_setting(NodeKind::ThinkingLevelChange, level)
    }

    fn record_setting(&self, kind: NodeKind, value: &str) -> Result<Option<Node>, SessionsError> {
        let (node, elsewhere) = {
            let mut inner = self.lock();
            if let Some(reason) = &inner.failed {
                return Err(SessionsError::StoreFailed(reason.clone()));
            }
            let (model, thinking) = match kind {
                NodeKind::ModelChange => (Some(value.to_owned()), inner.thinking_level.clone()),
                _ => (inner.model.clone(), Some(value.to_owned())),
            };
            inner.model = model.clone();
            inner.thinking_level = thinking.clone();
            let Some(session_id) = inner.session_id.clone() else {
                return Ok(None);
            };
            let session = inner.store.get_session(&session_id)?;
            let current = match kind {
                NodeKind::ModelChange => session.model.as_deref(),
                _ => session.thinking_level.as_deref(),
            };
            if current == Some(value) {
                return Ok(None);
            }
            inner
                .store
                .set_session_model(&session_id, model.as_deref(), thinking.as_deref())?;
            let content = match kind {
                NodeKind::ModelChange => json!({ "model": value }),
                _ => json!({ "thinking_level": value }),
            };
            let leaf = inner.leaf.clone();
            inner.append_seeing(
                &session_id,
                leaf.as_deref(),
                NewNode::new(kind, content, value),
            )?
        };
        if let Some(event) = elsewhere {
            self.emit(&event);
        }
        self.emit_appended(&node);
        Ok(Some(node))
    }

    /// Starts a new session: the agent's conversation is cleared and the next message creates
    /// the session.
    pub fn new_session(&self, agent: &Agent) -> Result<(), SessionsError> {
        agent.clear_messages().map_err(|_| SessionsError::Busy)?;
        let mut inner = self.lock();
        inner.session_id = None;
        inner.leaf = None;
        inner.elsewhere_reported = None;
        inner.failed = None;
        Ok(())
    }

    /// Makes `id_or_prefix` the current session and loads its context into `agent`.
    pub fn switch_session(
        &self,
        agent: &Agent,
        id_or_prefix: &str,
    ) -> Result<Session, SessionsError> {
        if agent.is_streaming() {
            return Err(SessionsError::Busy);
        }
        let session = self.lock().store.get_session(id_or_prefix)?;
        self.set_position(&session.id, session.leaf_id.clone());
        self.load_into(agent)?;
        Ok(session)
    }

    /// The most recently updated session of this project, made current and loaded into
    /// `agent`; `None` (and a new session) when the project has none.
    pub fn continue_latest(&self, agent: &Agent) -> Result<Option<Session>, SessionsError> {
        let latest = {
            let inner = self.lock();
            inner.store.latest_session(&inner.project.id)?
        };
        match latest {
            None => Ok(None),
            Some(session) => self.switch_session(agent, &session.id).map(Some),
        }
    }

    /// The current session's context as agent messages (empty before the first message).
    pub fn context(&self) -> Result<Vec<AgentMessage>, SessionsError> {
        let inner = self.lock();
        let Some(id) = &inner.session_id else {
            return Ok(Vec::new());
        };
        let nodes = inner.store.context_json_at(id, inner.leaf.as_deref())?;
        Ok(context_json_messages(&nodes)?)
    }

    /// Replaces the agent's conversation with the current session's context.
    pub fn load_into(&self, agent: &Agent) -> Result<usize, SessionsError> {
        let messages = self.context()?;
        let count = messages.len();
        agent
            .replace_messages(messages)
            .map_err(|_| SessionsError::Busy)?;
        // Memory equals the store again: writing may go on.
        self.lock().failed = None;
        Ok(count)
    }

    /// Makes `session_id` current with this live session at `leaf`.
    pub(super) fn set_position(&self, session_id: &str, leaf: Option<String>) {
        let mut inner = self.lock();
        inner.session_id = Some(session_id.to_owned());
        inner.leaf = leaf;
        inner.elsewhere_reported = None;
    }

    pub(super) fn current_session_id(&self) -> Result<String, SessionsError> {
        self.session_id().ok_or(SessionsError::NoSession)
    }

    /// Goes to `node` (id or unique prefix in the current session). A user message puts the
    /// leaf at its parent and hands its text back for editing (sending it makes a sibling
    /// branch); any other node becomes the leaf, to continue from. The agent's conversation
    /// follows.
    pub fn navigate(&self, agent: &Agent, node: &str) -> Result<Navigation, SessionsError> {
        if agent.is_streaming() {
            return Err(SessionsError::Busy);
        }
        let session_id = self.current_session_id()?;
        let navigation = {
            let mut inner = self.lock();
            let id = inner.store.resolve_node_id(&session_id, node)?;
            let node = inner.store.get_node(&id)?;
            if node.kind == NodeKind::User {
                inner
                    .store
                    .set_leaf(&session_id, node.parent_id.as_deref())?;
                inner.leaf = node.parent_id.clone();
                Navigation {
                    leaf_id: node.parent_id.clone(),
                    editor_text: Some(node.text.clone()),
                }
            } else {
                inner.store.set_leaf(&session_id, Some(&node.id))?;
                inner.leaf = Some(node.id.clone());
                Navigation {
                    leaf_id: Some(node.id),
                    editor_text: None,
                }
            }
        };
        self.load_into(agent)?;
        Ok(navigation)
    }

    /// Prepares a regeneration: moves the leaf to the last user message on the current
    /// branch and loads that context; the caller then asks the model again with
    /// [`Agent::continue_run`], so the new answer becomes a sibling of the old one under the
    /// same user message. Returns that user message's node id.
    pub fn regenerate(&self, agent: &Agent) -> Result<String, SessionsError> {
        if agent.is_streaming() {
            return Err(SessionsError::Busy);
        }
        let session_id = self.current_session_id()?;
        let user_id = {
            let mut inner = self.lock();
            let path = match inner.leaf.clone() {
                Some(leaf) => inner.store.context_at(&session_id, &leaf)?,
                None => Vec::new(),
            };
            let last_user = path
                .iter()
                .rev()
                .find(|n| n.kind == NodeKind::User)
                .ok_or(SessionsError::NothingToRegenerate)?;
            inner.store.set_leaf(&session_id, Some(&last_user.id))?;
            let id = last_user.id.clone();
            inner.leaf = Some(id.clone());
            id
        };
        self.load_into(agent)?;
        Ok(user_id)
    }

    /// Copies the path to `node` (default: the current leaf) into a new session, makes it
    /// current and loads it into the agent.
    pub fn fork(&self, agent: &Agent, node: Option<&str>) -> Result<Session, SessionsError> {
        if agent.is_streaming() {
            return Err(SessionsError::Busy);
        }
        let session_id = self.current_session_id()?;
        let own_leaf = self.leaf();
        let from = node.or(own_leaf.as_deref());
        let session = self.lock().store.fork_session(&session_id, from)?;
        self.set_position(&session.id, session.leaf_id.clone());
        self.load_into(agent)?;
        Ok(session)
    }

    /// Sessions of this project (or of all projects with `all`), most recent first.
    pub fn list_sessions(&self, all: bool) -> Result<Vec<SessionSummary>, SessionsError> {
        let inner = self.lock();
        let project = (!all).then_some(inner.project.id.as_str());
        Ok(inner.store.list_sessions(project, None)?)
    }

    /// Renames the current session.
    pub fn rename(&self, title: &str) -> Result<Session, SessionsError> {
        let session_id = self.current_session_id()?;
        Ok(self.lock().store.rename_session(&session_id, title)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbor_agent::AgentOptions;
    use arbor_llm::{Api, AssistantContent, AssistantMessage, TextContent, UserMessage};

    fn agent() -> Agent {
        let catalog = arbor_llm::catalog::Catalog::builtin().unwrap();
        let (model, _) = catalog.resolve(Some("anthropic"), None).unwrap();
        Agent::new(
            arbor_llm::LlmClient::new().unwrap(),
            AgentOptions::new(model),
        )
    }

    fn user(text: &str) -> AgentMessage {
        AgentMessage::User(UserMessage::text(text))
    }

    fn answer(text: &str) -> AgentMessage {
        let mut message = AssistantMessage::empty(Api::AnthropicMessages, "mock", "m");
        message.content = vec![AssistantContent::Text(TextContent::new(text))];
        AgentMessage::Assistant(message)
    }

    fn texts(agent: &Agent) -> Vec<String> {
        agent
            .messages()
            .iter()
            .map(super::super::message_text)
            .collect()
    }

    fn recorder(dir: &tempfile::TempDir) -> (SessionRecorder, Arc<Mutex<Vec<CodingEvent>>>) {
        let store = Store::open(&dir.path().join("data")).unwrap();
        let recorder = SessionRecorder::new(store, dir.path()).unwrap();
        recorder.set_initial_model("anthropic/claude", "off");
        let events = Arc::new(Mutex::new(Vec::new()));
        let sink = events.clone();
        recorder.lock().sink = Some(Arc::new(move |e: &CodingEvent| {
            sink.lock().unwrap().push(e.clone());
        }));
        (recorder, events)
    }

    #[test]
    fn a_found_project_is_marked_opened_by_the_first_node_not_before() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let store = Store::open(&data).unwrap();
        let opened_before = store.open_project(dir.path(), None).unwrap().last_opened_at;
        std::thread::sleep(std::time::Duration::from_millis(5));
        let recorder = SessionRecorder::new(store, dir.path()).unwrap();
        let other = Store::open(&data).unwrap();
        let opened = |store: &Store| {
            store
                .find_project(dir.path())
                .unwrap()
                .unwrap()
                .last_opened_at
        };
        // Nothing is written until something is stored.
        assert_eq!(opened(&other), opened_before);
        let node = recorder.record(&user("hi")).unwrap().unwrap();
        assert!(opened(&other) > opened_before);
        let session = other.get_session(&recorder.session_id().unwrap()).unwrap();
        assert_eq!(session.leaf_id, Some(node.id));
    }

    #[test]
    fn records_lazily_and_reports_each_node() {
        let dir = tempfile::tempdir().unwrap();
        let (recorder, events) = recorder(&dir);
        assert_eq!(recorder.session_id(), None);
        let first = recorder.record(&user("hello\nthere")).unwrap().unwrap();
        let second = recorder.record(&answer("hi")).unwrap().unwrap();
        let session = recorder.session().unwrap().unwrap();
        assert_eq!(session.title, "hello");
        assert_eq!(session.model.as_deref(), Some("anthropic/claude"));
        assert_eq!(second.parent_id.as_deref(), Some(first.id.as_str()));
        let events = events.lock().unwrap().clone();
        assert_eq!(
            events,
            vec![
                CodingEvent::NodeAppended {
                    node_id: first.id.clone(),
                    parent_id: None,
                    session_id: session.id.clone(),
                    sibling_ids: None,
                    node: None,
                },
                CodingEvent::NodeAppended {
                    node_id: second.id.clone(),
                    parent_id: Some(first.id.clone()),
                    session_id: session.id.clone(),
                    sibling_ids: None,
                    node: None,
                },
            ]
        );
        // A model change is a node, not part of the model's context; the same model is not.
        assert!(recorder.record_model("anthropic/claude").unwrap().is_none());
        let change = recorder.record_model("openai/gpt").unwrap().unwrap();
        assert_eq!(change.kind, NodeKind::ModelChange);
        assert!(recorder.record_thinking_level("high").unwrap().is_some());
        let agent = agent();
        assert_eq!(recorder.load_into(&agent).unwrap(), 2);
        let session = recorder.session().unwrap().unwrap();
        assert_eq!(session.model.as_deref(), Some("openai/gpt"));
        assert_eq!(session.thinking_level.as_deref(), Some("high"));
    }

    #[test]
    fn navigating_regenerating_and_forking() {
        let dir = tempfile::tempdir().unwrap();
        let (recorder, _) = recorder(&dir);
        let agent = agent();
        let q1 = recorder.record(&user("q1")).unwrap().unwrap();
        let a1 = recorder.record(&answer("a1")).unwrap().unwrap();
        let q2 = recorder.record(&user("q2")).unwrap().unwrap();
        recorder.record(&answer("a2")).unwrap();

        // To a user message: leaf at its parent, text handed back.
        let nav = recorder.navigate(&agent, &q2.id).unwrap();
        assert_eq!(nav.leaf_id.as_deref(), Some(a1.id.as_str()));
        assert_eq!(nav.editor_text.as_deref(), Some("q2"));
        assert_eq!(texts(&agent), ["q1", "a1"]);
        // Resubmitting makes a sibling branch.
        let q2b = recorder.record(&user("q2 edited")).unwrap().unwrap();
        assert_eq!(q2b.parent_id.as_deref(), Some(a1.id.as_str()));
        recorder.record(&answer("a2b")).unwrap();

        // To the first message: above the root; the next prompt is a new root.
        let nav = recorder.navigate(&agent, &q1.id).unwrap();
        assert_eq!(nav.leaf_id, None);
        assert!(agent.messages().is_empty());

        // To any other node: continue from it.
        let nav = recorder
            .navigate(&agent, &a1.id[..a1.id.len() - 1])
            .unwrap();
        assert_eq!(nav.leaf_id.as_deref(), Some(a1.id.as_str()));
        assert_eq!(nav.editor_text, None);
        assert_eq!(texts(&agent), ["q1", "a1"]);

        // Regenerate: leaf at the last user message of the branch.
        recorder.navigate(&agent, &q2b.id).unwrap();
        recorder.record(&user("q2 again")).unwrap();
        recorder.record(&answer("a2c")).unwrap();
        let user_id = recorder.regenerate(&agent).unwrap();
        assert_eq!(texts(&agent), ["q1", "a1", "q2 again"]);
        let id = recorder.session_id().unwrap();
        let tree = recorder
            .with_store(|store| store.session_tree(&id))
            .unwrap();
        assert!(tree.nodes.iter().any(|n| n.id == user_id && n.is_leaf));

        // Fork: a new session with the path to the node.
        let original = recorder.session_id().unwrap();
        let forked = recorder.fork(&agent, Some(&a1.id)).unwrap();
        assert_ne!(forked.id, original);
        assert_eq!(recorder.session_id().as_deref(), Some(forked.id.as_str()));
        assert_eq!(texts(&agent), ["q1", "a1"]);
        assert_eq!(recorder.list_sessions(false).unwrap().len(), 2);

        // Switching back restores that session's leaf; unknown ids are errors.
        recorder.switch_session(&agent, &original).unwrap();
        assert_eq!(texts(&agent), ["q1", "a1", "q2 again"]);
        assert!(matches!(
            recorder.switch_session(&agent, "ffff0000"),
            Err(SessionsError::Store(StoreError::NotFound { .. }))
        ));
        assert!(recorder.navigate(&agent, "ffff0000").is_err());

        // A new session starts empty and lazily.
        recorder.new_session(&agent).unwrap();
        assert_eq!(recorder.session_id(), None);
        assert!(matches!(
            recorder.regenerate(&agent),
            Err(SessionsError::NoSession)
        ));
        assert!(recorder.session().unwrap().is_none());
    }

    #[test]
    fn continue_latest_picks_the_most_recent_session_of_the_project() {
        let dir = tempfile::tempdir().unwrap();
        let (recorder, _) = recorder(&dir);
        let agent = agent();
        assert!(recorder.continue_latest(&agent).unwrap().is_none());
        recorder.record(&user("old")).unwrap();
        recorder.new_session(&agent).unwrap();
        recorder.record(&user("new")).unwrap();
        let latest = recorder.session_id();
        let (other, _) = self::recorder(&dir);
        let session = other.continue_latest(&agent).unwrap().unwrap();
        assert_eq!(Some(session.id), latest);
        assert_eq!(texts(&agent), ["new"]);
    }
}
