//! Google Generative AI request:
//! `POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse`.
//!
//! Thinking levels become `thinkingBudget` (Gemini 2.5) or `thinkingLevel` (Gemini 3), with
//! `includeThoughts`. Every `thoughtSignature` goes back on the part it came with; Gemini 3
//! rejects a replayed function call without one, so calls that never had one (another model's)
//! carry the documented placeholder that skips validation.

use serde_json::{json, Map, Value};

use super::{join_url, max_tokens, HttpRequest, RequestOptions};
use crate::model::{Model, ThinkingLevel};
use crate::types::{AssistantContent, AssistantMessage, Context, Message, UserContent};

/// Google's documented stand-in for a missing thought signature on a replayed call.
pub const SKIP_SIGNATURE_VALIDATION: &str = "skip_thought_signature_validator";

fn is_gemini_3(model: &Model) -> bool {
    model.id.contains("gemini-3")
}

/// `generationConfig.thinkingConfig` for a level, `None` for models that cannot think.
pub fn thinking_config(model: &Model, level: ThinkingLevel) -> Option<Value> {
    if !model.reasoning {
        return None;
    }
    if is_gemini_3(model) {
        // Gemini 3 cannot switch thinking off; `low` is the least.
        let thinking_level = match level {
            ThinkingLevel::Off | ThinkingLevel::Minimal | ThinkingLevel::Low => "low",
            ThinkingLevel::Medium | ThinkingLevel::High => "high",
        };
        return Some(match level {
            ThinkingLevel::Off => json!({"thinkingLevel": thinking_level}),
            _ => json!({"thinkingLevel": thinking_level, "includeThoughts": true}),
        });
    }
    let budget = match level {
        // 2.5 Pro cannot switch thinking off; 128 tokens is its minimum.
        ThinkingLevel::Off if model.id.contains("pro") => 128,
        ThinkingLevel::Off => return Some(json!({"thinkingBudget": 0})),
        ThinkingLevel::Minimal => 512,
        ThinkingLevel::Low => 2048,
        ThinkingLevel::Medium => 8192,
        ThinkingLevel::High => 24576,
    };
    Some(json!({"thinkingBudget": budget, "includeThoughts": level != ThinkingLevel::Off}))
}

pub fn build(model: &Model, context: &Context, options: &RequestOptions) -> HttpRequest {
    let mut body = Map::new();
    body.insert("contents".into(), Value::Array(contents(model, context)));
    if let Some(system) = context.system_prompt.as_deref().filter(|s| !s.is_empty()) {
        body.insert(
            "systemInstruction".into(),
            json!({"parts": [{"text": system}]}),
        );
    }
    if !context.tools.is_empty() {
        // `parametersJsonSchema` takes full JSON Schema (`parameters` takes an OpenAPI subset).
        let declarations: Vec<Value> = context
            .tools
            .iter()
            .map(|tool| {
                json!({"name": tool.name, "description": tool.description,
                       "parametersJsonSchema": tool.parameters})
            })
            .collect();
        body.insert(
            "tools".into(),
            json!([{"functionDeclarations": declarations}]),
        );
    }
    let mut generation = Map::new();
    generation.insert("maxOutputTokens".into(), json!(max_tokens(model, options)));
    let thinking = thinking_config(model, options.thinking);
    if let Some(config) = thinking {
        generation.insert("thinkingConfig".into(), config);
    }
    if let Some(temperature) = options.temperature {
        generation.insert("temperature".into(), json!(temperature));
    }
    body.insert("generationConfig".into(), Value::Object(generation));
    let mut headers = vec![
        ("content-type".to_string(), "application/json".to_string()),
        ("accept".to_string(), "text/event-stream".to_string()),
    ];
    if let Some(key) = &options.api_key {
        headers.push(("x-goog-api-key".to_string(), key.clone()));
    }
    let path = format!("/v1beta/models/{}:streamGenerateContent?alt=sse", model.id);
    HttpRequest {
        url: join_url(&model.base_url, &path),
        headers,
        body: Value::Object(body),
    }
}

fn user_parts(content: &[UserContent]) -> Vec<Value> {
    content
        .iter()
        .filter_map(|part| match part {
            UserContent::Text(text) if text.text.is_empty() => None,
            UserContent::Text(text) => Some(json!({"text": text.text})),
            UserContent::Image(image) => {
                Some(json!({"inlineData": {"mimeType": image.mime_type, "data": image.data}}))
            }
        })
        .collect()
}

fn with_signature(mut part: Value, signature: Option<&String>) -> Value {
    if let (Some(signature), Value::Object(part)) = (signature, &mut part) {
        part.insert("thoughtSignature".into(), json!(signature));
    }
    part
}

