//! [`LiveSession`]: one running conversation — the agent with its tools, the recorder that
//! stores it, the compactor and request hook — and the **one** event stream a front end reads.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use arbor_agent::{Agent, AgentOptions, SubscriptionId};
use arbor_llm::client::LlmClient;
use arbor_llm::{RequestOptions, ThinkingLevel};
use arbor_protocol::{AgentEvent, CodingEvent, SessionEvent};
use arbor_store::Store;

use crate::selection::Selection;
use crate::tree_view::with_node_views;
use crate::AppError;
use arbor_coding::secrets::{Redactor, ToolEnvironment};
use arbor_coding::{
    build_system_prompt, builtin_tools, load_context_files, today_utc, BuiltinToolOptions,
    CompactionSettings, Compactor, EventSink, SessionRecorder, SessionRequestHook,
    SystemPromptOptions, Workspace,
};

/// Stops a session's run from elsewhere (see [`LiveSession::interrupter`]); nothing more.
#[derive(Clone)]
pub struct Interrupter(Agent);

impl Interrupter {
    /// Cancels the running run; queued steering and follow-ups are dropped.
    pub fn abort(&self) {
        self.0.abort();
    }
}

/// How a session is set up.
#[derive(Debug, Clone)]
pub struct SessionConfig {
    /// The project folder the tools work in.
    pub cwd: PathBuf,
    pub selection: Selection,
    pub thinking: ThinkingLevel,
    /// Built-in tools by name (see [`arbor_coding::DEFAULT_TOOLS`]); empty for none.
    pub tools: Vec<String>,
    /// Replaces the built-in system prompt.
    pub system_prompt: Option<String>,
    /// Added after the system prompt.
    pub append_system_prompt: Option<String>,
    /// What tool processes must not inherit (see [`super::tool_environment`]); the session adds
    /// its own key, and cleans tool output of every key listed here.
    pub tool_environment: ToolEnvironment,
    /// How long the provider's stream may stay silent before the request fails as a
    /// retryable network error (the settings' `streamIdleTimeoutSecs`).
    pub stream_idle_timeout: std::time::Duration,
    /// The project's permissions ([`crate::permissions::load_setup`]); `None`: the default
    /// (`workspace` mode, no rules, the default secret paths).
    pub permissions: Option<crate::permissions::PermissionSetup>,
}

/// Which stored session a live session starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionStart {
    /// A new session, created by the first message.
    New,
    /// The project's most recently updated session (a new one when it has none).
    Latest,
    /// A given session (id or unique prefix).
    Resume(String),
}

/// Where the stream goes; shared with the client's retry callback.
type Sink = Arc<dyn Fn(&SessionEvent) + Send + Sync>;
type SinkSlot = Arc<Mutex<Option<Sink>>>;

/// A live conversation: the **one door** every front end goes through. Front ends call its
/// commands (runs start with [`LiveSession::start_prompt`] and its kin, which hand back an
/// awaitable handle), read its events through [`LiveSession::attach`], and end it with
/// [`LiveSession::close`]. Its parts are private, so nothing a run must do — offering the
/// current tools, going back to what is stored after a failed write, recording — can be
/// skipped by a front end.
pub struct LiveSession {
    pub(crate) agent: Agent,
    pub(crate) selection: Selection,
    pub(crate) tool_names: Vec<String>,
    pub(crate) cwd: PathBuf,
    pub(crate) thinking: ThinkingLevel,
    /// Persists the conversation; `None` when nothing is stored (the CLI's `--no-session`).
    pub(crate) recorder: Option<SessionRecorder>,
    /// Compacts the conversation (also the agent's request hook); set by [`LiveSession::attach`].
    pub(crate) compactor: Option<Arc<Compactor>>,
    workspace: Workspace,
    tool_environment: ToolEnvironment,
    pub(crate) redactor: Redactor,
    client: LlmClient,
    sink: SinkSlot,
    subscription: Option<SubscriptionId>,
    /// The tools offered: built-ins, `create_tool`, the model's approved tools.
    pub(crate) tools: crate::model_tools::SessionTools,
    /// The project's permissions: the guard the tools obey and the gate that asks.
    pub(crate) permissions: crate::live_permissions::SessionPermissions,
    /// Questions MCP servers ask in the middle of this session's calls.
    pub(crate) elicitation: Arc<crate::live_elicitation::ElicitationGate>,
    /// The project's files for the `@` finder, walked on first use (`project_files.rs`).
    pub(crate) file_index: std::sync::OnceLock<Arc<arbor_files::FileIndex>>,
    /// When to compact (the settings' "compact at", set by [`crate::ArborApp::start_session`]).
    pub(crate) compaction: CompactionSettings,
    /// Plan mode's saved mode and prompt (`plan_mode.rs`).
    pub(crate) plan: crate::plan_mode::PlanMode,
    /// The MCP servers whose approved tools this session offers once stored
    /// ([`LiveSession::set_mcp_hub`]).
    mcp_hub: Option<Arc<arbor_mcp::McpHub>>,
}

