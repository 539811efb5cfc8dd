//! RPC commands on the stored session tree and compaction (see `docs/rpc.md`): answered at
//! once, or — for those that ask the model (`compact`, `navigate` with `summarize`) — by the
//! task that does the work.

use arbor_coding::compaction::navigate_with_summary;
use arbor_coding::export::{export_session, ExportFormat, ExportScope};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::jsonl::LineWriter;
use crate::session::AgentSession;

/// Commands on the stored session tree (see `docs/rpc.md`), handled here beside the agent's.
#[derive(Debug, serde::Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum SessionCommand {
    GetTree,
    Navigate {
        node_id: String,
        /// Carry a summary of the branch left behind (asks the model; answered when done).
        #[serde(default)]
        summarize: bool,
    },
    Compact {
        #[serde(default)]
        focus: Option<String>,
    },
    Export {
        /// `markdown`, `jsonl` (default) or `html`.
        #[serde(default)]
        format: Option<String>,
        /// `branch` or `tree` (default: `branch` for Markdown, else `tree`).
        #[serde(default)]
        scope: Option<String>,
        /// Write here (atomically) instead of returning the text.
        #[serde(default)]
        path: Option<std::path::PathBuf>,
    },
    Label {
        node_id: String,
        #[serde(default)]
        label: Option<String>,
    },
    Fork {
        #[serde(default)]
        node_id: Option<String>,
    },
    SwitchSession {
        session_id: String,
    },
    ListSessions {
        #[serde(default)]
        all: bool,
    },
    Regenerate,
    RenameSession {
        title: String,
    },
}

const SESSION_COMMANDS: [&str; 10] = [
    "get_tree",
    "navigate",
    "compact",
    "export",
    "label",
    "fork",
    "switch_session",
    "list_sessions",
    "regenerate",
    "rename_session",
];

/// A line whose `type` is a session command: its id, its type and the parsed command.
pub(crate) fn session_command(
    line: &str,
) -> Option<(
    Value,
    &'static str,
    Result<SessionCommand, serde_json::Error>,
)> {
    let value = serde_json::from_str::<Value>(line).ok()?;
    let kind = value.get("type")?.as_str()?;
    let kind = SESSION_COMMANDS.into_iter().find(|k| *k == kind)?;
    let id = value.get("id").cloned().unwrap_or(Value::Null);
    Some((id, kind, serde_json::from_value(value)))
}

/// Where a session command's response goes: now, or from the task that finishes it.
pub(crate) struct Reply {
    pub(crate) writer: LineWriter,
    pub(crate) id: Value,
    pub(crate) kind: &'static str,
}

impl Reply {
    pub(crate) fn send(&self, result: Result<Value, String>) {
        let (id, kind) = (&self.id, self.kind);
        self.writer.send(&match result {
            Ok(data) => {
                json!({"type": "response", "id": id, "command": kind, "success": true, "data": data})
            }
            Err(error) => {
                json!({"type": "response", "id": id, "command": kind, "success": false, "error": error})
            }
        });
    }
}

/// Handles a session command; `Ok(None)` when a task it started sends the response.
pub(crate) fn handle_session(
    session: &AgentSession,
    reply: &Reply,
    command: SessionCommand,
    runs: &mut Vec<tokio::task::JoinHandle<()>>,
    side_task: &mut Option<CancellationToken>,
) -> Result<Option<Value>, String> {
    let writer = &reply.writer;
    if let SessionCommand::Compact { focus } = command {
        let compactor = session
            .compactor
            .clone()
            .ok_or("compaction is not set up")?;
        let (agent, cancel) = (session.agent.clone(), CancellationToken::new());
        *side_task = Some(cancel.clone());
        let reply = Reply {
            writer: writer.clone(),
            id: reply.id.clone(),
            kind: reply.kind,
        };
        runs.push(tokio::spawn(async move {
            let result = compactor
                .compact_agent(&agent, focus.as_deref(), &cancel)
                .await;
            reply.send(result.map_err(|e| e.to_string()).map(|done| {
                json!({
                    "summary": done.summary,
                    "tokens_before": done.tokens_before,
                    "tokens_after": done.tokens_after,
                    "node_id": done.node_id,
                    "message_count": agent.messages().len(),
                })
            }));
        }));
        return Ok(None);
    }
    if let SessionCommand::Navigate {
        node_id,
        summarize: true,
    } = command
    {
        let recorder = session
            .recorder
            .clone()
            .ok_or("sessions are off (--no-session)")?;
        let compactor = session
            .compactor
            .clone()
            .ok_or("compaction is not set up")?;
        let (agent, cancel) = (session.agent.clone(), CancellationToken::new());
        *side_task = Some(cancel.clone());
        let reply = Reply {
            writer: writer.clone(),
            id: reply.id.clone(),
            kind: reply.kind,
        };
        runs.push(tokio::spawn(async move {
            let result = navigate_with_summary(&compactor, &agent, &node_id, true, &cancel).await;
            reply.send(
                result
                    .map_err(|e| e.to_string())
                    .map(|navigation| navigation_data(&recorder, &agent, &navigation)),
            );
        }));
        return Ok(None);
    }
    handle_stored(session, reply, command, runs).map(Some)
}

