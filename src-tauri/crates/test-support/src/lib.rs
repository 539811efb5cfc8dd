//! Test support for Arbor: a scripted mock LLM provider, and ([`git_http`]) a smart-HTTP git
//! server on loopback for clone tests.
//!
//! [`MockProvider`] is a real HTTP/1.1 server on `127.0.0.1` that answers each model request
//! with the next **turn** of a [`Script`], in the wire format the request path asks for. It is
//! an independent implementation of the four formats (it does not use `arbor-llm`), written
//! against the real recordings in `tests/fixtures/providers/` of the repository (found through
//! [`provider_fixtures_dir`]), so it can catch client bugs.
//! The same server ships as the `arbor-mock-provider` binary for manual runs and end-to-end tests.
//!
//! # Endpoints
//!
//! | path (POST) | format | framing |
//! |---|---|---|
//! | `/v1/chat/completions`, `/chat/completions` | `openai-completions` | `data: {chunk}\n\n` … `data: [DONE]\n\n` |
//! | `/v1/responses`, `/responses` | `openai-responses` | `event: response.*\ndata: {…}\n\n` |
//! | `/v1/messages` | `anthropic-messages` | `event: …\ndata: {…}\n\n` |
//! | `/v1beta/models/{model}:streamGenerateContent?alt=sse` | `google-generative-ai` | `data: {…}\r\n\r\n` |
//!
//! [`MockProvider::url_for`] gives the base URL a client of each API is configured with
//! (DESIGN §4): `{base}/v1` for OpenAI-style APIs, `{base}` for Anthropic and Google.
//!
//! Requests are checked like a strict server would: a non-POST gets 405, an unknown path 404, an
//! OpenAI/Anthropic body without `"stream": true` or a Google request without `alt=sse` gets 400,
//! and a Responses request with `store: false` that replays a `reasoning` item without its
//! `encrypted_content` gets the real API's 404 ("Item with id 'rs_…' not found…").
//! These rejections are recorded but **do not consume a turn**. A request after the last turn
//! gets HTTP 500 with a body saying the script is exhausted. Mock-made errors have the body
//! `{"error":{"message":…,"type":"mock_provider_error"},"type":"error"}`.
//!
//! `GET /__mock/requests` returns every recorded request as a JSON array of [`RecordedRequest`]
//! (also available in-process from [`MockProvider::requests`]).
//!
//! # Script format
//!
//! ```json
//! {
//!   "turns": [
//!     { "stream": {
//!         "chunk_size": 4,
//!         "steps": [
//!           { "thinking": { "text": "The user wants a file.", "signature": "sig-1" } },
//!           { "text": "Let me read it." },
//!           { "tool_call": { "name": "read", "arguments": { "path": "src/main.rs" } } },
//!           { "tool_call": { "id": "call_2", "name": "ls" } },
//!           { "usage": { "input": 120, "output": 40, "cache_read": 800, "reasoning": 10 } }
//!         ] } },
//!     { "http_error": {
//!         "status": 429,
//!         "body": { "type": "error", "error": { "type": "rate_limit_error", "message": "Slow down" } },
//!         "headers": { "retry-after": "1" } } },
//!     { "stream": { "steps": [ { "text": "Done." } ], "delay_ms": 20, "error_after_chunks": 3 } }
//!   ]
//! }
//! ```
//!
//! A top-level `"require_api_key": "sk-…"` makes the mock check the key of every request
//! (`Authorization: Bearer`, `x-api-key`, `x-goog-api-key` or `?key=`): a wrong or missing one
//! gets the format's 401 body and consumes no turn.
//!
//! Each model request consumes the next turn. Every object is tagged by its single key
//! (`{"stream": …}`, `{"text": …}`), so a mistake is reported at its exact line and column;
//! unknown fields are errors too (typos fail loudly).
//!
//! **`{"stream": {…}}`** — a streamed answer:
//! - `steps` — in order; each content step becomes one content block (Anthropic block, Responses
//!   output item, run of chat deltas, Gemini parts):
//!   - `{"thinking": {"text", "signature"?}}` — chat completions: `delta.reasoning_content`
//!     (no signature); Responses: a `reasoning` item with summary deltas, `encrypted_content` =
//!     `signature` (generated if absent) only when the request's `include` asks for
//!     `reasoning.encrypted_content`, as the real API; Anthropic: a `thinking` block closed by a
//!     `signature_delta` (generated if absent, as the API always sends one); Gemini:
//!     `thought: true` parts, and the signature as `thoughtSignature` on the next part (a trailing
//!     empty text part if nothing follows; none if absent). An empty `text` with a signature
//!     sends only the signature.
//!   - `{"text": "…"}` — text deltas.
//!   - `{"tool_call": {"id"?, "name", "arguments"?, "raw_arguments"?}}` — `arguments` is a JSON
//!     object (default `{}`), streamed as its compact JSON text split into `chunk_size` pieces;
//!     `raw_arguments` (a string) is streamed verbatim instead, e.g. invalid JSON. `id` defaults
//!     to a generated `call_…` / `toolu_…`; Responses items get `fc_…` ids and use `id` as
//!     `call_id`; Gemini has no ids and sends whole `args` objects, consecutive calls in one
//!     chunk. Several tool calls in one turn are parallel tool calls.
//!   - `{"usage": {"input", "output", "cache_read"?, "cache_write"?, "reasoning"?}}` — `input`
//!     excludes cached tokens, `output` includes `reasoning`. Mapped as: chat `prompt_tokens =
//!     input+cache_read+cache_write`, `prompt_tokens_details.cached_tokens = cache_read`,
//!     `completion_tokens = output`, `completion_tokens_details.reasoning_tokens = reasoning`;
//!     Responses likewise with `input_tokens`, `input_tokens_details.cached_tokens`,
//!     `output_tokens`, `output_tokens_details.reasoning_tokens`; Anthropic `input_tokens =
//!     input`, `cache_read_input_tokens`, `cache_creation_input_tokens = cache_write`,
//!     `output_tokens` (message_start says 1, message_delta the total); Gemini
//!     `promptTokenCount = input+cache_read+cache_write`, `cachedContentTokenCount =
//!     cache_read`, `candidatesTokenCount = output-reasoning`, `thoughtsTokenCount = reasoning`
//!     (the same on every chunk). Without a usage step: input ≈ request body bytes / 4, output
//!     ≈ characters / 4. Chat completions sends usage only if the request set
//!     `stream_options.include_usage`.
//!   - `{"stop": "stop" | "length" | "tool_use"}` — default `tool_use` if the turn has a tool
//!     call, else `stop`. Chat `finish_reason` `stop`/`length`/`tool_calls`; Anthropic
//!     `end_turn`/`max_tokens`/`tool_use`; Responses `response.completed`, or
//!     `response.incomplete` (`max_output_tokens`) for `length`; Gemini `STOP`/`MAX_TOKENS`.
//!
//!   `usage` and `stop` may appear anywhere; the last one wins.
//! - `chunk_size` — characters per delta for text, thinking and tool arguments (default 8;
//!   never splits a UTF-8 character).
//! - `delay_ms` — the pace: one SSE event every `delay_ms` (the first at once), on a fixed
//!   schedule, so timer slack does not slow the stream down.
//! - `error_after_chunks: N` — send the first N SSE events (counting every event, preamble
//!   included), then the format's error: chat `data: {"error":{…}}` + `[DONE]`; Responses
//!   `error` + `response.failed`; Anthropic `event: error` (`overloaded_error` / `Overloaded`);
//!   Gemini `data: {"error":{"code":500,…,"status":"INTERNAL"}}`. The body then ends cleanly.
//! - `error: {"type"?, "message"?}` — overrides the error's type/code/status and message.
//! - `drop_after_chunks: N` — send N SSE events, then break the connection without finishing
//!   the chunked body (the client sees an incomplete body). If both are set, the smaller wins.
//! - `stall_after_chunks: N` — send N SSE events, then nothing: the connection stays open and
//!   silent until the client goes away, or for `stall_ms` when that is set, after which the
//!   rest of the stream follows (a provider that hangs, or pauses). N counts the events as
//!   sent, raw events and a scripted error event included; it combines with the two above.
//! - `raw_events: [{"after_chunks": N, "text": "data: {oops\n\n"}]` — text sent verbatim after
//!   the first N events of the format (a malformed event, a comment, keep-alive text); it
//!   counts as one event for the `*_after_chunks` options. Several at one N keep their order.
//!
//! **`{"http_error": {"status", "body"?, "headers"?}}`** — answers with that status; a JSON
//! `body` is sent as `application/json`, a JSON string verbatim as `text/plain`; `headers` (e.g.
//! `{"retry-after": "2"}`) are added to the response.
//!
//! # In Rust
//!
//! ```no_run
//! use arbor_test_support::{MockProvider, Script, Turn, Usage, WireApi};
//! use serde_json::json;
//!
//! # async fn demo() -> Result<(), arbor_test_support::Error> {
//! let script = Script::new()
//!     .turn(Turn::stream().tool_call("read", json!({"path": "a.txt"})).chunk_size(3))
//!     .turn(Turn::http_error(429, json!({"error": {"message": "slow down"}})).header("retry-after", "1"))
//!     .turn(Turn::stream().thinking_signed("hmm", "sig").text("Done.").usage(Usage::new(10, 5)));
//! let mock = MockProvider::start(script).await?;
//! let base = mock.url_for(WireApi::AnthropicMessages);
//! // … point the client at `base`, run it, then:
//! let sent = mock.requests();
//! # let _ = (base, sent);
//! # Ok(()) }
//! ```

