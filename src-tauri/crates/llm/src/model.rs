//! A model as the request builders need it: where it lives, how it is reached, what it can do.
//! (The built-in catalogue of current models and `models.json` loading build on this type.)

use serde::{Deserialize, Serialize};

use crate::types::{Api, Pricing};

/// One model of one provider.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Model {
    /// The id sent to the provider (`claude-sonnet-4-5`, `gpt-5`, `gemini-2.5-pro`…).
    pub id: String,
    /// The provider's catalogue name (`anthropic`, `openai`, `openrouter`, `ollama`…).
    pub provider: String,
    pub api: Api,
    /// Base URL following the official SDKs: OpenAI-style includes `/v1`; Anthropic and Google
    /// exclude the version.
    pub base_url: String,
    /// Whether the model can think (reasoning / extended thinking).
    #[serde(default)]
    pub reasoning: bool,
    /// Whether the model accepts images.
    #[serde(default)]
    pub images: bool,
    #[serde(default)]
    pub context_window: u32,
    /// Output token limit; requests ask for this much unless told otherwise.
    #[serde(default)]
    pub max_output_tokens: u32,
    #[serde(default)]
    pub pricing: Pricing,
    /// Quirks of OpenAI-compatible servers; ignored by the other protocols.
    #[serde(default)]
    pub compat: CompletionsCompat,
}

/// How thoroughly the model should think.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ThinkingLevel {
    #[default]
    Off,
    Minimal,
    Low,
    Medium,
    High,
}

impl ThinkingLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            ThinkingLevel::Off => "off",
            ThinkingLevel::Minimal => "minimal",
            ThinkingLevel::Low => "low",
            ThinkingLevel::Medium => "medium",
            ThinkingLevel::High => "high",
        }
    }
}

impl std::str::FromStr for ThinkingLevel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "off" => Ok(ThinkingLevel::Off),
            "minimal" => Ok(ThinkingLevel::Minimal),
            "low" => Ok(ThinkingLevel::Low),
            "medium" => Ok(ThinkingLevel::Medium),
            "high" => Ok(ThinkingLevel::High),
            other => Err(format!(
                "unknown thinking level `{other}`; expected off, minimal, low, medium or high"
            )),
        }
    }
}

/// Differences between OpenAI-compatible servers that change the request body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CompletionsCompat {
    /// `max_completion_tokens` (OpenAI) or the older `max_tokens` (most compatible servers).
    pub max_tokens_field: MaxTokensField,
    /// How the thinking level is sent.
    pub reasoning_format: ReasoningFormat,
    /// Whether `stream_options.include_usage` is understood (usage then arrives at the end).
    pub stream_usage: bool,
    /// Whether reasoning models take the system prompt as a `developer` message.
    pub developer_role: bool,
    /// Tool-call ids must be exactly 9 alphanumeric characters (Mistral).
    pub nine_char_tool_ids: bool,
}

impl Default for CompletionsCompat {
    fn default() -> Self {
        Self {
            max_tokens_field: MaxTokensField::MaxTokens,
            reasoning_format: ReasoningFormat::ReasoningEffort,
            stream_usage: true,
            developer_role: false,
            nine_char_tool_ids: false,
        }
    }
}

impl CompletionsCompat {
    /// OpenAI's own endpoint.
    pub fn openai() -> Self {
        Self {
            max_tokens_field: MaxTokensField::MaxCompletionTokens,
            developer_role: true,
            ..Self::default()
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MaxTokensField {
    MaxTokens,
    MaxCompletionTokens,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasoningFormat {
    /// `"reasoning_effort": "low"` (OpenAI, Groq, xAI, DeepSeek ignore it gracefully).
    ReasoningEffort,
    /// `"reasoning": {"effort": "low"}` (OpenRouter).
    OpenRouter,
    /// The server has no thinking control.
    None,
}
