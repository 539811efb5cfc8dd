//! The four wire protocols: each turns provider SSE events into [`AssistantEvent`]s.
//!
//! [`StreamDecoder`] is the whole receive path: bytes → SSE events → protocol parser → unified
//! events, ending in exactly one `done` or `error`.

pub mod anthropic;
pub mod google;
pub mod openai_completions;
pub mod openai_responses;

use serde_json::Value;

use crate::error::LlmError;
use crate::events::AssistantEvent;
use crate::sse::{SseDecoder, SseEvent};
use crate::types::{Api, Pricing};

/// A protocol's stream parser. Events accumulate inside until taken.
pub trait ProtocolParser: Send {
    /// Handles one SSE event.
    fn handle(&mut self, event: &SseEvent);
    /// The byte stream ended: emit the terminal event if the provider did not.
    fn finish(&mut self);
    /// Ends the stream with `error` (abort, network failure) unless it already ended.
    fn fail(&mut self, error: LlmError);
    /// Events produced since the last call.
    fn take_events(&mut self) -> Vec<AssistantEvent>;
    /// Whether `done` or `error` has been emitted.
    fn is_finished(&self) -> bool;
}

/// Creates the parser for a protocol. `provider` and `model` label the message.
pub fn new_parser(api: Api, provider: &str, model: &str) -> Box<dyn ProtocolParser> {
    match api {
        Api::AnthropicMessages => Box::new(anthropic::AnthropicParser::new(provider, model)),
        Api::OpenAiCompletions => {
            Box::new(openai_completions::CompletionsParser::new(provider, model))
        }
        Api::OpenAiResponses => Box::new(openai_responses::ResponsesParser::new(provider, model)),
        Api::GoogleGenerativeAi => Box::new(google::GoogleParser::new(provider, model)),
    }
}

/// Bytes in, unified events out.
pub struct StreamDecoder {
    sse: SseDecoder,
    parser: Box<dyn ProtocolParser>,
    sse_events: Vec<SseEvent>,
    pricing: Option<Pricing>,
}

impl StreamDecoder {
    pub fn new(api: Api, provider: &str, model: &str) -> Self {
        Self {
            sse: SseDecoder::new(),
            parser: new_parser(api, provider, model),
            sse_events: Vec::new(),
            pricing: None,
        }
    }

    /// Prices the usage of the final message with these rates.
    pub fn with_pricing(mut self, pricing: Pricing) -> Self {
        self.pricing = Some(pricing);
        self
    }

    fn take_events(&mut self) -> Vec<AssistantEvent> {
        let mut events = self.parser.take_events();
        if let Some(pricing) = &self.pricing {
            for event in &mut events {
                if let AssistantEvent::Done { message } | AssistantEvent::Error { message, .. } =
                    event
                {
                    message.usage.apply_pricing(pricing);
                }
            }
        }
        events
    }

    /// Feeds a chunk of the response body.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<AssistantEvent> {
        self.sse.feed_into(chunk, &mut self.sse_events);
        for event in self.sse_events.drain(..) {
            if self.parser.is_finished() {
                break;
            }
            self.parser.handle(&event);
        }
        self.take_events()
    }

    /// The body ended.
    pub fn finish(&mut self) -> Vec<AssistantEvent> {
        if let Some(event) = self.sse.finish() {
            if !self.parser.is_finished() {
                self.parser.handle(&event);
            }
        }
        self.parser.finish();
        self.take_events()
    }

    /// Ends the stream with an error (abort, connection failure), keeping what was received.
    pub fn fail(&mut self, error: LlmError) -> Vec<AssistantEvent> {
        self.parser.fail(error);
        self.take_events()
    }

    pub fn is_finished(&self) -> bool {
        self.parser.is_finished()
    }
}

/// Decodes a complete recorded body (tests, fixtures, non-streaming fallbacks).
pub fn decode_body(api: Api, provider: &str, model: &str, body: &[u8]) -> Vec<AssistantEvent> {
    let mut decoder = StreamDecoder::new(api, provider, model);
    let mut events = decoder.feed(body);
    events.extend(decoder.finish());
    events
}

/// The event type: the `type` field of the JSON payload, else the SSE `event:` name (some
/// proxies omit one or the other).
pub(crate) fn event_type<'a>(event: &'a SseEvent, payload: &'a Value) -> &'a str {
    payload
        .get("type")
        .and_then(Value::as_str)
        .or(event.event.as_deref())
        .unwrap_or_default()
}

/// Parses an SSE payload as JSON. Payloads that are not JSON (keep-alive text some proxies
/// send) are skipped by the parsers; a stream made only of them ends as truncated.
pub(crate) fn parse_payload(event: &SseEvent) -> Option<Value> {
    serde_json::from_str(event.data.trim()).ok()
}

/// A non-negative integer field, 0 when absent.
pub(crate) fn count(value: &Value, pointer: &str) -> u64 {
    value.pointer(pointer).and_then(Value::as_u64).unwrap_or(0)
}

/// A string field.
pub(crate) fn str_field<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}
