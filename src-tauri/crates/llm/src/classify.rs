//! Error classification: HTTP status + body (every provider's shape), and in-stream error objects.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::error::LlmError;

/// The fields of a provider error body, whatever its shape:
/// OpenAI `{"error":{message,type,param,code}}`, Anthropic `{"type":"error","error":{type,message},
/// "request_id"}`, Gemini `{"error":{code,message,status,details}}` (also wrapped in an array),
/// OpenRouter's flat `{message,code,metadata}`, vLLM and llama.cpp variants.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ProviderErrorBody {
    /// `type` (OpenAI, Anthropic, vLLM, llama.cpp) or `status` (Gemini).
    pub error_type: Option<String>,
    /// `code`, as text (`context_length_exceeded`, `400`…).
    pub code: Option<String>,
    pub param: Option<String>,
    pub message: String,
    pub request_id: Option<String>,
    /// Gemini `google.rpc.RetryInfo.retryDelay`.
    pub retry_delay: Option<Duration>,
}

impl ProviderErrorBody {
    /// Reads an error object: the body of a failed HTTP response, an Anthropic `error` event, an
    /// OpenAI chunk with a top-level `error`, or a Responses `error` event.
    pub fn from_value(value: &Value) -> Option<Self> {
        let value = match value {
            // Gemini without `alt=sse` wraps the error in an array.
            Value::Array(items) => items.first()?,
            other => other,
        };
        let object = value.as_object()?;
        let inner = match object.get("error") {
            Some(Value::Object(inner)) => inner,
            // A bare string error (`{"error":"..."}`), as some compatible servers send.
            Some(Value::String(message)) => {
                return Some(Self {
                    message: message.clone(),
                    ..Self::default()
                })
            }
            _ => object,
        };
        let text = |value: Option<&Value>| match value {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        let message = text(inner.get("message")).or_else(|| text(object.get("message")))?;
        Some(Self {
            error_type: text(inner.get("type")).or_else(|| text(inner.get("status"))),
            code: text(inner.get("code")),
            param: text(inner.get("param")),
            message,
            request_id: text(object.get("request_id")),
            retry_delay: gemini_retry_delay(inner.get("details")),
        })
    }

    /// Parses a response body; `None` when it is not a recognised JSON error.
    pub fn parse(body: &str) -> Option<Self> {
        Self::from_value(&serde_json::from_str(body).ok()?)
    }
}

fn gemini_retry_delay(details: Option<&Value>) -> Option<Duration> {
    details?.as_array()?.iter().find_map(|detail| {
        let is_retry_info = detail
            .get("@type")
            .and_then(Value::as_str)
            .is_some_and(|t| t.ends_with("google.rpc.RetryInfo"));
        let delay = detail.get("retryDelay")?.as_str()?;
        is_retry_info.then(|| parse_seconds(delay.strip_suffix('s')?))?
    })
}

fn parse_seconds(text: &str) -> Option<Duration> {
    let seconds: f64 = text.trim().parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds))
}

/// Phrases providers use for a prompt that does not fit the context window (lower case).
const CONTEXT_OVERFLOW_PHRASES: &[&str] = &[
    "context_length_exceeded",
    "context length exceeded",
    "prompt is too long",                    // Anthropic
    "exceeds the context window",            // OpenAI Responses
    "maximum context length is",             // OpenAI chat, OpenRouter, Groq
    "input token count",                     // Gemini ("… exceeds the maximum number of tokens")
    "exceeds the available context size",    // llama.cpp
    "exceed_context_size_error",             // llama.cpp type
    "context length is only",                // vLLM
    "maximum input length",                  // vLLM (older)
    "greater than the context length",       // LM Studio
    "maximum prompt length is",              // xAI
    "input is too long for requested model", // Bedrock
    "reduce the length of the messages",     // Groq
    "context window exceeds limit",          // MiniMax
    "exceeded model token limit",            // Kimi
    "too many tokens",
    "token limit exceeded",
    "request_too_large",
];

