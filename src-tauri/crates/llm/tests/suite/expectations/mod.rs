//! The explicit mapping from EXPECTED.json's raw provider vocabulary to Arbor's unified model,
//! and the comparisons. Each function returns every mismatch it finds, joined.

use arbor_llm::classify::{classify_http_error, ProviderErrorBody};
use arbor_llm::partial_json::parse_arguments;
use arbor_llm::{Api, AssistantContent, AssistantMessage, LlmError, StopReason};
use serde_json::{json, Value};

mod usage;
use usage::{anthropic_usage, chat_usage, gemini_usage, n, responses_usage};

/// What a stream ended with.
pub struct Outcome {
    pub message: AssistantMessage,
    pub error: Option<LlmError>,
}

/// Collects mismatches.
#[derive(Default)]
struct Diff(Vec<String>);

impl Diff {
    fn eq<T: PartialEq + std::fmt::Debug>(&mut self, what: &str, ours: T, expected: T) {
        if ours != expected {
            let show = |v: &T| {
                let text = format!("{v:?}");
                match text.char_indices().nth(300) {
                    Some((cut, _)) => format!("{}…", &text[..cut]),
                    None => text,
                }
            };
            self.0.push(format!(
                "{what}: got {} expected {}",
                show(&ours),
                show(&expected)
            ));
        }
    }

    fn result(self) -> Result<(), String> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(self.0.join("; "))
        }
    }
}

fn text_or_empty(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_string()
}

fn thinking_text(message: &AssistantMessage) -> String {
    message.thinking().map(|t| t.thinking.as_str()).collect()
}

/// The error class an expected `errors[0]` (a provider error object) maps to.
fn expected_error_class(error: &Value) -> &'static str {
    let kind = error["type"]
        .as_str()
        .or(error["code"].as_str())
        .unwrap_or_default();
    match kind {
        "overloaded_error" | "server_error" | "api_error" => "overloaded",
        "insufficient_quota" => "quota_exceeded",
        "rate_limit_error" => "rate_limited",
        "invalid_request_error" => "invalid_request",
        other => panic!("no class mapping for expected error type `{other}`"),
    }
}

/// The unified stop reason (and error class, for stop reasons that end as an error) that a raw
/// provider stop reason maps to.
fn expected_stop(
    api: Api,
    raw: Option<&str>,
    has_tool_calls: bool,
) -> (StopReason, Option<&'static str>) {
    use StopReason::*;
    match (api, raw) {
        (Api::AnthropicMessages, Some("end_turn" | "stop_sequence")) => (Stop, None),
        (Api::AnthropicMessages, Some("tool_use")) => (ToolUse, None),
        (Api::AnthropicMessages, Some("max_tokens")) => (Length, None),
        (Api::AnthropicMessages, Some("refusal")) => (Error, Some("refused")),
        (Api::OpenAiCompletions, Some("stop")) => (Stop, None),
        (Api::OpenAiCompletions, Some("tool_calls")) => (ToolUse, None),
        (Api::OpenAiCompletions, Some("length")) => (Length, None),
        (Api::OpenAiCompletions, Some("content_filter")) => (Error, Some("refused")),
        // Gemini says STOP for tool calls too; Arbor needs `tool_use` to run them.
        (Api::GoogleGenerativeAi, Some("STOP")) if has_tool_calls => (ToolUse, None),
        (Api::GoogleGenerativeAi, Some("STOP")) => (Stop, None),
        (Api::GoogleGenerativeAi, Some("MAX_TOKENS")) => (Length, None),
        (Api::GoogleGenerativeAi, Some("SAFETY")) => (Error, Some("refused")),
        (Api::GoogleGenerativeAi, Some("MALFORMED_FUNCTION_CALL")) => (Error, Some("provider")),
        (Api::OpenAiResponses, Some("completed")) if has_tool_calls => (ToolUse, None),
        (Api::OpenAiResponses, Some("completed")) => (Stop, None),
        (Api::OpenAiResponses, Some("incomplete")) => (Length, None),
        (Api::OpenAiResponses, Some("failed")) => (Error, None),
        // No stop reason: the stream failed (an error event, or it was cut short).
        (_, None) => (Error, None),
        (api, Some(other)) => panic!("no stop-reason mapping for {api} `{other}`"),
    }
}

fn check_stop_and_error(
    diff: &mut Diff,
    api: Api,
    outcome: &Outcome,
    raw_stop: Option<&str>,
    expected_errors: &[Value],
    has_tool_calls: bool,
) {
    let (stop, mut class) = expected_stop(api, raw_stop, has_tool_calls);
    if let Some(first) = expected_errors.first() {
        class = Some(expected_error_class(first));
    }
    diff.eq("stop reason", outcome.message.stop_reason, stop);
    diff.eq(
        "error class",
        outcome.error.as_ref().map(LlmError::class),
        if stop == StopReason::Error {
            // A stream that failed without a provider error was cut short: a network error.
            Some(class.unwrap_or("network"))
        } else {
            None
        },
    );
}

