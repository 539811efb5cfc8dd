//! Writing a summary with the model: the conversation rendered as text, the prompts, the file
//! lists kept exactly (not by the model), and the request itself.

use std::collections::BTreeSet;

use arbor_agent::AgentMessage;
use arbor_llm::{
    AssistantContent, Context, LlmClient, LlmError, Message, Model, RequestOptions, ThinkingLevel,
    UserContent, UserMessage,
};
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

/// How much of one tool result the summariser sees; the rest is elided.
const TOOL_RESULT_CHARS: usize = 2_000;
/// The summary's output limit (the model's own limit when lower).
const SUMMARY_MAX_TOKENS: u32 = 8_192;

pub(crate) const SYSTEM_PROMPT: &str = "You summarize a coding agent's conversation so that the \
agent can continue the work from your summary alone, without the original messages. Be precise \
and concrete: keep file paths, function names, error messages, commands, decisions and the user's \
exact requirements. Do not continue the conversation and do not answer questions in it; only \
write the summary.";

const SECTIONS: &str = "Write the summary in Markdown with exactly these sections:

## Goal
What the user wants, in their terms.

## Constraints and preferences
Requirements, conventions and preferences the user stated (or \"None stated\").

## Progress
### Done
### In progress
### Blocked

## Key decisions
Each decision with its reason.

## Next steps
An ordered list of what remains.

## Commands that mattered
Commands whose result matters later (builds, tests, failures), with their outcome.";

/// The files a conversation read and changed, known exactly from its tool calls.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileLists {
    #[serde(default)]
    pub read_files: BTreeSet<String>,
    #[serde(default)]
    pub modified_files: BTreeSet<String>,
}

impl FileLists {
    /// Adds the paths of every `read`, `write` and `edit` call in `messages`.
    pub fn add_calls(&mut self, messages: &[AgentMessage]) {
        for message in messages {
            let Some(assistant) = message.as_assistant() else {
                continue;
            };
            for call in assistant.tool_calls() {
                let Some(path) = call.arguments.get("path").and_then(|p| p.as_str()) else {
                    continue;
                };
                match call.name.as_str() {
                    "read" => {
                        self.read_files.insert(path.to_owned());
                    }
                    "write" | "edit" => {
                        self.modified_files.insert(path.to_owned());
                    }
                    _ => {}
                }
            }
        }
    }

    /// The lists as the Markdown sections appended to a summary (a modified file is not also
    /// listed as read).
    pub fn to_markdown(&self) -> String {
        let list = |files: &mut dyn Iterator<Item = &String>| {
            let lines: Vec<String> = files.map(|f| format!("- {f}")).collect();
            if lines.is_empty() {
                "None".to_owned()
            } else {
                lines.join("\n")
            }
        };
        let mut read = self
            .read_files
            .iter()
            .filter(|f| !self.modified_files.contains(*f));
        format!(
            "## Files read\n{}\n\n## Files modified\n{}",
            list(&mut read),
            list(&mut self.modified_files.iter())
        )
    }
}

fn truncated(text: &str, limit: usize) -> String {
    if text.len() <= limit {
        return text.to_owned();
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}\n[… {} more characters not shown]",
        &text[..end],
        text.len() - end
    )
}

