//! The script a [`crate::MockProvider`] plays: serde types (the JSON format documented in the
//! crate docs) and a small builder API for tests (its chained methods are in `builder`).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Error;

mod builder;

/// Characters per streamed delta when a turn does not say otherwise.
pub const DEFAULT_CHUNK_SIZE: usize = 8;

/// A list of turns, consumed one per model request, in order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    pub turns: Vec<Turn>,
    /// When set, every model request must carry this key (`Authorization: Bearer`,
    /// `x-api-key`, `x-goog-api-key` or `?key=`); others get the format's 401 and consume no
    /// turn, as a real provider answers a wrong key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub require_api_key: Option<String>,
}

/// One answer of the mock: a streamed response or an HTTP error.
///
/// Externally tagged (`{"stream": {…}}`) rather than `"type"`-tagged on purpose: serde buffers
/// internally tagged objects, which loses the line/column of errors inside them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Turn {
    Stream(StreamTurn),
    HttpError(HttpError),
}

/// A streamed (SSE) response.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreamTurn {
    pub steps: Vec<Step>,
    /// Characters per text/thinking/argument delta (default [`DEFAULT_CHUNK_SIZE`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunk_size: Option<usize>,
    /// The pace: one SSE event every `delay_ms`, the first at once, on a fixed schedule.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub delay_ms: u64,
    /// After this many SSE events, send the format's error event and end the body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_after_chunks: Option<usize>,
    /// What the mid-stream error says (defaults per format, e.g. Anthropic `overloaded_error`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<StreamError>,
    /// After this many SSE events, break the connection without finishing the body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop_after_chunks: Option<usize>,
    /// After this many SSE events, send nothing more (the connection stays open) for
    /// `stall_ms`, or until the client goes away when that is not set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stall_after_chunks: Option<usize>,
    /// How long the stall lasts before the rest of the stream is sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stall_ms: Option<u64>,
    /// Text sent verbatim between the format's events (a malformed event, a comment…).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub raw_events: Vec<RawEvent>,
}

/// SSE text the mock sends as it is, after `after_chunks` of the format's own events.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawEvent {
    pub after_chunks: usize,
    /// Sent verbatim, so it should end with a blank line (`"data: {oops\n\n"`).
    pub text: String,
}

/// The type/code and message of a mid-stream error event.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreamError {
    /// Anthropic `error.type`, OpenAI `error.type`/`code`, Google `error.status`.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// One piece of a streamed response (externally tagged: `{"text": "Hi"}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    Thinking {
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
    },
    Text(String),
    ToolCall {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        name: String,
        /// The arguments object (default `{}`).
        #[serde(default = "empty_object")]
        arguments: Value,
        /// Streamed verbatim instead of `arguments` (e.g. malformed JSON to test validation).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        raw_arguments: Option<String>,
    },
    Usage(Usage),
    Stop(StopReason),
}

/// Token counts in Arbor's normalised sense; each format maps them to its own fields.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Usage {
    /// Input tokens neither read from nor written to a cache.
    pub input: u64,
    /// All output tokens, reasoning included.
    pub output: u64,
    #[serde(default)]
    pub cache_read: u64,
    #[serde(default)]
    pub cache_write: u64,
    /// The part of `output` spent on reasoning.
    #[serde(default)]
    pub reasoning: u64,
}

/// Why the model stopped, in Arbor's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    Stop,
    Length,
    ToolUse,
}

/// An HTTP error answer (no stream).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpError {
    pub status: u16,
    /// A JSON value is sent as `application/json`; a JSON string is sent verbatim as `text/plain`.
    #[serde(default)]
    pub body: Value,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

impl Script {
    pub fn new() -> Self {
        Self::default()
    }

    /// Requires `key` on every request (builder style).
    #[must_use]
    pub fn require_api_key(mut self, key: impl Into<String>) -> Self {
        self.require_api_key = Some(key.into());
        self
    }

    /// Appends a turn (builder style).
    #[must_use]
    pub fn turn(mut self, turn: impl Into<Turn>) -> Self {
        self.turns.push(turn.into());
        self
    }