fn handle_stored(
    session: &AgentSession,
    reply: &Reply,
    command: SessionCommand,
    runs: &mut Vec<tokio::task::JoinHandle<()>>,
) -> Result<Value, String> {
    let writer = &reply.writer;
    let recorder = session
        .recorder
        .as_ref()
        .ok_or("sessions are off (--no-session)")?;
    let agent = &session.agent;
    let e = |error: arbor_coding::SessionsError| error.to_string();
    match command {
        SessionCommand::GetTree => Ok(json!({
            "tree": recorder.tree().map_err(e)?,
        })),
        SessionCommand::Navigate { node_id, .. } => {
            let navigation = recorder.navigate(agent, &node_id).map_err(e)?;
            Ok(navigation_data(recorder, agent, &navigation))
        }
        SessionCommand::Label { node_id, label } => {
            let id = recorder.label(&node_id, label.as_deref()).map_err(e)?;
            Ok(json!({"node_id": id, "label": label.filter(|l| !l.trim().is_empty())}))
        }
        SessionCommand::Export {
            format,
            scope,
            path,
        } => {
            let session_id = recorder
                .session_id()
                .ok_or("nothing to export yet: send a prompt first")?;
            let format = match format.as_deref() {
                None | Some("jsonl") => ExportFormat::Jsonl,
                Some("markdown" | "md") => ExportFormat::Markdown,
                Some("html") => ExportFormat::Html,
                Some(other) => {
                    return Err(format!(
                        "unknown export format {other:?}: use markdown, jsonl or html"
                    ))
                }
            };
            let scope = match scope.as_deref() {
                Some("branch") => ExportScope::CurrentBranch,
                Some("tree") => ExportScope::WholeTree,
                None if format == ExportFormat::Markdown => ExportScope::CurrentBranch,
                None => ExportScope::WholeTree,
                Some(other) => {
                    return Err(format!(
                        "unknown export scope {other:?}: use branch or tree"
                    ))
                }
            };
            let text = recorder
                .with_store(|store| export_session(store, &session_id, scope, format))
                .map_err(|error| error.to_string())?;
            match path {
                Some(path) => {
                    crate::transfer::write_atomically(&path, &text)?;
                    Ok(json!({"session_id": session_id, "path": path, "bytes": text.len()}))
                }
                None => Ok(json!({"session_id": session_id, "content": text})),
            }
        }
        SessionCommand::Compact { .. } => Err("compact is handled by handle_session".into()),
        SessionCommand::Fork { node_id } => {
            let forked = recorder.fork(agent, node_id.as_deref()).map_err(e)?;
            Ok(json!({
                "session_id": forked.id,
                "leaf_id": forked.leaf_id,
                "message_count": agent.messages().len(),
            }))
        }
        SessionCommand::SwitchSession { session_id } => {
            let switched = recorder.switch_session(agent, &session_id).map_err(e)?;
            Ok(json!({
                "session_id": switched.id,
                "title": switched.title,
                "leaf_id": switched.leaf_id,
                "message_count": agent.messages().len(),
            }))
        }
        SessionCommand::ListSessions { all } => Ok(json!({
            "sessions": recorder.list_sessions(all).map_err(e)?,
        })),
        SessionCommand::Regenerate => {
            let user_id = recorder.regenerate(agent).map_err(e)?;
            let (agent, writer) = (agent.clone(), writer.clone());
            runs.push(tokio::spawn(async move {
                if let Err(error) = agent.continue_run().await {
                    writer.send(&json!({"type": "error", "command": "regenerate", "message": error.to_string()}));
                }
            }));
            Ok(json!({"user_node_id": user_id}))
        }
        SessionCommand::RenameSession { title } => {
            let renamed = recorder.rename(&title).map_err(e)?;
            Ok(json!({"session_id": renamed.id, "title": renamed.title}))
        }
    }
}

/// What `navigate` answers.
fn navigation_data(
    recorder: &arbor_coding::SessionRecorder,
    agent: &arbor_agent::Agent,
    navigation: &arbor_coding::Navigation,
) -> Value {
    json!({
        "session_id": recorder.session_id(),
        "leaf_id": navigation.leaf_id,
        "editor_text": navigation.editor_text,
        "message_count": agent.messages().len(),
    })
}