fn user_text(content: &[UserContent]) -> String {
    content
        .iter()
        .map(|c| match c {
            UserContent::Text(t) => t.text.clone(),
            UserContent::Image(_) => "[image]".to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The conversation as plain text for the summariser: one block per message, tool results cut
/// to their first [`TOOL_RESULT_CHARS`] characters, thinking left out.
pub fn render_conversation(messages: &[AgentMessage]) -> String {
    let mut blocks = Vec::with_capacity(messages.len());
    for message in messages {
        match message {
            AgentMessage::User(user) => {
                blocks.push(format!("[User]\n{}", user_text(&user.content)))
            }
            AgentMessage::Assistant(assistant) => {
                for content in &assistant.content {
                    match content {
                        AssistantContent::Text(t) if !t.text.trim().is_empty() => {
                            blocks.push(format!("[Assistant]\n{}", t.text))
                        }
                        AssistantContent::ToolCall(call) => blocks.push(format!(
                            "[Assistant called {}]\n{}",
                            call.name,
                            serde_json::to_string(&call.arguments).unwrap_or_default()
                        )),
                        _ => {}
                    }
                }
            }
            AgentMessage::ToolResult(result) => blocks.push(format!(
                "[{} result{}]\n{}",
                result.tool_name,
                if result.is_error { ", error" } else { "" },
                truncated(&user_text(&result.content), TOOL_RESULT_CHARS)
            )),
            AgentMessage::Custom(_) => {}
        }
    }
    blocks.join("\n\n")
}

/// What to summarise and how.
pub struct SummaryRequest<'a> {
    /// The messages to summarise (not the previous summary).
    pub messages: &'a [AgentMessage],
    /// The summary they follow, to merge with.
    pub previous: Option<&'a str>,
    /// What the user asked the summary to focus on.
    pub focus: Option<&'a str>,
    /// What the summary is of.
    pub kind: SummaryKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SummaryKind {
    /// The older part of the conversation, replaced by the summary (compaction).
    Compaction,
    /// A branch the user is leaving, carried along as a short note.
    Branch,
}

/// Keeps the end of `conversation` within `max_chars` (on a block boundary when it can),
/// saying that the beginning was left out: the summary request itself must fit the window.
fn fit_conversation(conversation: String, max_chars: usize) -> String {
    if conversation.len() <= max_chars {
        return conversation;
    }
    let mut start = conversation.len() - max_chars;
    while !conversation.is_char_boundary(start) {
        start += 1;
    }
    let start = conversation[start..]
        .find("\n\n[")
        .map_or(start, |offset| start + offset + 2);
    format!(
        "[… the earliest {} characters of the conversation are left out: too long to summarise at once]\n\n{}",
        start,
        &conversation[start..]
    )
}

/// The user message that asks for the summary; the conversation is cut from the front to
/// about `max_chars` when longer.
pub fn summary_prompt(request: &SummaryRequest<'_>, max_chars: usize) -> String {
    let mut prompt = format!(
        "<conversation>\n{}\n</conversation>\n\n",
        fit_conversation(render_conversation(request.messages), max_chars)
    );
    if let Some(previous) = request.previous {
        prompt.push_str(&format!(
            "<previous-summary>\n{previous}\n</previous-summary>\n\nThe conversation above \
continues from the previous summary. Merge both into one summary: keep what still holds, \
update progress and next steps, and drop what was superseded.\n\n"
        ));
    }
    match request.kind {
        SummaryKind::Compaction => prompt.push_str(SECTIONS),
        SummaryKind::Branch => prompt.push_str(
            "This is a branch of the conversation that the user is leaving to try something \
else. Summarise in a few short paragraphs what was tried on it, what was found or changed \
(files, results) and how it ended, so the work can go on from another point with this knowledge.",
        ),
    }
    if let Some(focus) = request.focus.filter(|f| !f.trim().is_empty()) {
        prompt.push_str(&format!("\n\nFocus especially on: {}", focus.trim()));
    }
    prompt
}

/// Asks `model` for the summary; its text, or why there is none.
pub async fn write_summary(
    client: &LlmClient,
    model: &Model,
    options: &RequestOptions,
    request: &SummaryRequest<'_>,
    cancel: &CancellationToken,
) -> Result<String, LlmError> {
    let mut limit = match model.max_output_tokens {
        0 => SUMMARY_MAX_TOKENS,
        max => max.min(SUMMARY_MAX_TOKENS),
    };
    if model.context_window > 0 {
        // A small window keeps most of itself for the conversation being summarised.
        limit = limit.min(model.context_window / 4).max(256);
    }
    // What the window leaves for the conversation after the answer and the instructions
    // (4 characters a token, with a quarter to spare for denser text).
    let max_chars = match model.context_window {
        0 => usize::MAX,
        window => (window.saturating_sub(limit).saturating_sub(window / 8) as usize) * 3,
    };
    let context = Context {
        system_prompt: Some(SYSTEM_PROMPT.to_owned()),
        messages: vec![Message::User(UserMessage::text(summary_prompt(
            request, max_chars,
        )))],
        tools: Vec::new(),
    };
    let options = RequestOptions {
        thinking: ThinkingLevel::Off,
        max_tokens: Some(limit),
        ..options.clone()
    };
    let (message, error) = client
        .stream(model, &context, &options, cancel.child_token())
        .result()
        .await;
    if let Some(error) = error {
        return Err(error);
    }
    let text = message.text();
    if text.trim().is_empty() {
        return Err(LlmError::Provider {
            message: "the model answered the summary request with no text".into(),
        });
    }
    Ok(text.trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbor_llm::{Api, AssistantMessage, TextContent, ToolCall, ToolResultMessage};
    use serde_json::json;

    fn call(name: &str, path: &str) -> AssistantContent {
        AssistantContent::ToolCall(ToolCall {
            id: format!("{name}-{path}"),
            name: name.into(),
            arguments: serde_json::from_value(json!({ "path": path })).unwrap(),
            thought_signature: None,
            item_id: None,
        })
    }

    fn conversation() -> Vec<AgentMessage> {
        let mut answer = AssistantMessage::empty(Api::AnthropicMessages, "p", "m");
        answer.content = vec![
            AssistantContent::Text(TextContent::new("Reading first.")),
            call("read", "src/a.rs"),
            call("edit", "src/b.rs"),
            call("read", "src/b.rs"),
            call("bash", "ignored"),
        ];
        vec![
            AgentMessage::User(UserMessage::text("Fix the parser")),
            AgentMessage::Assistant(answer),
            AgentMessage::ToolResult(ToolResultMessage {
                tool_call_id: "read-src/a.rs".into(),
                tool_name: "read".into(),
                content: vec![UserContent::Text(TextContent::new("é".repeat(1_500)))],
                is_error: false,
                details: None,
            }),
        ]
    }

    #[test]
    fn file_lists_come_from_the_tool_calls() {
        let mut files = FileLists::default();
        files.add_calls(&conversation());
        assert_eq!(
            files.read_files.iter().collect::<Vec<_>>(),
            ["src/a.rs", "src/b.rs"]
        );
        assert_eq!(
            files.modified_files.iter().collect::<Vec<_>>(),
            ["src/b.rs"]
        );
        assert_eq!(
            files.to_markdown(),
            "## Files read\n- src/a.rs\n\n## Files modified\n- src/b.rs"
        );
        assert_eq!(
            FileLists::default().to_markdown(),
            "## Files read\nNone\n\n## Files modified\nNone"
        );
    }

    #[test]
    fn the_prompt_renders_the_conversation_and_merges_the_previous_summary() {
        let messages = conversation();
        let prompt = summary_prompt(
            &SummaryRequest {
                messages: &messages,
                previous: Some("## Goal\nOld goal"),
                focus: Some("  the parser  "),
                kind: SummaryKind::Compaction,
            },
            usize::MAX,
        );
        assert!(prompt.contains("[User]\nFix the parser"), "{prompt}");
        assert!(prompt.contains("[Assistant called edit]\n{\"path\":\"src/b.rs\"}"));
        // Long results are cut on a character boundary.
        assert!(prompt.contains("more characters not shown]"), "{prompt}");
        assert!(prompt.contains("<previous-summary>\n## Goal\nOld goal\n</previous-summary>"));
        assert!(prompt.contains("## Next steps"));
        assert!(prompt.ends_with("Focus especially on: the parser"));
        let branch = summary_prompt(
            &SummaryRequest {
                messages: &messages,
                previous: None,
                focus: None,
                kind: SummaryKind::Branch,
            },
            usize::MAX,
        );
        assert!(branch.contains("branch of the conversation"));
        assert!(!branch.contains("previous-summary"));
    }

    #[test]
    fn a_conversation_too_long_for_the_window_loses_its_beginning() {
        let messages: Vec<AgentMessage> = (0..100)
            .map(|i| {
                AgentMessage::User(UserMessage::text(format!(
                    "message {i:03} {}",
                    "x".repeat(80)
                )))
            })
            .collect();
        let request = SummaryRequest {
            messages: &messages,
            previous: None,
            focus: None,
            kind: SummaryKind::Compaction,
        };
        let prompt = summary_prompt(&request, 1_000);
        assert!(
            prompt.contains("characters of the conversation are left out"),
            "{prompt}"
        );
        assert!(prompt.contains("message 099") && !prompt.contains("message 000"));
        // It starts at a message, not in the middle of one.
        let kept = prompt.split("at once]\n\n").nth(1).unwrap();
        assert!(kept.starts_with("[User]\nmessage"), "{kept}");
        assert!(prompt.len() < 1_000 + SECTIONS.len() + 300);
    }
}
