//! Google Generative AI (`google-generative-ai`) stream parser (`streamGenerateContent?alt=sse`).
//!
//! Each event is a whole `GenerateContentResponse`; there is no `[DONE]`, the stream just ends
//! (after a chunk with `finishReason`). `thought: true` parts are reasoning. A `thoughtSignature`
//! may sit on a function-call part, a text part, or an empty text part; it is kept on the block
//! it arrived with so it can be replayed. Function calls usually arrive whole and without an id
//! (one is generated); Gemini 3 `streamFunctionCallArguments` sends `{name, willContinue}`, then
//! `partialArgs` addressed by JSONPath, then an empty `functionCall` that closes the call.

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value};

use super::{count, parse_payload, str_field, ProtocolParser};
use crate::builder::{truncated_stream_error, MessageBuilder};
use crate::classify::classify_stream_error;
use crate::error::LlmError;
use crate::events::AssistantEvent;
use crate::sse::SseEvent;
use crate::types::{Api, JsonObject, StopReason, Usage};

#[derive(Clone, Copy, PartialEq)]
enum BlockKind {
    Text,
    Thinking,
}

/// A function call whose arguments are still streaming.
struct StreamingCall {
    content_index: usize,
    arguments: Value,
}

pub struct GoogleParser {
    builder: MessageBuilder,
    current: Option<(BlockKind, usize)>,
    streaming_call: Option<StreamingCall>,
    finish_reason: Option<String>,
    block_reason: Option<String>,
    /// The last `usageMetadata` that carried token counts.
    usage_counts: Map<String, Value>,
    calls_seen: u64,
}

/// Distinguishes generated call ids across responses that carry no `responseId`.
static ID_SEED: AtomicU64 = AtomicU64::new(0);

impl GoogleParser {
    pub fn new(provider: &str, model: &str) -> Self {
        Self {
            builder: MessageBuilder::new(Api::GoogleGenerativeAi, provider, model),
            current: None,
            streaming_call: None,
            finish_reason: None,
            block_reason: None,
            usage_counts: Map::new(),
            calls_seen: 0,
        }
    }

    fn chunk(&mut self, chunk: &Value) {
        if chunk.get("error").is_some_and(|e| !e.is_null()) {
            self.builder.fail(classify_stream_error(chunk));
            return;
        }
        self.builder.ensure_started();
        if self.builder.message.response_id.is_none() {
            self.builder.message.response_id = str_field(chunk, "responseId").map(str::to_string);
        }
        // Each usageMetadata is a full snapshot: the last one with counts wins (Vertex sends
        // count-less ones, `{"trafficType": …}`, while streaming).
        if let Some(Value::Object(usage)) = chunk.get("usageMetadata") {
            if usage.contains_key("promptTokenCount") || usage.contains_key("totalTokenCount") {
                self.usage_counts = usage.clone();
            }
        }
        if let Some(reason) = chunk
            .pointer("/promptFeedback/blockReason")
            .and_then(Value::as_str)
        {
            self.block_reason = Some(reason.to_string());
        }
        let Some(candidate) = chunk.pointer("/candidates/0") else {
            return;
        };
        for part in candidate
            .pointer("/content/parts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            self.part(part);
        }
        if let Some(reason) = str_field(candidate, "finishReason") {
            self.finish_reason = Some(reason.to_string());
        }
    }

    fn part(&mut self, part: &Value) {
        let signature = str_field(part, "thoughtSignature").map(str::to_string);
        if let Some(call) = part.get("functionCall") {
            self.function_call(call, signature);
        } else if let Some(text) = str_field(part, "text") {
            let kind = if part.get("thought").and_then(Value::as_bool) == Some(true) {
                BlockKind::Thinking
            } else {
                BlockKind::Text
            };
            self.text(kind, text, signature);
        } else if let Some(signature) = signature {
            self.attach_signature(signature);
        }
    }

