//! Where a compaction cuts: the messages it summarises and the ones it keeps verbatim.

use arbor_agent::AgentMessage;

use super::tokens::estimate_tokens;

/// The index of the first message to keep so that about `keep_tokens` of the newest messages
/// stay verbatim, or `None` when nothing before `start` … that point could be summarised.
///
/// Messages before `start` (a previous summary) are never cut into. The kept part never begins
/// with a tool result, so a tool call and its result are never separated: the cut moves back
/// to the assistant message that made the call (keeping a little more than asked).
pub fn find_cut(messages: &[AgentMessage], start: usize, keep_tokens: u64) -> Option<usize> {
    let mut kept = 0u64;
    let mut cut = messages.len();
    while cut > start {
        if kept >= keep_tokens && cut < messages.len() {
            break;
        }
        cut -= 1;
        kept += estimate_tokens(&messages[cut]);
    }
    while cut > start && matches!(messages.get(cut), Some(AgentMessage::ToolResult(_))) {
        cut -= 1;
    }
    (cut > start).then_some(cut)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbor_llm::{
        Api, AssistantContent, AssistantMessage, TextContent, ToolCall, ToolResultMessage,
        UserContent, UserMessage,
    };

    fn user(chars: usize) -> AgentMessage {
        AgentMessage::User(UserMessage::text("u".repeat(chars)))
    }

    fn call() -> AgentMessage {
        let mut message = AssistantMessage::empty(Api::AnthropicMessages, "p", "m");
        message.content = vec![AssistantContent::ToolCall(ToolCall {
            id: "c".into(),
            name: "read".into(),
            arguments: Default::default(),
            thought_signature: None,
            item_id: None,
        })];
        AgentMessage::Assistant(message)
    }

    fn result(chars: usize) -> AgentMessage {
        AgentMessage::ToolResult(ToolResultMessage {
            tool_call_id: "c".into(),
            tool_name: "read".into(),
            content: vec![UserContent::Text(TextContent::new("r".repeat(chars)))],
            is_error: false,
            details: None,
        })
    }

    #[test]
    fn keeps_about_the_requested_tokens() {
        // 100 tokens each.
        let messages = vec![user(400), user(400), user(400), user(400)];
        assert_eq!(find_cut(&messages, 0, 150), Some(2));
        assert_eq!(find_cut(&messages, 0, 100), Some(3));
        // Keeping nothing still keeps the last message.
        assert_eq!(find_cut(&messages, 0, 0), Some(3));
        // Everything fits: nothing to summarise.
        assert_eq!(find_cut(&messages, 0, 10_000), None);
        // The previous summary at 0 is never cut into.
        assert_eq!(find_cut(&messages, 1, 250), None);
        assert_eq!(find_cut(&messages, 1, 150), Some(2));
    }

    #[test]
    fn never_separates_a_tool_call_from_its_result() {
        let messages = vec![user(400), user(400), call(), result(2_000), result(2_000)];
        // The two results alone are 1,000 tokens; the cut moves back to the call.
        assert_eq!(find_cut(&messages, 0, 600), Some(2));
        assert_eq!(find_cut(&messages, 0, 0), Some(2));
        // Only a call and its results after the first message: that message is summarised.
        let messages = vec![user(400), call(), result(2_000)];
        assert_eq!(find_cut(&messages, 0, 10), Some(1));
        let messages = vec![call(), result(2_000)];
        assert_eq!(find_cut(&messages, 0, 10), None);
    }
}
