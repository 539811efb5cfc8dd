//! The four wire protocols: each turns provider SSE events into [`AssistantEvent`]s.
//!
//! [`StreamDecoder`] is the whole receive path: bytes → SSE events → protocol parser → unified
//! events, ending in exactly one `done` or `error`.
//!
//! Events whose data cannot be read (not a JSON object) are skipped and counted
//! ([`StreamDecoder::skipped`]; events with empty data are ignored, uncounted). When events
//! were skipped and nothing usable arrived, the stream ends with an error that names the count
//! instead of an empty answer or a bare "truncated".

pub mod anthropic;
pub mod google;
pub mod openai_completions;
pub mod openai_responses;

use serde_json::Value;

use crate::builder::truncated_stream_error;
use crate::error::LlmError;
use crate::events::AssistantEvent;
use crate::sse::{SseDecoder, SseEvent};
use crate::types::{Api, Pricing, StopReason};

/// A protocol's stream parser. Events accumulate inside until taken.
pub trait ProtocolParser: Send {
    /// Handles one SSE event; `false` when its data could not be read and it was skipped.
    fn handle(&mut self, event: &SseEvent) -> bool;
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
    /// Events whose data could not be read.
    skipped: u32,
}

impl StreamDecoder {
    pub fn new(api: Api, provider: &str, model: &str) -> Self {
        Self {
            sse: SseDecoder::new(),
            parser: new_parser(api, provider, model),
            sse_events: Vec::new(),
            pricing: None,
            skipped: 0,
        }
    }

    /// Prices the usage of the final message with these rates.
    pub fn with_pricing(mut self, pricing: Pricing) -> Self {
        self.pricing = Some(pricing);
        self
    }

    /// How many events so far could not be read (their data is not a JSON object) and were
    /// skipped.
    pub fn skipped(&self) -> u32 {
        self.skipped
    }

    fn take_events(&mut self) -> Vec<AssistantEvent> {
        let mut events = self.parser.take_events();
        for event in &mut events {
            if self.skipped > 0 {
                blame_skipped_events(event, self.skipped);
            }
            if let (
                Some(pricing),
                AssistantEvent::Done { message } | AssistantEvent::Error { message, .. },
            ) = (&self.pricing, event)
            {
                message.usage.apply_pricing(pricing);
            }
        }
        events
    }

    fn handle(&mut self, event: &SseEvent) {
        // An event without data carries nothing to lose (some servers keep the line alive so).
        if event.data.trim().is_empty() {
            return;
        }
        if !self.parser.handle(event) {
            self.skipped = self.skipped.saturating_add(1);
        }
    }

    /// Feeds a chunk of the response body.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<AssistantEvent> {
        self.sse.feed_into(chunk, &mut self.sse_events);
        let events = std::mem::take(&mut self.sse_events);
        for event in &events {
            if self.parser.is_finished() {
                break;
            }
            self.handle(event);
        }
        // Hand the buffer back so its allocation is reused for the next chunk.
        self.sse_events = events;
        self.sse_events.clear();
        self.take_events()
    }

    /// The body ended.
    pub fn finish(&mut self) -> Vec<AssistantEvent> {
        if let Some(event) = self.sse.finish() {
            if !self.parser.is_finished() {
                self.handle(&event);
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

/// When events were skipped and the stream ended with nothing usable (an empty answer, or the
/// "ended before the provider finished" error that a stream of unreadable events produces),
/// the end says so with the count: the skipped events are the likely cause.
fn blame_skipped_events(event: &mut AssistantEvent, skipped: u32) {
    let (message, blamed) = match event {
        AssistantEvent::Done { message } => (message, true),
        AssistantEvent::Error { message, error } => {
            let truncated = *error == truncated_stream_error();
            (message, truncated)
        }
        _ => return,
    };
    if !blamed || !message.content.is_empty() {
        return;
    }
    let error = unreadable_events_error(skipped);
    message.stop_reason = StopReason::Error;
    message.error_message = Some(error.to_string());
    let message = message.clone();
    *event = AssistantEvent::Error { message, error };
}

/// The error of a stream whose answer is unusable because `skipped` events could not be read.
pub fn unreadable_events_error(skipped: u32) -> LlmError {
    LlmError::Provider {
        message: format!(
            "{} from the provider could not be read (not valid JSON) and nothing usable arrived",
            events_phrase(skipped)
        ),
    }
}

/// "1 event" / "3 events".
pub(crate) fn events_phrase(count: u32) -> String {
    if count == 1 {
        "1 event".to_string()
    } else {
        format!("{count} events")
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

/// Parses an SSE payload, which every protocol sends as a JSON object. `None` for anything
/// else (keep-alive text some proxies send, a corrupted event): the parser skips the event and
/// [`StreamDecoder`] counts it.
pub(crate) fn parse_payload(event: &SseEvent) -> Option<Value> {
    serde_json::from_str::<Value>(event.data.trim())
        .ok()
        .filter(Value::is_object)
}

/// A non-negative integer field, 0 when absent.
pub(crate) fn count(value: &Value, pointer: &str) -> u64 {
    value.pointer(pointer).and_then(Value::as_u64).unwrap_or(0)
}

/// A string field.
pub(crate) fn str_field<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}