/// Our tool calls as (id, name, arguments) for comparison.
fn our_calls(message: &AssistantMessage) -> Vec<(String, String, Value)> {
    message
        .tool_calls()
        .map(|c| {
            (
                c.id.clone(),
                c.name.clone(),
                Value::Object(c.arguments.clone()),
            )
        })
        .collect()
}

/// Anthropic tool input as Arbor keeps it: a cut-off input (stop reason max_tokens) is the best
/// partial reading of the raw JSON.
fn anthropic_input(input: &Value) -> Value {
    match input
        .get("__unparseable_partial_json__")
        .and_then(Value::as_str)
    {
        Some(raw) => Value::Object(parse_arguments(raw)),
        None => input.clone(),
    }
}

pub fn check_stream(api: Api, outcome: &Outcome, expected: &Value) -> Result<(), String> {
    let mut diff = Diff::default();
    let message = &outcome.message;
    let errors = expected["errors"].as_array().cloned().unwrap_or_default();
    match api {
        Api::AnthropicMessages => {
            diff.eq("text", message.text(), text_or_empty(&expected["text"]));
            let ours: Vec<(String, Option<String>)> = message
                .thinking()
                .map(|t| (t.thinking.clone(), t.signature.clone()))
                .collect();
            let theirs: Vec<(String, Option<String>)> = expected["thinking"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| {
                    (
                        text_or_empty(&t["thinking"]),
                        t["signature"].as_str().map(String::from),
                    )
                })
                .collect();
            diff.eq("thinking", ours, theirs);
            // Server tools (`server_tool_use`) run at Anthropic; they are not calls for Arbor.
            let calls: Vec<(String, String, Value)> = expected["tool_calls"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|c| c["block_type"] == "tool_use")
                .map(|c| {
                    (
                        text_or_empty(&c["id"]),
                        text_or_empty(&c["name"]),
                        anthropic_input(&c["input"]),
                    )
                })
                .collect();
            diff.eq("tool calls", our_calls(message), calls);
            let raw_stop = expected["stop_reason"].as_str();
            check_stop_and_error(&mut diff, api, outcome, raw_stop, &errors, false);
            diff.eq("usage", message.usage, anthropic_usage(&expected["usage"]));
            diff.eq(
                "message id",
                message.response_id.clone(),
                expected["message_id"].as_str().map(String::from),
            );
        }
        Api::OpenAiCompletions => {
            // n > 1 recordings: Arbor reads choice 0.
            let choice = expected["choices"].get(0).unwrap_or(expected);
            // Refusal text is shown to the user as the answer's text.
            let text = text_or_empty(&choice["text"]) + &text_or_empty(&choice["refusal"]);
            diff.eq("text", message.text(), text);
            diff.eq(
                "reasoning",
                thinking_text(message),
                text_or_empty(&choice["reasoning"]),
            );
            let calls: Vec<(String, String, Value)> = choice["tool_calls"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| {
                    (
                        text_or_empty(&c["id"]),
                        text_or_empty(&c["name"]),
                        c["arguments"].clone(),
                    )
                })
                .collect();
            let has_calls = !calls.is_empty();
            diff.eq("tool calls", our_calls(message), calls);
            let raw_stop = choice["finish_reason"].as_str();
            check_stop_and_error(&mut diff, api, outcome, raw_stop, &errors, has_calls);
            diff.eq("usage", message.usage, chat_usage(&expected["usage"]));
        }
        Api::OpenAiResponses => {
            // Commentary-phase messages are progress notes; the answer is the rest.
            let answer: String = message
                .content
                .iter()
                .filter_map(|b| match b {
                    AssistantContent::Text(t) if t.phase.as_deref() != Some("commentary") => {
                        Some(t.text.as_str())
                    }
                    _ => None,
                })
                .collect();
            diff.eq("text", answer, text_or_empty(&expected["text"]));
            for item in expected["message_items"].as_array().into_iter().flatten() {
                let (phase, text) = (item["phase"].as_str(), text_or_empty(&item["text"]));
                if text.is_empty() {
                    continue; // the reference keyed rotated ids apart; the text is what counts
                }
                let found = message.content.iter().any(|b| {
                    matches!(b, AssistantContent::Text(t) if t.phase.as_deref() == phase && t.text == text)
                });
                diff.eq(&format!("message item in phase {phase:?}"), found, true);
            }
            if let Some(summary) = expected["reasoning_summary"].as_str() {
                diff.eq(
                    "reasoning summary",
                    thinking_text(message),
                    summary.to_string(),
                );
            }
            for thinking in message.thinking() {
                let item: Value =
                    serde_json::from_str(thinking.signature.as_deref().unwrap_or("null"))
                        .unwrap_or(Value::Null);
                diff.eq(
                    "reasoning item kept for replay",
                    item["type"].as_str(),
                    Some("reasoning"),
                );
            }
            let calls: Vec<(String, String, Value)> = expected["tool_calls"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| {
                    let arguments = if c["custom"] == true {
                        json!({ "input": c["input"] })
                    } else {
                        c["arguments"].clone()
                    };
                    (
                        text_or_empty(&c["call_id"]),
                        text_or_empty(&c["name"]),
                        arguments,
                    )
                })
                .collect();
            let has_calls = !calls.is_empty();
            diff.eq("tool calls", our_calls(message), calls);
            let item_ids: Vec<Option<String>> =
                message.tool_calls().map(|c| c.item_id.clone()).collect();
            let expected_ids: Vec<Option<String>> = expected["tool_calls"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| c["item_id"].as_str().map(String::from))
                .collect();
            diff.eq("tool call item ids", item_ids, expected_ids);
            check_stop_and_error(
                &mut diff,
                api,
                outcome,
                expected["status"].as_str(),
                &errors,
                has_calls,
            );
            diff.eq("usage", message.usage, responses_usage(&expected["usage"]));
            diff.eq(
                "response id",
                message.response_id.clone(),
                expected["response_id"].as_str().map(String::from),
            );
        }
        Api::GoogleGenerativeAi => {
            diff.eq("text", message.text(), text_or_empty(&expected["text"]));
            diff.eq(
                "thought text",
                thinking_text(message),
                text_or_empty(&expected["thought_text"]),
            );
            let signatures = message
                .content
                .iter()
                .filter(|b| match b {
                    AssistantContent::Text(t) => t.signature.is_some(),
                    AssistantContent::Thinking(t) => t.signature.is_some(),
                    AssistantContent::ToolCall(c) => c.thought_signature.is_some(),
                })
                .count() as u64;
            diff.eq(
                "thought signatures",
                signatures,
                n(expected, "/thought_signatures_seen"),
            );
            let ours: Vec<(String, Value)> = message
                .tool_calls()
                .map(|c| (c.name.clone(), Value::Object(c.arguments.clone())))
                .collect();
            let theirs: Vec<(String, Value)> = expected["function_calls"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| (text_or_empty(&c["name"]), c["args"].clone()))
                .collect();
            let has_calls = !theirs.is_empty();
            diff.eq("function calls", ours, theirs);
            let raw_stop = expected["finish_reason"].as_str();
            check_stop_and_error(&mut diff, api, outcome, raw_stop, &errors, has_calls);
            diff.eq("usage", message.usage, gemini_usage(&expected["usage"]));
        }
    }
    diff.result()
}

