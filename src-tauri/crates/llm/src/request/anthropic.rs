//! Anthropic Messages request: `POST {base}/v1/messages`.
//!
//! Thinking levels map to `budget_tokens` (minimal 1024, low 2048, medium 8192, high 16384);
//! signed thinking and redacted thinking are replayed as received; consecutive tool results go
//! into one user message; the system prompt and the last user message are marked for prompt
//! caching.

use serde_json::{json, Map, Value};

use super::{join_url, max_tokens, HttpRequest, RequestOptions};
use crate::model::{Model, ThinkingLevel};
use crate::types::{AssistantContent, AssistantMessage, Context, Message, UserContent};

pub const API_VERSION: &str = "2023-06-01";

/// Thinking budget in tokens for a level; `None` when thinking is off.
pub fn thinking_budget(level: ThinkingLevel) -> Option<u32> {
    match level {
        ThinkingLevel::Off => None,
        ThinkingLevel::Minimal => Some(1024),
        ThinkingLevel::Low => Some(2048),
        ThinkingLevel::Medium => Some(8192),
        ThinkingLevel::High => Some(16384),
    }
}

pub fn build(model: &Model, context: &Context, options: &RequestOptions) -> HttpRequest {
    let mut body = Map::new();
    body.insert("model".into(), json!(model.id));
    let mut limit = max_tokens(model, options);
    let budget = thinking_budget(options.thinking).filter(|_| model.reasoning);
    if let Some(mut budget) = budget {
        // The budget must stay below max_tokens, and Anthropic's minimum budget is 1024.
        if limit <= budget {
            limit = budget + 1024;
        }
        budget = budget.min(limit - 1);
        body.insert(
            "thinking".into(),
            json!({"type": "enabled", "budget_tokens": budget}),
        );
    }
    body.insert("max_tokens".into(), json!(limit));
    body.insert("stream".into(), json!(true));
    if let Some(system) = context.system_prompt.as_deref().filter(|s| !s.is_empty()) {
        body.insert(
            "system".into(),
            json!([{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}]),
        );
    }
    body.insert("messages".into(), Value::Array(messages(context)));
    if !context.tools.is_empty() {
        let tools: Vec<Value> = context
            .tools
            .iter()
            .map(|tool| {
                json!({"name": tool.name, "description": tool.description, "input_schema": tool.parameters})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    if let (Some(temperature), None) = (options.temperature, budget) {
        body.insert("temperature".into(), json!(temperature));
    }
    let mut headers = vec![
        ("content-type".to_string(), "application/json".to_string()),
        ("accept".to_string(), "text/event-stream".to_string()),
        ("anthropic-version".to_string(), API_VERSION.to_string()),
    ];
    if let Some(key) = &options.api_key {
        headers.push(("x-api-key".to_string(), key.clone()));
    }
    HttpRequest {
        url: join_url(&model.base_url, "/v1/messages"),
        headers,
        body: Value::Object(body),
    }
}

fn user_blocks(content: &[UserContent]) -> Vec<Value> {
    content
        .iter()
        .filter_map(|part| match part {
            UserContent::Text(text) if text.text.is_empty() => None,
            UserContent::Text(text) => Some(json!({"type": "text", "text": text.text})),
            UserContent::Image(image) => Some(json!({
                "type": "image",
                "source": {"type": "base64", "media_type": image.mime_type, "data": image.data}
            })),
        })
        .collect()
}

fn assistant_blocks(message: &AssistantMessage) -> Vec<Value> {
    message
        .content
        .iter()
        .filter_map(|block| match block {
            AssistantContent::Thinking(thinking) if thinking.redacted => thinking
                .signature
                .as_ref()
                .map(|data| json!({"type": "redacted_thinking", "data": data})),
            AssistantContent::Thinking(thinking) => match &thinking.signature {
                Some(signature) if !signature.is_empty() => Some(json!({
                    "type": "thinking", "thinking": thinking.thinking, "signature": signature
                })),
                // Unsigned thinking (an interrupted stream) cannot be replayed as thinking.
                _ if !thinking.thinking.trim().is_empty() => {
                    Some(json!({"type": "text", "text": thinking.thinking}))
                }
                _ => None,
            },
            AssistantContent::Text(text) if text.text.is_empty() => None,
            AssistantContent::Text(text) => Some(json!({"type": "text", "text": text.text})),
            AssistantContent::ToolCall(call) => Some(json!({
                "type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments
            })),
        })
        .collect()
}

fn messages(context: &Context) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    let mut tool_results: Vec<Value> = Vec::new();
    let flush = |results: &mut Vec<Value>, out: &mut Vec<Value>| {
        if !results.is_empty() {
            out.push(json!({"role": "user", "content": std::mem::take(results)}));
        }
    };
    for message in &context.messages {
        match message {
            Message::ToolResult(result) => {
                let mut content = user_blocks(&result.content);
                if content.is_empty() {
                    content.push(json!({"type": "text", "text": "(no output)"}));
                }
                tool_results.push(json!({
                    "type": "tool_result",
                    "tool_use_id": result.tool_call_id,
                    "content": content,
                    "is_error": result.is_error,
                }));
            }
            Message::User(user) => {
                flush(&mut tool_results, &mut out);
                let content = user_blocks(&user.content);
                if !content.is_empty() {
                    out.push(json!({"role": "user", "content": content}));
                }
            }
            Message::Assistant(assistant) => {
                flush(&mut tool_results, &mut out);
                let content = assistant_blocks(assistant);
                if !content.is_empty() {
                    out.push(json!({"role": "assistant", "content": content}));
                }
            }
        }
    }
    flush(&mut tool_results, &mut out);
    mark_last_user_message_for_caching(&mut out);
    out
}

/// Caching the conversation prefix up to the newest user turn makes the next turn cheap.
fn mark_last_user_message_for_caching(messages: &mut [Value]) {
    let last_user = messages.iter_mut().rev().find(|m| m["role"] == "user");
    if let Some(Value::Array(blocks)) = last_user.and_then(|m| m.get_mut("content")) {
        if let Some(Value::Object(block)) = blocks.last_mut() {
            block.insert("cache_control".into(), json!({"type": "ephemeral"}));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::build_request;
    use crate::request::fixtures::{conversation, model};
    use crate::types::Api;

    fn claude() -> Model {
        model(
            Api::AnthropicMessages,
            "anthropic",
            "claude-sonnet-4-5",
            "https://api.anthropic.com/",
        )
    }

    #[test]
    fn request_snapshot_same_model() {
        let options = RequestOptions {
            api_key: Some("sk-ant-test".into()),
            thinking: ThinkingLevel::Medium,
            ..RequestOptions::default()
        };
        let request = build_request(&claude(), &conversation(&claude()), &options);
        assert_eq!(request.url, "https://api.anthropic.com/v1/messages");
        assert_eq!(request.header("x-api-key"), Some("sk-ant-test"));
        assert_eq!(request.header("anthropic-version"), Some(API_VERSION));
        insta::assert_json_snapshot!(request.body);
    }

    #[test]
    fn request_snapshot_from_gemini_history() {
        let gemini = model(
            Api::GoogleGenerativeAi,
            "google",
            "gemini-2.5-pro",
            "https://g",
        );
        let request = build_request(
            &claude(),
            &conversation(&gemini),
            &RequestOptions::default(),
        );
        assert!(request.body.get("thinking").is_none());
        insta::assert_json_snapshot!(request.body["messages"]);
    }

    #[test]
    fn budget_stays_below_max_tokens() {
        let options = RequestOptions {
            thinking: ThinkingLevel::High,
            max_tokens: Some(4000),
            temperature: Some(0.5),
            ..RequestOptions::default()
        };
        let request = build_request(&claude(), &Context::default(), &options);
        let budget = request.body["thinking"]["budget_tokens"].as_u64().unwrap();
        let limit = request.body["max_tokens"].as_u64().unwrap();
        assert!(budget < limit, "{budget} < {limit}");
        assert!(request.body.get("temperature").is_none());
    }
}
