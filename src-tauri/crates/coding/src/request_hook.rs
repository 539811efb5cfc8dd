//! [`SessionRequestHook`]: what the coding agent does around each model request — compaction
//! near the window, compaction once after a context overflow, and retries of answers that
//! broke off mid-stream.

use std::sync::Arc;

use arbor_agent::{AgentMessage, Recovery, RequestContext, RequestFailure, RequestHook};
use arbor_llm::{LlmError, RetryPolicy, StopReason};
use tokio_util::sync::CancellationToken;

use crate::compaction::{CompactionReason, Compactor};
use crate::sessions::CodingEvent;

/// Installed on the agent with [`arbor_agent::Agent::set_request_hook`].
///
/// - **Before each request** (the first of a run and every one inside a tool loop): when the
///   context passes the threshold, compact. A failed compaction is reported
///   (`compaction_end` with `error`) and the request goes ahead.
/// - **Context overflow**: step back from the failed answer (it stays in the tree), compact
///   and send again — once per request; a second overflow ends the run with an error that says
///   compacting did not help.
/// - **An answer that broke off mid-stream** with a transient error (overload, network,
///   provider error, rate limit): the client does not retry those (the answer had begun), so
///   this does — up to the policy's retries with its backoff, each announced as
///   `retry_scheduled`; the broken answer stays in the tree as a sibling of the retry.
pub struct SessionRequestHook {
    compactor: Arc<Compactor>,
    retry: RetryPolicy,
}

impl SessionRequestHook {
    pub fn new(compactor: Arc<Compactor>, retry: RetryPolicy) -> Self {
        Self { compactor, retry }
    }

    /// The conversation without its last answer and the not-run tool results after it; the
    /// stored leaf moves back the same way.
    fn step_back(&self, messages: &[AgentMessage]) -> Vec<AgentMessage> {
        let answer = messages
            .iter()
            .rposition(|m| m.as_assistant().is_some())
            .unwrap_or(messages.len());
        if let Some(recorder) = self.compactor.recorder() {
            if let Err(error) = recorder.step_back_from_last_answer() {
                // The retry's answer would be stored under the failed one: stop storing.
                recorder.mark_failed(error.to_string());
            }
        }
        messages[..answer].to_vec()
    }

    async fn after_overflow(
        &self,
        failure: &RequestFailure<'_>,
        message: &str,
        cancel: &CancellationToken,
    ) -> Recovery {
        let earlier = &failure.failures[..failure.failures.len().saturating_sub(1)];
        if earlier
            .iter()
            .any(|e| matches!(e, LlmError::ContextOverflow { .. }))
        {
            return Recovery::Fail(Some(LlmError::ContextOverflow {
                message: format!(
                    "{message} (still too long after compacting it automatically: the messages \
                     kept verbatim alone do not fit)"
                ),
            }));
        }
        let request = &failure.request;
        let messages = self.step_back(request.messages);
        match self
            .compactor
            .compact(
                &messages,
                request.model,
                request.options,
                CompactionReason::Overflow,
                None,
                cancel,
            )
            .await
        {
            Ok(compaction) => Recovery::Retry {
                messages: compaction.messages,
            },
            Err(error) => Recovery::Fail(Some(LlmError::ContextOverflow {
                message: format!("{message} (compacting it automatically failed: {error})"),
            })),
        }
    }

    async fn after_broken_stream(
        &self,
        failure: &RequestFailure<'_>,
        cancel: &CancellationToken,
    ) -> Recovery {
        let attempt = u32::try_from(failure.failures.len()).unwrap_or(u32::MAX);
        let delay = match self.retry.decide(failure.error, attempt.saturating_sub(1)) {
            Ok(delay) => delay,
            Err(error) => return Recovery::Fail(Some(error)),
        };
        self.compactor.emit(&CodingEvent::RetryScheduled {
            attempt,
            delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
            error: failure.error.clone(),
        });
        tokio::select! {
            biased;
            _ = cancel.cancelled() => return Recovery::Fail(Some(LlmError::Aborted)),
            _ = tokio::time::sleep(delay) => {}
        }
        Recovery::Retry {
            messages: self.step_back(failure.request.messages),
        }
    }
}

#[async_trait::async_trait]
impl RequestHook for SessionRequestHook {
    async fn before_request(
        &self,
        request: RequestContext<'_>,
        cancel: &CancellationToken,
    ) -> Option<Vec<AgentMessage>> {
        if !self
            .compactor
            .needs_compaction(request.messages, request.model)
        {
            return None;
        }
        self.compactor
            .compact(
                request.messages,
                request.model,
                request.options,
                CompactionReason::Threshold,
                None,
                cancel,
            )
            .await
            .ok()
            .map(|compaction| compaction.messages)
    }

    async fn after_failure(
        &self,
        failure: RequestFailure<'_>,
        cancel: &CancellationToken,
    ) -> Recovery {
        let failed_answer = failure
            .request
            .messages
            .iter()
            .rev()
            .find_map(AgentMessage::as_assistant)
            .is_some_and(|a| a.stop_reason == StopReason::Error);
        if !failed_answer {
            return Recovery::Fail(None);
        }
        match failure.error {
            LlmError::ContextOverflow { message } if self.compactor.settings().enabled => {
                let message = message.clone();
                self.after_overflow(&failure, &message, cancel).await
            }
            error if failure.body_started && error.is_retryable() => {
                self.after_broken_stream(&failure, cancel).await
            }
            _ => Recovery::Fail(None),
        }
    }
}