pub fn check_non_stream_message(
    message: &AssistantMessage,
    expected: &Value,
) -> Result<(), String> {
    let mut diff = Diff::default();
    diff.eq("text", message.text(), text_or_empty(&expected["text"]));
    let calls: Vec<(String, String, Value)> = expected["tool_calls"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            (
                text_or_empty(&c["id"]),
                text_or_empty(&c["name"]),
                c["input"].clone(),
            )
        })
        .collect();
    diff.eq("tool calls", our_calls(message), calls);
    let (stop, _) = expected_stop(
        Api::AnthropicMessages,
        expected["stop_reason"].as_str(),
        false,
    );
    diff.eq("stop reason", message.stop_reason, stop);
    diff.eq("usage", message.usage, anthropic_usage(&expected["usage"]));
    diff.result()
}

/// HTTP status and the class each error body must get. EXPECTED.json holds the body fields; the
/// status comes from the file name (or, for the one body without, OpenAI's documented 429).
fn error_body_expectation(relative: &str) -> (u16, &'static str) {
    let status = relative
        .split('_')
        .find_map(|part| part.parse::<u16>().ok().filter(|s| (400..600).contains(s)))
        .unwrap_or(429);
    let class = if relative.contains("ctx") {
        "context_overflow"
    } else if relative.contains("insufficient_quota") {
        "quota_exceeded"
    } else if status == 429 {
        "rate_limited"
    } else {
        "invalid_request"
    };
    (status, class)
}

pub fn check_error_body(relative: &str, body: &str, expected: &Value) -> Result<(), String> {
    let mut diff = Diff::default();
    let Some(fields) = ProviderErrorBody::parse(body) else {
        return Err("the body was not recognised as an error".into());
    };
    let code_text = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    diff.eq(
        "error type",
        fields.error_type.clone(),
        expected["error_type"].as_str().map(String::from),
    );
    diff.eq(
        "error code",
        fields.code.clone(),
        code_text(&expected["error_code"]),
    );
    if expected.get("param").is_some() {
        diff.eq(
            "param",
            fields.param.clone(),
            expected["param"].as_str().map(String::from),
        );
    }
    diff.eq(
        "message",
        fields.message.clone(),
        text_or_empty(&expected["message"]),
    );
    if expected.get("request_id").is_some() {
        diff.eq(
            "request id",
            fields.request_id.clone(),
            expected["request_id"].as_str().map(String::from),
        );
    }
    let (status, class) = error_body_expectation(relative);
    let error = classify_http_error(status, None, body);
    diff.eq("class", error.class(), class);
    if relative.contains("retry_info") {
        diff.eq(
            "retry delay",
            error.retry_after(),
            Some(std::time::Duration::from_millis(34_400)),
        );
    }
    diff.result()
}
