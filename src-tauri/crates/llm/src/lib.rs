//! `arbor-llm`: provider-agnostic LLM streaming for Arbor.
//!
//! A conversation ([`Context`]: system prompt, [`Message`]s, [`Tool`]s) is sent to a model over
//! one of four wire protocols ([`Api`]); the provider's Server-Sent Events come back as one
//! unified stream of [`AssistantEvent`]s ending in `done` (stop, length, tool use) or `error`
//! (with the partial message and a classified [`LlmError`]).
//!
//! Module map:
//!
//! | module | what it holds |
//! |---|---|
//! | [`types`] | messages, content blocks, tools, context, usage and cost, stop reasons, [`Api`] |
//! | [`model`] | [`Model`] (endpoint, capabilities, prices, OpenAI-compatible quirks), [`ThinkingLevel`] |
//! | [`events`] | [`AssistantEvent`] and the fold that rebuilds a partial message from events |
//! | [`error`] | [`LlmError`], the classified failure whose message says what to do |
//! | [`classify`] | HTTP status + body → [`LlmError`] for every provider; `Retry-After`; context-overflow phrases |
//! | [`sse`] | incremental WHATWG SSE decoder (LF/CR/CRLF, chunk-split safe, flush at EOF) |
//! | [`partial_json`] | parser for truncated JSON, used to re-parse tool arguments on every delta |
//! | [`protocols`] | one stream parser per wire protocol, and [`StreamDecoder`] (bytes → events) |
//! | [`client`] | [`LlmClient`]: HTTP streaming on reqwest, retries with backoff honouring `Retry-After` (the policy in `retry`), abort by `CancellationToken`, an idle timeout for providers that go quiet, notices of unreadable events |
//! | [`request`] | one request builder per wire protocol (URL, headers, body), and the cross-provider history rewrite |
//! | [`catalog`] | built-in providers and current models with prices (`catalog/builtin.json`), plus the user's `models.json` |
//!
//! `builder` (private) holds the partial message the parsers build through events; `retry`
//! (private, re-exported by [`client`]) the retry policy.

pub mod catalog;
pub mod classify;
pub mod client;
pub mod error;
pub mod events;
pub mod model;
pub mod partial_json;
pub mod protocols;
pub mod request;
pub mod sse;
pub mod types;

mod builder;
mod retry;

pub use client::{
    AssistantStream, LlmClient, RetryNotice, RetryPolicy, StreamNotice, DEFAULT_STREAM_IDLE_TIMEOUT,
};
pub use error::LlmError;
pub use events::AssistantEvent;
pub use model::{Model, ThinkingLevel};
pub use protocols::{decode_body, StreamDecoder};
pub use request::{build_request, HttpRequest, RequestOptions};
pub use tokio_util::sync::CancellationToken;
pub use types::{
    Api, AssistantContent, AssistantMessage, Context, Cost, ImageContent, JsonObject, Message,
    Pricing, StopReason, TextContent, ThinkingContent, Tool, ToolCall, ToolResultMessage, Usage,
    UserContent, UserMessage,
};
