//! Rewrites a conversation for the model it is about to be sent to.
//!
//! Opaque data (thinking signatures, Gemini thought signatures, Responses item ids) is only valid
//! for the model that produced it, so for any other model it is dropped and readable thinking
//! becomes plain text. Tool-call ids are rewritten to what the target accepts, consistently in
//! the calls and their results. Failed or aborted assistant turns are left out, results without
//! a call are dropped, and calls without a result get an error result, because every provider
//! rejects unpaired tool calls. Images sent to a model without vision become a short note.

use std::collections::{HashMap, HashSet};

use crate::model::Model;
use crate::types::{
    Api, AssistantContent, AssistantMessage, Context, Message, StopReason, TextContent,
    ToolResultMessage, UserContent, UserMessage,
};

/// The text given to a tool call whose result never came.
pub const MISSING_RESULT_TEXT: &str =
    "No result: the tool call was interrupted before it finished.";

pub fn for_target(context: &Context, model: &Model) -> Context {
    let mut ids = IdMap::new(model);
    let mut messages = Vec::with_capacity(context.messages.len());
    // Calls of the last assistant message still waiting for their results.
    let mut pending: Vec<(String, String)> = Vec::new();
    for message in &context.messages {
        match message {
            Message::Assistant(assistant) => {
                flush_missing_results(&mut pending, &mut messages);
                if matches!(
                    assistant.stop_reason,
                    StopReason::Error | StopReason::Aborted
                ) {
                    continue;
                }
                let converted = convert_assistant(assistant, model, &mut ids);
                pending = converted
                    .tool_calls()
                    .map(|call| (call.id.clone(), call.name.clone()))
                    .collect();
                messages.push(Message::Assistant(converted));
            }
            Message::ToolResult(result) => {
                let id = ids.get(&result.tool_call_id);
                let Some(position) = pending.iter().position(|(call, _)| *call == id) else {
                    continue; // its call was dropped or never existed
                };
                pending.remove(position);
                messages.push(Message::ToolResult(ToolResultMessage {
                    tool_call_id: id,
                    content: content_for(&result.content, model),
                    ..result.clone()
                }));
            }
            Message::User(user) => {
                flush_missing_results(&mut pending, &mut messages);
                messages.push(Message::User(UserMessage {
                    content: content_for(&user.content, model),
                }));
            }
        }
    }
    flush_missing_results(&mut pending, &mut messages);
    Context {
        system_prompt: context.system_prompt.clone(),
        messages,
        tools: context.tools.clone(),
    }
}

/// The text that replaces an image for a model that cannot see.
pub const IMAGE_OMITTED_TEXT: &str = "(image omitted: this model does not accept images)";

fn content_for(content: &[UserContent], model: &Model) -> Vec<UserContent> {
    if model.images {
        return content.to_vec();
    }
    content
        .iter()
        .map(|part| match part {
            UserContent::Image(_) => UserContent::Text(TextContent::new(IMAGE_OMITTED_TEXT)),
            text => text.clone(),
        })
        .collect()
}

fn flush_missing_results(pending: &mut Vec<(String, String)>, messages: &mut Vec<Message>) {
    for (id, name) in pending.drain(..) {
        messages.push(Message::ToolResult(ToolResultMessage {
            tool_call_id: id,
            tool_name: name,
            content: vec![UserContent::Text(TextContent::new(MISSING_RESULT_TEXT))],
            is_error: true,
            details: None,
        }));
    }
}

fn is_same_model(message: &AssistantMessage, model: &Model) -> bool {
    message.api == model.api && message.provider == model.provider && message.model == model.id
}