mod fixtures;
mod formats;
pub mod git_http;
pub mod git_repo;
pub mod mcp;
mod playback;
mod recording;
mod script;
mod server;
pub mod tmpfs;

use std::path::PathBuf;

pub use fixtures::{provider_fixtures_dir, FixturesMissing};
pub use recording::{RecordedRequest, UnknownApi, WireApi};
pub use script::{
    HttpError, RawEvent, Script, Step, StopReason, StreamError, StreamTurn, Turn, Usage,
    DEFAULT_CHUNK_SIZE,
};
pub use server::{MockProvider, REQUESTS_PATH};

/// Errors of loading a script or starting the server.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot read script {}: {source}", path.display())]
    ReadScript {
        path: PathBuf,
        source: std::io::Error,
    },
    /// serde_json's message names the line and column.
    #[error("invalid script{}: {source}", path.as_ref().map(|p| format!(" {}", p.display())).unwrap_or_default())]
    ParseScript {
        path: Option<PathBuf>,
        source: serde_json::Error,
    },
    #[error("invalid script: turn {turn} (0-based): {message}")]
    InvalidScript { turn: usize, message: String },
    #[error("cannot listen on 127.0.0.1:{port}: {source}")]
    Bind { port: u16, source: std::io::Error },
}

impl Error {
    /// Line and column (1-based) of a JSON syntax or shape error in the script.
    pub fn line_column(&self) -> Option<(usize, usize)> {
        match self {
            Error::ParseScript { source, .. } => Some((source.line(), source.column())),
            _ => None,
        }
    }
}
