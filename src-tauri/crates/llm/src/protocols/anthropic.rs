//! Anthropic Messages (`anthropic-messages`): stream parser and non-streaming message reader.
//!
//! Blocks are keyed by `index`; `input_json_delta` fragments concatenate to the tool input;
//! `signature_delta` completes a thinking block; `message_delta` carries the stop reason and
//! cumulative usage (input tokens may be restated there). Unknown block types (`server_tool_use`,
//! `compaction`, `fallback`…) are ignored: they are not ours to run or show.

use std::collections::HashMap;

use serde_json::Value;

use super::{event_type, parse_payload, str_field, ProtocolParser};
use crate::builder::{truncated_stream_error, MessageBuilder};
use crate::classify::classify_stream_error;
use crate::error::LlmError;
use crate::events::AssistantEvent;
use crate::sse::SseEvent;
use crate::types::{
    Api, AssistantContent, AssistantMessage, StopReason, TextContent, ThinkingContent, ToolCall,
    Usage,
};

/// An open content block: where it lives in the message, and the raw tool input so far.
struct Block {
    content_index: usize,
    raw_input: String,
}

pub struct AnthropicParser {
    builder: MessageBuilder,
    blocks: HashMap<u64, Block>,
    /// The raw `stop_reason` from `message_delta`.
    stop_reason: Option<String>,
    stop_details: Option<Value>,
}

impl AnthropicParser {
    pub fn new(provider: &str, model: &str) -> Self {
        Self {
            builder: MessageBuilder::new(Api::AnthropicMessages, provider, model),
            blocks: HashMap::new(),
            stop_reason: None,
            stop_details: None,
        }
    }

    fn message_start(&mut self, payload: &Value) {
        if self.builder.is_started() {
            // A second `message_start` means the message was restarted: keep only the new one.
            self.builder.restart();
            self.blocks.clear();
            self.stop_reason = None;
            self.stop_details = None;
        } else {
            self.builder.ensure_started();
        }
        let message = &payload["message"];
        self.builder.message.response_id = str_field(message, "id").map(str::to_string);
        if let Some(usage) = message.get("usage") {
            update_usage(&mut self.builder.message.usage, usage);
        }
    }

    fn block_start(&mut self, payload: &Value) {
        let index = payload["index"].as_u64().unwrap_or(0);
        let block = &payload["content_block"];
        let content_index = match str_field(block, "type") {
            Some("text") => {
                let content_index = self.builder.open_text();
                let initial = str_field(block, "text").unwrap_or_default();
                self.builder.text_delta(content_index, initial);
                content_index
            }
            Some("thinking") => {
                let content_index = self.builder.open_thinking();
                let initial = str_field(block, "thinking").unwrap_or_default();
                self.builder.thinking_delta(content_index, initial);
                if let Some(signature) = str_field(block, "signature").filter(|s| !s.is_empty()) {
                    if let Some(thinking) = self.builder.thinking_mut(content_index) {
                        thinking.signature = Some(signature.to_string());
                    }
                }
                content_index
            }
            Some("redacted_thinking") => {
                let content_index = self.builder.open_thinking();
                if let Some(thinking) = self.builder.thinking_mut(content_index) {
                    thinking.redacted = true;
                    thinking.signature = str_field(block, "data").map(str::to_string);
                }
                content_index
            }
            Some("tool_use") => {
                let id = str_field(block, "id").unwrap_or_default().to_string();
                let name = str_field(block, "name").unwrap_or_default().to_string();
                let content_index = self.builder.open_tool_call(id, name);
                // The start normally carries `input: {}`; a non-empty one is the whole input.
                let raw_input = match block.get("input") {
                    Some(Value::Object(input)) if !input.is_empty() => block["input"].to_string(),
                    _ => String::new(),
                };
                if !raw_input.is_empty() {
                    self.builder
                        .tool_call_delta(content_index, &raw_input, &raw_input);
                }
                self.blocks.insert(
                    index,
                    Block {
                        content_index,
                        raw_input,
                    },
                );
                return;
            }
            _ => return,
        };
        self.blocks.insert(
            index,
            Block {
                content_index,
                raw_input: String::new(),
            },
        );
    }