    fn text(&mut self, kind: BlockKind, text: &str, signature: Option<String>) {
        self.close_streaming_call();
        let reusable = match self.current {
            Some((current_kind, index)) if current_kind == kind => {
                // A second, different signature starts a new block so both can be replayed.
                let existing = self.signature_of(kind, index);
                (signature.is_none() || existing.is_none() || existing == signature)
                    .then_some(index)
            }
            _ => None,
        };
        let index = match reusable {
            Some(index) => index,
            None => {
                if text.is_empty() && signature.is_none() {
                    return;
                }
                self.close_current();
                let index = match kind {
                    BlockKind::Text => self.builder.open_text(),
                    BlockKind::Thinking => self.builder.open_thinking(),
                };
                self.current = Some((kind, index));
                index
            }
        };
        match kind {
            BlockKind::Text => self.builder.text_delta(index, text),
            BlockKind::Thinking => self.builder.thinking_delta(index, text),
        }
        if let Some(signature) = signature {
            self.set_signature(kind, index, signature);
        }
    }

    fn signature_of(&mut self, kind: BlockKind, index: usize) -> Option<String> {
        match kind {
            BlockKind::Text => self.builder.text_mut(index)?.signature.clone(),
            BlockKind::Thinking => self.builder.thinking_mut(index)?.signature.clone(),
        }
    }

    fn set_signature(&mut self, kind: BlockKind, index: usize, signature: String) {
        match kind {
            BlockKind::Text => {
                if let Some(text) = self.builder.text_mut(index) {
                    text.signature = Some(signature);
                }
            }
            BlockKind::Thinking => {
                if let Some(thinking) = self.builder.thinking_mut(index) {
                    thinking.signature = Some(signature);
                }
            }
        }
    }

    /// A part with only a signature: it belongs to what is being streamed.
    fn attach_signature(&mut self, signature: String) {
        if let Some(call) = &self.streaming_call {
            let index = call.content_index;
            if let Some(call) = self.builder.tool_call_mut(index) {
                call.thought_signature.get_or_insert(signature);
            }
            return;
        }
        let kind = self.current.map_or(BlockKind::Text, |(kind, _)| kind);
        self.text(kind, "", Some(signature));
    }

    fn close_current(&mut self) {
        if let Some((_, index)) = self.current.take() {
            self.builder.close(index);
        }
    }

    /// Ends a call whose arguments were still streaming when something else came (another
    /// part, the end of the stream): it never got the empty `functionCall` that closes it, so
    /// what arrived may be only part of its arguments.
    fn close_streaming_call(&mut self) {
        if let Some(call) = self.streaming_call.take() {
            self.builder.set_cut_off(call.content_index, true);
            self.close_call(call);
        }
    }

    fn close_call(&mut self, call: StreamingCall) {
        if let Some(state) = self.builder.tool_call_mut(call.content_index) {
            state.arguments = as_object(call.arguments);
        }
        self.builder.close(call.content_index);
    }

    fn function_call(&mut self, call: &Value, signature: Option<String>) {
        self.close_current();
        let will_continue = call.get("willContinue").and_then(Value::as_bool) == Some(true);
        if let Some(name) = str_field(call, "name").filter(|n| !n.is_empty()) {
            self.close_streaming_call();
            self.calls_seen += 1;
            let id = match str_field(call, "id") {
                Some(id) if !id.is_empty() => id.to_string(),
                _ => self.generated_id(),
            };
            let content_index = self.builder.open_tool_call(id, name.to_string());
            if let Some(state) = self.builder.tool_call_mut(content_index) {
                state.thought_signature = signature;
            }
            let arguments = call
                .get("args")
                .filter(|a| a.is_object())
                .cloned()
                .unwrap_or_else(|| Value::Object(Map::new()));
            if arguments.as_object().is_some_and(|a| !a.is_empty()) {
                let delta = arguments.to_string();
                self.builder.tool_call_arguments(
                    content_index,
                    &delta,
                    as_object(arguments.clone()),
                );
            }
            let mut streaming = StreamingCall {
                content_index,
                arguments,
            };
            self.apply_partial_args(&mut streaming, call);
            if will_continue {
                self.streaming_call = Some(streaming);
            } else {
                self.close_call(streaming);
            }
            return;
        }
        // A nameless part continues (or, without `willContinue`, closes) the streaming call.
        let Some(mut streaming) = self.streaming_call.take() else {
            return;
        };
        if let Some(signature) = signature {
            if let Some(state) = self.builder.tool_call_mut(streaming.content_index) {
                state.thought_signature.get_or_insert(signature);
            }
        }
        self.apply_partial_args(&mut streaming, call);
        if will_continue {
            self.streaming_call = Some(streaming);
        } else {
            self.close_call(streaming);
        }
    }

