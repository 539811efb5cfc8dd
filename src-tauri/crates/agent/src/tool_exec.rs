//! Running the tool calls of one assistant message.
//!
//! Each call goes through: lookup (unknown tool → error result), argument validation with
//! coercion (invalid → error result), the before-hooks (blocked → error result), the tool (its
//! error → error result; a panic → error result), the after-hooks. Every call runs on its own
//! task, gets `tool_execution_start`/`_update`/`_end` events, and exactly one result; results
//! are returned in the model's order whatever order the calls finish in.
//!
//! **Parallel** (default): every call starts at once, so a steering message never skips one;
//! it is delivered once all of them have finished. **Sequential**: after each call the steering
//! queue is checked; if anything is queued, every call not yet started gets the error result
//! [`SKIPPED_FOR_STEERING`] (with start/end events) and is not run.
//!
//! **Abort**: every running call's [`ToolContext::cancel`] fires; a tool that has not returned
//! within the abort grace period has its task dropped. Interrupted calls get
//! [`ABORTED_WHILE_RUNNING`], calls not yet started [`NOT_RUN_ABORTED`].

use std::collections::HashMap;
use std::sync::Arc;

use arbor_llm::{TextContent, ToolCall, ToolResultMessage, UserContent};
use arbor_protocol::{AgentEvent, ToolResult};
use tokio::sync::mpsc;
use tokio::task::{Id as TaskId, JoinError, JoinSet};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::agent::Shared;
use crate::hooks::{ToolCallDecision, ToolCallHook};
use crate::state::ToolExecution;
use crate::tool::{AgentTool, ToolContext, ToolError, ToolUpdate};
use crate::validation::validate_arguments;

/// The result of a call skipped because the user steered (sequential execution).
pub const SKIPPED_FOR_STEERING: &str = "Skipped: the user sent a new message while earlier tool calls of this turn were running, so this call was not run. Read the user's message, then call the tool again if it is still needed.";
/// The result of a call interrupted by an abort.
pub const ABORTED_WHILE_RUNNING: &str =
    "Aborted: the user cancelled the run while this tool call was running; it may have done part of its work.";
/// The result of a call that an abort stopped before it started.
pub const NOT_RUN_ABORTED: &str =
    "Not run: the user cancelled the run before this tool call started.";
/// The result of the calls of a response cut off by the output token limit.
pub const NOT_RUN_LENGTH: &str = "Not run: the response was cut off (the output token limit, or the provider ended the stream early), so this tool call's arguments may be incomplete. Make the call again, with less output before it if needed.";
/// The result of the calls of a response that failed.
pub const NOT_RUN_FAILED: &str = "Not run: the response failed before this tool call was complete.";
/// What a result with no content says (some providers reject empty tool results).
pub const EMPTY_OUTPUT: &str = "(no output)";

/// The tool calls of one assistant message, and what they run with.
pub(crate) struct ToolBatch<'a> {
    pub(crate) shared: &'a Shared,
    pub(crate) cancel: &'a CancellationToken,
    pub(crate) tools: Vec<Arc<dyn AgentTool>>,
    pub(crate) hooks: Vec<Arc<dyn ToolCallHook>>,
    pub(crate) mode: ToolExecution,
    pub(crate) abort_grace: std::time::Duration,
}

/// Tasks in flight, and which call each one serves.
struct InFlight {
    tasks: JoinSet<ToolResultMessage>,
    index_of: HashMap<TaskId, usize>,
    updates_sender: mpsc::UnboundedSender<ToolUpdate>,
    updates: mpsc::UnboundedReceiver<ToolUpdate>,
}