fn convert_assistant(
    message: &AssistantMessage,
    model: &Model,
    ids: &mut IdMap,
) -> AssistantMessage {
    let same_model = is_same_model(message, model);
    let mut content = Vec::with_capacity(message.content.len());
    for block in &message.content {
        match block {
            AssistantContent::Thinking(thinking) if same_model => {
                content.push(AssistantContent::Thinking(thinking.clone()))
            }
            AssistantContent::Thinking(thinking) => {
                // Another model's reasoning cannot be verified: keep it readable, as text.
                if !thinking.redacted && !thinking.thinking.trim().is_empty() {
                    content.push(AssistantContent::Text(TextContent::new(
                        thinking.thinking.clone(),
                    )));
                }
            }
            AssistantContent::Text(text) => {
                let mut text = text.clone();
                if !same_model {
                    text.signature = None;
                    text.phase = None;
                }
                content.push(AssistantContent::Text(text));
            }
            AssistantContent::ToolCall(call) => {
                let mut call = call.clone();
                call.id = ids.map(&call.id);
                if !same_model {
                    call.thought_signature = None;
                    call.item_id = None;
                }
                content.push(AssistantContent::ToolCall(call));
            }
        }
    }
    AssistantMessage {
        content,
        ..message.clone()
    }
}

/// Consistent id rewriting for one conversation.
struct IdMap {
    rule: IdRule,
    mapped: HashMap<String, String>,
    used: HashSet<String>,
}

#[derive(Clone, Copy)]
enum IdRule {
    /// `[A-Za-z0-9_-]`, at most this many characters.
    Safe(usize),
    /// Exactly nine ASCII letters or digits (Mistral).
    NineAlphanumeric,
}

impl IdMap {
    fn new(model: &Model) -> Self {
        let rule = match model.api {
            Api::OpenAiCompletions if model.compat.nine_char_tool_ids => IdRule::NineAlphanumeric,
            // OpenAI rejects tool-call ids longer than 40 characters.
            Api::OpenAiCompletions => IdRule::Safe(40),
            Api::AnthropicMessages | Api::OpenAiResponses | Api::GoogleGenerativeAi => {
                IdRule::Safe(64)
            }
        };
        Self {
            rule,
            mapped: HashMap::new(),
            used: HashSet::new(),
        }
    }

    /// The id a tool result should use: the mapped one if its call was seen.
    fn get(&self, original: &str) -> String {
        self.mapped
            .get(original)
            .cloned()
            .unwrap_or_else(|| original.to_string())
    }

    fn map(&mut self, original: &str) -> String {
        if let Some(id) = self.mapped.get(original) {
            return id.clone();
        }
        let mut id = match self.rule {
            IdRule::Safe(max) => {
                let safe: String = original
                    .chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                            c
                        } else {
                            '_'
                        }
                    })
                    .take(max)
                    .collect();
                if safe.is_empty() {
                    hashed(original, 24)
                } else {
                    safe
                }
            }
            IdRule::NineAlphanumeric => {
                if original.len() == 9 && original.chars().all(|c| c.is_ascii_alphanumeric()) {
                    original.to_string()
                } else {
                    hashed(original, 9)
                }
            }
        };
        // Two ids that became equal after rewriting must stay apart.
        let mut salt = 0u32;
        while self.used.contains(&id) {
            salt += 1;
            id = hashed(&format!("{original}#{salt}"), id.len().clamp(9, 24));
        }
        self.used.insert(id.clone());
        self.mapped.insert(original.to_string(), id.clone());
        id
    }
}