    fn block_delta(&mut self, payload: &Value) {
        let index = payload["index"].as_u64().unwrap_or(0);
        let Some(block) = self.blocks.get_mut(&index) else {
            return;
        };
        let content_index = block.content_index;
        let delta = &payload["delta"];
        match str_field(delta, "type") {
            Some("text_delta") => {
                let text = str_field(delta, "text").unwrap_or_default();
                self.builder.text_delta(content_index, text);
            }
            Some("thinking_delta") => {
                let text = str_field(delta, "thinking").unwrap_or_default();
                self.builder.thinking_delta(content_index, text);
            }
            Some("signature_delta") => {
                let fragment = str_field(delta, "signature").unwrap_or_default();
                if let Some(thinking) = self.builder.thinking_mut(content_index) {
                    thinking
                        .signature
                        .get_or_insert_with(String::new)
                        .push_str(fragment);
                }
            }
            Some("input_json_delta") => {
                let fragment = str_field(delta, "partial_json").unwrap_or_default();
                block.raw_input.push_str(fragment);
                let raw = block.raw_input.clone();
                self.builder.tool_call_delta(content_index, fragment, &raw);
            }
            _ => {} // citations_delta and future kinds
        }
    }

    fn block_stop(&mut self, payload: &Value) {
        let index = payload["index"].as_u64().unwrap_or(0);
        if let Some(block) = self.blocks.remove(&index) {
            self.close_block(block);
        }
    }

    fn close_block(&mut self, block: Block) {
        if self.builder.tool_call_mut(block.content_index).is_some() {
            self.builder
                .finish_tool_arguments(block.content_index, &block.raw_input);
        }
        self.builder.close(block.content_index);
    }

    fn message_delta(&mut self, payload: &Value) {
        if let Some(reason) = payload["delta"].get("stop_reason").and_then(Value::as_str) {
            self.stop_reason = Some(reason.to_string());
        }
        if let Some(details) = payload["delta"]
            .get("stop_details")
            .filter(|d| !d.is_null())
        {
            self.stop_details = Some(details.clone());
        }
        if let Some(usage) = payload.get("usage") {
            update_usage(&mut self.builder.message.usage, usage);
        }
    }

    /// Ends the message with the stop reason received (message_stop, or EOF after message_delta).
    fn complete(&mut self) {
        let mut blocks: Vec<Block> = self.blocks.drain().map(|(_, block)| block).collect();
        blocks.sort_by_key(|block| block.content_index);
        for block in blocks {
            self.close_block(block);
        }
        match stop_outcome(self.stop_reason.as_deref(), self.stop_details.as_ref()) {
            Ok(stop_reason) => self.builder.done(stop_reason),
            Err(error) => self.builder.fail(error),
        }
    }
}

impl ProtocolParser for AnthropicParser {
    fn handle(&mut self, event: &SseEvent) -> bool {
        let Some(payload) = parse_payload(event) else {
            return false;
        };
        match event_type(event, &payload) {
            "message_start" => self.message_start(&payload),
            "content_block_start" => self.block_start(&payload),
            "content_block_delta" => self.block_delta(&payload),
            "content_block_stop" => self.block_stop(&payload),
            "message_delta" => self.message_delta(&payload),
            "message_stop" => self.complete(),
            "error" => self.builder.fail(classify_stream_error(&payload)),
            _ => {} // ping and future events
        }
        true
    }

    fn finish(&mut self) {
        if self.stop_reason.is_some() {
            self.complete();
        } else {
            self.builder.fail(truncated_stream_error());
        }
    }

    fn fail(&mut self, error: LlmError) {
        self.builder.fail(error);
    }

    fn take_events(&mut self) -> Vec<AssistantEvent> {
        self.builder.take_events()
    }

    fn is_finished(&self) -> bool {
        self.builder.is_finished()
    }
}