impl ToolBatch<'_> {
    /// Runs the calls; returns one result per call, in the calls' order.
    pub(crate) async fn run(&self, calls: &[ToolCall]) -> Vec<ToolResultMessage> {
        let (updates_sender, updates) = mpsc::unbounded_channel();
        let mut in_flight = InFlight {
            tasks: JoinSet::new(),
            index_of: HashMap::new(),
            updates_sender,
            updates,
        };
        let mut results: Vec<Option<ToolResultMessage>> = vec![None; calls.len()];
        match self.mode {
            ToolExecution::Parallel => {
                for (index, call) in calls.iter().enumerate() {
                    self.start(&mut in_flight, index, call);
                }
                self.drive(&mut in_flight, calls, &mut results).await;
            }
            ToolExecution::Sequential => {
                for (index, call) in calls.iter().enumerate() {
                    if self.cancel.is_cancelled() {
                        results[index] = Some(report_not_run(self.shared, call, NOT_RUN_ABORTED));
                        continue;
                    }
                    let steered = index > 0 && self.shared.has_steering();
                    if steered {
                        results[index] =
                            Some(report_not_run(self.shared, call, SKIPPED_FOR_STEERING));
                        continue;
                    }
                    self.start(&mut in_flight, index, call);
                    self.drive(&mut in_flight, calls, &mut results).await;
                }
            }
        }
        // Every slot is filled by `drive` or above; the fallback only guards against a bug.
        results
            .into_iter()
            .zip(calls)
            .map(|(result, call)| result.unwrap_or_else(|| error_result(call, NOT_RUN_FAILED)))
            .collect()
    }

    /// Emits `tool_execution_start` and spawns the call's task.
    fn start(&self, in_flight: &mut InFlight, index: usize, call: &ToolCall) {
        self.shared.emit(AgentEvent::ToolExecutionStart {
            tool_call_id: call.id.clone(),
            tool_name: call.name.clone(),
            args: call.arguments.clone(),
        });
        self.shared
            .state()
            .pending_tool_calls
            .insert(call.id.clone());
        let tool = self
            .tools
            .iter()
            .find(|tool| tool.spec().name == call.name)
            .cloned();
        let available: Vec<String> = self.tools.iter().map(|t| t.spec().name.clone()).collect();
        let task = execute_call(
            call.clone(),
            tool,
            available,
            self.hooks.clone(),
            self.cancel.child_token(),
            in_flight.updates_sender.clone(),
        );
        let handle = in_flight.tasks.spawn(task);
        in_flight.index_of.insert(handle.id(), index);
    }

    /// Forwards live output and collects results until every task in flight has finished.
    async fn drive(
        &self,
        in_flight: &mut InFlight,
        calls: &[ToolCall],
        results: &mut [Option<ToolResultMessage>],
    ) {
        let mut grace_deadline: Option<Instant> = None;
        let mut dropped_tasks = false;
        while !in_flight.tasks.is_empty() {
            tokio::select! {
                biased;
                Some(update) = in_flight.updates.recv() => self.forward_update(update, calls),
                joined = in_flight.tasks.join_next_with_id() => {
                    // Output sent before the task ended comes before its end event.
                    while let Ok(update) = in_flight.updates.try_recv() {
                        self.forward_update(update, calls);
                    }
                    let Some(joined) = joined else { break };
                    let (task_id, result) = match joined {
                        Ok((task_id, result)) => (task_id, Ok(result)),
                        Err(error) => (error.id(), Err(error)),
                    };
                    let Some(&index) = in_flight.index_of.get(&task_id) else { continue };
                    let Some(call) = calls.get(index) else { continue };
                    let result = result.unwrap_or_else(|error| crashed_result(call, error));
                    self.finish(call, &result);
                    results[index] = Some(result);
                }
                _ = self.cancel.cancelled(), if grace_deadline.is_none() => {
                    grace_deadline = Some(Instant::now() + self.abort_grace);
                }
                _ = tokio::time::sleep_until(grace_deadline.unwrap_or_else(Instant::now)),
                    if grace_deadline.is_some() && !dropped_tasks => {
                    // The tools had their chance to stop cleanly.
                    tracing::warn!("tool calls did not stop within the abort grace period; dropping them");
                    dropped_tasks = true;
                    in_flight.tasks.abort_all();
                }
            }
        }
    }

    fn forward_update(&self, update: ToolUpdate, calls: &[ToolCall]) {
        let tool_name = calls
            .iter()
            .find(|call| call.id == update.call_id)
            .map(|call| call.name.clone())
            .unwrap_or_default();
        self.shared.emit(AgentEvent::ToolExecutionUpdate {
            tool_call_id: update.call_id,
            tool_name,
            output: update.output,
        });
    }

    fn finish(&self, call: &ToolCall, result: &ToolResultMessage) {
        self.shared.state().pending_tool_calls.remove(&call.id);
        self.shared.emit(AgentEvent::ToolExecutionEnd {
            tool_call_id: call.id.clone(),
            tool_name: call.name.clone(),
            result: ToolResult::from(result),
            is_error: result.is_error,
        });
    }
}