/// A deterministic alphanumeric id of `len` characters derived from `text` (FNV-1a).
fn hashed(text: &str, len: usize) -> String {
    const ALPHABET: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut out = String::with_capacity(len);
    let mut round = 0u64;
    while out.len() < len {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325 ^ round;
        for byte in text.bytes() {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        while hash > 0 && out.len() < len {
            out.push(char::from(ALPHABET[(hash % 62) as usize]));
            hash /= 62;
        }
        round += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::fixtures::{conversation, model};

    #[test]
    fn same_model_keeps_opaque_data() {
        let anthropic = model(Api::AnthropicMessages, "anthropic", "claude", "https://a");
        let context = for_target(&conversation(&anthropic), &anthropic);
        let Message::Assistant(assistant) = &context.messages[1] else {
            panic!("assistant expected");
        };
        assert!(
            matches!(&assistant.content[0], AssistantContent::Thinking(t) if t.signature.is_some())
        );
        let ids: Vec<&str> = assistant.tool_calls().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["call_1_a", "call_2"]);
        let Message::ToolResult(result) = &context.messages[2] else {
            panic!("tool result expected");
        };
        assert_eq!(result.tool_call_id, "call_1_a");
    }

    #[test]
    fn other_model_gets_thinking_as_text_and_no_signatures() {
        let anthropic = model(Api::AnthropicMessages, "anthropic", "claude", "https://a");
        let gemini = model(
            Api::GoogleGenerativeAi,
            "google",
            "gemini-2.5-pro",
            "https://g",
        );
        let context = for_target(&conversation(&anthropic), &gemini);
        let Message::Assistant(assistant) = &context.messages[1] else {
            panic!("assistant expected");
        };
        assert!(
            matches!(&assistant.content[0], AssistantContent::Text(t) if t.text == "The user wants two files.")
        );
        assert!(assistant
            .tool_calls()
            .all(|c| c.thought_signature.is_none() && c.item_id.is_none()));
    }

    #[test]
    fn images_become_text_for_models_without_vision() {
        let anthropic = model(Api::AnthropicMessages, "anthropic", "claude", "https://a");
        let mut blind = model(
            Api::OpenAiCompletions,
            "ollama",
            "llama3",
            "http://localhost",
        );
        blind.images = false;
        let context = for_target(&conversation(&anthropic), &blind);
        let has_image = context.messages.iter().any(|m| match m {
            Message::User(u) => u.content.iter().any(|c| matches!(c, UserContent::Image(_))),
            Message::ToolResult(r) => r.content.iter().any(|c| matches!(c, UserContent::Image(_))),
            Message::Assistant(_) => false,
        });
        assert!(!has_image);
        let Message::User(first) = &context.messages[0] else {
            panic!("user expected");
        };
        assert!(matches!(&first.content[1], UserContent::Text(t) if t.text == IMAGE_OMITTED_TEXT));
    }

    #[test]
    fn nine_character_ids_for_mistral() {
        let anthropic = model(Api::AnthropicMessages, "anthropic", "claude", "https://a");
        let mut mistral = model(
            Api::OpenAiCompletions,
            "mistral",
            "mistral-large",
            "https://m",
        );
        mistral.compat.nine_char_tool_ids = true;
        let context = for_target(&conversation(&anthropic), &mistral);
        let Message::Assistant(assistant) = &context.messages[1] else {
            panic!("assistant expected");
        };
        let ids: Vec<String> = assistant.tool_calls().map(|c| c.id.clone()).collect();
        assert!(ids
            .iter()
            .all(|id| id.len() == 9 && id.chars().all(|c| c.is_ascii_alphanumeric())));
        assert_ne!(ids[0], ids[1]);
        let results: Vec<String> = context
            .messages
            .iter()
            .filter_map(|m| match m {
                Message::ToolResult(r) => Some(r.tool_call_id.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(results, ids);
    }

    #[test]
    fn failed_turns_dropped_and_missing_results_filled() {
        let anthropic = model(Api::AnthropicMessages, "anthropic", "claude", "https://a");
        let mut context = conversation(&anthropic);
        // Remove the second tool result: its call must get an error result.
        context.messages.remove(3);
        let mut aborted = AssistantMessage::empty(Api::AnthropicMessages, "anthropic", "claude");
        aborted.stop_reason = StopReason::Aborted;
        aborted
            .content
            .push(AssistantContent::Text(TextContent::new("half")));
        context.messages.push(Message::Assistant(aborted));
        let out = for_target(&context, &anthropic);
        let Message::ToolResult(filled) = &out.messages[3] else {
            panic!("filled result expected, got {:?}", out.messages[3]);
        };
        assert!(filled.is_error);
        assert_eq!(filled.tool_call_id, "call_2");
        assert_eq!(out.messages.len(), 5); // user, assistant, 2 results, user
    }
}
