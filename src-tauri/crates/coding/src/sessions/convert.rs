//! Agent messages ↔ store nodes.

use arbor_agent::AgentMessage;
use arbor_llm::{
    AssistantContent, AssistantMessage, StopReason, ToolResultMessage, UserContent, UserMessage,
};
use arbor_store::{ContextNode, NewNode, Node, NodeKind};
use rayon::prelude::*;
use serde::Deserialize;

use tagged::tagged;

mod tagged;

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

/// The part of a compaction or branch summary's content that the model sees. Any other field
/// (`first_kept_id`, `tokens_before`, ...) is skipped without being built.
#[derive(Deserialize)]
struct SummaryContent {
    #[serde(default)]
    summary: Option<String>,
}

/// The message a context node gives the model: messages as stored, a compaction or branch
/// summary as a user message carrying the summary, nothing for model/thinking changes and
/// labels.
///
/// Messages are deserialized straight from the stored JSON text, with no `Value` in between:
/// this is most of the cost of resuming a long session. A message node goes straight into the
/// struct its kind stores (see `tagged`); only when that fails (a `role` other than the kind's,
/// or a malformed message) does the general `AgentMessage` parse decide, as it always did.
pub fn node_to_message(node: &Node) -> Result<Option<AgentMessage>, serde_json::Error> {
    message_of(node.kind, node.content.get(), &node.text)
}

/// [`node_to_message`] from a node's kind, stored JSON and text.
fn message_of(
    kind: NodeKind,
    json: &str,
    text: &str,
) -> Result<Option<AgentMessage>, serde_json::Error> {
    let summary = |preamble: &str| {
        // Content without a string `summary` (or not an object at all): the text stands in.
        let stored = if json.starts_with('{') {
            serde_json::from_str::<SummaryContent>(json)
                .ok()
                .and_then(|c| c.summary)
        } else {
            None
        };
        Some(summary_message(preamble, stored.as_deref().unwrap_or(text)))
    };
    let message = |fast: Option<AgentMessage>| match fast {
        Some(m) => Ok(Some(m)),
        None => serde_json::from_str::<AgentMessage>(json).map(Some),
    };
    match kind {
        NodeKind::User => message(tagged::<UserMessage>(json, "user").map(AgentMessage::User)),
        NodeKind::Assistant => {
            message(tagged::<AssistantMessage>(json, "assistant").map(AgentMessage::Assistant))
        }
        NodeKind::ToolResult => {
            message(tagged::<ToolResultMessage>(json, "tool_result").map(AgentMessage::ToolResult))
        }
        NodeKind::Compaction => Ok(summary(SUMMARY_PREAMBLE)),
        NodeKind::BranchSummary => Ok(summary(BRANCH_PREAMBLE)),
        NodeKind::ModelChange | NodeKind::ThinkingLevelChange | NodeKind::Label => Ok(None),
    }
}

/// The conversation for the agent from [`arbor_store::Store::context_json`] (root first): the
/// stored JSON parsed once, on every core for a long context. This is how a session is resumed.
pub fn context_json_messages(
    nodes: &[ContextNode],
) -> Result<Vec<AgentMessage>, serde_json::Error> {
    let convert = |node: &ContextNode| message_of(node.kind, &node.content, &node.text).transpose();
    if nodes.len() < PARALLEL_FROM {
        return nodes.iter().filter_map(convert).collect();
    }
    nodes
        .par_iter()
        .with_min_len(PARALLEL_FROM / 2)
        .filter_map(convert)
        .collect()
}

/// The conversation for the agent from a store context (root first).
///
/// A long context is parsed on every core: parsing is most of what resuming a long session costs
/// (a 10,000-node context measured 23 ms on one core).
pub fn context_messages(nodes: &[Node]) -> Result<Vec<AgentMessage>, serde_json::Error> {
    if nodes.len() < PARALLEL_FROM {
        return nodes
            .iter()
            .filter_map(|node| node_to_message(node).transpose())
            .collect();
    }
    nodes
        .par_iter()
        .with_min_len(PARALLEL_FROM / 2)
        .filter_map(|node| node_to_message(node).transpose())
        .collect()
}

