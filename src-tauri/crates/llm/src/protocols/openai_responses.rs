//! OpenAI Responses (`openai-responses`) stream parser; also LM Studio's `/v1/responses`.
//!
//! Output items are keyed by `output_index`, never by id (the Copilot proxy rotates item ids).
//! `*.done` events are authoritative over the deltas (recordings with trimmed deltas exist).
//! Reasoning items become thinking blocks whose signature is the whole item as JSON (with its
//! `encrypted_content`), replayed verbatim. Custom (freeform) tool calls carry a raw string,
//! exposed as the arguments `{"input": "<text>"}`.

use std::collections::HashMap;

use serde_json::{json, Value};

use super::{count, event_type, parse_payload, str_field, ProtocolParser};
use crate::builder::{truncated_stream_error, MessageBuilder};
use crate::classify::classify_stream_error;
use crate::error::LlmError;
use crate::events::AssistantEvent;
use crate::partial_json::{arguments_are_complete, parse_arguments};
use crate::sse::SseEvent;
use crate::types::{Api, JsonObject, StopReason, Usage};

#[derive(Clone, Copy, PartialEq)]
enum ItemKind {
    Message,
    Reasoning,
    FunctionCall,
    CustomToolCall,
}

struct OpenItem {
    kind: ItemKind,
    content_index: usize,
    /// Raw function arguments or custom tool input so far.
    raw: String,
    /// Byte offset in the block's text where the current content part / summary part began.
    part_start: usize,
}

pub struct ResponsesParser {
    builder: MessageBuilder,
    items: HashMap<u64, OpenItem>,
}

impl ResponsesParser {
    pub fn new(provider: &str, model: &str) -> Self {
        Self {
            builder: MessageBuilder::new(Api::OpenAiResponses, provider, model),
            items: HashMap::new(),
        }
    }

    fn output_index(payload: &Value) -> u64 {
        payload["output_index"].as_u64().unwrap_or(0)
    }

    fn item_added(&mut self, payload: &Value) {
        let item = &payload["item"];
        let (kind, content_index) = match str_field(item, "type") {
            Some("message") => {
                let index = self.builder.open_text();
                if let Some(text) = self.builder.text_mut(index) {
                    text.signature = str_field(item, "id").map(str::to_string);
                    text.phase = str_field(item, "phase").map(str::to_string);
                }
                (ItemKind::Message, index)
            }
            Some("reasoning") => (ItemKind::Reasoning, self.builder.open_thinking()),
            Some(kind @ ("function_call" | "custom_tool_call")) => {
                let id = str_field(item, "call_id").unwrap_or_default().to_string();
                let name = str_field(item, "name").unwrap_or_default().to_string();
                let index = self.builder.open_tool_call(id, name);
                if let Some(call) = self.builder.tool_call_mut(index) {
                    call.item_id = str_field(item, "id").map(str::to_string);
                }
                let kind = if kind == "function_call" {
                    ItemKind::FunctionCall
                } else {
                    ItemKind::CustomToolCall
                };
                (kind, index)
            }
            _ => return, // web_search_call, file_search_call…: run by the provider
        };
        self.items.insert(
            Self::output_index(payload),
            OpenItem {
                kind,
                content_index,
                raw: String::new(),
                part_start: 0,
            },
        );
    }

    fn item_of(&mut self, payload: &Value, kind: ItemKind) -> Option<&mut OpenItem> {
        self.items
            .get_mut(&Self::output_index(payload))
            .filter(|item| item.kind == kind)
    }

    /// A new content part or summary part: remember where it starts, separate summaries.
    fn part_added(&mut self, payload: &Value, kind: ItemKind) {
        let Some(item) = self.item_of(payload, kind) else {
            return;
        };
        let content_index = item.content_index;
        let current = match kind {
            ItemKind::Reasoning => self
                .builder
                .thinking_mut(content_index)
                .map(|t| t.thinking.len()),
            _ => self.builder.text_mut(content_index).map(|t| t.text.len()),
        }
        .unwrap_or(0);
        if kind == ItemKind::Reasoning && current > 0 {
            self.builder.thinking_delta(content_index, "\n\n");
        }
        if let Some(item) = self.item_of(payload, kind) {
            item.part_start = current
                + if kind == ItemKind::Reasoning && current > 0 {
                    2
                } else {
                    0
                };
        }
    }

    fn text_delta(&mut self, payload: &Value) {
        let delta = str_field(payload, "delta").unwrap_or_default();
        if let Some(item) = self.item_of(payload, ItemKind::Message) {
            let index = item.content_index;
            self.builder.text_delta(index, delta);
        }
    }

