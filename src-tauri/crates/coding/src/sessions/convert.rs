//! Agent messages ↔ store nodes.

use arbor_agent::AgentMessage;
use arbor_llm::{AssistantContent, StopReason, UserContent, UserMessage};
use arbor_store::{NewNode, Node, NodeKind};
use serde::Deserialize as _;

/// What a summary node says to the model when it stands in for earlier conversation.
const SUMMARY_PREAMBLE: &str =
    "The earlier part of this conversation was summarized to save context:";
/// What a branch summary says to the model.
const BRANCH_PREAMBLE: &str = "Summary of a branch of this conversation that was left:";

/// The plain text of a message, as stored for search, titles and tree lines. An assistant
/// message without text lists its tool calls (`→ name {arguments}`).
pub fn message_text(message: &AgentMessage) -> String {
    fn user_text(content: &[UserContent]) -> String {
        content
            .iter()
            .filter_map(|c| match c {
                UserContent::Text(t) => Some(t.text.as_str()),
                UserContent::Image(_) => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
    match message {
        AgentMessage::User(user) => user_text(&user.content),
        AgentMessage::ToolResult(result) => user_text(&result.content),
        AgentMessage::Assistant(assistant) => {
            let text = assistant.text();
            if !text.trim().is_empty() {
                return text;
            }
            assistant
                .content
                .iter()
                .filter_map(|c| match c {
                    AssistantContent::ToolCall(call) => Some(format!(
                        "→ {} {}",
                        call.name,
                        serde_json::to_string(&call.arguments).unwrap_or_default()
                    )),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n")
        }
        AgentMessage::Custom(custom) => custom.kind.clone(),
    }
}

/// The node that stores a completed message; `None` for app-only (custom) messages, which are
/// not persisted.
pub fn message_to_node(message: &AgentMessage) -> Result<Option<NewNode>, serde_json::Error> {
    let kind = match message {
        AgentMessage::User(_) => NodeKind::User,
        AgentMessage::Assistant(_) => NodeKind::Assistant,
        AgentMessage::ToolResult(_) => NodeKind::ToolResult,
        AgentMessage::Custom(_) => return Ok(None),
    };
    let mut node = NewNode::new(kind, serde_json::to_value(message)?, message_text(message));
    if let AgentMessage::Assistant(assistant) = message {
        node = node
            .with_usage(serde_json::to_value(assistant.usage)?)
            .with_aborted(assistant.stop_reason == StopReason::Aborted);
    }
    Ok(Some(node))
}

/// The message a context node gives the model: messages as stored, a compaction or branch
/// summary as a user message carrying the summary, nothing for model/thinking changes and
/// labels.
pub fn node_to_message(node: &Node) -> Result<Option<AgentMessage>, serde_json::Error> {
    let summary = |preamble: &str| {
        let text = node
            .content
            .get("summary")
            .and_then(|s| s.as_str())
            .unwrap_or(&node.text);
        Some(AgentMessage::User(UserMessage::text(format!(
            "{preamble}\n\n<summary>\n{text}\n</summary>"
        ))))
    };
    Ok(match node.kind {
        NodeKind::User | NodeKind::Assistant | NodeKind::ToolResult => {
            Some(AgentMessage::deserialize(&node.content)?)
        }
        NodeKind::Compaction => summary(SUMMARY_PREAMBLE),
        NodeKind::BranchSummary => summary(BRANCH_PREAMBLE),
        NodeKind::ModelChange | NodeKind::ThinkingLevelChange | NodeKind::Label => None,
    })
}

/// The conversation for the agent from a store context (root first).
pub fn context_messages(nodes: &[Node]) -> Result<Vec<AgentMessage>, serde_json::Error> {
    let mut messages = Vec::with_capacity(nodes.len());
    for node in nodes {
        if let Some(message) = node_to_message(node)? {
            messages.push(message);
        }
    }
    Ok(messages)
}

/// The message a compaction summary gives the model (what a stored compaction node becomes).
pub fn compaction_summary_message(summary: &str) -> AgentMessage {
    AgentMessage::User(UserMessage::text(format!(
        "{SUMMARY_PREAMBLE}\n\n<summary>\n{summary}\n</summary>"
    )))
}

/// Whether `message` is a compaction summary made by [`compaction_summary_message`].
pub fn is_compaction_summary(message: &AgentMessage) -> bool {
    matches!(message, AgentMessage::User(user) if matches!(
        user.content.first(),
        Some(UserContent::Text(t)) if t.text.starts_with(SUMMARY_PREAMBLE)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbor_llm::{Api, AssistantMessage, ToolResultMessage};
    use serde_json::json;

    fn stored(new: NewNode) -> Node {
        Node {
            id: "n".into(),
            session_id: "s".into(),
            parent_id: None,
            kind: new.kind,
            role: new.role,
            content: new.content,
            text: new.text,
            usage: new.usage,
            aborted: new.aborted,
            first_kept_id: new.first_kept_id,
            tokens_before: new.tokens_before,
            created_at: 0,
        }
    }

    fn assistant(text: &str, stop: StopReason) -> AgentMessage {
        let mut message = AssistantMessage::empty(Api::OpenAiCompletions, "mock", "m");
        message.content = vec![AssistantContent::Text(arbor_llm::TextContent::new(text))];
        message.stop_reason = stop;
        message.usage.input = 7;
        AgentMessage::Assistant(message)
    }

    #[test]
    fn messages_round_trip_through_nodes() {
        let messages = [
            AgentMessage::User(UserMessage::text("fix the bug\nplease")),
            assistant("Done.", StopReason::Stop),
            AgentMessage::ToolResult(ToolResultMessage {
                tool_call_id: "c1".into(),
                tool_name: "read".into(),
                content: vec![UserContent::Text(arbor_llm::TextContent::new("file body"))],
                is_error: false,
                details: Some(json!({"lines": 1})),
            }),
        ];
        let kinds = [NodeKind::User, NodeKind::Assistant, NodeKind::ToolResult];
        for (message, kind) in messages.iter().zip(kinds) {
            let node = message_to_node(message).unwrap().unwrap();
            assert_eq!(node.kind, kind);
            assert_eq!(node.role.as_deref(), Some(message.role()));
            let back = node_to_message(&stored(node)).unwrap().unwrap();
            assert_eq!(&back, message);
        }
        let user = message_to_node(&messages[0]).unwrap().unwrap();
        assert_eq!(user.text, "fix the bug\nplease");
        let answer = message_to_node(&messages[1]).unwrap().unwrap();
        assert_eq!(answer.text, "Done.");
        assert_eq!(answer.usage.unwrap()["input"], 7);
        assert!(!answer.aborted);
    }

    #[test]
    fn aborted_partial_answers_are_marked() {
        let node = message_to_node(&assistant("half", StopReason::Aborted))
            .unwrap()
            .unwrap();
        assert!(node.aborted);
    }

    #[test]
    fn tool_calls_only_answers_list_their_calls() {
        let mut message = AssistantMessage::empty(Api::OpenAiCompletions, "mock", "m");
        message.content = vec![AssistantContent::ToolCall(arbor_llm::ToolCall {
            id: "c1".into(),
            name: "read".into(),
            arguments: serde_json::from_value(json!({"path": "a.txt"})).unwrap(),
            thought_signature: None,
            item_id: None,
        })];
        let text = message_text(&AgentMessage::Assistant(message));
        assert!(text.starts_with("→ read "), "{text}");
        assert!(text.contains("a.txt"), "{text}");
    }

    #[test]
    fn summaries_become_user_messages_and_settings_are_skipped() {
        let compaction = stored(NewNode::compaction("we fixed X", "k", 100));
        let Some(AgentMessage::User(user)) = node_to_message(&compaction).unwrap() else {
            panic!("a compaction becomes a user message");
        };
        assert!(message_text(&AgentMessage::User(user)).contains("we fixed X"));
        let branch = stored(NewNode::new(
            NodeKind::BranchSummary,
            json!({"summary": "tried Y"}),
            "tried Y",
        ));
        assert!(node_to_message(&branch).unwrap().is_some());
        for kind in [
            NodeKind::ModelChange,
            NodeKind::ThinkingLevelChange,
            NodeKind::Label,
        ] {
            let node = stored(NewNode::new(kind, json!({"model": "x"}), "x"));
            assert_eq!(node_to_message(&node).unwrap(), None);
        }
        let custom = AgentMessage::Custom(arbor_agent::CustomMessage {
            kind: "note".into(),
            data: json!(null),
        });
        assert!(message_to_node(&custom).unwrap().is_none());
    }
}