impl std::fmt::Debug for LiveSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveSession")
            .field("cwd", &self.cwd)
            .field("model", &self.selection.model_name())
            .field("recorder", &self.recorder)
            .finish_non_exhaustive()
    }
}

/// The agent's tools, hooks and subscriptions hold parts of the session that hold the agent (the
/// recording subscription aborts it; the toolbox and the MCP tools re-offer tools to it):
/// unhooked here, so a session dropped without [`LiveSession::close`] frees its store
/// connections. A session dropped in the middle of a run is left hooked: its run still stores
/// what it produces.
impl Drop for LiveSession {
    fn drop(&mut self) {
        if self.agent.is_streaming() {
            return;
        }
        self.detach();
        if let Some(toolbox) = self.tools.toolbox() {
            toolbox.set_on_change(None);
        }
        self.agent.set_tools(Vec::new());
    }
}

impl LiveSession {
    /// Builds the agent for `config`: the model and key, the tools over the folder, the system
    /// prompt with the project's context files. Nothing is stored until
    /// [`LiveSession::connect_store`].
    pub fn start(config: SessionConfig) -> Result<Self, AppError> {
        let SessionConfig {
            cwd,
            selection,
            thinking,
            tools: names,
            system_prompt,
            append_system_prompt,
            mut tool_environment,
            stream_idle_timeout,
            permissions,
        } = config;
        let permissions = crate::live_permissions::SessionPermissions::new(&cwd, permissions);
        let workspace = Workspace::with_guard(&cwd, permissions.guard().clone());
        let redactor = Redactor::new();
        for secret in tool_environment.secrets() {
            redactor.add(secret);
        }
        if let Some(key) = &selection.api_key {
            tool_environment.add_secret(key);
            redactor.add(key);
        }
        let tools = builtin_tools(
            &workspace,
            &BuiltinToolOptions {
                names: names.clone(),
                accepts_images: selection.model.images,
                environment: tool_environment.clone(),
                redactor: redactor.clone(),
            },
        )?;
        let system_prompt = build_system_prompt(&SystemPromptOptions {
            tools: names.clone(),
            custom_prompt: system_prompt,
            append: append_system_prompt,
            context_files: load_context_files(&cwd),
            date: today_utc(),
            cwd: cwd.clone(),
        });
        let sink: SinkSlot = Default::default();
        let retry_sink = sink.clone();
        let notice_sink = sink.clone();
        let client = LlmClient::new()?
            .stream_idle_timeout(stream_idle_timeout)
            .on_retry(move |notice| {
                emit_to(
                    &retry_sink,
                    CodingEvent::RetryScheduled {
                        attempt: notice.attempt,
                        delay_ms: u64::try_from(notice.delay.as_millis()).unwrap_or(u64::MAX),
                        error: notice.error.clone(),
                    },
                );
            })
            .on_stream_notice(move |notice| {
                emit_to(
                    &notice_sink,
                    CodingEvent::StreamNotice {
                        message: notice.message.clone(),
                        skipped: notice.skipped,
                    },
                );
            });
        let options = AgentOptions::new(selection.model.clone())
            .system_prompt(system_prompt)
            .thinking_level(thinking)
            .tools(tools.clone())
            .request_options(request_options(&selection));
        let agent = Agent::new(client.clone(), options);
        agent.add_tool_hook(permissions.gate().clone());
        let session = Self {
            agent,
            permissions,
            selection,
            tool_names: names,
            cwd,
            thinking,
            recorder: None,
            compactor: None,
            workspace,
            tool_environment,
            redactor,
            client,
            sink,
            subscription: None,
            tools: crate::model_tools::SessionTools::default(),
            file_index: std::sync::OnceLock::new(),
            plan: crate::plan_mode::PlanMode::default(),
            elicitation: Arc::default(),
            mcp_hub: None,
            compaction: CompactionSettings::default(),
        };
        session.tools.set_builtins(&session.agent, tools);
        Ok(session)
    }

