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
//! | [`events`] | [`AssistantEvent`] and the fold that rebuilds a partial message from events |
//! | [`error`] | [`LlmError`], the classified failure whose message says what to do |
//! | [`classify`] | HTTP status + body → [`LlmError`] for every provider; `Retry-After`; context-overflow phrases |
//! | [`sse`] | incremental WHATWG SSE decoder (LF/CR/CRLF, chunk-split safe, flush at EOF) |
//! | [`partial_json`] | parser for truncated JSON, used to re-parse tool arguments on every delta |
//! | [`protocols`] | one stream parser per wire protocol, and [`StreamDecoder`] (bytes → events) |
//!
//! `builder` (private) holds the partial message the parsers build through events.

pub mod classify;
pub mod error;
pub mod events;
pub mod partial_json;
pub mod protocols;
pub mod sse;
pub mod types;

mod builder;

pub use error::LlmError;
pub use events::AssistantEvent;
pub use protocols::{decode_body, StreamDecoder};
pub use types::{
    Api, AssistantContent, AssistantMessage, Context, Cost, ImageContent, JsonObject, Message,
    Pricing, StopReason, TextContent, ThinkingContent, Tool, ToolCall, ToolResultMessage, Usage,
    UserContent, UserMessage,
};