/// Maps Anthropic's `stop_reason`; a refusal ends the message as an error.
fn stop_outcome(reason: Option<&str>, details: Option<&Value>) -> Result<StopReason, LlmError> {
    match reason {
        Some("end_turn" | "stop_sequence" | "pause_turn") | None => Ok(StopReason::Stop),
        Some("max_tokens" | "model_context_window_exceeded") => Ok(StopReason::Length),
        Some("tool_use") => Ok(StopReason::ToolUse),
        Some("refusal") => Err(LlmError::Refused {
            message: details
                .and_then(|d| str_field(d, "explanation"))
                .unwrap_or("the model declined to answer")
                .to_string(),
        }),
        Some(other) => Err(LlmError::Provider {
            message: format!("the response stopped for an unknown reason `{other}`"),
        }),
    }
}

/// Applies a `usage` object; fields present replace earlier values (they are cumulative).
fn update_usage(usage: &mut Usage, value: &Value) {
    let set = |field: &mut u64, key: &str| {
        if let Some(n) = value.get(key).and_then(Value::as_u64) {
            *field = n;
        }
    };
    set(&mut usage.input, "input_tokens");
    set(&mut usage.output, "output_tokens");
    set(&mut usage.cache_read, "cache_read_input_tokens");
    set(&mut usage.cache_write, "cache_creation_input_tokens");
}

/// Reads a non-streaming Messages response body. A refusal gives stop reason `error`.
pub fn parse_message(provider: &str, model: &str, body: &Value) -> AssistantMessage {
    let mut message = AssistantMessage::empty(Api::AnthropicMessages, provider, model);
    message.response_id = str_field(body, "id").map(str::to_string);
    for block in body["content"].as_array().into_iter().flatten() {
        let content = match str_field(block, "type") {
            Some("text") => AssistantContent::Text(TextContent::new(
                str_field(block, "text").unwrap_or_default(),
            )),
            Some("thinking") => AssistantContent::Thinking(ThinkingContent {
                thinking: str_field(block, "thinking").unwrap_or_default().to_string(),
                signature: str_field(block, "signature").map(str::to_string),
                redacted: false,
            }),
            Some("redacted_thinking") => AssistantContent::Thinking(ThinkingContent {
                thinking: String::new(),
                signature: str_field(block, "data").map(str::to_string),
                redacted: true,
            }),
            Some("tool_use") => AssistantContent::ToolCall(ToolCall {
                id: str_field(block, "id").unwrap_or_default().to_string(),
                name: str_field(block, "name").unwrap_or_default().to_string(),
                arguments: block["input"].as_object().cloned().unwrap_or_default(),
                thought_signature: None,
                item_id: None,
            }),
            _ => continue,
        };
        message.content.push(content);
    }
    update_usage(&mut message.usage, &body["usage"]);
    match stop_outcome(str_field(body, "stop_reason"), body.get("stop_details")) {
        Ok(stop_reason) => message.stop_reason = stop_reason,
        Err(error) => {
            message.stop_reason = StopReason::Error;
            message.error_message = Some(error.to_string());
        }
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocols::decode_body;

    fn run(body: &str) -> Vec<AssistantEvent> {
        decode_body(
            Api::AnthropicMessages,
            "anthropic",
            "claude",
            body.as_bytes(),
        )
    }

    #[test]
    fn tool_input_streams_as_partial_arguments() {
        let events = run(concat!(
            "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n",
            "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"read\",\"input\":{}}}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\":\\\"sr\"}}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"c\\\"}\"}}\n\n",
            "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
            "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":9}}\n\n",
            "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
        ));
        let partials: Vec<String> = events
            .iter()
            .filter_map(|e| match e {
                AssistantEvent::ToolCallDelta { arguments, .. } => {
                    Some(Value::Object(arguments.clone()).to_string())
                }
                _ => None,
            })
            .collect();
        assert_eq!(partials, [r#"{"path":"sr"}"#, r#"{"path":"src"}"#]);
        let Some(AssistantEvent::Done { message }) = events.last() else {
            panic!("no done: {events:?}");
        };
        assert_eq!(message.stop_reason, StopReason::ToolUse);
        assert_eq!(message.usage.output, 9);
        assert_eq!(message.usage.input, 5);
    }

    #[test]
    fn eof_without_stop_is_a_network_error() {
        let events = run("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\"}}\n\n");
        assert!(matches!(
            events.last(),
            Some(AssistantEvent::Error {
                error: LlmError::Network { .. },
                ..
            })
        ));
    }
}
