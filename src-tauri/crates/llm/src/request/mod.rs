//! Request builders: a [`Context`] for a [`Model`] becomes the URL, headers and JSON body of one
//! streaming request, in the model's wire protocol.
//!
//! Conversations may have started on another provider: [`transform`] first rewrites the history
//! for the target (thinking it cannot verify becomes text, opaque signatures of other models are
//! dropped, tool-call ids are normalised, unanswered tool calls get an error result).

pub mod anthropic;
pub mod google;
pub mod openai_completions;
pub mod openai_responses;
pub mod transform;

use serde_json::Value;

use crate::model::{Model, ThinkingLevel};
use crate::types::{Api, Context, ImageContent, TextContent, UserContent};

/// Per-request settings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestOptions {
    pub api_key: Option<String>,
    pub thinking: ThinkingLevel,
    /// Output token limit; defaults to the model's.
    pub max_tokens: Option<u32>,
    /// Ignored while thinking (the providers reject or ignore it then).
    pub temperature: Option<f32>,
    /// Extra headers, added last (they can override the defaults).
    pub headers: Vec<(String, String)>,
}

/// A request ready to send.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpRequest {
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl HttpRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// Builds the streaming request for `model`.
pub fn build_request(model: &Model, context: &Context, options: &RequestOptions) -> HttpRequest {
    let context = transform::for_target(context, model);
    let mut request = match model.api {
        Api::AnthropicMessages => anthropic::build(model, &context, options),
        Api::OpenAiCompletions => openai_completions::build(model, &context, options),
        Api::OpenAiResponses => openai_responses::build(model, &context, options),
        Api::GoogleGenerativeAi => google::build(model, &context, options),
    };
    for (name, value) in &options.headers {
        request
            .headers
            .retain(|(key, _)| !key.eq_ignore_ascii_case(name));
        request.headers.push((name.clone(), value.clone()));
    }
    request
}

/// `base` without trailing slashes, joined with `path`.
pub(crate) fn join_url(base: &str, path: &str) -> String {
    format!("{}{path}", base.trim_end_matches('/'))
}

/// The output token limit to request.
pub(crate) fn max_tokens(model: &Model, options: &RequestOptions) -> u32 {
    options.max_tokens.unwrap_or(model.max_output_tokens).max(1)
}

/// The text parts of user content, and its images.
pub(crate) fn split_content(content: &[UserContent]) -> (Vec<&TextContent>, Vec<&ImageContent>) {
    let mut texts = Vec::new();
    let mut images = Vec::new();
    for part in content {
        match part {
            UserContent::Text(text) => texts.push(text),
            UserContent::Image(image) => images.push(image),
        }
    }
    (texts, images)
}

/// Joined text of user or tool-result content.
pub(crate) fn joined_text(content: &[UserContent]) -> String {
    let (texts, _) = split_content(content);
    texts
        .iter()
        .map(|t| t.text.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A `data:` URL for an image.
pub(crate) fn data_url(image: &ImageContent) -> String {
    format!("data:{};base64,{}", image.mime_type, image.data)
}

/// JSON in, SSE out, and the key as a bearer token: both OpenAI protocols and every compatible server.
pub(crate) fn bearer_headers(options: &RequestOptions) -> Vec<(String, String)> {
    let mut headers = vec![
        ("content-type".to_string(), "application/json".to_string()),
        ("accept".to_string(), "text/event-stream".to_string()),
    ];
    if let Some(key) = &options.api_key {
        headers.push(("authorization".to_string(), format!("Bearer {key}")));
    }
    headers
}

#[cfg(test)]
pub(crate) mod fixtures {
    //! A conversation exercising every content kind, shared by the builders' snapshot tests.

    use serde_json::json;

    use crate::model::{CompletionsCompat, Model};
    use crate::types::*;

    pub fn model(api: Api, provider: &str, id: &str, base_url: &str) -> Model {
        Model {
            id: id.into(),
            provider: provider.into(),
            api,
            base_url: base_url.into(),
            reasoning: true,
            images: true,
            context_window: 200_000,
            max_output_tokens: 32_000,
            pricing: Pricing::default(),
            compat: CompletionsCompat::default(),
        }
    }

    fn image() -> ImageContent {
        ImageContent {
            data: "iVBORw0KGgo=".into(),
            mime_type: "image/png".into(),
        }
    }

    /// A user prompt with an image; an assistant turn (thinking, text, two tool calls) produced
    /// by `producer`; both tool results (one an error, one with an image); a follow-up prompt.
    pub fn conversation(producer: &Model) -> Context {
        let call = |id: &str, item: &str, path: &str| ToolCall {
            id: id.into(),
            name: "read".into(),
            arguments: json!({ "path": path })
                .as_object()
                .cloned()
                .unwrap_or_default(),
            thought_signature: Some(format!("sig-{item}")),
            item_id: Some(item.into()),
        };
        let assistant = AssistantMessage {
            content: vec![
                AssistantContent::Thinking(ThinkingContent {
                    thinking: "The user wants two files.".into(),
                    signature: Some(match producer.api {
                        Api::OpenAiResponses => json!({"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"The user wants two files."}],"encrypted_content":"gAAA"}).to_string(),
                        Api::OpenAiCompletions => "reasoning_content".into(),
                        _ => "sig-thinking".into(),
                    }),
                    redacted: false,
                }),
                AssistantContent::Text(TextContent {
                    text: "Reading both.".into(),
                    signature: Some("msg_1".into()),
                    phase: None,
                }),
                AssistantContent::ToolCall(call("call|1/a", "fc_1", "a.txt")),
                AssistantContent::ToolCall(call("call_2", "fc_2", "b.png")),
            ],
            api: producer.api,
            provider: producer.provider.clone(),
            model: producer.id.clone(),
            response_id: None,
            usage: Usage::default(),
            stop_reason: StopReason::ToolUse,
            error_message: None,
        };
        Context {
            system_prompt: Some("You are Arbor.".into()),
            messages: vec![
                Message::User(UserMessage {
                    content: vec![
                        UserContent::Text(TextContent::new("Read a.txt and b.png")),
                        UserContent::Image(image()),
                    ],
                }),
                Message::Assistant(assistant),
                Message::ToolResult(ToolResultMessage {
                    tool_call_id: "call|1/a".into(),
                    tool_name: "read".into(),
                    content: vec![UserContent::Text(TextContent::new("no such file"))],
                    is_error: true,
                    details: Some(json!({"ui": "only"})),
                }),
                Message::ToolResult(ToolResultMessage {
                    tool_call_id: "call_2".into(),
                    tool_name: "read".into(),
                    content: vec![
                        UserContent::Text(TextContent::new("b.png:")),
                        UserContent::Image(image()),
                    ],
                    is_error: false,
                    details: None,
                }),
                Message::User(UserMessage::text("Thanks")),
            ],
            tools: vec![Tool {
                name: "read".into(),
                description: "Read a file".into(),
                parameters: json!({"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}),
            }],
        }
    }
}