    /// Parses and validates a script from JSON text; errors carry serde_json's line/column.
    pub fn from_json(text: &str) -> Result<Self, Error> {
        let script: Script = serde_json::from_str(text)
            .map_err(|source| Error::ParseScript { path: None, source })?;
        script.validate()?;
        Ok(script)
    }

    /// Reads, parses and validates a script file.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| Error::ReadScript {
            path: path.to_path_buf(),
            source,
        })?;
        let script: Script = serde_json::from_str(&text).map_err(|source| Error::ParseScript {
            path: Some(path.to_path_buf()),
            source,
        })?;
        script.validate()?;
        Ok(script)
    }

    /// Checks what serde cannot express (arguments are objects, sizes are positive, ...).
    pub fn validate(&self) -> Result<(), Error> {
        self.turns.iter().enumerate().try_for_each(|(index, turn)| {
            turn.validate().map_err(|message| Error::InvalidScript {
                turn: index,
                message,
            })
        })
    }
}

impl Turn {
    /// A streamed turn builder.
    pub fn stream() -> StreamTurn {
        StreamTurn::default()
    }

    /// A streamed turn that answers `text` (more steps and options can be chained).
    pub fn text(text: impl Into<String>) -> StreamTurn {
        StreamTurn::default().text(text)
    }

    /// An HTTP error with a JSON (or, for a JSON string, plain text) body.
    pub fn http_error(status: u16, body: impl Into<Value>) -> HttpError {
        HttpError {
            status,
            body: body.into(),
            headers: BTreeMap::new(),
        }
    }

    fn validate(&self) -> Result<(), String> {
        match self {
            Turn::Stream(turn) => turn.validate(),
            Turn::HttpError(error) => {
                if (400..=599).contains(&error.status) {
                    Ok(())
                } else {
                    Err(format!(
                        "http_error status {} is not an error status (400..=599)",
                        error.status
                    ))
                }
            }
        }
    }
}

impl StreamTurn {
    /// The stop reason: the last `stop` step, else `tool_use` when there is a tool call, else `stop`.
    pub fn stop_reason(&self) -> StopReason {
        let explicit = self.steps.iter().rev().find_map(|step| match step {
            Step::Stop(reason) => Some(*reason),
            _ => None,
        });
        explicit.unwrap_or_else(|| {
            if self
                .steps
                .iter()
                .any(|step| matches!(step, Step::ToolCall { .. }))
            {
                StopReason::ToolUse
            } else {
                StopReason::Stop
            }
        })
    }

    /// The last `usage` step, if any.
    pub fn explicit_usage(&self) -> Option<Usage> {
        self.steps.iter().rev().find_map(|step| match step {
            Step::Usage(usage) => Some(*usage),
            _ => None,
        })
    }

    fn validate(&self) -> Result<(), String> {
        if self.chunk_size == Some(0) {
            return Err("chunk_size must be at least 1".to_owned());
        }
        if self.stall_ms.is_some() && self.stall_after_chunks.is_none() {
            return Err("stall_ms needs stall_after_chunks".to_owned());
        }
        for (index, step) in self.steps.iter().enumerate() {
            if let Step::ToolCall {
                name,
                arguments,
                raw_arguments: None,
                ..
            } = step
            {
                if !arguments.is_object() {
                    return Err(format!(
                        "step {index}: tool_call {name:?} arguments must be a JSON object"
                    ));
                }
            }
        }
        Ok(())
    }
}

impl From<StreamTurn> for Turn {
    fn from(turn: StreamTurn) -> Self {
        Turn::Stream(turn)
    }
}

impl From<HttpError> for Turn {
    fn from(error: HttpError) -> Self {
        Turn::HttpError(error)
    }
}

/// A one-turn script.
impl From<Turn> for Script {
    fn from(turn: Turn) -> Self {
        Script::new().turn(turn)
    }
}

/// A one-turn script.
impl From<StreamTurn> for Script {
    fn from(turn: StreamTurn) -> Self {
        Script::new().turn(turn)
    }
}

/// A one-turn script.
impl From<HttpError> for Script {
    fn from(error: HttpError) -> Self {
        Script::new().turn(error)
    }
}

impl FromIterator<Turn> for Script {
    fn from_iter<I: IntoIterator<Item = Turn>>(iter: I) -> Self {
        Script {
            turns: iter.into_iter().collect(),
            require_api_key: None,
        }
    }
}