    fn apply_partial_args(&mut self, streaming: &mut StreamingCall, call: &Value) {
        let Some(partials) = call.get("partialArgs").and_then(Value::as_array) else {
            return;
        };
        let mut delta = String::new();
        for partial in partials {
            let Some(path) = str_field(partial, "jsonPath").and_then(parse_json_path) else {
                continue;
            };
            let Some(slot) = slot_at(&mut streaming.arguments, &path) else {
                continue;
            };
            if let Some(text) = str_field(partial, "stringValue") {
                delta.push_str(text);
                match slot {
                    Value::String(existing) => existing.push_str(text),
                    other => *other = Value::String(text.to_string()),
                }
            } else if let Some(value) = ["numberValue", "boolValue"]
                .iter()
                .find_map(|key| partial.get(*key))
            {
                delta.push_str(&value.to_string());
                *slot = value.clone();
            } else if partial.get("nullValue").is_some() {
                *slot = Value::Null;
            }
        }
        let arguments = as_object(streaming.arguments.clone());
        self.builder
            .tool_call_arguments(streaming.content_index, &delta, arguments);
    }

    fn generated_id(&self) -> String {
        match &self.builder.message.response_id {
            Some(response) => format!("call_{response}_{}", self.calls_seen),
            None => {
                let seed = ID_SEED.fetch_add(1, Ordering::Relaxed);
                format!("call_gemini_{seed}_{}", self.calls_seen)
            }
        }
    }

    fn usage(&self) -> Usage {
        let counts = Value::Object(self.usage_counts.clone());
        let prompt = count(&counts, "/promptTokenCount");
        let cache_read = count(&counts, "/cachedContentTokenCount");
        Usage {
            input: prompt.saturating_sub(cache_read),
            // Gemini bills thinking as output.
            output: count(&counts, "/candidatesTokenCount") + count(&counts, "/thoughtsTokenCount"),
            cache_read,
            cache_write: 0,
            ..Usage::default()
        }
    }
}

impl ProtocolParser for GoogleParser {
    fn handle(&mut self, event: &SseEvent) -> bool {
        let Some(chunk) = parse_payload(event) else {
            return false;
        };
        self.chunk(&chunk);
        true
    }

    fn finish(&mut self) {
        if self.builder.is_finished() {
            return;
        }
        self.close_streaming_call();
        self.close_current();
        self.builder.message.usage = self.usage();
        if let Some(reason) = self.block_reason.clone() {
            self.builder.fail(LlmError::Refused {
                message: format!("Gemini blocked the prompt ({reason})"),
            });
            return;
        }
        let reason = self.finish_reason.clone();
        match reason.as_deref() {
            None => self.builder.fail(truncated_stream_error()),
            Some("STOP" | "FINISH_REASON_UNSPECIFIED") => {
                let stop = self.builder.natural_stop();
                self.builder.done(stop);
            }
            Some("MAX_TOKENS") => self.builder.done(StopReason::Length),
            Some(
                reason @ ("SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII"
                | "IMAGE_SAFETY" | "LANGUAGE"),
            ) => self.builder.fail(LlmError::Refused {
                message: format!("Gemini stopped the answer ({reason})"),
            }),
            Some(reason) => self.builder.fail(LlmError::Provider {
                message: format!("Gemini ended the answer with finishReason {reason}"),
            }),
        }
    }

    fn fail(&mut self, error: LlmError) {
        self.builder.message.usage = self.usage();
        self.builder.fail(error);
    }

    fn take_events(&mut self) -> Vec<AssistantEvent> {
        self.builder.take_events()
    }

    fn is_finished(&self) -> bool {
        self.builder.is_finished()
    }
}

fn as_object(value: Value) -> JsonObject {
    match value {
        Value::Object(object) => object,
        _ => JsonObject::new(),
    }
}

#[derive(Debug, PartialEq)]
enum PathSegment {
    Key(String),
    Index(usize),
}

