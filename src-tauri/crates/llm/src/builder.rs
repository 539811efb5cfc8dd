//! The partial message every protocol parser builds, and the events that build it.
//!
//! Parsers only call these methods; each one emits an [`AssistantEvent`] and folds it into the
//! partial message, so the events a consumer sees always reproduce the final message.
//!
//! A tool call whose argument text was cut off (the provider ended the message normally, but
//! the JSON is unfinished) keeps its partial reading for display, and a successful end then
//! reports stop reason `length`: consumers never execute the calls of such a message, exactly
//! as for a call cut off by the output token limit.

use crate::error::LlmError;
use crate::events::AssistantEvent;
use crate::partial_json::{arguments_are_complete, parse_arguments};
use crate::types::{
    Api, AssistantContent, AssistantMessage, JsonObject, StopReason, TextContent, ThinkingContent,
    ToolCall,
};

#[derive(Debug)]
pub(crate) struct MessageBuilder {
    pub(crate) message: AssistantMessage,
    /// The message as it was created, for restarts.
    blank: AssistantMessage,
    /// Events produced and not yet handed out.
    pending: Vec<AssistantEvent>,
    started: bool,
    finished: bool,
    /// Content indexes of blocks started and not yet ended, in order.
    open: Vec<usize>,
    /// Content indexes of tool calls whose arguments did not arrive whole.
    cut_off_calls: Vec<usize>,
}

impl MessageBuilder {
    pub(crate) fn new(api: Api, provider: &str, model: &str) -> Self {
        let blank = AssistantMessage::empty(api, provider, model);
        Self {
            message: blank.clone(),
            blank,
            pending: Vec::new(),
            started: false,
            finished: false,
            open: Vec::new(),
            cut_off_calls: Vec::new(),
        }
    }

    pub(crate) fn take_events(&mut self) -> Vec<AssistantEvent> {
        std::mem::take(&mut self.pending)
    }

    pub(crate) fn is_finished(&self) -> bool {
        self.finished
    }

    pub(crate) fn is_started(&self) -> bool {
        self.started
    }

    fn emit(&mut self, event: AssistantEvent) {
        self.message.apply_event(&event);
        self.pending.push(event);
    }

    /// Emits `start` once (later calls do nothing).
    pub(crate) fn ensure_started(&mut self) {
        if !self.started {
            self.started = true;
            let message = self.message.clone();
            self.emit(AssistantEvent::Start { message });
        }
    }

    /// The provider began the message again (Anthropic duplicate `message_start`): everything
    /// received so far is discarded and a fresh `start` is emitted.
    pub(crate) fn restart(&mut self) {
        self.message = self.blank.clone();
        self.open.clear();
        self.cut_off_calls.clear();
        self.started = true;
        let message = self.message.clone();
        self.emit(AssistantEvent::Start { message });
    }

    pub(crate) fn open_text(&mut self) -> usize {
        self.ensure_started();
        let content_index = self.message.content.len();
        self.open.push(content_index);
        self.emit(AssistantEvent::TextStart { content_index });
        content_index
    }

    pub(crate) fn open_thinking(&mut self) -> usize {
        self.ensure_started();
        let content_index = self.message.content.len();
        self.open.push(content_index);
        self.emit(AssistantEvent::ThinkingStart { content_index });
        content_index
    }

    pub(crate) fn open_tool_call(&mut self, id: String, name: String) -> usize {
        self.ensure_started();
        let content_index = self.message.content.len();
        self.open.push(content_index);
        self.emit(AssistantEvent::ToolCallStart {
            content_index,
            id,
            name,
        });
        content_index
    }

    pub(crate) fn text_delta(&mut self, content_index: usize, delta: &str) {
        if !delta.is_empty() {
            self.emit(AssistantEvent::TextDelta {
                content_index,
                delta: delta.to_string(),
            });
        }
    }

    pub(crate) fn thinking_delta(&mut self, content_index: usize, delta: &str) {
        if !delta.is_empty() {
            self.emit(AssistantEvent::ThinkingDelta {
                content_index,
                delta: delta.to_string(),
            });
        }
    }

    /// Re-parses the whole raw argument text and reports it with the fragment that was added.
    pub(crate) fn tool_call_delta(&mut self, content_index: usize, delta: &str, raw: &str) {
        self.tool_call_arguments(content_index, delta, parse_arguments(raw));
    }

