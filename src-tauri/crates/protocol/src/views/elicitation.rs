//! A server's question to the person in the middle of a tool call (MCP elicitation, form
//! mode): the form a front end shows ([`ElicitationRequest`], flat fields of primitive types,
//! pre-filled with the server's defaults) and how the person answers it
//! ([`ElicitationAction`]). Made by `arbor-mcp` from the server's `requestedSchema`; answered
//! with `answer_elicitation`, checked against the same fields before it goes back.

use serde::{Deserialize, Serialize};

/// What kind of input a field takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ElicitationFieldKind {
    Text,
    Number,
    Integer,
    Boolean,
    /// One of `options`.
    Choice,
    /// Any number of `options` (an array of their values).
    Choices,
}

/// One option of a choice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ElicitationOption {
    pub value: String,
    /// What the person reads (the value when the server gave no title).
    pub label: String,
}

/// One field of the form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ElicitationField {
    /// The key of the answer.
    pub name: String,
    #[ts(optional = nullable)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[ts(optional = nullable)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub kind: ElicitationFieldKind,
    pub required: bool,
    /// The server's default, already in the answer the form starts from.
    #[ts(optional = nullable, type = "unknown")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<serde_json::Value>,
    /// For `choice` and `choices`.
    #[serde(default)]
    pub options: Vec<ElicitationOption>,
    /// For text: `email`, `uri`, `date` or `date-time`.
    #[ts(optional = nullable)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Bounds: a number's value, a text's length, a `choices`' count.
    #[ts(optional = nullable)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum: Option<f64>,
    #[ts(optional = nullable)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum: Option<f64>,
}

/// A server asks the person for input; the call it makes waits for the answer (the time a
/// person takes does not count against the call's limit).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ElicitationRequest {
    pub request_id: String,
    /// The server that asks (its name in the settings or `.mcp.json`).
    pub server: String,
    /// The server's words: untrusted text, shown as text.
    pub message: String,
    pub fields: Vec<ElicitationField>,
    /// The answer the form starts from: every field's default.
    #[ts(type = "Record<string, unknown>")]
    pub initial: serde_json::Map<String, serde_json::Value>,
}

/// What the person filled in: field name → value (the desktop's `answer_elicitation`).
/// (A newtype: serde reads and writes it as the map itself.)
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, ts_rs::TS)]
pub struct ElicitationContent(
    #[ts(type = "Record<string, unknown>")] pub serde_json::Map<String, serde_json::Value>,
);

/// How the person answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ElicitationAction {
    /// Sends the form's content.
    Accept,
    /// Says no; the server goes on without it.
    Decline,
    /// Dismisses the question; the server decides what that means for the call.
    Cancel,
}

impl ElicitationAction {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Accept => "accept",
            Self::Decline => "decline",
            Self::Cancel => "cancel",
        }
    }
}
