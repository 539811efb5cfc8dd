//! [`Agent`]: state, subscriptions, prompts, queues, abort. The loop itself is in `run_loop`.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use arbor_llm::{
    AssistantMessage, ImageContent, LlmClient, Message, Model, RequestOptions, StopReason,
    TextContent, ThinkingLevel, UserContent, UserMessage,
};
use arbor_protocol::{AgentEvent, AgentMessage};
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use crate::hooks::{DefaultTransformer, MessageTransformer, RequestHook, ToolCallHook};
use crate::listeners::{Listeners, SubscriptionId};
use crate::queues::{QueueKind, QueuedMessages, Queues};
use crate::run_loop;
use crate::state::{AgentError, AgentOptions, AgentState, RunOutcome, ToolExecution};
use crate::tool::AgentTool;

/// A general agent: a model, tools and a conversation, driven by prompts.
///
/// Cheap to clone (all clones share one agent), so a front end can hand one clone to the task
/// that awaits [`Agent::prompt`] and keep another to steer, abort or read the state.
#[derive(Clone)]
pub struct Agent {
    shared: Arc<Shared>,
}

/// What the agent and its running loop share.
pub(crate) struct Shared {
    pub(crate) client: LlmClient,
    pub(crate) state: Mutex<AgentState>,
    pub(crate) queues: Mutex<Queues>,
    listeners: Mutex<Listeners>,
    pub(crate) transformer: Mutex<Arc<dyn MessageTransformer>>,
    pub(crate) tool_hooks: Mutex<Vec<Arc<dyn ToolCallHook>>>,
    pub(crate) request_hook: Mutex<Option<Arc<dyn RequestHook>>>,
    /// The cancel token of the run in progress.
    run: Mutex<Option<CancellationToken>>,
    /// `true` while idle, for [`Agent::wait_for_idle`].
    idle: watch::Sender<bool>,
}

/// Locks a mutex; a panic in another holder does not make the data unusable here.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    pub(crate) fn emit(&self, event: AgentEvent) {
        let listeners = lock(&self.listeners).snapshot();
        for listener in &listeners {
            listener.deliver(&event);
        }
    }

    pub(crate) fn state(&self) -> MutexGuard<'_, AgentState> {
        lock(&self.state)
    }

    fn refresh_queue_counts(&self) {
        let counts = lock(&self.queues).counts();
        self.state().queued = counts;
    }

    pub(crate) fn take_steering(&self) -> Vec<AgentMessage> {
        let taken = lock(&self.queues).take_steering();
        self.refresh_queue_counts();
        taken
    }

    pub(crate) fn take_follow_ups(&self) -> Vec<AgentMessage> {
        let taken = lock(&self.queues).take_follow_ups();
        self.refresh_queue_counts();
        taken
    }

    pub(crate) fn has_steering(&self) -> bool {
        lock(&self.queues).has_steering()
    }
}

/// Marks the agent busy for the lifetime of a run, and idle again at its end — also when the
/// run's future is dropped before the end.
struct RunGuard<'a> {
    shared: &'a Shared,
    cancel: CancellationToken,
    finished: bool,
}

impl RunGuard<'_> {
    /// Resets the run's state; the agent accepts a new run from here on.
    fn finish(&mut self) {
        if self.finished {
            return;
        }
        self.finished = true;
        // Stops whatever the run left behind if its future was dropped before the end.
        self.cancel.cancel();
        {
            let mut state = self.shared.state();
            state.is_streaming = false;
            state.stream_message = None;
            state.pending_tool_calls.clear();
        }
        *lock(&self.shared.run) = None;
    }

    /// Ends the run: idle state first, then `agent_end` (so a listener may start the next
    /// run), then wakes [`Agent::wait_for_idle`].
    fn end(mut self, outcome: &RunOutcome) {
        self.finish();
        self.shared.emit(AgentEvent::AgentEnd {
            messages: outcome.messages.clone(),
            status: outcome.status,
            error: outcome.error.clone(),
        });
    }
}

impl Drop for RunGuard<'_> {
    fn drop(&mut self) {
        self.finish();
        // Under the run lock, so a run that started meanwhile keeps the agent marked busy.
        let run = lock(&self.shared.run);
        self.shared.idle.send_replace(run.is_none());
    }
}

impl Agent {
    /// An idle agent with the default message transformer and no hooks.
    pub fn new(client: LlmClient, options: AgentOptions) -> Self {
        let (idle, _) = watch::channel(true);
        Self {
            shared: Arc::new(Shared {
                client,
                state: Mutex::new(options.into_state()),
                queues: Mutex::new(Queues::default()),
                listeners: Mutex::new(Listeners::default()),
                transformer: Mutex::new(Arc::new(DefaultTransformer)),
                tool_hooks: Mutex::new(Vec::new()),
                request_hook: Mutex::new(None),
                run: Mutex::new(None),
                idle,
            }),
        }
    }

