//! Builds the coding agent a run uses: model and key, tools over the working directory, and the
//! system prompt with the project's context files.

use std::path::{Path, PathBuf};

use arbor_agent::{Agent, AgentOptions};
use arbor_coding::{
    build_system_prompt, builtin_tools, load_context_files, parse_tool_list, today_utc,
    BuiltinToolOptions, CodingEvent, SessionRecorder, SystemPromptOptions, Workspace,
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
}

impl AgentSession {
    /// Starts storing the conversation, sending coding events to `sink`. Call after the front
    /// end subscribed its own listener, so `node_appended` follows its `message_end`.
    pub fn attach_recorder(&mut self, sink: impl Fn(&CodingEvent) + Send + Sync + 'static) {
        if let Some(recorder) = &self.recorder {
            self.recorder_subscription =
                Some(recorder.attach(&self.agent, std::sync::Arc::new(sink)));
        }
    }

    /// Stops storing and drops the event sink (so an output writer it holds can finish).
    pub fn detach_recorder(&mut self) {
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

/// Prints a coding event that a text front end cares about (storage failures) on stderr.
pub fn report_to_stderr(event: &CodingEvent) {
    if let CodingEvent::StoreError { message } = event {
        eprintln!("arbor: could not store the conversation: {message}");
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
    let client = LlmClient::new()?.on_retry(|notice| {
        eprintln!(
            "arbor: {} — retrying in {:.1}s (attempt {})",
            notice.error.class(),
            notice.delay.as_secs_f64(),
            notice.attempt
        );
    });
    let options = AgentOptions::new(selection.model.clone())
        .system_prompt(system_prompt)
        .thinking_level(thinking)
        .tools(tools)
        .request_options(request_options(&selection));
    Ok(AgentSession {
        agent: Agent::new(client, options),
        selection,
        tool_names: names,
        cwd: cwd.to_owned(),
        thinking,
        recorder: None,
        recorder_subscription: None,
    })
}

pub fn request_options(selection: &Selection) -> RequestOptions {
    RequestOptions {
        api_key: selection.api_key.clone(),
        ..RequestOptions::default()
    }
}