    /// [`LiveSession::connect_store`] over a data folder's [`crate::StoredSessions`] (the CLI).
    pub fn connect_stored(
        &mut self,
        stored: crate::StoredSessions,
        start: SessionStart,
    ) -> Result<(), AppError> {
        self.connect_store(stored.into_store(), start)
    }

    /// Stores the conversation in `store`, in the project of the session's folder, starting on
    /// `start`'s session (its context loaded into the agent). Call before [`LiveSession::attach`].
    pub fn connect_store(&mut self, store: Store, start: SessionStart) -> Result<(), AppError> {
        let recorder = SessionRecorder::new(store, &self.cwd)?;
        recorder.set_initial_model(&self.selection.model_name(), self.thinking.as_str());
        match &start {
            SessionStart::New => {}
            SessionStart::Latest => {
                recorder.continue_latest(&self.agent)?;
            }
            SessionStart::Resume(id) => {
                recorder.switch_session(&self.agent, id)?;
            }
        }
        if recorder.session_id().is_some() {
            // A different model or thinking level than the session last used is a change.
            recorder.record_model(&self.selection.model_name())?;
            recorder.record_thinking_level(self.thinking.as_str())?;
        }
        // The project's snapshots live beside the database, in the same data folder.
        if let Some(data_dir) =
            recorder.with_store(|store| store.path().parent().map(Path::to_owned))
        {
            // No tool writes into Arbor's own data, even when it lies inside the project.
            for owned in crate::data_dir::owned_data_paths(&data_dir) {
                arbor_coding::workspace::protect_arbor_path(&owned);
            }
            let tracker = super::code_tracker(&data_dir, &recorder.project());
            recorder.set_code_tracker(Some(tracker));
            // A user turn's snapshot is taken beside its request: no tool that may change
            // files runs before it is recorded.
            self.agent
                .add_tool_hook(Arc::new(arbor_coding::sessions::SnapshotGate(
                    recorder.clone(),
                )));
        }
        if let Some(toolbox) = crate::model_tools::toolbox_for(&recorder, &self.cwd) {
            let wants_create_tool = self.tool_names.iter().any(|n| n == "create_tool");
            self.tools.connect(
                &self.agent,
                toolbox,
                &recorder,
                wants_create_tool,
                &self.redactor,
            );
        }
        self.permissions.save_rules_in(&recorder);
        if let Some(hub) = &self.mcp_hub {
            if let Some(source) = crate::mcp_session::McpSource::for_recorder(
                hub.clone(),
                &recorder,
                &self.cwd,
                self.elicitation.clone(),
            ) {
                self.tools.set_mcp(&self.agent, source);
            }
        }
        self.recorder = Some(recorder);
        Ok(())
    }

    /// Offers the approved tools of the project's MCP servers (run by `hub`) once the session
    /// is stored: call before [`LiveSession::connect_store`]. A session that is not stored
    /// offers none (nowhere to keep what was approved).
    pub fn set_mcp_hub(&mut self, hub: Arc<arbor_mcp::McpHub>) {
        self.mcp_hub = Some(hub);
    }

    /// Sends every event of this session to `sink`, as one stream: the agent's events, and the
    /// coding events (stored nodes, storage errors, retries, compactions). Storing a message
    /// happens in the same listener, right after its `message_end` is sent, so its
    /// `node_appended` follows it by construction. Also installs the compactor and the request
    /// hook. A second call replaces the first sink.
    pub fn attach(&mut self, sink: impl Fn(&SessionEvent) + Send + Sync + 'static) {
        self.attach_with(sink, NodeViews::Filled);
    }

    /// [`LiveSession::attach`] for a front end that shows no tree (`arbor -p`, the terminal
    /// chat): `node_appended` comes without its siblings and tree view, so storing a node is
    /// not followed by reading it back; and a user message is stored on a thread beside the
    /// request it starts, so its `node_appended` may come after the answer has begun (still
    /// after its own `message_end`, and before `agent_end`).
    pub fn attach_without_node_views(
        &mut self,
        sink: impl Fn(&SessionEvent) + Send + Sync + 'static,
    ) {
        self.attach_with(sink, NodeViews::Omitted);
    }

