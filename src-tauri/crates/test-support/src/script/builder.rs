//! The builder methods tests chain to write a script in Rust (`Turn::stream().text("Hi")`).

use serde_json::Value;

use super::{empty_object, HttpError, RawEvent, Step, StopReason, StreamError, StreamTurn, Usage};

impl StreamTurn {
    #[must_use]
    pub fn thinking(mut self, text: impl Into<String>) -> Self {
        self.steps.push(Step::Thinking {
            text: text.into(),
            signature: None,
        });
        self
    }

    #[must_use]
    pub fn thinking_signed(
        mut self,
        text: impl Into<String>,
        signature: impl Into<String>,
    ) -> Self {
        self.steps.push(Step::Thinking {
            text: text.into(),
            signature: Some(signature.into()),
        });
        self
    }

    #[must_use]
    pub fn text(mut self, text: impl Into<String>) -> Self {
        self.steps.push(Step::Text(text.into()));
        self
    }

    /// A tool call with a generated id in the format's style (`toolu_…`, `call_…`).
    #[must_use]
    pub fn tool_call(mut self, name: impl Into<String>, arguments: Value) -> Self {
        self.steps.push(Step::ToolCall {
            id: None,
            name: name.into(),
            arguments,
            raw_arguments: None,
        });
        self
    }

    #[must_use]
    pub fn tool_call_with_id(
        mut self,
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: Value,
    ) -> Self {
        self.steps.push(Step::ToolCall {
            id: Some(id.into()),
            name: name.into(),
            arguments,
            raw_arguments: None,
        });
        self
    }

    /// A tool call whose argument text is streamed verbatim (may be invalid JSON).
    #[must_use]
    pub fn tool_call_raw(
        mut self,
        name: impl Into<String>,
        raw_arguments: impl Into<String>,
    ) -> Self {
        self.steps.push(Step::ToolCall {
            id: None,
            name: name.into(),
            arguments: empty_object(),
            raw_arguments: Some(raw_arguments.into()),
        });
        self
    }

    #[must_use]
    pub fn usage(mut self, usage: Usage) -> Self {
        self.steps.push(Step::Usage(usage));
        self
    }

    #[must_use]
    pub fn stop(mut self, reason: StopReason) -> Self {
        self.steps.push(Step::Stop(reason));
        self
    }

    #[must_use]
    pub fn chunk_size(mut self, chars: usize) -> Self {
        self.chunk_size = Some(chars);
        self
    }

    #[must_use]
    pub fn delay_ms(mut self, ms: u64) -> Self {
        self.delay_ms = ms;
        self
    }

    #[must_use]
    pub fn error_after_chunks(mut self, events: usize) -> Self {
        self.error_after_chunks = Some(events);
        self
    }

    #[must_use]
    pub fn error(mut self, kind: impl Into<String>, message: impl Into<String>) -> Self {
        self.error = Some(StreamError {
            kind: Some(kind.into()),
            message: Some(message.into()),
        });
        self
    }

    #[must_use]
    pub fn drop_after_chunks(mut self, events: usize) -> Self {
        self.drop_after_chunks = Some(events);
        self
    }

    /// Sends `events` SSE events, then nothing more until the client goes away.
    #[must_use]
    pub fn stall_after_chunks(mut self, events: usize) -> Self {
        self.stall_after_chunks = Some(events);
        self
    }

    /// Sends `events` SSE events, pauses `ms`, then sends the rest.
    #[must_use]
    pub fn stall_for(mut self, events: usize, ms: u64) -> Self {
        self.stall_after_chunks = Some(events);
        self.stall_ms = Some(ms);
        self
    }

    /// Sends `text` verbatim after `after_chunks` of the format's events.
    #[must_use]
    pub fn raw_event(mut self, after_chunks: usize, text: impl Into<String>) -> Self {
        self.raw_events.push(RawEvent {
            after_chunks,
            text: text.into(),
        });
        self
    }
}

impl HttpError {
    #[must_use]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.insert(name.into(), value.into());
        self
    }
}

impl Usage {
    pub fn new(input: u64, output: u64) -> Self {
        Usage {
            input,
            output,
            ..Usage::default()
        }
    }

    #[must_use]
    pub fn cache(mut self, read: u64, write: u64) -> Self {
        self.cache_read = read;
        self.cache_write = write;
        self
    }

    #[must_use]
    pub fn reasoning(mut self, tokens: u64) -> Self {
        self.reasoning = tokens;
        self
    }
}
