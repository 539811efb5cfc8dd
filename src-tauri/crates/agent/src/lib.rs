//! `arbor-agent`: the general agent loop (the design document's §5, "the agent").
//!
//! This crate knows nothing of files, SQLite, Tauri or the keychain: tools are given to it as
//! [`AgentTool`] trait objects, the model is reached through [`arbor_llm::LlmClient`], and
//! everything it does is reported as [`arbor_protocol::AgentEvent`]s to every subscriber.
//!
//! # Using it
//!
//! ```no_run
//! # async fn demo(model: arbor_llm::Model) -> Result<(), Box<dyn std::error::Error>> {
//! use arbor_agent::{Agent, AgentOptions};
//! let agent = Agent::new(
//!     arbor_llm::LlmClient::new()?,
//!     AgentOptions::new(model).system_prompt("You are a helpful assistant."),
//! );
//! let mut events = agent.events(); // or agent.subscribe(|event| …)
//! tokio::spawn(async move {
//!     while let Some(event) = events.recv().await {
//!         println!("{}", serde_json::to_string(&event).unwrap_or_default());
//!     }
//! });
//! let outcome = agent.prompt("List the files", Vec::new()).await?;
//! println!("{:?}", outcome.status);
//! # Ok(()) }
//! ```
//!
//! [`Agent`] is cheap to clone: while one task awaits [`Agent::prompt`], another can call
//! [`Agent::steer`], [`Agent::follow_up`], [`Agent::abort`] or read [`Agent::state`].
//!
//! # Behaviour
//!
//! - **A run** is turns of: deliver messages (the prompt, steering, follow-ups) → stream one
//!   assistant message → run its tool calls. It continues while the model calls tools or
//!   steering arrives, then delivers queued follow-ups, and ends when none are left. The event
//!   order is documented in `arbor-protocol`.
//! - **Tool calls** (module `tool_exec`): unknown tools, arguments that fail the JSON Schema
//!   after coercion (module [`validation`]), blocked calls, tool errors and tool panics all
//!   become error results the model reads; the run goes on. Calls run in parallel by default
//!   ([`ToolExecution`]), results are added in the model's order.
//! - **Steering and follow-ups**: see the [`queues`] module. In parallel mode every call of a
//!   turn starts at once, so steering never skips a call there; in sequential mode the calls
//!   after the one running are skipped with [`SKIPPED_FOR_STEERING`].
//! - **Abort** ([`Agent::abort`]) cancels the stream and every running tool (after
//!   [`AgentOptions::abort_grace`] a tool that ignores cancellation is dropped) and empties
//!   the queues. The conversation stays consistent: the partial assistant message is kept with
//!   stop reason `aborted`, and every tool call in the history has exactly one result (aborted
//!   or not-run calls get an error result), so the next prompt continues from it.
//! - **Stop reasons**: `length` ends the turn cleanly (its tool calls, possibly cut off, are
//!   not run: they get [`NOT_RUN_LENGTH`]) and the run stops unless something is queued.
//!   `error` ends the run with status `failed` and the classified [`arbor_llm::LlmError`] in
//!   `agent_end`, the [`RunOutcome`] and [`AgentState::error`], unless the [`RequestHook`]
//!   recovers it; retrying later (e.g. with [`Agent::continue_run`]) is the caller's decision.
//! - **Hooks**: a [`MessageTransformer`] turns the app's messages into LLM messages before every
//!   request; [`ToolCallHook`]s run before (may block) and after (may rewrite) every tool call;
//!   a [`RequestHook`] may replace the conversation before every request (compaction) and
//!   decides whether a failed request is sent again (its failed message stays reported; the
//!   retry is a new turn on the conversation the hook returns).

pub mod agent;
pub mod hooks;
mod listeners;
pub mod queues;
mod run_loop;
pub mod state;
pub mod tool;
mod tool_exec;
pub mod validation;

pub use agent::{user_message, Agent};
pub use hooks::{
    DefaultTransformer, MessageTransformer, Recovery, RequestContext, RequestFailure, RequestHook,
    ToolCallDecision, ToolCallHook,
};
pub use listeners::SubscriptionId;
pub use queues::{QueueKind, QueuedMessages};
pub use state::{
    AgentError, AgentOptions, AgentState, RunOutcome, ToolExecution, DEFAULT_ABORT_GRACE,
};
pub use tool::{AgentTool, ToolContext, ToolError, ToolOutput, ToolUpdate};
pub use tool_exec::{
    ABORTED_WHILE_RUNNING, EMPTY_OUTPUT, NOT_RUN_ABORTED, NOT_RUN_FAILED, NOT_RUN_LENGTH,
    SKIPPED_FOR_STEERING,
};

// Re-exported so users of the agent need not name the protocol crate for the common types.
pub use arbor_protocol::{AgentEvent, AgentMessage, CustomMessage, RunStatus};
