//! The unified event stream every protocol parser produces.
//!
//! Events are small (deltas, not snapshots). A consumer that wants the partial message keeps one
//! and folds every event into it with [`AssistantMessage::apply_event`]; the parsers build their
//! own partial message exactly that way, so the fold always equals what they report.

use serde::{Deserialize, Serialize};

use crate::error::LlmError;
use crate::types::{
    AssistantContent, AssistantMessage, JsonObject, TextContent, ThinkingContent, ToolCall,
};

/// One step of a streamed assistant message. `content_index` points into
/// [`AssistantMessage::content`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AssistantEvent {
    /// A (new) response begins; `message` is the empty partial message. A second `start` in one
    /// stream means the provider restarted the message: discard what came before.
    Start {
        message: AssistantMessage,
    },
    TextStart {
        content_index: usize,
    },
    TextDelta {
        content_index: usize,
        delta: String,
    },
    /// The block is complete; `text` is authoritative (providers may correct the deltas).
    TextEnd {
        content_index: usize,
        text: TextContent,
    },
    ThinkingStart {
        content_index: usize,
    },
    ThinkingDelta {
        content_index: usize,
        delta: String,
    },
    ThinkingEnd {
        content_index: usize,
        thinking: ThinkingContent,
    },
    ToolCallStart {
        content_index: usize,
        id: String,
        name: String,
    },
    /// `delta` is the raw argument text the provider appended (for Gemini's streamed arguments,
    /// the value fragment); `arguments` is everything received so far, re-parsed.
    ToolCallDelta {
        content_index: usize,
        delta: String,
        arguments: JsonObject,
    },
    ToolCallEnd {
        content_index: usize,
        tool_call: ToolCall,
    },
    /// The response is complete (stop reason `stop`, `length` or `tool_use`).
    Done {
        message: AssistantMessage,
    },
    /// The response failed or was aborted; `message` holds what was received.
    Error {
        message: AssistantMessage,
        error: LlmError,
    },
}

impl AssistantEvent {
    /// `done` or `error`: nothing follows.
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            AssistantEvent::Done { .. } | AssistantEvent::Error { .. }
        )
    }
}

impl AssistantMessage {
    /// Folds one event into this partial message.
    pub fn apply_event(&mut self, event: &AssistantEvent) {
        match event {
            AssistantEvent::Start { message }
            | AssistantEvent::Done { message }
            | AssistantEvent::Error { message, .. } => *self = message.clone(),
            AssistantEvent::TextStart { content_index } => self.put_block(
                *content_index,
                AssistantContent::Text(TextContent::default()),
            ),
            AssistantEvent::ThinkingStart { content_index } => self.put_block(
                *content_index,
                AssistantContent::Thinking(ThinkingContent::default()),
            ),
            AssistantEvent::ToolCallStart {
                content_index,
                id,
                name,
            } => self.put_block(
                *content_index,
                AssistantContent::ToolCall(ToolCall {
                    id: id.clone(),
                    name: name.clone(),
                    arguments: JsonObject::new(),
                    thought_signature: None,
                    item_id: None,
                }),
            ),
            AssistantEvent::TextDelta {
                content_index,
                delta,
            } => {
                if let Some(AssistantContent::Text(text)) = self.content.get_mut(*content_index) {
                    text.text.push_str(delta);
                }
            }
            AssistantEvent::ThinkingDelta {
                content_index,
                delta,
            } => {
                if let Some(AssistantContent::Thinking(thinking)) =
                    self.content.get_mut(*content_index)
                {
                    thinking.thinking.push_str(delta);
                }
            }
            AssistantEvent::ToolCallDelta {
                content_index,
                arguments,
                ..
            } => {
                if let Some(AssistantContent::ToolCall(call)) = self.content.get_mut(*content_index)
                {
                    call.arguments = arguments.clone();
                }
            }
            AssistantEvent::TextEnd {
                content_index,
                text,
            } => self.put_block(*content_index, AssistantContent::Text(text.clone())),
            AssistantEvent::ThinkingEnd {
                content_index,
                thinking,
            } => self.put_block(*content_index, AssistantContent::Thinking(thinking.clone())),
            AssistantEvent::ToolCallEnd {
                content_index,
                tool_call,
            } => self.put_block(
                *content_index,
                AssistantContent::ToolCall(tool_call.clone()),
            ),
        }
    }

    fn put_block(&mut self, index: usize, block: AssistantContent) {
        match self.content.get_mut(index) {
            Some(slot) => *slot = block,
            // Blocks are always opened at the end, so `index == len` here.
            None => self.content.push(block),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Api;
    use serde_json::json;

    #[test]
    fn folding_events_builds_the_message() {
        let start = AssistantMessage::empty(Api::AnthropicMessages, "anthropic", "claude");
        let events = vec![
            AssistantEvent::Start {
                message: start.clone(),
            },
            AssistantEvent::TextStart { content_index: 0 },
            AssistantEvent::TextDelta {
                content_index: 0,
                delta: "Hel".into(),
            },
            AssistantEvent::TextDelta {
                content_index: 0,
                delta: "lo".into(),
            },
            AssistantEvent::ToolCallStart {
                content_index: 1,
                id: "t1".into(),
                name: "read".into(),
            },
            AssistantEvent::ToolCallDelta {
                content_index: 1,
                delta: "{\"path\":\"a".into(),
                arguments: json!({"path": "a"}).as_object().cloned().unwrap(),
            },
        ];
        let mut message = start;
        for event in &events {
            message.apply_event(event);
        }
        assert_eq!(message.text(), "Hello");
        let call = message.tool_calls().next().unwrap();
        assert_eq!(call.arguments["path"], "a");
    }

    #[test]
    fn events_serialize_with_snake_case_type() {
        let event = AssistantEvent::ThinkingDelta {
            content_index: 2,
            delta: "hm".into(),
        };
        let value = serde_json::to_value(&event).unwrap();
        assert_eq!(value["type"], "thinking_delta");
        assert_eq!(value["content_index"], 2);
    }
}
