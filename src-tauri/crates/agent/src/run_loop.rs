//! One run: turns of (delivered messages → streamed assistant message → tool calls) until the
//! model stops, the run is aborted, or the provider fails.

use std::sync::Arc;

use arbor_llm::{
    AssistantEvent, AssistantMessage, Context, LlmError, RequestOptions, StopReason, ToolCall,
    ToolResultMessage,
};
use arbor_protocol::{AgentEvent, AgentMessage, RunStatus};
use tokio_util::sync::CancellationToken;

use crate::agent::{lock, Shared};
use crate::hooks::{Recovery, RequestContext, RequestFailure, RequestHook};
use crate::state::RunOutcome;
use crate::tool_exec::{self, ToolBatch};

/// Runs until the agent stops; emits `agent_start` … `turn_end` (the caller emits `agent_end`
/// once the agent is idle again, so a listener can start the next run from it).
pub(crate) async fn run(
    shared: &Shared,
    first_messages: Vec<AgentMessage>,
    cancel: CancellationToken,
) -> RunOutcome {
    let mut run = Run {
        shared,
        cancel,
        added: Vec::new(),
    };
    shared.emit(AgentEvent::AgentStart);
    let (status, error) = run.turns(first_messages).await;
    shared.state().error = error.clone();
    RunOutcome {
        messages: run.added,
        status,
        error,
    }
}

struct Run<'a> {
    shared: &'a Shared,
    cancel: CancellationToken,
    /// Every message this run appended, for `agent_end`.
    added: Vec<AgentMessage>,
}