    fn thinking_delta(&mut self, payload: &Value) {
        let delta = str_field(payload, "delta").unwrap_or_default();
        if let Some(item) = self.item_of(payload, ItemKind::Reasoning) {
            let index = item.content_index;
            self.builder.thinking_delta(index, delta);
        }
    }

    /// `output_text.done` / `refusal.done`: the part's full text replaces what the deltas built.
    fn text_done(&mut self, payload: &Value, field: &str) {
        let Some(full) = str_field(payload, field) else {
            return;
        };
        let Some(item) = self.item_of(payload, ItemKind::Message) else {
            return;
        };
        let (index, part_start) = (item.content_index, item.part_start);
        let Some(received) = self
            .builder
            .text_mut(index)
            .map(|text| text.text.get(part_start..).unwrap_or_default().to_string())
        else {
            return;
        };
        if received == full {
            return;
        }
        match full.strip_prefix(received.as_str()) {
            Some(missing) => self.builder.text_delta(index, missing),
            None => {
                if let Some(text) = self.builder.text_mut(index) {
                    text.text.truncate(part_start);
                    text.text.push_str(full);
                }
            }
        }
    }

    fn arguments_delta(&mut self, payload: &Value, kind: ItemKind) {
        let fragment = str_field(payload, "delta").unwrap_or_default().to_string();
        let Some(item) = self.item_of(payload, kind) else {
            return;
        };
        item.raw.push_str(&fragment);
        let (index, raw) = (item.content_index, item.raw.clone());
        let arguments = tool_arguments(kind, &raw);
        self.builder
            .tool_call_arguments(index, &fragment, arguments);
    }

    fn item_done(&mut self, payload: &Value) {
        let Some(open) = self.items.remove(&Self::output_index(payload)) else {
            return;
        };
        let item = &payload["item"];
        let index = open.content_index;
        match open.kind {
            ItemKind::Message => {
                let full: String = item["content"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|part| str_field(part, "text").or(str_field(part, "refusal")))
                    .collect();
                if let Some(text) = self.builder.text_mut(index) {
                    if item["content"].is_array() && text.text != full {
                        text.text = full;
                    }
                    if let Some(id) = str_field(item, "id") {
                        text.signature = Some(id.to_string());
                    }
                }
            }
            ItemKind::Reasoning => {
                let summary: Vec<&str> = item["summary"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|part| str_field(part, "text"))
                    .collect();
                if let Some(thinking) = self.builder.thinking_mut(index) {
                    if thinking.thinking.is_empty() && !summary.is_empty() {
                        thinking.thinking = summary.join("\n\n");
                    }
                    thinking.signature = Some(item.to_string());
                }
            }
            ItemKind::FunctionCall | ItemKind::CustomToolCall => {
                let field = if open.kind == ItemKind::FunctionCall {
                    "arguments"
                } else {
                    "input"
                };
                let raw = str_field(item, field).unwrap_or(&open.raw).to_string();
                self.builder
                    .set_cut_off(index, !arguments_whole(open.kind, &raw));
                if let Some(call) = self.builder.tool_call_mut(index) {
                    call.arguments = tool_arguments(open.kind, &raw);
                    if let Some(id) = str_field(item, "call_id") {
                        call.id = id.to_string();
                    }
                    if let Some(name) = str_field(item, "name") {
                        call.name = name.to_string();
                    }
                }
            }
        }
        self.builder.close(index);
    }

    fn close_open_items(&mut self) {
        let mut items: Vec<OpenItem> = self.items.drain().map(|(_, item)| item).collect();
        items.sort_by_key(|item| item.content_index);
        for item in items {
            if let Some(call) = self.builder.tool_call_mut(item.content_index) {
                call.arguments = tool_arguments(item.kind, &item.raw);
                self.builder
                    .set_cut_off(item.content_index, !arguments_whole(item.kind, &item.raw));
            }
            self.builder.close(item.content_index);
        }
    }

    /// `response.completed` / `response.incomplete` / `response.failed`.
    fn response_end(&mut self, response: &Value) {
        if let Some(usage) = response.get("usage").filter(|u| u.is_object()) {
            self.builder.message.usage = read_usage(usage);
        }
        self.close_open_items();
        match str_field(response, "status") {
            Some("failed") => {
                let error = match response.get("error").filter(|e| !e.is_null()) {
                    Some(error) => classify_stream_error(&json!({ "error": error })),
                    None => LlmError::Provider {
                        message: "the response failed without an error message".into(),
                    },
                };
                self.builder.fail(error);
            }
            Some("incomplete") => {
                match response
                    .pointer("/incomplete_details/reason")
                    .and_then(Value::as_str)
                {
                    Some("content_filter") => self.builder.fail(LlmError::Refused {
                        message: "the provider's content filter blocked the output".into(),
                    }),
                    _ => self.builder.done(StopReason::Length),
                }
            }
            Some("cancelled") => self.builder.fail(LlmError::Aborted),
            _ => {
                let stop = self.builder.natural_stop();
                self.builder.done(stop);
            }
        }
    }
}