    fn attach_with(
        &mut self,
        sink: impl Fn(&SessionEvent) + Send + Sync + 'static,
        views: NodeViews,
    ) {
        self.detach();
        let sink: Sink = Arc::new(sink);
        if let Ok(mut slot) = self.sink.lock() {
            *slot = Some(sink.clone());
        }
        let coding = sink.clone();
        // A stored node's event carries its siblings and tree view, so front ends do not read
        // the session again after a run. (The recorder holds this sink and the sink a handle on
        // the recorder: `detach` drops the sink, which ends the cycle.)
        let views_from = self.recorder.clone().filter(|_| views == NodeViews::Filled);
        let coding_sink: EventSink = Arc::new(move |event: &CodingEvent| {
            let event = match (event, &views_from) {
                (CodingEvent::NodeAppended { .. }, Some(recorder)) => {
                    recorder.with_store(|store| with_node_views(store, event))
                }
                _ => event.clone(),
            };
            coding(&SessionEvent::Coding(event))
        });
        if let Some(recorder) = &self.recorder {
            recorder.set_sink(Some(coding_sink.clone()));
            // A front end that shows no tree needs no user node before the request goes out.
            recorder.store_user_turns_beside(views == NodeViews::Omitted);
        }
        let recorder = self.recorder.clone();
        let stream = sink.clone();
        let agent = self.agent.clone();
        self.subscription = Some(self.agent.subscribe(move |event| {
            if let (AgentEvent::AgentEnd { .. }, Some(recorder)) = (event, &recorder) {
                // The run's user-turn snapshot, taken beside its request, is stored before the
                // front end hears the run is over (and before `arbor -p` exits).
                recorder.wait_for_snapshot();
            }
            stream(&SessionEvent::Agent(event.clone()));
            if let (AgentEvent::MessageEnd { message }, Some(recorder)) = (event, &recorder) {
                // A conversation that cannot be stored must not go on as if it were: the run
                // stops here (a tool must not change files for a call that is not recorded).
                if !recorder.record_reported(message) {
                    agent.abort();
                }
            }
        }));
        let compactor = Arc::new(Compactor::new(
            self.client.clone(),
            self.compaction.clone(),
            self.recorder.clone(),
        ));
        if let Some(toolbox) = self.tools.toolbox() {
            toolbox.set_sink(Some(coding_sink.clone()));
        }
        self.permissions.set_sink(Some(coding_sink.clone()));
        self.elicitation.set_sink(Some(coding_sink.clone()));
        compactor.set_sink(Some(coding_sink));
        let hook = SessionRequestHook::new(compactor.clone(), self.client.retry_policy().clone());
        self.agent.set_request_hook(Some(Arc::new(hook)));
        self.compactor = Some(compactor);
    }

    /// Stops the stream and storing (so a writer the sink holds can finish).
    pub fn detach(&mut self) {
        if let Ok(mut slot) = self.sink.lock() {
            *slot = None;
        }
        self.agent.set_request_hook(None);
        if let Some(compactor) = self.compactor.take() {
            compactor.set_sink(None);
        }
        if let Some(id) = self.subscription.take() {
            self.agent.unsubscribe(id);
        }
        if let Some(recorder) = &self.recorder {
            recorder.set_sink(None);
        }
        if let Some(toolbox) = self.tools.toolbox() {
            toolbox.set_sink(None);
        }
        self.permissions.set_sink(None);
        self.elicitation.set_sink(None);
    }

    /// `provider/id` of the current model, as sessions record it.
    pub fn model_name(&self) -> String {
        self.selection.model_name()
    }

    /// Switches to `selection` for the next request: the model, its key, and the tools rebuilt
    /// for it (an image-capable model gets a `read` that returns images; the new key is withheld
    /// and redacted too); recorded in the session.
    pub fn set_model(&mut self, selection: Selection) -> Result<(), AppError> {
        // The earlier key stays hidden too: it may still be in the conversation's tools.
        if let Some(key) = &selection.api_key {
            self.tool_environment.add_secret(key);
            self.redactor.add(key);
        }
        let tools = builtin_tools(
            &self.workspace,
            &BuiltinToolOptions {
                names: self.tool_names.clone(),
                accepts_images: selection.model.images,
                environment: self.tool_environment.clone(),
                redactor: self.redactor.clone(),
            },
        )?;
        self.tools.set_builtins(&self.agent, tools);
        self.agent.set_model(selection.model.clone());
        self.agent.set_request_options(request_options(&selection));
        self.selection = selection;
        if let Some(recorder) = &self.recorder {
            recorder.record_model(&self.selection.model_name())?;
        }
        Ok(())
    }

