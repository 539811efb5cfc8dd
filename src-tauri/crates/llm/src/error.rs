//! The classified error every failure ends up as. Each variant's message says what to do.

use arbor_error_code::ErrorCode;
use serde::{Deserialize, Serialize};

/// Why a request failed. Serializable so it can travel inside [`crate::AssistantEvent::Error`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LlmError {
    #[error("authentication failed: {message}. Check the API key for this provider")]
    Authentication { message: String },

    #[error("rate limited: {message}. {}", wait_advice(*.retry_after_ms))]
    RateLimited {
        message: String,
        /// The wait the server asked for (`Retry-After`, Gemini `RetryInfo`), in milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional = nullable)]
        retry_after_ms: Option<u64>,
    },

    #[error("quota exhausted: {message}. Check the plan and billing of this API key; retrying will not help")]
    QuotaExceeded { message: String },

    #[error("the provider is overloaded or failing{}: {message}. Try again in a moment or switch to another model", status_suffix(*.status))]
    Overloaded {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional = nullable)]
        status: Option<u16>,
        message: String,
    },

    #[error("the conversation does not fit the model's context window: {message}. Compact the conversation, start a new one, or pick a model with a larger window")]
    ContextOverflow { message: String },

    #[error("the provider rejected the request{}: {message}. Check the model id, base URL and options for this provider", status_suffix(*.status))]
    InvalidRequest {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional = nullable)]
        status: Option<u16>,
        message: String,
    },

    #[error("the model refused or its output was blocked: {message}. Rephrase the request or try another model")]
    Refused { message: String },

    #[error("network error: {message}. Check the connection and the base URL")]
    Network { message: String },

    #[error("the provider reported an error: {message}. Retrying may help")]
    Provider { message: String },

    #[error("the request was aborted")]
    Aborted,
}

impl LlmError {
    /// Whether retrying the same request later may succeed.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            LlmError::RateLimited { .. }
                | LlmError::Overloaded { .. }
                | LlmError::Network { .. }
                | LlmError::Provider { .. }
        )
    }

    /// The wait the server asked for before a retry, if any.
    pub fn retry_after(&self) -> Option<std::time::Duration> {
        match self {
            LlmError::RateLimited {
                retry_after_ms: Some(ms),
                ..
            } => Some(std::time::Duration::from_millis(*ms)),
            _ => None,
        }
    }

    /// The class as a stable code (`rate_limited`, `context_overflow`…), for logs and UIs.
    pub fn code(&self) -> ErrorCode {
        match self {
            LlmError::Authentication { .. } => ErrorCode::Authentication,
            LlmError::RateLimited { .. } => ErrorCode::RateLimited,
            LlmError::QuotaExceeded { .. } => ErrorCode::QuotaExceeded,
            LlmError::Overloaded { .. } => ErrorCode::Overloaded,
            LlmError::ContextOverflow { .. } => ErrorCode::ContextOverflow,
            LlmError::InvalidRequest { .. } => ErrorCode::InvalidRequest,
            LlmError::Refused { .. } => ErrorCode::Refused,
            LlmError::Network { .. } => ErrorCode::Network,
            LlmError::Provider { .. } => ErrorCode::Provider,
            LlmError::Aborted => ErrorCode::Aborted,
        }
    }

    /// [`LlmError::code`]'s name (`rate_limited`, `context_overflow`…).
    pub fn class(&self) -> &'static str {
        self.code().as_str()
    }
}

fn wait_advice(retry_after_ms: Option<u64>) -> String {
    match retry_after_ms {
        Some(ms) => format!(
            "The provider asks to wait {:.1}s before retrying",
            ms as f64 / 1000.0
        ),
        None => "Wait a little before retrying, or lower the request rate".to_string(),
    }
}

fn status_suffix(status: Option<u16>) -> String {
    status.map(|s| format!(" (HTTP {s})")).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_say_what_to_do() {
        let error = LlmError::RateLimited {
            message: "slow down".into(),
            retry_after_ms: Some(34_400),
        };
        assert_eq!(
            error.to_string(),
            "rate limited: slow down. The provider asks to wait 34.4s before retrying"
        );
        assert!(error.is_retryable());
        let error = LlmError::InvalidRequest {
            status: Some(400),
            message: "bad".into(),
        };
        assert!(error.to_string().contains("(HTTP 400)"));
        assert!(!error.is_retryable());
    }

    #[test]
    fn serializes_with_kind_tag() {
        let value = serde_json::to_value(LlmError::Aborted).unwrap();
        assert_eq!(value["kind"], "aborted");
        let value = serde_json::to_value(LlmError::ContextOverflow {
            message: "too long".into(),
        })
        .unwrap();
        assert_eq!(value["kind"], "context_overflow");
    }
}
