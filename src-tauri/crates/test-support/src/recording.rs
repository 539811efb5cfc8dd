//! What the mock saw: every request, and which wire format its path asked for.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The four wire protocols (DESIGN §4), named as Arbor names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum WireApi {
    #[serde(rename = "openai-completions")]
    OpenAiCompletions,
    #[serde(rename = "openai-responses")]
    OpenAiResponses,
    #[serde(rename = "anthropic-messages")]
    AnthropicMessages,
    #[serde(rename = "google-generative-ai")]
    GoogleGenerativeAi,
}

impl WireApi {
    pub const ALL: [WireApi; 4] = [
        WireApi::OpenAiCompletions,
        WireApi::OpenAiResponses,
        WireApi::AnthropicMessages,
        WireApi::GoogleGenerativeAi,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            WireApi::OpenAiCompletions => "openai-completions",
            WireApi::OpenAiResponses => "openai-responses",
            WireApi::AnthropicMessages => "anthropic-messages",
            WireApi::GoogleGenerativeAi => "google-generative-ai",
        }
    }

    /// The format a request path asks for, with the model named in the path (Google only).
    ///
    /// Accepted: `[/v1]/chat/completions`, `[/v1]/responses`, `/v1/messages`,
    /// `/v1beta/models/{model}:streamGenerateContent`.
    pub fn detect(path: &str) -> Option<(WireApi, Option<String>)> {
        let path = path.trim_end_matches('/');
        match path {
            "/v1/chat/completions" | "/chat/completions" => {
                return Some((WireApi::OpenAiCompletions, None))
            }
            "/v1/responses" | "/responses" => return Some((WireApi::OpenAiResponses, None)),
            "/v1/messages" => return Some((WireApi::AnthropicMessages, None)),
            _ => {}
        }
        let model = path
            .strip_prefix("/v1beta/models/")?
            .strip_suffix(":streamGenerateContent")?;
        (!model.is_empty() && !model.contains('/'))
            .then(|| (WireApi::GoogleGenerativeAi, Some(model.to_owned())))
    }
}

impl fmt::Display for WireApi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Returned when parsing an unknown API name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown wire api {0:?} (expected openai-completions, openai-responses, anthropic-messages or google-generative-ai)")]
pub struct UnknownApi(pub String);

impl FromStr for WireApi {
    type Err = UnknownApi;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        WireApi::ALL
            .into_iter()
            .find(|api| api.as_str() == s)
            .ok_or_else(|| UnknownApi(s.to_owned()))
    }
}

/// One request as the mock received it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    /// The raw query string without `?`, if any.
    pub query: Option<String>,
    /// Header names lower-cased; repeated headers joined with `", "`.
    pub headers: BTreeMap<String, String>,
    /// The body parsed as JSON (`None` when empty or not JSON).
    pub body: Option<Value>,
    /// The body as text (lossy UTF-8).
    pub body_text: String,
    /// The wire format the path asked for (`None` for an unknown path).
    pub api: Option<WireApi>,
    /// The script turn this request consumed (0-based), if it consumed one.
    pub turn: Option<usize>,
    /// Milliseconds since the Unix epoch when the request head arrived.
    pub received_at_ms: u64,
    /// Milliseconds since the Unix epoch when the mock handed the last byte of a streamed answer
    /// to the connection (`None` until then, and for answers that are not streams). Benchmarks
    /// measure "the stream's end → shown" from it.
    #[serde(default)]
    pub finished_at_ms: Option<u64>,
}

impl RecordedRequest {
    /// A header by (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }

    /// The parsed body, or `Value::Null`.
    pub fn json(&self) -> &Value {
        static NULL: Value = Value::Null;
        self.body.as_ref().unwrap_or(&NULL)
    }

    /// The names of the tools the request offered (every wire format's `tools[]`: a chat
    /// completion's `function.name`, or the tool's own `name`).
    pub fn offered_tools(&self) -> Vec<String> {
        self.json()["tools"]
            .as_array()
            .map(|tools| {
                tools
                    .iter()
                    .filter_map(|t| {
                        t["function"]["name"]
                            .as_str()
                            .or_else(|| t["name"].as_str())
                    })
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The tool results a chat-completions request sent back, in order, each as its JSON text.
    pub fn tool_results(&self) -> Vec<String> {
        self.json()["messages"]
            .as_array()
            .map(|messages| {
                messages
                    .iter()
                    .filter(|m| m["role"] == "tool")
                    .map(|m| m["content"].to_string())
                    .collect()
            })
            .unwrap_or_default()
    }
}
