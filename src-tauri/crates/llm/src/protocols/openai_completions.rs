//! OpenAI Chat Completions (`openai-completions`) stream parser, also used for every
//! OpenAI-compatible server (Groq, DeepSeek, xAI, OpenRouter, Ollama, LM Studio, llama.cpp, vLLM…).
//!
//! Only choice 0 is read (Arbor never asks for `n > 1`). Tool-call deltas are keyed by `index`,
//! with `id`/`name` only on the first; reasoning arrives as `reasoning_content` (DeepSeek, xAI)
//! or `reasoning` (OpenRouter, Ollama); `refusal` text is shown as text; usage comes in a final
//! chunk with `choices: []` (Groq repeats it in `x_groq.usage`); `[DONE]` ends the stream; a
//! chunk with a top-level `error` object is an error.

use std::collections::HashMap;

use serde_json::Value;

use super::{count, parse_payload, str_field, ProtocolParser};
use crate::builder::{truncated_stream_error, MessageBuilder};
use crate::classify::classify_stream_error;
use crate::error::LlmError;
use crate::events::AssistantEvent;
use crate::sse::SseEvent;
use crate::types::{Api, StopReason, Usage};

/// Delta fields that carry reasoning text, by server.
const REASONING_FIELDS: [&str; 3] = ["reasoning_content", "reasoning", "reasoning_text"];

struct OpenToolCall {
    content_index: usize,
    raw_arguments: String,
}

pub struct CompletionsParser {
    builder: MessageBuilder,
    /// The text or thinking block currently receiving deltas.
    text_block: Option<usize>,
    thinking_block: Option<usize>,
    /// Tool calls by their `index` in the delta.
    tool_calls: HashMap<u64, OpenToolCall>,
    /// Calls displaced by a new call at the same index, closed at the end with the others.
    finished_calls: Vec<OpenToolCall>,
    finish_reason: Option<String>,
}

impl CompletionsParser {
    pub fn new(provider: &str, model: &str) -> Self {
        Self {
            builder: MessageBuilder::new(Api::OpenAiCompletions, provider, model),
            text_block: None,
            thinking_block: None,
            tool_calls: HashMap::new(),
            finished_calls: Vec::new(),
            finish_reason: None,
        }
    }

    fn chunk(&mut self, chunk: &Value) {
        if chunk.get("error").is_some_and(|e| !e.is_null()) {
            self.builder.fail(classify_stream_error(chunk));
            return;
        }
        self.builder.ensure_started();
        if self.builder.message.response_id.is_none() {
            // Azure's first chunk has an empty id.
            if let Some(id) = str_field(chunk, "id").filter(|id| !id.is_empty()) {
                self.builder.message.response_id = Some(id.to_string());
            }
        }
        let usage = chunk
            .get("usage")
            .filter(|u| u.is_object())
            .or_else(|| chunk.pointer("/x_groq/usage").filter(|u| u.is_object()));
        if let Some(usage) = usage {
            self.builder.message.usage = read_usage(usage);
        }
        let choice = chunk["choices"].as_array().and_then(|choices| {
            choices
                .iter()
                .find(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0)
        });
        let Some(choice) = choice else {
            return;
        };
        let delta = &choice["delta"];
        for field in REASONING_FIELDS {
            if let Some(text) = str_field(delta, field).filter(|t| !t.is_empty()) {
                self.thinking(field, text);
                break;
            }
        }
        for field in ["content", "refusal"] {
            if let Some(text) = str_field(delta, field).filter(|t| !t.is_empty()) {
                self.text(text);
            }
        }
        for call in delta["tool_calls"].as_array().into_iter().flatten() {
            self.tool_call_delta(call);
        }
        if let Some(reason) = str_field(choice, "finish_reason") {
            self.finish_reason = Some(reason.to_string());
        }
    }