impl ProtocolParser for ResponsesParser {
    fn handle(&mut self, event: &SseEvent) -> bool {
        let Some(payload) = parse_payload(event) else {
            return false;
        };
        match event_type(event, &payload) {
            "response.created" | "response.in_progress" => {
                self.builder.ensure_started();
                if self.builder.message.response_id.is_none() {
                    self.builder.message.response_id = payload
                        .pointer("/response/id")
                        .and_then(Value::as_str)
                        .map(str::to_string);
                }
            }
            "response.output_item.added" => self.item_added(&payload),
            "response.content_part.added" => self.part_added(&payload, ItemKind::Message),
            "response.reasoning_summary_part.added" => {
                self.part_added(&payload, ItemKind::Reasoning)
            }
            "response.output_text.delta" | "response.refusal.delta" => self.text_delta(&payload),
            "response.output_text.done" => self.text_done(&payload, "text"),
            "response.refusal.done" => self.text_done(&payload, "refusal"),
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                self.thinking_delta(&payload)
            }
            "response.function_call_arguments.delta" => {
                self.arguments_delta(&payload, ItemKind::FunctionCall)
            }
            "response.custom_tool_call_input.delta" => {
                self.arguments_delta(&payload, ItemKind::CustomToolCall)
            }
            "response.output_item.done" => self.item_done(&payload),
            "response.completed" | "response.incomplete" | "response.failed" => {
                self.response_end(&payload["response"])
            }
            "error" => self.builder.fail(classify_stream_error(&payload)),
            _ => {}
        }
        true
    }

    fn finish(&mut self) {
        self.builder.fail(truncated_stream_error());
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

fn tool_arguments(kind: ItemKind, raw: &str) -> JsonObject {
    if kind == ItemKind::CustomToolCall {
        let mut arguments = JsonObject::new();
        arguments.insert("input".into(), Value::String(raw.to_string()));
        arguments
    } else {
        parse_arguments(raw)
    }
}

/// Whether a call's raw text can be executed. A custom tool's input is free text: any text is
/// whole as far as the stream can tell.
fn arguments_whole(kind: ItemKind, raw: &str) -> bool {
    kind == ItemKind::CustomToolCall || arguments_are_complete(raw)
}

/// Responses usage: `input_tokens` includes cached tokens, which are counted apart.
fn read_usage(usage: &Value) -> Usage {
    let cache_read = count(usage, "/input_tokens_details/cached_tokens");
    let cache_write = count(usage, "/input_tokens_details/cache_write_tokens");
    Usage {
        input: count(usage, "/input_tokens").saturating_sub(cache_read + cache_write),
        output: count(usage, "/output_tokens"),
        cache_read,
        cache_write,
        ..Usage::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocols::decode_body;

    #[test]
    fn done_text_fills_in_trimmed_deltas() {
        let body = concat!(
            "data: {\"type\":\"response.created\",\"response\":{\"id\":\"r\"}}\n\n",
            "data: {\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"type\":\"message\",\"id\":\"m\"}}\n\n",
            "data: {\"type\":\"response.content_part.added\",\"output_index\":0}\n\n",
            "data: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"delta\":\"Hel\"}\n\n",
            "data: {\"type\":\"response.output_text.done\",\"output_index\":0,\"text\":\"Hello\"}\n\n",
            "data: {\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{\"type\":\"message\",\"id\":\"m\",\"content\":[{\"type\":\"output_text\",\"text\":\"Hello\"}]}}\n\n",
            "data: {\"type\":\"response.incomplete\",\"response\":{\"status\":\"incomplete\",\"incomplete_details\":{\"reason\":\"max_output_tokens\"}}}\n\n",
        );
        let events = decode_body(Api::OpenAiResponses, "openai", "gpt", body.as_bytes());
        let deltas: String = events
            .iter()
            .filter_map(|e| match e {
                AssistantEvent::TextDelta { delta, .. } => Some(delta.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(deltas, "Hello");
        let Some(AssistantEvent::Done { message }) = events.last() else {
            panic!("{events:?}");
        };
        assert_eq!(message.text(), "Hello");
        assert_eq!(message.stop_reason, StopReason::Length);
        assert_eq!(message.response_id.as_deref(), Some("r"));
    }
}