    /// Reads the current model's key again from `keys` (after the user set or removed one in
    /// settings), unless the front end gave the key itself. Not a model change: nothing is
    /// recorded.
    pub fn refresh_key(&mut self, keys: &super::ProviderKeys) -> Result<(), AppError> {
        if self.selection.key_source == super::KeySource::Given {
            return Ok(());
        }
        let provider = self.selection.model.provider.clone();
        let found = keys.lookup(&provider, self.selection.api_key_env.as_deref());
        let (key, source) = match found {
            Some((key, source)) => (Some(key), source),
            None if self.selection.api_key_env.is_some() => (
                None,
                super::KeySource::Missing {
                    variable: self.selection.api_key_env.clone(),
                },
            ),
            None => (None, super::KeySource::NotNeeded),
        };
        if let Some(key) = &key {
            self.tool_environment.add_secret(key);
            self.redactor.add(key);
            let tools = builtin_tools(
                &self.workspace,
                &BuiltinToolOptions {
                    names: self.tool_names.clone(),
                    accepts_images: self.selection.model.images,
                    environment: self.tool_environment.clone(),
                    redactor: self.redactor.clone(),
                },
            )?;
            self.tools.set_builtins(&self.agent, tools);
        }
        self.selection.api_key = key;
        self.selection.key_source = source;
        self.agent
            .set_request_options(request_options(&self.selection));
        Ok(())
    }

    /// Switches the thinking level for the next request; recorded in the session.
    pub fn set_thinking_level(&mut self, level: ThinkingLevel) -> Result<(), AppError> {
        self.agent.set_thinking_level(level);
        self.thinking = level;
        if let Some(recorder) = &self.recorder {
            recorder.record_thinking_level(level.as_str())?;
        }
        Ok(())
    }

    /// The folder the tools work in.
    pub fn workspace_root(&self) -> &Path {
        &self.cwd
    }

    /// The model and key the session runs with.
    pub fn selection(&self) -> &Selection {
        &self.selection
    }

    pub fn thinking(&self) -> ThinkingLevel {
        self.thinking
    }

    /// The built-in tools asked for (by name).
    pub fn tool_names(&self) -> &[String] {
        &self.tool_names
    }

    /// The names of the tools the next request offers (built-ins, `create_tool`, the model's
    /// approved tools).
    pub fn offered_tools(&self) -> Vec<String> {
        self.agent
            .state()
            .tools
            .iter()
            .map(|tool| tool.spec().name.clone())
            .collect()
    }

    /// The conversation as the model will see it next.
    pub fn messages(&self) -> Vec<arbor_protocol::AgentMessage> {
        self.agent.messages()
    }

    /// Whether a run is active.
    pub fn is_streaming(&self) -> bool {
        self.agent.is_streaming()
    }

    /// Resolves when no run is active.
    pub async fn wait_for_idle(&self) {
        self.agent.wait_for_idle().await;
    }

    /// Whether the conversation is stored (not the CLI's `--no-session`).
    pub fn is_stored(&self) -> bool {
        self.recorder.is_some()
    }

    /// The stored session's id (`None` before the first message, or when nothing is stored).
    pub fn session_id(&self) -> Option<String> {
        self.recorder.as_ref().and_then(SessionRecorder::session_id)
    }

    /// The stored session, if there is one yet.
    pub fn stored_session(&self) -> Result<Option<arbor_store::Session>, AppError> {
        match &self.recorder {
            Some(recorder) => Ok(recorder.session()?),
            None => Ok(None),
        }
    }

    /// A handle that can only stop the running run, for a signal handler that cannot borrow
    /// the session (Ctrl+C).
    pub fn interrupter(&self) -> Interrupter {
        Interrupter(self.agent.clone())
    }

    /// Ends the session: the run (if any) is aborted and waited for, and the stream and
    /// storing stop. Every front end closes a session this way.
    pub async fn close(&mut self) {
        self.agent.abort();
        self.agent.wait_for_idle().await;
        self.detach();
    }

    pub(crate) fn recorder(&self) -> Result<&SessionRecorder, AppError> {
        self.recorder.as_ref().ok_or(AppError::NotStored)
    }

    pub(crate) fn compactor(&self) -> Result<Arc<Compactor>, AppError> {
        self.compactor.clone().ok_or(AppError::NotAttached)
    }
}

/// Sends `event` to the slot's sink, if one is attached.
fn emit_to(slot: &SinkSlot, event: CodingEvent) {
    let sink = slot.lock().ok().and_then(|slot| slot.clone());
    if let Some(sink) = sink {
        sink(&SessionEvent::Coding(event));
    }
}

/// The request options a selection implies (the key, exposed only here).
pub fn request_options(selection: &Selection) -> RequestOptions {
    RequestOptions {
        api_key: selection
            .api_key
            .as_ref()
            .map(|key| key.expose().to_owned()),
        ..RequestOptions::default()
    }
}

/// Whether a session's `node_appended` events carry the node's siblings and tree view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NodeViews {
    Filled,
    Omitted,
}
