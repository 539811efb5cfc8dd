//! What a server offers besides tools, as a person picks it in the composer: resources (a file,
//! a record, a page) attached to a message as text, and prompts (`/server:prompt`) filled with
//! arguments into text the person reviews before sending. Both come from the server and are
//! hostile input: they reach the model only as the text of a message the person sends, capped.

use serde_json::{Map, Value};

use crate::hub::ServerSlot;
use crate::log::cut;
use crate::McpError;

/// Characters of a resource or prompt given to a message.
pub const MAX_TEXT: usize = 100_000;

/// A resource a server lists.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RemoteResource {
    pub uri: String,
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub mime_type: Option<String>,
}

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct PromptArgument {
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub required: Option<bool>,
}

/// A prompt a server lists.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct RemotePrompt {
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub arguments: Vec<PromptArgument>,
}

fn field<'a>(value: &'a Value, name: &str) -> &'a str {
    value.get(name).and_then(Value::as_str).unwrap_or("")
}

fn capped(text: String) -> String {
    let total = text.chars().count();
    if total <= MAX_TEXT {
        return text;
    }
    let end = text
        .char_indices()
        .nth(MAX_TEXT)
        .map_or(text.len(), |(i, _)| i);
    format!(
        "{}\n[{total} characters; the first {MAX_TEXT} are shown]",
        cut(&text, end).trim_end_matches('…')
    )
}

/// A `resources/read` answer as text: each text content in turn; a binary one named.
pub fn resource_text(read: &Value) -> String {
    let empty = Vec::new();
    let parts: Vec<String> = read
        .get("contents")
        .and_then(Value::as_array)
        .unwrap_or(&empty)
        .iter()
        .map(
            |content| match content.get("text").and_then(Value::as_str) {
                Some(text) => text.to_owned(),
                None => format!(
                    "[binary content <{}> of type {:?}, not shown]",
                    field(content, "uri"),
                    field(content, "mimeType")
                ),
            },
        )
        .collect();
    capped(parts.join("\n"))
}

/// A `prompts/get` answer as the text of one message: each message's text, a message of the
/// assistant's marked as such, an embedded resource's text, other content named.
pub fn prompt_text(got: &Value) -> String {
    let empty = Vec::new();
    let parts: Vec<String> = got
        .get("messages")
        .and_then(Value::as_array)
        .unwrap_or(&empty)
        .iter()
        .map(|message| {
            let content = message.get("content").unwrap_or(&Value::Null);
            let text = match field(content, "type") {
                "text" => field(content, "text").to_owned(),
                "resource" => {
                    let resource = content.get("resource").unwrap_or(&Value::Null);
                    match resource.get("text").and_then(Value::as_str) {
                        Some(text) => format!("[resource <{}>]\n{text}", field(resource, "uri")),
                        None => {
                            format!("[binary resource <{}>, not shown]", field(resource, "uri"))
                        }
                    }
                }
                other => format!("[{other} content, not shown]"),
            };
            if field(message, "role") == "assistant" {
                format!("(assistant) {text}")
            } else {
                text
            }
        })
        .collect();
    capped(parts.join("\n\n"))
}

impl ServerSlot {
    /// The resources the server lists (starting it when needed).
    pub async fn resources(&self) -> Result<Vec<RemoteResource>, McpError> {
        let connection = self.connection().await?;
        let listed = connection.resources(self.list_limit()).await?;
        Ok(listed
            .into_iter()
            .filter_map(|r| serde_json::from_value(r).ok())
            .collect())
    }

    /// One resource as text (capped).
    pub async fn read_resource(&self, uri: &str) -> Result<String, McpError> {
        let connection = self.connection().await?;
        Ok(resource_text(
            &connection.read_resource(uri, self.list_limit()).await?,
        ))
    }

    /// The prompts the server lists (starting it when needed).
    pub async fn prompts(&self) -> Result<Vec<RemotePrompt>, McpError> {
        let connection = self.connection().await?;
        let listed = connection.prompts(self.list_limit()).await?;
        Ok(listed
            .into_iter()
            .filter_map(|p| serde_json::from_value(p).ok())
            .collect())
    }

    /// A prompt filled with `arguments`, as the text of a message (capped, and cleaned of the
    /// secrets this hub knows).
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: std::collections::BTreeMap<String, String>,
    ) -> Result<String, McpError> {
        let arguments: Map<String, Value> = arguments
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        let connection = self.connection().await?;
        let got = connection
            .get_prompt(name, arguments, self.list_limit())
            .await?;
        Ok(self.redactor().text(&prompt_text(&got)).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn resources_and_prompts_read_as_text() {
        let read = json!({"contents": [
            {"uri": "file:///a", "text": "line one"},
            {"uri": "file:///b", "blob": "AAAA", "mimeType": "image/png"}
        ]});
        let text = resource_text(&read);
        assert!(
            text.starts_with("line one\n[binary content <file:///b>"),
            "{text}"
        );
        let got = json!({"messages": [
            {"role": "user", "content": {"type": "text", "text": "Review {code}"}},
            {"role": "assistant", "content": {"type": "text", "text": "Sure."}},
            {"role": "user", "content": {"type": "resource", "resource": {"uri": "x://y", "text": "body"}}},
            {"role": "user", "content": {"type": "image", "data": "AA", "mimeType": "image/png"}}
        ]});
        let text = prompt_text(&got);
        assert_eq!(text, "Review {code}\n\n(assistant) Sure.\n\n[resource <x://y>]\nbody\n\n[image content, not shown]");
        let huge = json!({"contents": [{"uri": "u", "text": "x".repeat(MAX_TEXT + 10)}]});
        assert!(resource_text(&huge).ends_with(&format!(
            "{} characters; the first {MAX_TEXT} are shown]",
            MAX_TEXT + 10
        )));
    }
}