/// Parses the JSONPath subset Gemini uses: `$.a.b[3].c`, `$['a b']`.
fn parse_json_path(path: &str) -> Option<Vec<PathSegment>> {
    let mut rest = path.strip_prefix('$')?;
    let mut segments = Vec::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            segments.push(PathSegment::Key(after[..end].to_string()));
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix("['") {
            let end = after.find("']")?;
            segments.push(PathSegment::Key(after[..end].to_string()));
            rest = &after[end + 2..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let end = after.find(']')?;
            segments.push(PathSegment::Index(after[..end].trim().parse().ok()?));
            rest = &after[end + 1..];
        } else {
            return None;
        }
    }
    Some(segments)
}

/// The value at `path`, creating objects, arrays and nulls on the way.
fn slot_at<'a>(root: &'a mut Value, path: &[PathSegment]) -> Option<&'a mut Value> {
    let mut current = root;
    for segment in path {
        current = match segment {
            PathSegment::Key(key) => {
                if !current.is_object() {
                    *current = Value::Object(Map::new());
                }
                current
                    .as_object_mut()?
                    .entry(key.clone())
                    .or_insert(Value::Null)
            }
            PathSegment::Index(index) => {
                if !current.is_array() {
                    *current = Value::Array(Vec::new());
                }
                let items = current.as_array_mut()?;
                if items.len() <= *index {
                    items.resize(index + 1, Value::Null);
                }
                &mut items[*index]
            }
        };
    }
    Some(current)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_paths_build_nested_values() {
        let mut root = json!({});
        for (path, value) in [
            ("$.recipe.ingredients[1].name", json!("egg")),
            ("$.recipe.name", json!("Lasagna")),
            ("$['odd key'][0]", json!(3)),
        ] {
            let path = parse_json_path(path).unwrap();
            *slot_at(&mut root, &path).unwrap() = value;
        }
        assert_eq!(
            root,
            json!({"recipe": {"ingredients": [null, {"name": "egg"}], "name": "Lasagna"}, "odd key": [3]})
        );
        assert_eq!(parse_json_path("recipe"), None);
    }

    fn run(body: &str) -> Vec<AssistantEvent> {
        crate::protocols::decode_body(Api::GoogleGenerativeAi, "google", "gemini", body.as_bytes())
    }

    #[test]
    fn streamed_arguments_grow_on_every_delta() {
        let events = run(concat!(
            "data: {\"responseId\":\"r1\",\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"write\",\"willContinue\":true},\"thoughtSignature\":\"s\"}]}}]}\r\n\r\n",
            "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.content\",\"stringValue\":\"Hel\",\"willContinue\":true}],\"willContinue\":true}}]}}]}\r\n\r\n",
            "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.content\",\"stringValue\":\"lo\"},{\"jsonPath\":\"$.n\",\"numberValue\":2}],\"willContinue\":true}}]}}]}\r\n\r\n",
            "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{}}]},\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":3,\"candidatesTokenCount\":4}}\r\n\r\n",
        ));
        let partials: Vec<Value> = events
            .iter()
            .filter_map(|e| match e {
                AssistantEvent::ToolCallDelta { arguments, .. } => {
                    Some(Value::Object(arguments.clone()))
                }
                _ => None,
            })
            .collect();
        assert!(partials.contains(&json!({"content": "Hel"})));
        assert!(partials.contains(&json!({"content": "Hello", "n": 2})));
        let Some(AssistantEvent::Done { message }) = events.last() else {
            panic!("{events:?}");
        };
        let call = message.tool_calls().next().unwrap();
        assert_eq!(call.id, "call_r1_1");
        assert_eq!(call.thought_signature.as_deref(), Some("s"));
        assert_eq!(message.stop_reason, StopReason::ToolUse);
        assert_eq!((message.usage.input, message.usage.output), (3, 4));
    }

    #[test]
    fn prompt_block_is_a_refusal_and_missing_finish_is_truncation() {
        let events = run("data: {\"promptFeedback\":{\"blockReason\":\"SAFETY\"}}\n\n");
        assert!(matches!(
            events.last(),
            Some(AssistantEvent::Error {
                error: LlmError::Refused { .. },
                ..
            })
        ));
        let events =
            run("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hi\"}]}}]}\n\n");
        let Some(AssistantEvent::Error { message, error }) = events.last() else {
            panic!("{events:?}");
        };
        assert_eq!(message.text(), "Hi");
        assert!(matches!(error, LlmError::Network { .. }));
    }
}
