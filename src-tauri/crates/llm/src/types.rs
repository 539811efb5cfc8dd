//! Provider-neutral conversation types: messages, content blocks, tools, context, usage.
//!
//! Everything here is plain data with serde derives (snake_case tags) so the same values can be
//! stored, sent to a front end, and converted into any of the four wire protocols.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A JSON object, the type of tool-call arguments.
pub type JsonObject = Map<String, Value>;

/// The wire protocol ("API") a model is reached through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
pub enum Api {
    /// OpenAI Chat Completions, and every OpenAI-compatible server.
    #[serde(rename = "openai-completions")]
    OpenAiCompletions,
    /// OpenAI Responses (also LM Studio's `/v1/responses`).
    #[serde(rename = "openai-responses")]
    OpenAiResponses,
    /// Anthropic Messages.
    #[serde(rename = "anthropic-messages")]
    AnthropicMessages,
    /// Google Generative AI (Gemini `streamGenerateContent`).
    #[serde(rename = "google-generative-ai")]
    GoogleGenerativeAi,
}

impl Api {
    /// The name used in configuration and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Api::OpenAiCompletions => "openai-completions",
            Api::OpenAiResponses => "openai-responses",
            Api::AnthropicMessages => "anthropic-messages",
            Api::GoogleGenerativeAi => "google-generative-ai",
        }
    }

    /// Every protocol, in a stable order.
    pub const ALL: [Api; 4] = [
        Api::OpenAiCompletions,
        Api::OpenAiResponses,
        Api::AnthropicMessages,
        Api::GoogleGenerativeAi,
    ];
}

impl std::fmt::Display for Api {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Api {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Api::ALL
            .into_iter()
            .find(|api| api.as_str() == s)
            .ok_or_else(|| {
                format!(
                    "unknown API `{s}`; expected one of: {}",
                    Api::ALL.map(Api::as_str).join(", ")
                )
            })
    }
}

/// Plain text.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, ts_rs::TS)]
pub struct TextContent {
    pub text: String,
    /// Opaque provider data to send back with this text: a Gemini `thoughtSignature` carried on a
    /// text part, or the OpenAI Responses message item id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub signature: Option<String>,
    /// OpenAI Responses message phase (`commentary` or `final_answer`), replayed as received.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub phase: Option<String>,
}

impl TextContent {
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            ..Self::default()
        }
    }
}

/// A base64-encoded image.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ImageContent {
    /// Base64 without a `data:` prefix.
    pub data: String,
    /// For example `image/png`.
    pub mime_type: String,
}

/// Model reasoning. Providers need the opaque parts back, unchanged, to accept it on a later turn.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, ts_rs::TS)]
pub struct ThinkingContent {
    /// Human-readable reasoning (or its summary); may be empty when only an encrypted form exists.
    pub thinking: String,
    /// Opaque data that lets the provider verify the reasoning when it is replayed:
    /// Anthropic `signature`, Gemini `thoughtSignature`, the OpenAI Responses reasoning item
    /// (JSON, with its `encrypted_content`), or for OpenAI-compatible servers the name of the
    /// delta field the reasoning arrived in (`reasoning_content`, `reasoning`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub signature: Option<String>,
    /// Anthropic `redacted_thinking`: no readable text, the encrypted payload is in `signature`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub redacted: bool,
}

/// A request from the model to run a tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ToolCall {
    /// Provider call id (generated when the provider sends none, as Gemini usually does).
    pub id: String,
    pub name: String,
    /// Always a JSON object; `{}` when the model sent no arguments.
    pub arguments: JsonObject,
    /// Gemini `thoughtSignature` that arrived on the function-call part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub thought_signature: Option<String>,
    /// OpenAI Responses `function_call` item id (`fc_…`), needed to replay reasoning items.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub item_id: Option<String>,
}

/// Content a user (or a tool result) can carry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum UserContent {
    Text(TextContent),
    Image(ImageContent),
}

/// Content an assistant message can carry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AssistantContent {
    Text(TextContent),
    Thinking(ThinkingContent),
    ToolCall(ToolCall),
}

/// Why the model stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// A natural end of the answer.
    #[default]
    Stop,
    /// The output token limit was reached (a tool call cut here must not be executed).
    Length,
    /// The model wants tools to run.
    ToolUse,
    /// The provider reported an error, refused, or the stream broke.
    Error,
    /// The caller cancelled the request.
    Aborted,
}

/// Token counts for one assistant message, and their price.
///
/// `input` counts only the uncached prompt tokens, so that `input + cache_read + cache_write` is
/// the whole prompt for every provider and each count can be priced on its own.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, ts_rs::TS)]
pub struct Usage {
    pub input: u64,
    /// Includes reasoning tokens.
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    #[serde(default)]
    pub cost: Cost,
}

