//! When and how often the client retries a request that failed before its answer began.

use std::time::Duration;

use crate::error::LlmError;

/// When and how often to retry.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// First backoff; doubled for each further retry.
    pub initial_delay: Duration,
    /// Cap on the computed backoff.
    pub max_delay: Duration,
    /// The longest server-requested wait honoured; longer ones fail at once.
    pub max_server_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 3,
            initial_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(30),
            max_server_delay: Duration::from_secs(60),
        }
    }
}

/// Told to the retry observer before each wait.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryNotice {
    /// 1 for the first retry.
    pub attempt: u32,
    pub delay: Duration,
    pub error: LlmError,
}

impl RetryPolicy {
    /// Whether to retry after `error` when `attempt` retries were made already: `Ok(wait)`, or
    /// `Err` with the error to report (the same one, or one saying the server's wait is too
    /// long).
    pub fn decide(&self, error: &LlmError, attempt: u32) -> Result<Duration, LlmError> {
        if !error.is_retryable() || attempt >= self.max_retries {
            return Err(error.clone());
        }
        match error.retry_after() {
            Some(wait) if wait > self.max_server_delay => {
                Err(too_long(error, self.max_server_delay))
            }
            Some(wait) => Ok(wait),
            None => {
                let factor = 2u32.saturating_pow(attempt);
                Ok(self
                    .initial_delay
                    .saturating_mul(factor)
                    .min(self.max_delay))
            }
        }
    }
}

pub(crate) enum Retry {
    After(Duration),
    No(LlmError),
}

/// The same error, saying the requested wait is beyond what Arbor waits on its own.
fn too_long(error: &LlmError, limit: Duration) -> LlmError {
    match error {
        LlmError::RateLimited {
            message,
            retry_after_ms,
        } => LlmError::RateLimited {
            message: format!(
                "{message} (the requested wait is longer than the {}s Arbor waits on its own, so it did not retry)",
                limit.as_secs()
            ),
            retry_after_ms: *retry_after_ms,
        },
        other => other.clone(),
    }
}
