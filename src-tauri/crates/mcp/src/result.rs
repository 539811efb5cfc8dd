//! A tool's result as the model and the tool card get it: text as text, images as images
//! (PNG, JPEG, GIF or WebP only, each at most [`MAX_IMAGE_BYTES`]), resource links and
//! embedded resources as lines that name them, structured content as JSON when the server sent
//! nothing else. Everything a server sends is capped: [`MAX_TEXT`] characters of text in all —
//! a 10 MB answer reaches the model as its start and a note of what was left out.

use arbor_agent::{ToolError, ToolOutput};
use arbor_llm::{ImageContent, TextContent, UserContent};
use serde_json::{json, Value};

use crate::log::cut;

/// Characters of text a result gives the model.
pub const MAX_TEXT: usize = 50_000;
/// Bytes of one image (as base64).
pub const MAX_IMAGE_BYTES: usize = 5 * 1024 * 1024;
/// Images per result.
pub const MAX_IMAGES: usize = 8;

const IMAGE_TYPES: &[&str] = &["image/png", "image/jpeg", "image/gif", "image/webp"];

fn field<'a>(value: &'a Value, name: &str) -> &'a str {
    value.get(name).and_then(Value::as_str).unwrap_or("")
}

/// Reads a `tools/call` result (`content`, `structuredContent`, `isError`). An error result
/// reaches the model as the tool's error.
pub fn tool_output(result: &Value) -> Result<ToolOutput, ToolError> {
    let mut text = String::new();
    let mut images = Vec::new();
    let mut notes = Vec::new();
    let empty = Vec::new();
    let blocks = result
        .get("content")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    for block in blocks {
        let line = match field(block, "type") {
            "text" => field(block, "text").to_owned(),
            "image" => {
                let (data, mime) = (field(block, "data"), field(block, "mimeType"));
                if !IMAGE_TYPES.contains(&mime) {
                    format!("[an image of type {mime:?} was left out: only PNG, JPEG, GIF and WebP are shown]")
                } else if data.len() > MAX_IMAGE_BYTES {
                    format!(
                        "[an image of {} KiB was left out: at most {} KiB]",
                        data.len() / 1024,
                        MAX_IMAGE_BYTES / 1024
                    )
                } else if images.len() == MAX_IMAGES {
                    format!("[more than {MAX_IMAGES} images: this one was left out]")
                } else {
                    images.push(UserContent::Image(ImageContent {
                        data: data.to_owned(),
                        mime_type: mime.to_owned(),
                    }));
                    continue;
                }
            }
            "audio" => format!("[audio of type {:?}, not shown]", field(block, "mimeType")),
            "resource_link" => {
                notes.push(json!({"uri": field(block, "uri"), "name": field(block, "name")}));
                format!(
                    "[resource {} <{}>{}]",
                    field(block, "name"),
                    field(block, "uri"),
                    match field(block, "description") {
                        "" => String::new(),
                        d => format!(": {d}"),
                    }
                )
            }
            "resource" => {
                let resource = block.get("resource").unwrap_or(&Value::Null);
                match resource.get("text").and_then(Value::as_str) {
                    Some(body) => format!("[resource <{}>]\n{body}", field(resource, "uri")),
                    None => format!(
                        "[binary resource <{}> of type {:?}, not shown]",
                        field(resource, "uri"),
                        field(resource, "mimeType")
                    ),
                }
            }
            other => format!("[content of type {other:?}, not shown]"),
        };
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&line);
    }
    let structured = result.get("structuredContent").filter(|v| !v.is_null());
    if text.is_empty() {
        if let Some(structured) = structured {
            text = serde_json::to_string_pretty(structured).unwrap_or_default();
        }
    }
    let total = text.chars().count();
    if total > MAX_TEXT {
        let kept = cut(
            &text,
            text.char_indices()
                .nth(MAX_TEXT)
                .map_or(text.len(), |(i, _)| i),
        );
        text = format!(
            "{}\n[the server's answer has {total} characters; the first {MAX_TEXT} are shown]",
            kept.trim_end_matches('…')
        );
    }
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        return Err(ToolError::respond(if text.is_empty() {
            "the tool failed and said nothing more".to_owned()
        } else {
            text
        }));
    }
    if text.is_empty() && images.is_empty() {
        text = "(the tool answered nothing)".to_owned();
    }
    let mut content = Vec::with_capacity(images.len() + 1);
    if !text.is_empty() {
        content.push(UserContent::Text(TextContent::new(text)));
    }
    content.extend(images);
    let mut details = json!({ "mcp": true });
    if !notes.is_empty() {
        details["resourceLinks"] = Value::Array(notes);
    }
    Ok(ToolOutput {
        content,
        details: Some(details),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(output: &ToolOutput) -> String {
        output
            .content
            .iter()
            .filter_map(|c| match c {
                UserContent::Text(t) => Some(t.text.clone()),
                UserContent::Image(_) => None,
            })
            .collect()
    }

    #[test]
    fn every_kind_of_content_reaches_the_model_in_a_form_it_reads() {
        let output = tool_output(&json!({"content": [
            {"type": "text", "text": "hello"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "image", "data": "PHN2Zz4=", "mimeType": "image/svg+xml"},
            {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt", "description": "A"},
            {"type": "resource", "resource": {"uri": "mem://x", "text": "inside"}},
            {"type": "resource", "resource": {"uri": "mem://y", "blob": "AAAA", "mimeType": "application/zip"}},
            {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
        ]}))
        .unwrap();
        let text = texts(&output);
        for expected in [
            "hello",
            "svg+xml",
            "[resource a.txt <file:///a.txt>: A]",
            "inside",
            "mem://y",
            "audio/wav",
        ] {
            assert!(text.contains(expected), "{expected} in {text}");
        }
        assert_eq!(
            output
                .content
                .iter()
                .filter(|c| matches!(c, UserContent::Image(_)))
                .count(),
            1
        );
        assert_eq!(
            output.details.unwrap()["resourceLinks"][0]["uri"],
            "file:///a.txt"
        );
    }

    #[test]
    fn structured_errors_empty_and_huge_results() {
        let structured =
            tool_output(&json!({"content": [], "structuredContent": {"t": 21}})).unwrap();
        assert!(texts(&structured).contains("\"t\": 21"));
        let error = tool_output(
            &json!({"content": [{"type": "text", "text": "no such repo"}], "isError": true}),
        );
        assert_eq!(error.unwrap_err().to_string(), "no such repo");
        assert_eq!(
            texts(&tool_output(&json!({})).unwrap()),
            "(the tool answered nothing)"
        );
        let huge = "é".repeat(10 * 1024 * 1024);
        let output = tool_output(&json!({"content": [{"type": "text", "text": huge}]})).unwrap();
        let text = texts(&output);
        assert!(text.len() < MAX_TEXT * 2 + 200);
        assert!(text.ends_with(&format!(
            "{} characters; the first {MAX_TEXT} are shown]",
            10 * 1024 * 1024
        )));
    }
}
