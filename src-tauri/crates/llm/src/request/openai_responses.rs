//! OpenAI Responses request: `POST {base}/responses` (base includes `/v1`).
//!
//! Stateless (`store: false`): nothing is kept on the server between requests, so a reasoning
//! model is always asked for `include: ["reasoning.encrypted_content"]` — a reasoning model
//! reasons even when no effort is sent (thinking level `off`) — and its reasoning items are
//! replayed verbatim only with that encrypted content. An item without it would be looked up by
//! its `rs_…` id and rejected ("Items are not persisted when `store` is set to false"), so it is
//! dropped. Thinking levels become `reasoning.effort` with an automatic summary.

use serde_json::{json, Map, Value};

use super::openai_completions::reasoning_effort;
use super::{
    bearer_headers, data_url, join_url, joined_text, max_tokens, split_content, HttpRequest,
    RequestOptions,
};
use crate::model::Model;
use crate::types::{AssistantContent, AssistantMessage, Context, Message, UserContent};

pub fn build(model: &Model, context: &Context, options: &RequestOptions) -> HttpRequest {
    let discovered;
    let model = if !model.reasoning && returned_reasoning(model, context) {
        // A model the catalogue does not know as a reasoning one (a custom `--model` on a
        // `--base-url`) that has returned a reasoning item is one: from now on its reasoning is
        // asked for, so it can be replayed (`store: false` keeps nothing on the server).
        discovered = Model {
            reasoning: true,
            ..model.clone()
        };
        &discovered
    } else {
        model
    };
    let mut body = Map::new();
    body.insert("model".into(), json!(model.id));
    if let Some(system) = context.system_prompt.as_deref().filter(|s| !s.is_empty()) {
        body.insert("instructions".into(), json!(system));
    }
    body.insert("input".into(), Value::Array(input(context)));
    body.insert("stream".into(), json!(true));
    body.insert("store".into(), json!(false));
    body.insert(
        "max_output_tokens".into(),
        json!(max_tokens(model, options)),
    );
    if !context.tools.is_empty() {
        let tools: Vec<Value> = context
            .tools
            .iter()
            .map(|tool| {
                json!({"type": "function", "name": tool.name, "description": tool.description,
                       "parameters": tool.parameters, "strict": false})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    let effort = reasoning_effort(model, options.thinking).filter(|_| model.reasoning);
    if let Some(effort) = effort {
        body.insert(
            "reasoning".into(),
            json!({"effort": effort, "summary": "auto"}),
        );
    }
    if model.reasoning {
        body.insert("include".into(), json!(["reasoning.encrypted_content"]));
    }
    if let (Some(temperature), None) = (options.temperature, effort) {
        body.insert("temperature".into(), json!(temperature));
    }
    let headers = bearer_headers(options);
    HttpRequest {
        url: join_url(&model.base_url, "/responses"),
        headers,
        body: Value::Object(body),
    }
}

/// Whether `model` itself returned a reasoning item earlier in `context`.
fn returned_reasoning(model: &Model, context: &Context) -> bool {
    context.messages.iter().any(|message| match message {
        Message::Assistant(reply) => {
            reply.api == model.api
                && reply.provider == model.provider
                && reply.model == model.id
                && reply
                    .content
                    .iter()
                    .any(|block| matches!(block, AssistantContent::Thinking(_)))
        }
        _ => false,
    })
}

fn user_item(content: &[UserContent]) -> Option<Value> {
    let parts: Vec<Value> = content
        .iter()
        .filter_map(|part| match part {
            UserContent::Text(text) if text.text.is_empty() => None,
            UserContent::Text(text) => Some(json!({"type": "input_text", "text": text.text})),
            UserContent::Image(image) => {
                Some(json!({"type": "input_image", "image_url": data_url(image)}))
            }
        })
        .collect();
    (!parts.is_empty()).then(|| json!({"role": "user", "content": parts}))
}

fn assistant_items(message: &AssistantMessage, out: &mut Vec<Value>) {
    for block in &message.content {
        match block {
            AssistantContent::Thinking(thinking) => {
                // Only a reasoning item recorded from this model, with its encrypted content,
                // can be replayed (`store: false` keeps nothing to look an id up in).
                let item = thinking
                    .signature
                    .as_deref()
                    .and_then(|s| serde_json::from_str::<Value>(s).ok())
                    .filter(|item| item["type"] == "reasoning")
                    .filter(|item| item["encrypted_content"].is_string());
                out.extend(item);
            }
            AssistantContent::Text(text) if text.text.is_empty() => {}
            AssistantContent::Text(text) => {
                let mut item = Map::new();
                item.insert("type".into(), json!("message"));
                item.insert("role".into(), json!("assistant"));
                item.insert(
                    "content".into(),
                    json!([{"type": "output_text", "text": text.text, "annotations": []}]),
                );
                item.insert("status".into(), json!("completed"));
                if let Some(id) = text
                    .signature
                    .as_deref()
                    .filter(|id| id.starts_with("msg_"))
                {
                    item.insert("id".into(), json!(id));
                }
                if let Some(phase) = &text.phase {
                    item.insert("phase".into(), json!(phase));
                }
                out.push(Value::Object(item));
            }
            AssistantContent::ToolCall(call) => {
                let mut item = Map::new();
                item.insert("type".into(), json!("function_call"));
                item.insert("call_id".into(), json!(call.id));
                item.insert("name".into(), json!(call.name));
                item.insert(
                    "arguments".into(),
                    json!(Value::Object(call.arguments.clone()).to_string()),
                );
                if let Some(id) = call.item_id.as_deref().filter(|id| id.starts_with("fc_")) {
                    item.insert("id".into(), json!(id));
                }
                out.push(Value::Object(item));
            }
        }
    }
}

fn input(context: &Context) -> Vec<Value> {
    let mut out = Vec::new();
    let mut pending_images: Vec<UserContent> = Vec::new();
    let flush_images = |images: &mut Vec<UserContent>, out: &mut Vec<Value>| {
        if !images.is_empty() {
            let mut content = vec![UserContent::Text(crate::types::TextContent::new(
                "Images returned by the tools:",
            ))];
            content.append(images);
            out.extend(user_item(&content));
        }
    };
    for message in &context.messages {
        match message {
            Message::ToolResult(result) => {
                let text = joined_text(&result.content);
                out.push(json!({
                    "type": "function_call_output",
                    "call_id": result.tool_call_id,
                    "output": if text.is_empty() { "(no output)".to_string() } else { text },
                }));
                let (_, images) = split_content(&result.content);
                pending_images.extend(images.into_iter().cloned().map(UserContent::Image));
            }
            Message::User(user) => {
                flush_images(&mut pending_images, &mut out);
                out.extend(user_item(&user.content));
            }
            Message::Assistant(assistant) => {
                flush_images(&mut pending_images, &mut out);
                assistant_items(assistant, &mut out);
            }
        }
    }
    flush_images(&mut pending_images, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ThinkingLevel;
    use crate::request::build_request;
    use crate::request::fixtures::{conversation, model};
    use crate::types::Api;

    #[test]
    fn request_snapshot_same_model_replays_reasoning() {
        let gpt = model(
            Api::OpenAiResponses,
            "openai",
            "gpt-5",
            "https://api.openai.com/v1/",
        );
        let options = RequestOptions {
            api_key: Some("sk-test".into()),
            thinking: ThinkingLevel::High,
            ..RequestOptions::default()
        };
        let request = build_request(&gpt, &conversation(&gpt), &options);
        assert_eq!(request.url, "https://api.openai.com/v1/responses");
        insta::assert_json_snapshot!(request.body);
    }

    #[test]
    fn other_models_reasoning_is_not_replayed() {
        let gpt = model(
            Api::OpenAiResponses,
            "openai",
            "gpt-5",
            "https://api.openai.com/v1",
        );
        let other = model(
            Api::OpenAiResponses,
            "openai",
            "gpt-5-mini",
            "https://api.openai.com/v1",
        );
        let request = build_request(&gpt, &conversation(&other), &RequestOptions::default());
        let input = request.body["input"].as_array().unwrap();
        assert!(input.iter().all(|item| item["type"] != "reasoning"));
        assert!(input
            .iter()
            .filter(|item| item["type"] == "function_call")
            .all(|item| item.get("id").is_none()));
        assert!(request.body.get("reasoning").is_none());
    }

    #[test]
    fn encrypted_reasoning_is_asked_for_by_reasoning_models_only_at_every_level() {
        let mut gpt = model(
            Api::OpenAiResponses,
            "openai",
            "gpt-5",
            "https://api.openai.com/v1",
        );
        gpt.reasoning = true;
        let off = build_request(&gpt, &conversation(&gpt), &RequestOptions::default());
        assert_eq!(off.body["include"], json!(["reasoning.encrypted_content"]));
        assert!(off.body.get("reasoning").is_none());

        gpt.reasoning = false;
        let options = RequestOptions {
            thinking: ThinkingLevel::High,
            ..RequestOptions::default()
        };
        let mut first_turn = conversation(&gpt);
        first_turn.messages.truncate(1);
        let plain = build_request(&gpt, &first_turn, &options);
        assert!(plain.body.get("include").is_none());
        assert!(plain.body.get("reasoning").is_none());
    }

    #[test]
    fn a_model_not_known_to_reason_that_returned_reasoning_is_treated_as_reasoning_from_then_on() {
        // A custom model on a custom endpoint: the catalogue knows nothing of it.
        let mut custom = model(
            Api::OpenAiResponses,
            "custom",
            "my-reasoner",
            "http://127.0.0.1:8000/v1",
        );
        custom.reasoning = false;
        let conversation = conversation(&custom);
        assert!(
            returned_reasoning(&custom, &conversation),
            "the fixture has a reasoning item"
        );
        let options = RequestOptions {
            thinking: ThinkingLevel::Medium,
            ..RequestOptions::default()
        };
        let request = build_request(&custom, &conversation, &options);
        assert_eq!(
            request.body["include"],
            json!(["reasoning.encrypted_content"])
        );
        assert_eq!(request.body["reasoning"]["effort"], json!("medium"));

        // Reasoning another model returned says nothing of this one.
        let other = model(
            Api::OpenAiResponses,
            "custom",
            "another",
            "http://127.0.0.1:8000/v1",
        );
        let request = build_request(
            &custom,
            &crate::request::fixtures::conversation(&other),
            &options,
        );
        assert!(request.body.get("include").is_none());
    }
}
