//! Builds the coding agent a run uses: model and key, tools over the working directory, and the
//! system prompt with the project's context files.

use std::path::{Path, PathBuf};

use arbor_agent::{Agent, AgentOptions};
use std::sync::Arc;

use arbor_coding::{
    build_system_prompt, builtin_tools, load_context_files, parse_tool_list, today_utc,
    BuiltinToolOptions, CodingEvent, CompactionSettings, Compactor, SessionRecorder,
    SessionRequestHook, SystemPromptOptions, Workspace,
};
use arbor_llm::client::LlmClient;
use arbor_llm::{RequestOptions, ThinkingLevel};

use crate::args::AgentArgs;
use crate::selection::Selection;

/// What a front end needs besides the agent itself.
pub struct AgentSession {
    pub agent: Agent,
    pub selection: Selection,
    pub tool_names: Vec<String>,
    pub cwd: PathBuf,
    pub thinking: ThinkingLevel,
    /// Persists the conversation; `None` with `--no-session`.
    pub recorder: Option<SessionRecorder>,
    recorder_subscription: Option<arbor_agent::SubscriptionId>,
    /// Where coding events other than stored nodes go (retries); set with the recorder's sink.
    events: EventSlot,
    client: LlmClient,
    /// Compacts the conversation (also installed as the agent's request hook); set by
    /// [`AgentSession::attach_recorder`].
    pub compactor: Option<Arc<Compactor>>,
}

type EventSlot =
    std::sync::Arc<std::sync::Mutex<Option<std::sync::Arc<dyn Fn(&CodingEvent) + Send + Sync>>>>;

impl AgentSession {
    /// Sends coding events to `sink` (retries; stored nodes when the conversation is stored,
    /// which this starts). Call after the front end subscribed its own listener, so
    /// `node_appended` follows its `message_end`.
    pub fn attach_recorder(&mut self, sink: impl Fn(&CodingEvent) + Send + Sync + 'static) {
        let sink: std::sync::Arc<dyn Fn(&CodingEvent) + Send + Sync> = std::sync::Arc::new(sink);
        if let Ok(mut slot) = self.events.lock() {
            *slot = Some(sink.clone());
        }
        if let Some(recorder) = &self.recorder {
            self.recorder_subscription = Some(recorder.attach(&self.agent, sink.clone()));
        }
        let compactor = Arc::new(Compactor::new(
            self.client.clone(),
            CompactionSettings::default(),
            self.recorder.clone(),
        ));
        compactor.set_sink(Some(sink));
        let hook = SessionRequestHook::new(compactor.clone(), self.client.retry_policy().clone());
        self.agent.set_request_hook(Some(Arc::new(hook)));
        self.compactor = Some(compactor);
    }

    /// Stops storing and drops the event sink (so an output writer it holds can finish).
    pub fn detach_recorder(&mut self) {
        if let Ok(mut slot) = self.events.lock() {
            *slot = None;
        }
        self.agent.set_request_hook(None);
        if let Some(compactor) = self.compactor.take() {
            compactor.set_sink(None);
        }
        if let (Some(recorder), Some(id)) = (&self.recorder, self.recorder_subscription.take()) {
            recorder.detach(&self.agent, id);
        }
    }

    /// `provider/id` of the current model, as sessions record it.
    pub fn model_name(&self) -> String {
        format!(
            "{}/{}",
            self.selection.model.provider, self.selection.model.id
        )
    }
}

/// Prints a coding event that a text front end cares about (storage failures, compactions,
/// mid-stream retries) on stderr.
pub fn report_to_stderr(event: &CodingEvent) {
    if let Some(text) = describe_event(event) {
        eprintln!("{text}");
    }
}

/// A coding event as a line for the terminal; `None` for those it does not show.
pub fn describe_event(event: &CodingEvent) -> Option<String> {
    match event {
        CodingEvent::StoreError { message } => Some(format!(
            "arbor: could not store the conversation: {message}"
        )),
        CodingEvent::RetryScheduled {
            attempt,
            delay_ms,
            error,
        } => Some(format!(
            "arbor: {} — retrying in {:.1}s (attempt {attempt})",
            error.class(),
            *delay_ms as f64 / 1000.0
        )),
        CodingEvent::CompactionStart { reason } => Some(format!(
            "(compacting the conversation: {})",
            match reason {
                arbor_coding::CompactionReason::Threshold => "it nears the context window",
                arbor_coding::CompactionReason::Overflow => "it overflowed the context window",
                arbor_coding::CompactionReason::Manual => "as asked",
            }
        )),
        CodingEvent::CompactionEnd {
            tokens_before,
            tokens_after: Some(after),
            ..
        } => Some(format!(
            "(compacted: about {tokens_before} → {after} tokens in context)"
        )),
        CodingEvent::CompactionEnd {
            error: Some(error), ..
        } => Some(format!("arbor: compaction failed: {error}")),
        _ => None,
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error(transparent)]
    Tools(#[from] arbor_coding::BuiltinToolsError),
    #[error(transparent)]
    Client(#[from] arbor_llm::LlmError),
}

pub fn tool_names(args: &AgentArgs) -> Vec<String> {
    if args.no_tools {
        Vec::new()
    } else {
        parse_tool_list(&args.tools)
    }
}

pub fn start(
    selection: Selection,
    thinking: ThinkingLevel,
    args: &AgentArgs,
    cwd: &Path,
) -> Result<AgentSession, SessionError> {
    let workspace = Workspace::new(cwd);
    let names = tool_names(args);
    let tools = builtin_tools(
        &workspace,
        &BuiltinToolOptions {
            names: names.clone(),
            accepts_images: selection.model.images,
        },
    )?;
    let system_prompt = build_system_prompt(&SystemPromptOptions {
        tools: names.clone(),
        custom_prompt: args.system_prompt.clone(),
        append: args.append_system_prompt.clone(),
        context_files: load_context_files(cwd),
        date: today_utc(),
        cwd: cwd.to_owned(),
    });
    let events: EventSlot = Default::default();
    let retry_events = events.clone();
    let client = LlmClient::new()?.on_retry(move |notice| {
        // Text modes print it (`report_to_stderr`, interactive); JSON and RPC send the event.
        let sink = retry_events.lock().ok().and_then(|slot| slot.clone());
        if let Some(sink) = sink {
            sink(&CodingEvent::RetryScheduled {
                attempt: notice.attempt,
                delay_ms: u64::try_from(notice.delay.as_millis()).unwrap_or(u64::MAX),
                error: notice.error.clone(),
            });
        }
    });
    let options = AgentOptions::new(selection.model.clone())
        .system_prompt(system_prompt)
        .thinking_level(thinking)
        .tools(tools)
        .request_options(request_options(&selection));
    Ok(AgentSession {
        agent: Agent::new(client.clone(), options),
        client,
        compactor: None,
        selection,
        tool_names: names,
        cwd: cwd.to_owned(),
        thinking,
        recorder: None,
        recorder_subscription: None,
        events,
    })
}

pub fn request_options(selection: &Selection) -> RequestOptions {
    RequestOptions {
        api_key: selection.api_key.clone(),
        ..RequestOptions::default()
    }
}