impl Usage {
    /// Every token the request consumed.
    pub fn total_tokens(&self) -> u64 {
        self.input + self.output + self.cache_read + self.cache_write
    }

    /// Fills in `cost` from per-million-token prices.
    pub fn apply_pricing(&mut self, pricing: &Pricing) {
        let per_token = |count: u64, per_million: f64| count as f64 * per_million / 1_000_000.0;
        self.cost = Cost {
            input: per_token(self.input, pricing.input),
            output: per_token(self.output, pricing.output),
            cache_read: per_token(self.cache_read, pricing.cache_read),
            cache_write: per_token(self.cache_write, pricing.cache_write),
            total: 0.0,
        };
        self.cost.total =
            self.cost.input + self.cost.output + self.cost.cache_read + self.cost.cache_write;
    }
}

/// Prices in US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Pricing {
    pub input: f64,
    pub output: f64,
    #[serde(default)]
    pub cache_read: f64,
    #[serde(default)]
    pub cache_write: f64,
}

/// The price of a message in US dollars.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, ts_rs::TS)]
pub struct Cost {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    pub total: f64,
}

/// A message written by the user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct UserMessage {
    pub content: Vec<UserContent>,
}

impl UserMessage {
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![UserContent::Text(TextContent::new(text))],
        }
    }
}

/// A message produced by a model (complete, or partial while streaming).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct AssistantMessage {
    pub content: Vec<AssistantContent>,
    /// The protocol, provider and model that produced it; replaying opaque data (signatures,
    /// encrypted reasoning) is only valid for the same ones.
    pub api: Api,
    pub provider: String,
    pub model: String,
    /// The provider's id for this response, when it sends one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub response_id: Option<String>,
    pub usage: Usage,
    pub stop_reason: StopReason,
    /// Set when `stop_reason` is `error` or `aborted`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub error_message: Option<String>,
}

impl AssistantMessage {
    /// An empty message, the starting point of a stream.
    pub fn empty(api: Api, provider: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            content: Vec::new(),
            api,
            provider: provider.into(),
            model: model.into(),
            response_id: None,
            usage: Usage::default(),
            stop_reason: StopReason::Stop,
            error_message: None,
        }
    }

    /// All text blocks joined.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|block| match block {
                AssistantContent::Text(text) => Some(text.text.as_str()),
                _ => None,
            })
            .collect()
    }

    /// All tool calls, in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.content.iter().filter_map(|block| match block {
            AssistantContent::ToolCall(call) => Some(call),
            _ => None,
        })
    }

    /// All thinking blocks, in order.
    pub fn thinking(&self) -> impl Iterator<Item = &ThinkingContent> {
        self.content.iter().filter_map(|block| match block {
            AssistantContent::Thinking(thinking) => Some(thinking),
            _ => None,
        })
    }
}

/// The outcome of a tool call, sent back to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ToolResultMessage {
    pub tool_call_id: String,
    pub tool_name: String,
    pub content: Vec<UserContent>,
    #[serde(default)]
    pub is_error: bool,
    /// Structured data for user interfaces (diffs, logs…); never sent to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub details: Option<Value>,
}

/// One entry of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    User(UserMessage),
    Assistant(AssistantMessage),
    ToolResult(ToolResultMessage),
}

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: Value,
}

/// Everything sent to the model for one request.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Context {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    pub messages: Vec<Message>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tool>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn messages_serialize_with_snake_case_tags() {
        let message = Message::ToolResult(ToolResultMessage {
            tool_call_id: "call_1".into(),
            tool_name: "read".into(),
            content: vec![UserContent::Text(TextContent::new("ok"))],
            is_error: false,
            details: Some(json!({"diff": "+a"})),
        });
        let value = serde_json::to_value(&message).unwrap();
        assert_eq!(value["role"], "tool_result");
        assert_eq!(value["content"][0]["type"], "text");
        let back: Message = serde_json::from_value(value).unwrap();
        assert_eq!(back, message);
    }

    #[test]
    fn api_names_round_trip() {
        for api in Api::ALL {
            assert_eq!(api.as_str().parse::<Api>().unwrap(), api);
            assert_eq!(serde_json::to_value(api).unwrap(), json!(api.as_str()));
        }
        assert!("openai".parse::<Api>().is_err());
    }

    #[test]
    fn cost_is_priced_per_million() {
        let mut usage = Usage {
            input: 1_000_000,
            output: 500_000,
            cache_read: 2_000_000,
            cache_write: 0,
            cost: Cost::default(),
        };
        usage.apply_pricing(&Pricing {
            input: 3.0,
            output: 15.0,
            cache_read: 0.3,
            cache_write: 3.75,
        });
        assert!((usage.cost.total - (3.0 + 7.5 + 0.6)).abs() < 1e-9);
        assert_eq!(usage.total_tokens(), 3_500_000);
    }
}