    fn thinking(&mut self, field: &str, text: &str) {
        if let Some(index) = self.text_block.take() {
            self.builder.close(index);
        }
        let index = match self.thinking_block {
            Some(index) => index,
            None => {
                let index = self.builder.open_thinking();
                // Remember the field name: some servers need the reasoning sent back in it.
                if let Some(thinking) = self.builder.thinking_mut(index) {
                    thinking.signature = Some(field.to_string());
                }
                self.thinking_block = Some(index);
                index
            }
        };
        self.builder.thinking_delta(index, text);
    }

    fn text(&mut self, text: &str) {
        if let Some(index) = self.thinking_block.take() {
            self.builder.close(index);
        }
        let index = match self.text_block {
            Some(index) => index,
            None => {
                let index = self.builder.open_text();
                self.text_block = Some(index);
                index
            }
        };
        self.builder.text_delta(index, text);
    }

    fn tool_call_delta(&mut self, call: &Value) {
        let key = call.get("index").and_then(Value::as_u64).unwrap_or(0);
        let function = &call["function"];
        let fragment = str_field(function, "arguments").unwrap_or_default();
        // Servers that omit `index` (or repeat it) mark a new call only by a new id.
        let new_id = str_field(call, "id").filter(|id| !id.is_empty());
        if let (Some(open), Some(id)) = (self.tool_calls.get(&key), new_id) {
            let open_id = self
                .builder
                .message
                .content
                .get(open.content_index)
                .and_then(|block| match block {
                    crate::types::AssistantContent::ToolCall(call) => Some(call.id.as_str()),
                    _ => None,
                });
            if open_id.is_some_and(|open_id| !open_id.is_empty() && open_id != id) {
                if let Some(previous) = self.tool_calls.remove(&key) {
                    self.finished_calls.push(previous);
                }
            }
        }
        if !self.tool_calls.contains_key(&key) {
            for index in [self.text_block.take(), self.thinking_block.take()]
                .into_iter()
                .flatten()
            {
                self.builder.close(index);
            }
            let id = str_field(call, "id").unwrap_or_default().to_string();
            let name = str_field(function, "name").unwrap_or_default().to_string();
            let content_index = self.builder.open_tool_call(id, name);
            self.tool_calls.insert(
                key,
                OpenToolCall {
                    content_index,
                    raw_arguments: String::new(),
                },
            );
        }
        let Some(open) = self.tool_calls.get_mut(&key) else {
            return;
        };
        let content_index = open.content_index;
        // Some servers send the name or id late, or in pieces.
        if let Some(call_state) = self.builder.tool_call_mut(content_index) {
            if call_state.id.is_empty() {
                if let Some(id) = str_field(call, "id") {
                    call_state.id = id.to_string();
                }
            }
            if call_state.name.is_empty() {
                if let Some(name) = str_field(function, "name") {
                    call_state.name = name.to_string();
                }
            }
        }
        if !fragment.is_empty() {
            open.raw_arguments.push_str(fragment);
            let raw = open.raw_arguments.clone();
            self.builder.tool_call_delta(content_index, fragment, &raw);
        }
    }

    fn complete(&mut self) {
        let mut calls: Vec<OpenToolCall> = self.tool_calls.drain().map(|(_, c)| c).collect();
        calls.append(&mut self.finished_calls);
        calls.sort_by_key(|call| call.content_index);
        for call in calls {
            self.builder
                .finish_tool_arguments(call.content_index, &call.raw_arguments);
        }
        let reason = self.finish_reason.clone();
        match reason.as_deref() {
            Some("length") => self.builder.done(StopReason::Length),
            Some("content_filter") => self.builder.fail(LlmError::Refused {
                message: "the provider's content filter blocked the output".into(),
            }),
            _ => {
                let stop = self.builder.natural_stop();
                self.builder.done(stop);
            }
        }
    }
}