    pub(crate) fn tool_call_arguments(
        &mut self,
        content_index: usize,
        delta: &str,
        arguments: JsonObject,
    ) {
        self.emit(AssistantEvent::ToolCallDelta {
            content_index,
            delta: delta.to_string(),
            arguments,
        });
    }

    /// Sets a tool call's final arguments from its whole raw text, remembering whether that
    /// text is complete JSON.
    pub(crate) fn finish_tool_arguments(&mut self, content_index: usize, raw: &str) {
        if let Some(call) = self.tool_call_mut(content_index) {
            call.arguments = parse_arguments(raw);
        }
        self.set_cut_off(content_index, !arguments_are_complete(raw));
    }

    /// Marks a tool call as cut off (or not: a later, authoritative text may complete it).
    pub(crate) fn set_cut_off(&mut self, content_index: usize, cut_off: bool) {
        self.cut_off_calls.retain(|index| *index != content_index);
        if cut_off {
            self.cut_off_calls.push(content_index);
        }
    }

    pub(crate) fn text_mut(&mut self, content_index: usize) -> Option<&mut TextContent> {
        match self.message.content.get_mut(content_index) {
            Some(AssistantContent::Text(text)) => Some(text),
            _ => None,
        }
    }

    pub(crate) fn thinking_mut(&mut self, content_index: usize) -> Option<&mut ThinkingContent> {
        match self.message.content.get_mut(content_index) {
            Some(AssistantContent::Thinking(thinking)) => Some(thinking),
            _ => None,
        }
    }

    pub(crate) fn tool_call_mut(&mut self, content_index: usize) -> Option<&mut ToolCall> {
        match self.message.content.get_mut(content_index) {
            Some(AssistantContent::ToolCall(call)) => Some(call),
            _ => None,
        }
    }

    /// Emits the `*_end` event for an open block, carrying its final content.
    pub(crate) fn close(&mut self, content_index: usize) {
        let Some(position) = self.open.iter().position(|i| *i == content_index) else {
            return;
        };
        self.open.remove(position);
        let event = match self.message.content.get(content_index) {
            Some(AssistantContent::Text(text)) => AssistantEvent::TextEnd {
                content_index,
                text: text.clone(),
            },
            Some(AssistantContent::Thinking(thinking)) => AssistantEvent::ThinkingEnd {
                content_index,
                thinking: thinking.clone(),
            },
            Some(AssistantContent::ToolCall(call)) => AssistantEvent::ToolCallEnd {
                content_index,
                tool_call: call.clone(),
            },
            None => return,
        };
        self.emit(event);
    }

    pub(crate) fn close_all(&mut self) {
        while let Some(&content_index) = self.open.first() {
            self.close(content_index);
        }
    }

    /// Ends the stream successfully. A stop reason of `error`/`aborted` must use [`Self::fail`].
    /// With a cut-off tool call the stop reason is `length`, whatever the provider said, so
    /// that no call of the message is executed with arguments that are not all there.
    pub(crate) fn done(&mut self, stop_reason: StopReason) {
        if self.finished {
            return;
        }
        self.ensure_started();
        self.close_all();
        self.finished = true;
        self.message.stop_reason = if self.cut_off_calls.is_empty() {
            stop_reason
        } else {
            StopReason::Length
        };
        let message = self.message.clone();
        self.emit(AssistantEvent::Done { message });
    }

    /// Ends the stream with an error, keeping what was received.
    pub(crate) fn fail(&mut self, error: LlmError) {
        if self.finished {
            return;
        }
        self.ensure_started();
        self.close_all();
        self.finished = true;
        self.message.stop_reason = match error {
            LlmError::Aborted => StopReason::Aborted,
            _ => StopReason::Error,
        };
        self.message.error_message = Some(error.to_string());
        let message = self.message.clone();
        self.emit(AssistantEvent::Error { message, error });
    }

    /// `tool_use` when the message holds tool calls, else `stop` (providers that report a plain
    /// stop for tool calls, like Gemini, still need the tools run).
    pub(crate) fn natural_stop(&self) -> StopReason {
        if self.message.tool_calls().next().is_some() {
            StopReason::ToolUse
        } else {
            StopReason::Stop
        }
    }
}

/// The error for a byte stream that ended before the provider said it was complete.
pub(crate) fn truncated_stream_error() -> LlmError {
    LlmError::Network {
        message: "the response stream ended before the provider finished the message".into(),
    }
}
