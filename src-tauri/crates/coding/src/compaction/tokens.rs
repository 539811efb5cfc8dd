//! Token counts of a conversation: the provider's own count where it can be trusted, an
//! estimate (characters / 4) for the rest.

use arbor_agent::AgentMessage;
use arbor_llm::{AssistantContent, StopReason, UserContent};

/// What an image is counted as (providers charge roughly 1–1.6k tokens for a typical one).
const IMAGE_TOKENS: u64 = 1_200;

/// About four characters per token for English prose and code; rounded up.
fn chars_to_tokens(chars: usize) -> u64 {
    (chars as u64).div_ceil(4)
}

fn user_content_tokens(content: &[UserContent]) -> u64 {
    content
        .iter()
        .map(|c| match c {
            UserContent::Text(t) => chars_to_tokens(t.text.len()),
            UserContent::Image(_) => IMAGE_TOKENS,
        })
        .sum()
}

/// An estimate of what `message` costs in the model's context.
pub fn estimate_tokens(message: &AgentMessage) -> u64 {
    match message {
        AgentMessage::User(user) => user_content_tokens(&user.content),
        AgentMessage::ToolResult(result) => {
            user_content_tokens(&result.content) + chars_to_tokens(result.tool_name.len())
        }
        AgentMessage::Assistant(assistant) => assistant
            .content
            .iter()
            .map(|c| match c {
                AssistantContent::Text(t) => chars_to_tokens(t.text.len()),
                AssistantContent::Thinking(t) => chars_to_tokens(t.thinking.len()),
                AssistantContent::ToolCall(call) => chars_to_tokens(
                    call.name.len() + serde_json::to_string(&call.arguments).map_or(0, |a| a.len()),
                ),
            })
            .sum(),
        AgentMessage::Custom(_) => 0,
    }
}

/// The tokens the conversation takes in the model's context: the provider-reported usage of
/// the last complete answer at or after `trusted_from` (everything it was sent plus what it
/// wrote), plus estimates for the messages after it; all estimated when no such answer exists.
///
/// `trusted_from` leaves out answers whose usage no longer describes the conversation (those
/// kept verbatim by a compaction were counted with the full history before it).
pub fn context_tokens(messages: &[AgentMessage], trusted_from: usize) -> u64 {
    let reported = messages.iter().enumerate().rev().find_map(|(i, m)| {
        let assistant = m.as_assistant()?;
        let usable = i >= trusted_from
            && !matches!(
                assistant.stop_reason,
                StopReason::Error | StopReason::Aborted
            )
            && assistant.usage.total_tokens() > 0;
        usable.then(|| (i, assistant.usage.total_tokens()))
    });
    match reported {
        Some((i, total)) => total + messages[i + 1..].iter().map(estimate_tokens).sum::<u64>(),
        None => messages.iter().map(estimate_tokens).sum(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbor_llm::{Api, AssistantMessage, TextContent, UserMessage};

    fn answer(text: &str, input: u64, stop: StopReason) -> AgentMessage {
        let mut message = AssistantMessage::empty(Api::AnthropicMessages, "p", "m");
        message.content = vec![AssistantContent::Text(TextContent::new(text))];
        message.usage.input = input;
        message.usage.output = 10;
        message.stop_reason = stop;
        AgentMessage::Assistant(message)
    }

    #[test]
    fn estimates_round_up_by_four_characters() {
        assert_eq!(
            estimate_tokens(&AgentMessage::User(UserMessage::text("abcde"))),
            2
        );
        assert_eq!(estimate_tokens(&answer("", 0, StopReason::Stop)), 0);
    }

    #[test]
    fn the_last_good_usage_counts_and_later_messages_are_estimated() {
        let messages = vec![
            AgentMessage::User(UserMessage::text("x".repeat(400))),
            answer("ok", 1_000, StopReason::Stop),
            AgentMessage::User(UserMessage::text("y".repeat(40))),
            answer("broken", 5_000, StopReason::Error),
        ];
        // 1,000 + 10 reported, then 10 + 2 estimated (the failed answer's usage is not trusted).
        assert_eq!(context_tokens(&messages, 0), 1_010 + 10 + 2);
        // Nothing trusted: every message estimated.
        assert_eq!(context_tokens(&messages, 4), 100 + 1 + 10 + 2);
    }
}