impl ProtocolParser for CompletionsParser {
    fn handle(&mut self, event: &SseEvent) -> bool {
        if event.data.trim() == "[DONE]" {
            self.complete();
            return true;
        }
        let Some(chunk) = parse_payload(event) else {
            return false;
        };
        self.chunk(&chunk);
        true
    }

    fn finish(&mut self) {
        // Some compatible servers omit `[DONE]`; a finish reason is enough to call it complete.
        if self.finish_reason.is_some() {
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

/// Chat Completions usage: `prompt_tokens` includes cached tokens, which are counted apart.
fn read_usage(usage: &Value) -> Usage {
    let prompt = count(usage, "/prompt_tokens");
    let completion = count(usage, "/completion_tokens");
    let total = count(usage, "/total_tokens");
    let cache_read = usage
        .pointer("/prompt_tokens_details/cached_tokens")
        .or_else(|| usage.get("prompt_cache_hit_tokens")) // DeepSeek
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let cache_write = count(usage, "/prompt_tokens_details/cache_write_tokens");
    // xAI leaves reasoning tokens out of `completion_tokens` but in `total_tokens`.
    let output = completion.max(total.saturating_sub(prompt));
    Usage {
        input: prompt.saturating_sub(cache_read + cache_write),
        output,
        cache_read,
        cache_write,
        ..Usage::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocols::decode_body;
    use crate::types::AssistantMessage;

    fn last_message(body: &str) -> (AssistantMessage, Option<LlmError>) {
        let events = decode_body(Api::OpenAiCompletions, "openai", "gpt", body.as_bytes());
        match events.last() {
            Some(AssistantEvent::Done { message }) => (message.clone(), None),
            Some(AssistantEvent::Error { message, error }) => {
                (message.clone(), Some(error.clone()))
            }
            other => panic!("no terminal event: {other:?}"),
        }
    }

    #[test]
    fn parallel_tool_calls_by_index() {
        let (message, error) = last_message(concat!(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"f\",\"arguments\":\"\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"b\",\"function\":{\"name\":\"g\",\"arguments\":\"{\\\"y\\\":\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"x\\\":1}\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\"2}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
            "data: [DONE]\n\n",
        ));
        assert_eq!(error, None);
        let calls: Vec<_> = message.tool_calls().collect();
        assert_eq!(calls.len(), 2);
        assert_eq!(
            (calls[0].id.as_str(), calls[0].arguments["x"].as_u64()),
            ("a", Some(1))
        );
        assert_eq!(
            (calls[1].name.as_str(), calls[1].arguments["y"].as_u64()),
            ("g", Some(2))
        );
        assert_eq!(message.stop_reason, StopReason::ToolUse);
    }

    #[test]
    fn calls_without_index_are_told_apart_by_id() {
        let (message, _) = last_message(concat!(
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"a\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"b\",\"function\":{\"name\":\"g\",\"arguments\":\"{\\\"x\\\":1}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
            "data: [DONE]\n\n",
        ));
        let calls: Vec<_> = message
            .tool_calls()
            .map(|c| (c.id.as_str(), c.name.as_str()))
            .collect();
        assert_eq!(calls, [("a", "f"), ("b", "g")]);
        assert_eq!(message.tool_calls().nth(1).unwrap().arguments["x"], 1);
    }

    #[test]
    fn content_filter_is_a_refusal() {
        let (message, error) = last_message(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"},\"finish_reason\":\"content_filter\"}]}\n\ndata: [DONE]\n\n",
        );
        assert!(matches!(error, Some(LlmError::Refused { .. })));
        assert_eq!(message.text(), "x");
        assert_eq!(message.stop_reason, StopReason::Error);
    }

    #[test]
    fn cached_tokens_are_not_counted_as_input() {
        let usage = read_usage(&serde_json::json!({
            "prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110,
            "prompt_tokens_details": {"cached_tokens": 80}
        }));
        assert_eq!((usage.input, usage.cache_read, usage.output), (20, 80, 10));
    }
}
