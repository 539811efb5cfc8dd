//! The agent's state, its construction options, and what a run returns.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use arbor_llm::{AssistantMessage, LlmError, Model, RequestOptions, ThinkingLevel};
use arbor_protocol::{AgentMessage, RunStatus};

use crate::tool::AgentTool;

/// How the tool calls of one assistant message are run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolExecution {
    /// All calls start at once; results are still added in the model's order.
    #[default]
    Parallel,
    /// One after another, in the model's order; steering can skip the calls not yet started.
    Sequential,
}

/// Everything the agent knows. [`crate::Agent::state`] returns a copy.
#[derive(Clone)]
pub struct AgentState {
    pub system_prompt: String,
    pub model: Model,
    pub thinking_level: ThinkingLevel,
    pub tools: Vec<Arc<dyn AgentTool>>,
    /// The conversation, including the messages of the run in progress as they complete.
    pub messages: Vec<AgentMessage>,
    /// A run is in progress (streaming a response or running tools).
    pub is_streaming: bool,
    /// The assistant message being streamed, as received so far.
    pub stream_message: Option<AssistantMessage>,
    /// Ids of the tool calls running now.
    pub pending_tool_calls: BTreeSet<String>,
    /// Why the last run failed (cleared when a run starts).
    pub error: Option<LlmError>,
    /// API key, output limit, headers… (`thinking` is taken from `thinking_level`).
    pub request_options: RequestOptions,
    pub tool_execution: ToolExecution,
    /// How long an aborted tool may take to stop on its own before its task is dropped.
    pub abort_grace: Duration,
    /// Messages waiting: (steering, follow-ups).
    pub queued: (usize, usize),
}

impl fmt::Debug for AgentState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tools: Vec<&str> = self
            .tools
            .iter()
            .map(|tool| tool.spec().name.as_str())
            .collect();
        f.debug_struct("AgentState")
            .field("system_prompt", &self.system_prompt)
            .field(
                "model",
                &format_args!("{}/{}", self.model.provider, self.model.id),
            )
            .field("thinking_level", &self.thinking_level)
            .field("tools", &tools)
            .field("messages", &self.messages.len())
            .field("is_streaming", &self.is_streaming)
            .field("pending_tool_calls", &self.pending_tool_calls)
            .field("error", &self.error)
            .field("tool_execution", &self.tool_execution)
            .field("queued", &self.queued)
            .finish_non_exhaustive()
    }
}

/// How to build an [`crate::Agent`]: a model, and optionally everything else.
#[derive(Clone)]
pub struct AgentOptions {
    pub model: Model,
    pub system_prompt: String,
    pub thinking_level: ThinkingLevel,
    pub tools: Vec<Arc<dyn AgentTool>>,
    pub messages: Vec<AgentMessage>,
    pub request_options: RequestOptions,
    pub tool_execution: ToolExecution,
    pub abort_grace: Duration,
}

/// The default [`AgentOptions::abort_grace`].
pub const DEFAULT_ABORT_GRACE: Duration = Duration::from_secs(3);

impl AgentOptions {
    pub fn new(model: Model) -> Self {
        Self {
            model,
            system_prompt: String::new(),
            thinking_level: ThinkingLevel::Off,
            tools: Vec::new(),
            messages: Vec::new(),
            request_options: RequestOptions::default(),
            tool_execution: ToolExecution::Parallel,
            abort_grace: DEFAULT_ABORT_GRACE,
        }
    }

    #[must_use]
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = prompt.into();
        self
    }

    #[must_use]
    pub fn thinking_level(mut self, level: ThinkingLevel) -> Self {
        self.thinking_level = level;
        self
    }

    #[must_use]
    pub fn tools(mut self, tools: Vec<Arc<dyn AgentTool>>) -> Self {
        self.tools = tools;
        self
    }

    #[must_use]
    pub fn messages(mut self, messages: Vec<AgentMessage>) -> Self {
        self.messages = messages;
        self
    }

    #[must_use]
    pub fn request_options(mut self, options: RequestOptions) -> Self {
        self.request_options = options;
        self
    }

    #[must_use]
    pub fn tool_execution(mut self, mode: ToolExecution) -> Self {
        self.tool_execution = mode;
        self
    }

    #[must_use]
    pub fn abort_grace(mut self, grace: Duration) -> Self {
        self.abort_grace = grace;
        self
    }

    pub(crate) fn into_state(self) -> AgentState {
        AgentState {
            system_prompt: self.system_prompt,
            model: self.model,
            thinking_level: self.thinking_level,
            tools: self.tools,
            messages: self.messages,
            is_streaming: false,
            stream_message: None,
            pending_tool_calls: BTreeSet::new(),
            error: None,
            request_options: self.request_options,
            tool_execution: self.tool_execution,
            abort_grace: self.abort_grace,
            queued: (0, 0),
        }
    }
}

/// What a finished run returns (the same as its `agent_end` event).
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutcome {
    /// Every message the run added, in order.
    pub messages: Vec<AgentMessage>,
    pub status: RunStatus,
    /// Set when `status` is `failed`: the provider's classified error.
    pub error: Option<LlmError>,
}

/// Why the agent refused a request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgentError {
    #[error("the agent is already running: steer or queue a follow-up instead, or abort first")]
    Busy,
    #[error("nothing to continue: the conversation is empty or ends with a complete answer, and nothing is queued")]
    NothingToContinue,
}