fn model_parts(model: &Model, message: &AssistantMessage) -> Vec<Value> {
    let mut parts = Vec::new();
    for block in &message.content {
        match block {
            AssistantContent::Thinking(thinking) => {
                if thinking.thinking.is_empty() && thinking.signature.is_none() {
                    continue;
                }
                let part = json!({"text": thinking.thinking, "thought": true});
                parts.push(with_signature(part, thinking.signature.as_ref()));
            }
            AssistantContent::Text(text) => {
                if text.text.is_empty() && text.signature.is_none() {
                    continue;
                }
                parts.push(with_signature(
                    json!({"text": text.text}),
                    text.signature.as_ref(),
                ));
            }
            AssistantContent::ToolCall(call) => {
                let placeholder = SKIP_SIGNATURE_VALIDATION.to_string();
                let signature = call
                    .thought_signature
                    .as_ref()
                    .or_else(|| is_gemini_3(model).then_some(&placeholder));
                let part = json!({"functionCall": {"name": call.name, "args": call.arguments}});
                parts.push(with_signature(part, signature));
            }
        }
    }
    parts
}

fn contents(model: &Model, context: &Context) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    // Results of one turn's calls travel together in one user content.
    let mut responses: Vec<Value> = Vec::new();
    let mut images: Vec<Value> = Vec::new();
    let flush = |responses: &mut Vec<Value>, images: &mut Vec<Value>, out: &mut Vec<Value>| {
        if !responses.is_empty() {
            responses.append(images);
            out.push(json!({"role": "user", "parts": std::mem::take(responses)}));
        }
    };
    for message in &context.messages {
        match message {
            Message::ToolResult(result) => {
                let text = super::joined_text(&result.content);
                let key = if result.is_error { "error" } else { "output" };
                responses.push(json!({"functionResponse": {
                    "name": result.tool_name,
                    "response": { key: text },
                }}));
                images.extend(
                    user_parts(&result.content)
                        .into_iter()
                        .filter(|part| part.get("inlineData").is_some()),
                );
            }
            Message::User(user) => {
                flush(&mut responses, &mut images, &mut out);
                let parts = user_parts(&user.content);
                if !parts.is_empty() {
                    out.push(json!({"role": "user", "parts": parts}));
                }
            }
            Message::Assistant(assistant) => {
                flush(&mut responses, &mut images, &mut out);
                let parts = model_parts(model, assistant);
                if !parts.is_empty() {
                    out.push(json!({"role": "model", "parts": parts}));
                }
            }
        }
    }
    flush(&mut responses, &mut images, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::build_request;
    use crate::request::fixtures::{conversation, model};
    use crate::types::Api;

    const BASE: &str = "https://generativelanguage.googleapis.com";

    #[test]
    fn request_snapshot_same_model() {
        let gemini = model(Api::GoogleGenerativeAi, "google", "gemini-2.5-pro", BASE);
        let options = RequestOptions {
            api_key: Some("AIza-test".into()),
            thinking: ThinkingLevel::Low,
            ..RequestOptions::default()
        };
        let request = build_request(&gemini, &conversation(&gemini), &options);
        assert_eq!(
            request.url,
            format!("{BASE}/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse")
        );
        assert_eq!(request.header("x-goog-api-key"), Some("AIza-test"));
        insta::assert_json_snapshot!(request.body);
    }

    #[test]
    fn gemini_3_calls_from_other_models_get_the_placeholder_signature() {
        let gemini = model(
            Api::GoogleGenerativeAi,
            "google",
            "gemini-3-pro-preview",
            BASE,
        );
        let claude = model(Api::AnthropicMessages, "anthropic", "claude", "https://a");
        let request = build_request(&gemini, &conversation(&claude), &RequestOptions::default());
        let parts = request.body["contents"][1]["parts"].as_array().unwrap();
        let calls: Vec<&Value> = parts
            .iter()
            .filter(|p| p.get("functionCall").is_some())
            .collect();
        assert_eq!(calls.len(), 2);
        assert!(calls
            .iter()
            .all(|c| c["thoughtSignature"] == SKIP_SIGNATURE_VALIDATION));
        assert_eq!(
            request.body["generationConfig"]["thinkingConfig"],
            json!({"thinkingLevel": "low"})
        );
    }

    #[test]
    fn thinking_budgets_by_level() {
        let flash = model(Api::GoogleGenerativeAi, "google", "gemini-2.5-flash", BASE);
        assert_eq!(
            thinking_config(&flash, ThinkingLevel::Off),
            Some(json!({"thinkingBudget": 0}))
        );
        assert_eq!(
            thinking_config(&flash, ThinkingLevel::High),
            Some(json!({"thinkingBudget": 24576, "includeThoughts": true}))
        );
        let mut plain = flash.clone();
        plain.reasoning = false;
        assert_eq!(thinking_config(&plain, ThinkingLevel::High), None);
    }
}