/// One call, start to finish, on its own task.
async fn execute_call(
    call: ToolCall,
    tool: Option<Arc<dyn AgentTool>>,
    available: Vec<String>,
    hooks: Vec<Arc<dyn ToolCallHook>>,
    cancel: CancellationToken,
    updates: mpsc::UnboundedSender<ToolUpdate>,
) -> ToolResultMessage {
    let Some(tool) = tool else {
        let available = if available.is_empty() {
            "none".to_string()
        } else {
            available.join(", ")
        };
        return error_result(
            &call,
            &format!(
                "Unknown tool \"{}\". Available tools: {available}.",
                call.name
            ),
        );
    };
    let arguments = match validate_arguments(&call.name, &tool.spec().parameters, &call.arguments) {
        Ok(arguments) => arguments,
        Err(message) => return error_result(&call, &message),
    };
    let validated = ToolCall {
        arguments: arguments.clone(),
        ..call.clone()
    };
    for hook in &hooks {
        let decision = tokio::select! {
            decision = hook.before_tool_call(&validated, &cancel) => decision,
            _ = cancel.cancelled() => return error_result(&call, NOT_RUN_ABORTED),
        };
        if let ToolCallDecision::Block { reason } = decision {
            return error_result(&call, &format!("Blocked: {reason}"));
        }
    }
    let context = ToolContext::new(call.id.clone(), cancel.clone(), Some(updates));
    let mut result = match tool.execute(arguments, context).await {
        Ok(output) => result_message(&call, output.content, output.details, false),
        Err(ToolError::RespondToModel { message, details }) => result_message(
            &call,
            vec![UserContent::Text(TextContent::new(message))],
            details,
            true,
        ),
        Err(ToolError::Aborted) => return error_result(&call, ABORTED_WHILE_RUNNING),
    };
    for hook in &hooks {
        result = hook.after_tool_call(&validated, result).await;
    }
    result
}

/// Emits start and end for a call that is not run, and returns its error result.
pub(crate) fn report_not_run(shared: &Shared, call: &ToolCall, reason: &str) -> ToolResultMessage {
    shared.emit(AgentEvent::ToolExecutionStart {
        tool_call_id: call.id.clone(),
        tool_name: call.name.clone(),
        args: call.arguments.clone(),
    });
    let result = error_result(call, reason);
    shared.emit(AgentEvent::ToolExecutionEnd {
        tool_call_id: call.id.clone(),
        tool_name: call.name.clone(),
        result: ToolResult::from(&result),
        is_error: true,
    });
    result
}

fn result_message(
    call: &ToolCall,
    mut content: Vec<UserContent>,
    details: Option<serde_json::Value>,
    is_error: bool,
) -> ToolResultMessage {
    if content.is_empty() {
        content.push(UserContent::Text(TextContent::new(EMPTY_OUTPUT)));
    }
    ToolResultMessage {
        tool_call_id: call.id.clone(),
        tool_name: call.name.clone(),
        content,
        is_error,
        details,
    }
}

pub(crate) fn error_result(call: &ToolCall, text: &str) -> ToolResultMessage {
    result_message(
        call,
        vec![UserContent::Text(TextContent::new(text))],
        None,
        true,
    )
}

/// The result of a task that panicked, or was dropped after the abort grace period.
fn crashed_result(call: &ToolCall, error: JoinError) -> ToolResultMessage {
    if error.is_cancelled() {
        return error_result(call, ABORTED_WHILE_RUNNING);
    }
    let reason = match error.try_into_panic() {
        Ok(payload) => payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into()),
        Err(error) => error.to_string(),
    };
    error_result(
        call,
        &format!(
            "The tool \"{}\" crashed: {reason}. This is a bug in the tool, not in your call.",
            call.name
        ),
    )
}