    /// Calls `listener` with every event, in order, on the loop's task.
    pub fn subscribe(
        &self,
        listener: impl Fn(&AgentEvent) + Send + Sync + 'static,
    ) -> SubscriptionId {
        lock(&self.shared.listeners).add_callback(Arc::new(listener))
    }

    /// Every event from now on, on an unbounded channel (nothing is lost to a slow reader).
    /// Dropping the receiver ends the subscription.
    pub fn events(&self) -> mpsc::UnboundedReceiver<AgentEvent> {
        let (sender, receiver) = mpsc::unbounded_channel();
        lock(&self.shared.listeners).add_channel(sender);
        receiver
    }

    /// Removes a listener; `false` if it was not subscribed.
    pub fn unsubscribe(&self, id: SubscriptionId) -> bool {
        lock(&self.shared.listeners).remove(id)
    }

    /// A copy of the whole state.
    pub fn state(&self) -> AgentState {
        self.shared.state().clone()
    }

    /// The context window of the model in use, in tokens (without copying the state).
    pub fn context_window(&self) -> u32 {
        self.shared.state().model.context_window
    }

    /// A copy of the conversation.
    pub fn messages(&self) -> Vec<AgentMessage> {
        self.shared.state().messages.clone()
    }

    /// Whether a run is in progress.
    pub fn is_streaming(&self) -> bool {
        self.shared.state().is_streaming
    }

    /// Resolves when no run is in progress.
    pub async fn wait_for_idle(&self) {
        let mut idle = self.shared.idle.subscribe();
        // The sender lives in `self`, so this only fails if the agent is gone, which `&self` rules out.
        let _ = idle.wait_for(|idle| *idle).await;
    }

    // Settings: take effect at the next request (a run in progress picks them up at its next turn).

    pub fn set_system_prompt(&self, prompt: impl Into<String>) {
        self.shared.state().system_prompt = prompt.into();
    }

    pub fn set_model(&self, model: Model) {
        self.shared.state().model = model;
    }

    pub fn set_thinking_level(&self, level: ThinkingLevel) {
        self.shared.state().thinking_level = level;
    }

    pub fn set_tools(&self, tools: Vec<Arc<dyn AgentTool>>) {
        self.shared.state().tools = tools;
    }

    pub fn set_request_options(&self, options: RequestOptions) {
        self.shared.state().request_options = options;
    }

    pub fn set_tool_execution(&self, mode: ToolExecution) {
        self.shared.state().tool_execution = mode;
    }

    /// Replaces the app → LLM message conversion used before every request.
    pub fn set_message_transformer(&self, transformer: Arc<dyn MessageTransformer>) {
        *lock(&self.shared.transformer) = transformer;
    }

    /// Adds a hook around tool calls (runs after the ones added before it).
    pub fn add_tool_hook(&self, hook: Arc<dyn ToolCallHook>) {
        lock(&self.shared.tool_hooks).push(hook);
    }

    /// Installs the hook asked before every request and after a failed one (replacing any
    /// earlier one); `None` removes it.
    pub fn set_request_hook(&self, hook: Option<Arc<dyn RequestHook>>) {
        *lock(&self.shared.request_hook) = hook;
    }

    // The conversation: only while idle, so a run never sees it change under it.

    /// Replaces the conversation (for example with one loaded from the store).
    pub fn replace_messages(&self, messages: Vec<AgentMessage>) -> Result<(), AgentError> {
        let mut state = self.idle_state()?;
        state.messages = messages;
        Ok(())
    }

    pub fn append_message(&self, message: AgentMessage) -> Result<(), AgentError> {
        self.idle_state()?.messages.push(message);
        Ok(())
    }

    pub fn clear_messages(&self) -> Result<(), AgentError> {
        let mut state = self.idle_state()?;
        state.messages.clear();
        state.error = None;
        Ok(())
    }

