//! OpenAI Chat Completions request: `POST {base}/chat/completions` (base includes `/v1`).
//!
//! Thinking levels become `reasoning_effort` (or OpenRouter's `reasoning.effort`); a model's own
//! reasoning is sent back in the delta field it arrived in (`reasoning_content`…); tool results
//! are `tool` messages, and images they return follow in a user message (tool messages carry
//! text only).

use serde_json::{json, Map, Value};

use super::{
    bearer_headers, data_url, join_url, joined_text, max_tokens, split_content, HttpRequest,
    RequestOptions,
};
use crate::model::{MaxTokensField, Model, ReasoningFormat, ThinkingLevel};
use crate::types::{AssistantContent, AssistantMessage, Context, Message, UserContent};

/// The effort string for a level; `minimal` exists only on OpenAI's own models.
pub fn reasoning_effort(model: &Model, level: ThinkingLevel) -> Option<&'static str> {
    match level {
        ThinkingLevel::Off => None,
        ThinkingLevel::Minimal if model.provider == "openai" => Some("minimal"),
        ThinkingLevel::Minimal | ThinkingLevel::Low => Some("low"),
        ThinkingLevel::Medium => Some("medium"),
        ThinkingLevel::High => Some("high"),
    }
}

pub fn build(model: &Model, context: &Context, options: &RequestOptions) -> HttpRequest {
    let mut body = Map::new();
    body.insert("model".into(), json!(model.id));
    body.insert("messages".into(), Value::Array(messages(model, context)));
    body.insert("stream".into(), json!(true));
    if model.compat.stream_usage {
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    let limit_field = match model.compat.max_tokens_field {
        MaxTokensField::MaxTokens => "max_tokens",
        MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
    };
    body.insert(limit_field.into(), json!(max_tokens(model, options)));
    if !context.tools.is_empty() {
        let tools: Vec<Value> = context
            .tools
            .iter()
            .map(|tool| {
                json!({"type": "function", "function": {
                    "name": tool.name, "description": tool.description, "parameters": tool.parameters
                }})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    let effort = reasoning_effort(model, options.thinking).filter(|_| model.reasoning);
    match (model.compat.reasoning_format, effort) {
        (ReasoningFormat::ReasoningEffort, Some(effort)) => {
            body.insert("reasoning_effort".into(), json!(effort));
        }
        (ReasoningFormat::OpenRouter, Some(effort)) => {
            body.insert("reasoning".into(), json!({"effort": effort}));
        }
        _ => {}
    }
    if let (Some(temperature), None) = (options.temperature, effort) {
        body.insert("temperature".into(), json!(temperature));
    }
    let headers = bearer_headers(options);
    HttpRequest {
        url: join_url(&model.base_url, "/chat/completions"),
        headers,
        body: Value::Object(body),
    }
}

fn user_message(content: &[UserContent]) -> Option<Value> {
    let (texts, images) = split_content(content);
    if images.is_empty() {
        let text = joined_text(content);
        return (!text.is_empty()).then(|| json!({"role": "user", "content": text}));
    }
    let mut parts: Vec<Value> = texts
        .iter()
        .filter(|t| !t.text.is_empty())
        .map(|t| json!({"type": "text", "text": t.text}))
        .collect();
    parts.extend(
        images
            .iter()
            .map(|image| json!({"type": "image_url", "image_url": {"url": data_url(image)}})),
    );
    Some(json!({"role": "user", "content": parts}))
}

fn assistant_message(message: &AssistantMessage) -> Option<Value> {
    let mut out = Map::new();
    out.insert("role".into(), json!("assistant"));
    // Separate blocks (another model's thinking turned text, then the answer) stay paragraphs.
    let text = message
        .content
        .iter()
        .filter_map(|b| match b {
            AssistantContent::Text(t) if !t.text.is_empty() => Some(t.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n\n");
    out.insert(
        "content".into(),
        if text.is_empty() {
            Value::Null
        } else {
            json!(text)
        },
    );
    for block in &message.content {
        // Own reasoning goes back in the field it came in; servers that need it (DeepSeek with
        // tool calls) require exactly that field.
        if let AssistantContent::Thinking(thinking) = block {
            if let Some(field) = thinking.signature.as_deref() {
                if matches!(field, "reasoning_content" | "reasoning" | "reasoning_text") {
                    let entry = out.entry(field).or_insert_with(|| json!(""));
                    if let Value::String(existing) = entry {
                        existing.push_str(&thinking.thinking);
                    }
                }
            }
        }
    }
    let calls: Vec<Value> = message
        .tool_calls()
        .map(|call| {
            json!({"id": call.id, "type": "function", "function": {
                "name": call.name, "arguments": Value::Object(call.arguments.clone()).to_string()
            }})
        })
        .collect();
    let has_calls = !calls.is_empty();
    if has_calls {
        out.insert("tool_calls".into(), Value::Array(calls));
    }
    (!text.is_empty() || has_calls).then_some(Value::Object(out))
}

fn messages(model: &Model, context: &Context) -> Vec<Value> {
    let mut out = Vec::new();
    if let Some(system) = context.system_prompt.as_deref().filter(|s| !s.is_empty()) {
        let role = if model.compat.developer_role && model.reasoning {
            "developer"
        } else {
            "system"
        };
        out.push(json!({"role": role, "content": system}));
    }
    // Images returned by the current run of tool results, sent after it as a user message.
    let mut pending_images: Vec<Value> = Vec::new();
    let flush_images = |images: &mut Vec<Value>, out: &mut Vec<Value>| {
        if !images.is_empty() {
            let mut content =
                vec![json!({"type": "text", "text": "Images returned by the tools:"})];
            content.append(images);
            out.push(json!({"role": "user", "content": content}));
        }
    };
    for message in &context.messages {
        match message {
            Message::ToolResult(result) => {
                let text = joined_text(&result.content);
                out.push(json!({
                    "role": "tool",
                    "tool_call_id": result.tool_call_id,
                    "content": if text.is_empty() { "(no output)".to_string() } else { text },
                }));
                let (_, images) = split_content(&result.content);
                pending_images.extend(
                    images
                        .iter()
                        .map(|i| json!({"type": "image_url", "image_url": {"url": data_url(i)}})),
                );
            }
            Message::User(user) => {
                flush_images(&mut pending_images, &mut out);
                out.extend(user_message(&user.content));
            }
            Message::Assistant(assistant) => {
                flush_images(&mut pending_images, &mut out);
                out.extend(assistant_message(assistant));
            }
        }
    }
    flush_images(&mut pending_images, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CompletionsCompat;
    use crate::request::build_request;
    use crate::request::fixtures::{conversation, model};
    use crate::types::Api;

    #[test]
    fn request_snapshot_openai() {
        let mut gpt = model(
            Api::OpenAiCompletions,
            "openai",
            "gpt-5",
            "https://api.openai.com/v1",
        );
        gpt.compat = CompletionsCompat::openai();
        let options = RequestOptions {
            api_key: Some("sk-test".into()),
            thinking: ThinkingLevel::Minimal,
            ..RequestOptions::default()
        };
        let claude = model(Api::AnthropicMessages, "anthropic", "claude", "https://a");
        let request = build_request(&gpt, &conversation(&claude), &options);
        assert_eq!(request.url, "https://api.openai.com/v1/chat/completions");
        assert_eq!(request.header("authorization"), Some("Bearer sk-test"));
        insta::assert_json_snapshot!(request.body);
    }

    #[test]
    fn deepseek_gets_its_reasoning_back_and_openrouter_effort() {
        let deepseek = model(
            Api::OpenAiCompletions,
            "deepseek",
            "deepseek-reasoner",
            "https://api.deepseek.com/v1",
        );
        let request = build_request(
            &deepseek,
            &conversation(&deepseek),
            &RequestOptions::default(),
        );
        let assistant = &request.body["messages"][2];
        assert_eq!(assistant["reasoning_content"], "The user wants two files.");
        assert!(request.body.get("reasoning_effort").is_none());

        let mut router = model(
            Api::OpenAiCompletions,
            "openrouter",
            "x/y",
            "https://openrouter.ai/api/v1",
        );
        router.compat.reasoning_format = ReasoningFormat::OpenRouter;
        let options = RequestOptions {
            thinking: ThinkingLevel::Minimal,
            temperature: Some(0.2),
            ..RequestOptions::default()
        };
        let request = build_request(&router, &Context::default(), &options);
        assert_eq!(request.body["reasoning"], json!({"effort": "low"}));
        assert!(request.body.get("temperature").is_none());
        assert!(request.header("authorization").is_none());
    }
}