/// Contexts shorter than this are parsed on the calling thread.
const PARALLEL_FROM: usize = 512;

fn summary_message(preamble: &str, summary: &str) -> AgentMessage {
    AgentMessage::User(UserMessage::text(format!(
        "{preamble}\n\n<summary>\n{summary}\n</summary>"
    )))
}

/// The message a compaction summary gives the model (what a stored compaction node becomes).
pub fn compaction_summary_message(summary: &str) -> AgentMessage {
    summary_message(SUMMARY_PREAMBLE, summary)
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
        let raw = |v: &serde_json::Value| serde_json::value::to_raw_value(v).unwrap();
        Node {
            id: "n".into(),
            session_id: "s".into(),
            parent_id: None,
            kind: new.kind,
            role: new.role,
            content: raw(&new.content),
            text: new.text,
            usage: new.usage.as_ref().map(raw),
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
    fn the_kind_fast_path_gives_what_the_general_parse_gives() {
        let mut with_tools = AssistantMessage::empty(Api::AnthropicMessages, "p", "m");
        with_tools.content = vec![
            AssistantContent::Thinking(arbor_llm::ThinkingContent {
                thinking: "hmm \"quoted\"\n".into(),
                signature: Some("sig".into()),
                redacted: false,
            }),
            AssistantContent::Text(arbor_llm::TextContent::new("a\tb \u{e9}")),
            AssistantContent::ToolCall(arbor_llm::ToolCall {
                id: "c1".into(),
                name: "read".into(),
                arguments: serde_json::from_value(json!({"path": "a", "n": [1, 2.5]})).unwrap(),
                thought_signature: None,
                item_id: Some("fc_1".into()),
            }),
        ];
        with_tools.usage.cost.total = 0.25;
        with_tools.response_id = Some("r".into());
        let messages = [
            AgentMessage::User(UserMessage::text("line\nnext")),
            AgentMessage::Assistant(with_tools),
            AgentMessage::ToolResult(ToolResultMessage {
                tool_call_id: "c1".into(),
                tool_name: "read".into(),
                content: vec![UserContent::Image(arbor_llm::ImageContent {
                    data: "AAAA".into(),
                    mime_type: "image/png".into(),
                })],
                is_error: true,
                details: Some(json!({"nested": {"a": null}})),
            }),
        ];
        for message in &messages {
            let node = stored(message_to_node(message).unwrap().unwrap());
            let general: AgentMessage = node.content_as().unwrap();
            assert_eq!(&general, message);
            assert_eq!(node_to_message(&node).unwrap().as_ref(), Some(message));
        }
    }

    #[test]
    fn the_content_role_wins_over_the_kind_as_before() {
        // A user node holding an assistant message (e.g. a hand-edited import): the general
        // parse decides, exactly as when every node went through it.
        let answer = assistant("hi", StopReason::Stop);
        let mut node = stored(message_to_node(&answer).unwrap().unwrap());
        node.kind = NodeKind::User;
        assert_eq!(node_to_message(&node).unwrap(), Some(answer));
        // Content that is no message at all still fails with serde's message.
        let broken = stored(NewNode::new(NodeKind::User, json!({"text": "x"}), "x"));
        let e = node_to_message(&broken).unwrap_err();
        assert!(e.to_string().contains("role"), "{e}");
    }

    #[test]
    fn summaries_of_any_shape_fall_back_to_the_text() {
        for content in [
            json!(["not", "an object"]),
            json!({"summary": 7}),
            json!(null),
        ] {
            let node = stored(NewNode::new(NodeKind::BranchSummary, content, "the text"));
            let Some(AgentMessage::User(user)) = node_to_message(&node).unwrap() else {
                panic!("a branch summary becomes a user message");
            };
            assert!(message_text(&AgentMessage::User(user)).contains("the text"));
        }
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