    fn idle_state(&self) -> Result<MutexGuard<'_, AgentState>, AgentError> {
        let state = self.shared.state();
        if state.is_streaming {
            return Err(AgentError::Busy);
        }
        Ok(state)
    }

    // Runs.

    /// Runs the agent on a new user message (text plus image attachments) until it stops.
    /// Fails at once with [`AgentError::Busy`] if a run is in progress.
    pub async fn prompt(
        &self,
        text: impl Into<String>,
        images: Vec<ImageContent>,
    ) -> Result<RunOutcome, AgentError> {
        self.prompt_messages(vec![user_message(text.into(), images)])
            .await
    }

    /// Runs the agent on the given messages (delivered in order at the start of the run).
    pub async fn prompt_messages(
        &self,
        messages: Vec<AgentMessage>,
    ) -> Result<RunOutcome, AgentError> {
        let guard = self.begin_run()?;
        let mut messages = messages;
        // Steering or follow-ups queued while idle are delivered right after the prompt.
        messages.extend(self.take_all_queued());
        let outcome = run_loop::run(&self.shared, messages, guard.cancel.clone()).await;
        guard.end(&outcome);
        Ok(outcome)
    }

    /// Runs the agent from the conversation as it is: delivers what is queued, or asks the
    /// model again (after a failed request, for instance). Fails with
    /// [`AgentError::NothingToContinue`] when nothing is queued and the conversation is empty or
    /// ends with a complete assistant answer.
    pub async fn continue_run(&self) -> Result<RunOutcome, AgentError> {
        let guard = self.begin_run()?;
        let queued = self.take_all_queued();
        if queued.is_empty() && !can_continue(&self.shared.state().messages) {
            return Err(AgentError::NothingToContinue);
        }
        let outcome = run_loop::run(&self.shared, queued, guard.cancel.clone()).await;
        guard.end(&outcome);
        Ok(outcome)
    }

    /// Queues an interrupting message (see the `queues` module for when it is delivered).
    pub fn steer(&self, text: impl Into<String>) {
        self.steer_message(user_message(text.into(), Vec::new()));
    }

    pub fn steer_message(&self, message: AgentMessage) {
        lock(&self.shared.queues).push_steering(message);
        self.shared.refresh_queue_counts();
    }

    /// Queues a message for when the agent would otherwise stop.
    pub fn follow_up(&self, text: impl Into<String>) {
        self.follow_up_message(user_message(text.into(), Vec::new()));
    }

    pub fn follow_up_message(&self, message: AgentMessage) {
        lock(&self.shared.queues).push_follow_up(message);
        self.shared.refresh_queue_counts();
    }

    /// Takes a queued message back before it is delivered (the user edits or removes it):
    /// whether it was still queued.
    pub fn unqueue(&self, kind: QueueKind, text: &str) -> bool {
        let removed = lock(&self.shared.queues).remove(kind, text);
        self.shared.refresh_queue_counts();
        removed
    }

    /// Cancels the run in progress (its stream and every running tool) and empties the queues,
    /// returning what they held. The run ends with status `aborted` and leaves a conversation
    /// the next prompt can continue from. Without a run, only the queues are emptied.
    pub fn abort(&self) -> QueuedMessages {
        let dropped = lock(&self.shared.queues).clear();
        self.shared.refresh_queue_counts();
        if let Some(cancel) = lock(&self.shared.run).as_ref() {
            cancel.cancel();
        }
        dropped
    }

    fn begin_run(&self) -> Result<RunGuard<'_>, AgentError> {
        let mut run = lock(&self.shared.run);
        if run.is_some() {
            return Err(AgentError::Busy);
        }
        let cancel = CancellationToken::new();
        *run = Some(cancel.clone());
        self.shared.idle.send_replace(false);
        drop(run);
        {
            let mut state = self.shared.state();
            state.is_streaming = true;
            state.error = None;
        }
        Ok(RunGuard {
            shared: &self.shared,
            cancel,
            finished: false,
        })
    }

    fn take_all_queued(&self) -> Vec<AgentMessage> {
        let queued = lock(&self.shared.queues).take_all();
        self.shared.refresh_queue_counts();
        queued
    }
}

/// A user message of text and images (an empty text is left out when there are images).
pub fn user_message(text: String, images: Vec<ImageContent>) -> AgentMessage {
    let mut content = Vec::with_capacity(1 + images.len());
    if !text.is_empty() || images.is_empty() {
        content.push(UserContent::Text(TextContent::new(text)));
    }
    content.extend(images.into_iter().map(UserContent::Image));
    AgentMessage::User(UserMessage { content })
}

/// Whether asking the model again makes sense: the last LLM message is not a finished answer.
fn can_continue(messages: &[AgentMessage]) -> bool {
    match messages.iter().rev().find_map(AgentMessage::as_llm) {
        None => false,
        Some(Message::Assistant(AssistantMessage { stop_reason, .. })) => {
            matches!(stop_reason, StopReason::Error | StopReason::Aborted)
        }
        Some(_) => true,
    }
}
