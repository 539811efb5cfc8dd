//! Points where the app shapes a run: the message transformer (app messages → LLM messages
//! before every request), hooks around each tool call (the approval flow builds on them), and
//! the request hook (compaction, recovery from failed requests).

use arbor_llm::{LlmError, Message, Model, RequestOptions, ToolCall, ToolResultMessage};
use arbor_protocol::AgentMessage;
use tokio_util::sync::CancellationToken;

/// Turns the agent's messages into what the model is sent, before every request.
///
/// Closures `Fn(&[AgentMessage]) -> Vec<Message>` implement it. The default,
/// [`DefaultTransformer`], sends every LLM message and leaves custom messages out. It is async
/// so an app can do real work here (look things up, summarise); `cancel` fires on abort.
#[async_trait::async_trait]
pub trait MessageTransformer: Send + Sync {
    async fn transform(
        &self,
        messages: &[AgentMessage],
        cancel: &CancellationToken,
    ) -> Vec<Message>;
}

#[async_trait::async_trait]
impl<F> MessageTransformer for F
where
    F: Fn(&[AgentMessage]) -> Vec<Message> + Send + Sync,
{
    async fn transform(
        &self,
        messages: &[AgentMessage],
        _cancel: &CancellationToken,
    ) -> Vec<Message> {
        self(messages)
    }
}

/// Sends user, assistant and tool-result messages unchanged; drops custom messages.
#[derive(Debug, Clone, Copy, Default)]
pub struct DefaultTransformer;

#[async_trait::async_trait]
impl MessageTransformer for DefaultTransformer {
    async fn transform(
        &self,
        messages: &[AgentMessage],
        _cancel: &CancellationToken,
    ) -> Vec<Message> {
        messages.iter().filter_map(AgentMessage::as_llm).collect()
    }
}

/// What a before-hook decides about a tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolCallDecision {
    /// Run the tool (the next hook may still block it).
    Allow,
    /// Do not run it: the model gets an error result `Blocked: {reason}`.
    Block { reason: String },
}

/// Hooks around every tool call that passed validation. Several can be installed; they run in
/// the order they were added.
///
/// - `before_tool_call` sees the call with its **validated, coerced** arguments and may block
///   it; it may wait (for a user's approval, say) — an abort cancels the wait and the call
///   ends as aborted. The first `Block` wins and the remaining hooks are not asked.
/// - `after_tool_call` sees the result of a call whose tool ran (success or tool error; not
///   unknown tools, invalid arguments, blocked, skipped or aborted calls) and returns the result
///   the model gets, possibly rewritten. Hooks are chained: each gets the previous one's result.
#[async_trait::async_trait]
pub trait ToolCallHook: Send + Sync {
    async fn before_tool_call(
        &self,
        _call: &ToolCall,
        _cancel: &CancellationToken,
    ) -> ToolCallDecision {
        ToolCallDecision::Allow
    }

    async fn after_tool_call(
        &self,
        _call: &ToolCall,
        result: ToolResultMessage,
    ) -> ToolResultMessage {
        result
    }
}

/// What a [`RequestHook`] sees before a request: the conversation as it stands and what the
/// request will be sent with.
pub struct RequestContext<'a> {
    pub messages: &'a [AgentMessage],
    pub model: &'a Model,
    pub options: &'a RequestOptions,
}

/// A request that failed; its assistant message (stop reason `error`) is already the last of
/// `messages`, reported with `message_end` and `turn_end`.
pub struct RequestFailure<'a> {
    pub request: RequestContext<'a>,
    pub error: &'a LlmError,
    /// Whether the provider's answer had begun (the client retries only failures before that).
    pub body_started: bool,
    /// The errors of this request's failed attempts so far, oldest first; the last is `error`.
    pub failures: &'a [LlmError],
}

/// What to do after a failed request.
#[derive(Debug, Clone, PartialEq)]
pub enum Recovery {
    /// End the run as failed, with this error instead of the request's when given.
    Fail(Option<LlmError>),
    /// Replace the conversation with `messages` and send the request again (a new turn).
    Retry { messages: Vec<AgentMessage> },
}

/// The app's say around each model request of a run (one per agent): it may reshape the
/// conversation before a request — compaction when it nears the context window, checked
/// before every request and so between the turns of a long tool loop too — and decide how a
/// failed request is recovered (retry a stream that broke mid-way, compact after a
/// context-overflow error). Without a hook, nothing is reshaped and a failure ends the run.
#[async_trait::async_trait]
pub trait RequestHook: Send + Sync {
    /// Before each request of a run (the first one too). `Some` replaces the conversation.
    /// `cancel` fires on abort; the run then ends as aborted whatever this returns.
    async fn before_request(
        &self,
        _request: RequestContext<'_>,
        _cancel: &CancellationToken,
    ) -> Option<Vec<AgentMessage>> {
        None
    }

    /// After a request failed (not after an abort).
    async fn after_failure(
        &self,
        _failure: RequestFailure<'_>,
        _cancel: &CancellationToken,
    ) -> Recovery {
        Recovery::Fail(None)
    }
}