/// Whether an error message (or type/code) says the prompt is larger than the context window.
pub fn is_context_overflow(body: &ProviderErrorBody) -> bool {
    let mentions_overflow = |text: &str| {
        let lower = text.to_ascii_lowercase();
        CONTEXT_OVERFLOW_PHRASES
            .iter()
            .any(|phrase| lower.contains(phrase))
    };
    mentions_overflow(&body.message)
        || body.code.as_deref().is_some_and(mentions_overflow)
        || body.error_type.as_deref().is_some_and(mentions_overflow)
}

/// Classifies a failed HTTP response. `retry_after` is the `Retry-After` header (seconds or an
/// HTTP date); a Gemini `RetryInfo` in the body is used when the header is absent.
pub fn classify_http_error(status: u16, retry_after: Option<&str>, body: &str) -> LlmError {
    let parsed = ProviderErrorBody::parse(body);
    let message = match &parsed {
        Some(parsed) => parsed.message.clone(),
        None if body.trim().is_empty() => format!("HTTP {status} with an empty body"),
        None => truncate(body.trim(), 500),
    };
    let fields = parsed.unwrap_or_else(|| ProviderErrorBody {
        message: message.clone(),
        ..ProviderErrorBody::default()
    });
    let kind = fields.error_type.as_deref().unwrap_or_default();
    let code = fields.code.as_deref().unwrap_or_default();

    if is_quota_exhausted(kind, code) {
        return LlmError::QuotaExceeded { message };
    }
    // A 429 is a rate limit even when its text mentions tokens.
    if status != 429 && (is_context_overflow(&fields) || status == 413) {
        return LlmError::ContextOverflow { message };
    }
    match status {
        401 | 403 => LlmError::Authentication { message },
        429 => LlmError::RateLimited {
            message,
            retry_after_ms: retry_after
                .and_then(|value| parse_retry_after(value, SystemTime::now()))
                .or(fields.retry_delay)
                .map(duration_ms),
        },
        408 | 500..=599 => LlmError::Overloaded {
            status: Some(status),
            message,
        },
        _ => match classify_error_fields(&fields) {
            // The status decides for 4xx; the body only refines what the status leaves open.
            LlmError::Provider { message } => LlmError::InvalidRequest {
                status: Some(status),
                message,
            },
            other => other,
        },
    }
}

/// Classifies an error object that arrived inside a stream (no HTTP status): Anthropic `error`
/// events, OpenAI chunks with `error`, Responses `error` / `response.failed`.
pub fn classify_stream_error(value: &Value) -> LlmError {
    match ProviderErrorBody::from_value(value) {
        Some(fields) => classify_error_fields(&fields),
        None => LlmError::Provider {
            message: truncate(&value.to_string(), 500),
        },
    }
}

fn classify_error_fields(fields: &ProviderErrorBody) -> LlmError {
    let message = fields.message.clone();
    let kind = fields.error_type.as_deref().unwrap_or_default();
    let code = fields.code.as_deref().unwrap_or_default();
    if is_quota_exhausted(kind, code) {
        return LlmError::QuotaExceeded { message };
    }
    if is_context_overflow(fields) {
        return LlmError::ContextOverflow { message };
    }
    // Gemini reports a bad key as 400 INVALID_ARGUMENT; the text is what tells.
    if mentions_bad_key(&message) {
        return LlmError::Authentication { message };
    }
    match kind {
        "authentication_error"
        | "permission_error"
        | "invalid_api_key"
        | "UNAUTHENTICATED"
        | "PERMISSION_DENIED" => LlmError::Authentication { message },
        "rate_limit_error" | "rate_limit_exceeded" | "RESOURCE_EXHAUSTED" => {
            LlmError::RateLimited {
                message,
                retry_after_ms: fields.retry_delay.map(duration_ms),
            }
        }
        "overloaded_error" | "api_error" | "server_error" | "UNAVAILABLE" | "INTERNAL" => {
            LlmError::Overloaded {
                status: None,
                message,
            }
        }
        "invalid_request_error" | "INVALID_ARGUMENT" | "not_found_error" | "NOT_FOUND" => {
            LlmError::InvalidRequest {
                status: None,
                message,
            }
        }
        _ if code == "rate_limit_exceeded" => LlmError::RateLimited {
            message,
            retry_after_ms: None,
        },
        _ if code == "server_error" => LlmError::Overloaded {
            status: None,
            message,
        },
        _ => LlmError::Provider { message },
    }
}