impl Run<'_> {
    async fn turns(&mut self, first_messages: Vec<AgentMessage>) -> (RunStatus, Option<LlmError>) {
        let mut deliver = first_messages;
        // Errors of the request being retried (cleared by a request that gets through).
        let mut failures: Vec<LlmError> = Vec::new();
        loop {
            if self.cancel.is_cancelled() {
                return (RunStatus::Aborted, None);
            }
            self.shared.emit(AgentEvent::TurnStart);
            for message in deliver.drain(..) {
                self.append(message);
            }
            let messages = self.before_request().await;
            let (assistant, error, body_started) = self.stream_assistant(messages).await;
            let calls: Vec<ToolCall> = assistant.tool_calls().cloned().collect();
            let results = match assistant.stop_reason {
                StopReason::Stop | StopReason::ToolUse => self.run_tools(&calls).await,
                // A call cut off by the output limit may have half its arguments.
                StopReason::Length => self.not_run(&calls, tool_exec::NOT_RUN_LENGTH),
                StopReason::Aborted => self.not_run(&calls, tool_exec::NOT_RUN_ABORTED),
                StopReason::Error => self.not_run(&calls, tool_exec::NOT_RUN_FAILED),
            };
            for result in &results {
                self.append(AgentMessage::ToolResult(result.clone()));
            }
            self.shared.emit(AgentEvent::TurnEnd {
                message: assistant.clone(),
                tool_results: results,
            });

            match assistant.stop_reason {
                StopReason::Aborted => return (RunStatus::Aborted, None),
                _ if self.cancel.is_cancelled() => return (RunStatus::Aborted, None),
                StopReason::Error => {
                    let error = error.unwrap_or_else(|| LlmError::Provider {
                        message: "the request failed without an error".into(),
                    });
                    failures.push(error.clone());
                    match self.recover(&error, body_started, &failures).await {
                        Recovery::Retry { messages } if !self.cancel.is_cancelled() => {
                            self.shared.state().messages = messages;
                            continue;
                        }
                        Recovery::Retry { .. } => return (RunStatus::Aborted, None),
                        Recovery::Fail(replacement) => {
                            return (RunStatus::Failed, Some(replacement.unwrap_or(error)))
                        }
                    }
                }
                _ => {}
            }
            failures.clear();
            deliver = self.shared.take_steering();
            if !deliver.is_empty() {
                continue;
            }
            let tools_ran = !calls.is_empty()
                && matches!(
                    assistant.stop_reason,
                    StopReason::Stop | StopReason::ToolUse
                );
            if tools_ran {
                continue;
            }
            deliver = self.shared.take_follow_ups();
            if deliver.is_empty() {
                return (RunStatus::Completed, None);
            }
        }
    }

    fn request_hook(&self) -> Option<Arc<dyn RequestHook>> {
        lock(&self.shared.request_hook).clone()
    }

    /// The conversation, model and options the next request is built from.
    fn request_inputs(&self) -> (Vec<AgentMessage>, arbor_llm::Model, RequestOptions) {
        let state = self.shared.state();
        let options = RequestOptions {
            thinking: state.thinking_level,
            ..state.request_options.clone()
        };
        (state.messages.clone(), state.model.clone(), options)
    }

    /// Lets the request hook reshape the conversation (compaction) before a request; returns
    /// the conversation the request is built from (`None` without a hook: read it then).
    async fn before_request(&self) -> Option<Vec<AgentMessage>> {
        let hook = self.request_hook()?;
        let (messages, model, options) = self.request_inputs();
        let request = RequestContext {
            messages: &messages,
            model: &model,
            options: &options,
        };
        match hook.before_request(request, &self.cancel).await {
            Some(replaced) => {
                self.shared.state().messages = replaced.clone();
                Some(replaced)
            }
            None => Some(messages),
        }
    }

    /// Asks the request hook what to do about a failed request.
    async fn recover(
        &self,
        error: &LlmError,
        body_started: bool,
        failures: &[LlmError],
    ) -> Recovery {
        let Some(hook) = self.request_hook() else {
            return Recovery::Fail(None);
        };
        let (messages, model, options) = self.request_inputs();
        let failure = RequestFailure {
            request: RequestContext {
                messages: &messages,
                model: &model,
                options: &options,
            },
            error,
            body_started,
            failures,
        };
        hook.after_failure(failure, &self.cancel).await
    }

    /// Adds a complete message to the conversation and reports it.
    fn append(&mut self, message: AgentMessage) {
        self.shared.emit(AgentEvent::MessageStart {
            message: message.clone(),
        });
        self.shared.state().messages.push(message.clone());
        self.shared.emit(AgentEvent::MessageEnd {
            message: message.clone(),
        });
        self.added.push(message);
    }

    /// Streams one assistant message and appends it; returns it with its error, if any, and
    /// whether the provider's answer had begun.
    async fn stream_assistant(
        &mut self,
        messages: Option<Vec<AgentMessage>>,
    ) -> (AssistantMessage, Option<LlmError>, bool) {
        let (model, options, context) = self.request(messages).await;
        let mut started = false;
        let mut body_started = false;
        let mut outcome = None;
        if !self.cancel.is_cancelled() {
            let mut stream =
                self.shared
                    .client
                    .stream(&model, &context, &options, self.cancel.child_token());
            while let Some(event) = stream.next().await {
                match event {
                    AssistantEvent::Done { message } => outcome = Some((message, None)),
                    AssistantEvent::Error { message, error } => {
                        outcome = Some((message, Some(error)))
                    }
                    AssistantEvent::Start { message } if !started => {
                        started = true;
                        self.shared.state().stream_message = Some(message.clone());
                        self.shared.emit(AgentEvent::MessageStart {
                            message: AgentMessage::Assistant(message),
                        });
                    }
                    delta => {
                        if !started {
                            started = true;
                            let empty =
                                AssistantMessage::empty(model.api, &model.provider, &model.id);
                            self.shared.state().stream_message = Some(empty.clone());
                            self.shared.emit(AgentEvent::MessageStart {
                                message: AgentMessage::Assistant(empty),
                            });
                        }
                        if let Some(partial) = self.shared.state().stream_message.as_mut() {
                            partial.apply_event(&delta);
                        }
                        self.shared.emit(AgentEvent::MessageUpdate { delta });
                    }
                }
            }
            body_started = stream.body_started();
        }
        let (message, error) = outcome.unwrap_or_else(|| self.missing_outcome(&model));
        self.shared.state().stream_message = None;
        if !started {
            self.shared.emit(AgentEvent::MessageStart {
                message: AgentMessage::Assistant(message.clone()),
            });
        }
        let message_end = AgentMessage::Assistant(message.clone());
        self.shared.state().messages.push(message_end.clone());
        self.shared.emit(AgentEvent::MessageEnd {
            message: message_end.clone(),
        });
        self.added.push(message_end);
        (message, error, body_started)
    }

    /// The result when no terminal event came: aborted before the request, or a broken stream.
    fn missing_outcome(&self, model: &arbor_llm::Model) -> (AssistantMessage, Option<LlmError>) {
        let mut message = AssistantMessage::empty(model.api, &model.provider, &model.id);
        let error = if self.cancel.is_cancelled() {
            message.stop_reason = StopReason::Aborted;
            LlmError::Aborted
        } else {
            message.stop_reason = StopReason::Error;
            LlmError::Provider {
                message: "the model's stream ended without a result".into(),
            }
        };
        message.error_message = Some(error.to_string());
        (message, Some(error))
    }

    /// The model, options and context for the next request: `messages` when the request hook
    /// already took them, else the state's.
    async fn request(
        &self,
        messages: Option<Vec<AgentMessage>>,
    ) -> (arbor_llm::Model, arbor_llm::RequestOptions, Context) {
        let (model, options, system_prompt, tools, messages) = {
            let state = self.shared.state();
            let options = arbor_llm::RequestOptions {
                thinking: state.thinking_level,
                ..state.request_options.clone()
            };
            (
                state.model.clone(),
                options,
                state.system_prompt.clone(),
                state.tools.iter().map(|t| t.spec().clone()).collect(),
                messages.unwrap_or_else(|| state.messages.clone()),
            )
        };
        let transformer = Arc::clone(&*lock(&self.shared.transformer));
        let messages = transformer.transform(&messages, &self.cancel).await;
        let context = Context {
            system_prompt: (!system_prompt.is_empty()).then_some(system_prompt),
            messages,
            tools,
        };
        (model, options, context)
    }

    async fn run_tools(&self, calls: &[ToolCall]) -> Vec<ToolResultMessage> {
        if calls.is_empty() {
            return Vec::new();
        }
        let (tools, mode, grace) = {
            let state = self.shared.state();
            (state.tools.clone(), state.tool_execution, state.abort_grace)
        };
        let hooks = lock(&self.shared.tool_hooks).clone();
        ToolBatch {
            shared: self.shared,
            cancel: &self.cancel,
            tools,
            hooks,
            mode,
            abort_grace: grace,
        }
        .run(calls)
        .await
    }

    /// Error results for calls that are not run, each with its start/end events.
    fn not_run(&self, calls: &[ToolCall], reason: &str) -> Vec<ToolResultMessage> {
        calls
            .iter()
            .map(|call| tool_exec::report_not_run(self.shared, call, reason))
            .collect()
    }
}
