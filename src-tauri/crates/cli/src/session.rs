//! The CLI's side of a live session: building the [`SessionConfig`] from the flags, and the
//! terminal wording of coding events. The session itself is `arbor_app::LiveSession`,
//! the same one the desktop app drives.

use arbor_app::permissions::PermissionSetup;
use std::path::Path;

use arbor_app::secrets::ToolEnvironment;
use arbor_app::{parse_tool_list, CodingEvent};
use arbor_app::{AppError, LiveSession, SessionConfig};
use arbor_protocol::ThinkingLevel;

use crate::args::AgentArgs;
use crate::selection::Selection;

/// Prints a coding event that a text front end cares about (storage failures, compactions,
/// mid-stream retries) on stderr.
pub fn report_to_stderr(event: &CodingEvent) {
    if let Some(text) = describe_event(event) {
        eprintln!("{text}");
    }
}

fn short_id(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

/// A coding event as a line for the terminal; `None` for those it does not show.
pub fn describe_event(event: &CodingEvent) -> Option<String> {
    match event {
        CodingEvent::StoreError { message } => Some(format!(
            "arbor: could not store the conversation, so the run was stopped: {message}"
        )),
        CodingEvent::SessionWrittenElsewhere { session_id, .. } => Some(format!(
            "arbor: note: another window or terminal wrote to session {} meanwhile; this \
             run's turns go on from its own last message (a branch: see `arbor tree {}`)",
            short_id(session_id),
            short_id(session_id)
        )),
        CodingEvent::StreamNotice { message, .. } => Some(format!("arbor: note: {message}")),
        CodingEvent::RetryScheduled {
            attempt,
            delay_ms,
            error,
        } => Some(format!(
            "arbor: {} — retrying in {:.1}s (attempt {attempt})",
            error.class(),
            *delay_ms as f64 / 1000.0
        )),
        CodingEvent::CompactionStart { reason } => Some(format!(
            "(compacting the conversation: {})",
            match reason {
                arbor_app::CompactionReason::Threshold => "it nears the context window",
                arbor_app::CompactionReason::Overflow => "it overflowed the context window",
                arbor_app::CompactionReason::Manual => "as asked",
            }
        )),
        CodingEvent::CompactionEnd {
            tokens_before,
            tokens_after: Some(after),
            ..
        } => Some(format!(
            "(compacted: about {tokens_before} → {after} tokens in context)"
        )),
        CodingEvent::CompactionEnd {
            error: Some(error), ..
        } => Some(format!("arbor: compaction failed: {error}")),
        CodingEvent::SnapshotError { message } => Some(format!(
            "arbor: could not record the project's files for this step: {message}"
        )),
        CodingEvent::PermissionRequested { request } => {
            Some(crate::permissions::describe_request(request))
        }
        CodingEvent::PermissionResolved { decision, .. } => Some(format!(
            "(permission: {})",
            crate::permissions::decision_words(*decision)
        )),
        CodingEvent::ElicitationRequested { request } => {
            Some(crate::elicitation::describe_request(request))
        }
        CodingEvent::ElicitationResolved { action, .. } => Some(format!(
            "(MCP server's question: {})",
            crate::elicitation::words(*action)
        )),
        CodingEvent::PermissionModeChanged { mode } => {
            Some(format!("(permission mode: {})", mode.as_str()))
        }
        CodingEvent::ApprovalRequested {
            name,
            reason,
            files,
            allowed_tools,
            previous,
            ..
        } => Some(crate::tools::describe_request(
            name,
            reason,
            files,
            allowed_tools,
            previous.as_ref(),
        )),
        _ => None,
    }
}

pub fn tool_names(args: &AgentArgs) -> Vec<String> {
    if args.no_tools {
        Vec::new()
    } else {
        parse_tool_list(&args.tools)
    }
}

/// The live session the flags describe (not stored yet: see `stored::connect`).
pub fn start(
    selection: Selection,
    thinking: ThinkingLevel,
    args: &AgentArgs,
    cwd: &Path,
    tool_environment: ToolEnvironment,
    stream_idle_timeout: std::time::Duration,
    permissions: PermissionSetup,
) -> Result<LiveSession, AppError> {
    LiveSession::start(SessionConfig {
        cwd: cwd.to_owned(),
        selection,
        thinking,
        tools: tool_names(args),
        system_prompt: args.system_prompt.clone(),
        append_system_prompt: args.append_system_prompt.clone(),
        tool_environment,
        stream_idle_timeout,
        permissions: Some(permissions),
    })
}