fn mentions_bad_key(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    [
        "api key not valid",
        "invalid api key",
        "incorrect api key",
        "api_key_invalid",
    ]
    .iter()
    .any(|phrase| lower.contains(phrase))
}

fn is_quota_exhausted(kind: &str, code: &str) -> bool {
    kind == "insufficient_quota" || code == "insufficient_quota" || kind == "billing_error"
}

/// Parses a `Retry-After` value: delay seconds, or an HTTP date (`Wed, 21 Oct 2015 07:28:00 GMT`)
/// measured from `now`. A date in the past means "now".
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Some(delay) = parse_seconds(value) {
        return Some(delay);
    }
    let target = parse_http_date(value)?;
    let now = now.duration_since(UNIX_EPOCH).ok()?.as_secs();
    Some(Duration::from_secs(target.saturating_sub(now)))
}

/// An HTTP date (IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`, and the obsolete forms HTTP
/// still allows) to seconds since the Unix epoch, with `httpdate` (hyper's own parser).
fn parse_http_date(value: &str) -> Option<u64> {
    httpdate::parse_http_date(value)
        .ok()?
        .duration_since(UNIX_EPOCH)
        .ok()
        .map(|since| since.as_secs())
}

fn duration_ms(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn truncate(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn status_decides_the_class() {
        assert!(matches!(
            classify_http_error(401, None, r#"{"error":{"message":"bad key"}}"#),
            LlmError::Authentication { .. }
        ));
        assert!(matches!(
            classify_http_error(529, None, ""),
            LlmError::Overloaded {
                status: Some(529),
                ..
            }
        ));
        assert!(matches!(
            classify_http_error(413, None, "Payload Too Large"),
            LlmError::ContextOverflow { .. }
        ));
        assert!(matches!(
            classify_http_error(404, None, r#"{"error":{"message":"no such model"}}"#),
            LlmError::InvalidRequest {
                status: Some(404),
                ..
            }
        ));
    }

    #[test]
    fn gemini_bad_key_is_authentication() {
        let body = r#"{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}"#;
        assert!(matches!(
            classify_http_error(400, None, body),
            LlmError::Authentication { .. }
        ));
    }

    #[test]
    fn retry_after_header_wins_over_body() {
        let error = classify_http_error(429, Some("7"), r#"{"error":{"message":"slow"}}"#);
        assert_eq!(error.retry_after(), Some(Duration::from_secs(7)));
        let error = classify_http_error(429, Some("1.5"), "");
        assert_eq!(error.retry_after(), Some(Duration::from_millis(1500)));
    }

    #[test]
    fn retry_after_http_date() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_777 - 30); // 30 s before the date
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now),
            Some(Duration::from_secs(30))
        );
        let later = UNIX_EPOCH + Duration::from_secs(784_111_777 + 5);
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", later),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
    }

    #[test]
    fn stream_errors_are_classified_by_type() {
        let overloaded =
            json!({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}});
        assert!(matches!(
            classify_stream_error(&overloaded),
            LlmError::Overloaded { .. }
        ));
        let unknown = json!({"error":{"message":"boom","type":"weird"}});
        assert!(matches!(
            classify_stream_error(&unknown),
            LlmError::Provider { .. }
        ));
        let bare = json!({"error":"model not loaded"});
        assert_eq!(
            classify_stream_error(&bare),
            LlmError::Provider {
                message: "model not loaded".into()
            }
        );
    }

    #[test]
    fn plain_text_bodies_are_kept_short() {
        let body = "x".repeat(2000);
        match classify_http_error(400, None, &body) {
            LlmError::InvalidRequest { message, .. } => assert!(message.chars().count() <= 501),
            other => panic!("unexpected {other:?}"),
        }
    }
}
