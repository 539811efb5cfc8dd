//! `--mode rpc`: JSON commands on stdin, each answered by
//! `{"type":"response","id":…,"command":…,"success":…,"data"?:…,"error"?:…}` on stdout, with the
//! agent's events streaming on the same stdout as in JSON mode. The protocol is documented in
//! `docs/rpc.md`.

use std::process::ExitCode;

use arbor_coding::compaction::navigate_with_summary;
use arbor_coding::export::{export_session, ExportFormat, ExportScope};
use arbor_llm::catalog::Catalog;
use arbor_protocol::{Command, CommandEnvelope};
use serde_json::{json, Value};
use tokio::io::AsyncBufReadExt;
use tokio_util::sync::CancellationToken;

use crate::args::ModelArgs;
use crate::jsonl::{header, parse_error, LineWriter};
use crate::selection;
use crate::session::{self, AgentSession};

/// What `set_model` needs to resolve a new model the way the command line did.
pub struct ModelResolver {
    pub catalog: Catalog,
    pub base: ModelArgs,
}

pub async fn run(mut session: AgentSession, resolver: ModelResolver) -> anyhow::Result<ExitCode> {
    let (writer, writer_task) = LineWriter::start();
    writer.send(&header(&session));
    let subscription = writer.forward_events(&session.agent);
    let coding = writer.clone();
    session.attach_recorder(move |event| coding.send(event));

    let mut runs = Vec::new();
    let mut side_task: Option<CancellationToken> = None;
    let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    while let Some(line) = lines.next_line().await? {
        if line.trim().is_empty() {
            continue;
        }
        if let Some((id, kind, command)) = session_command(&line) {
            let reply = Reply {
                writer: writer.clone(),
                id,
                kind,
            };
            let result = command
                .map_err(|error| format!("invalid {kind} command: {error}"))
                .and_then(|command| {
                    handle_session(&session, &reply, command, &mut runs, &mut side_task)
                });
            match result {
                Ok(Some(data)) => reply.send(Ok(data)),
                Ok(None) => {} // a task answers when it is done
                Err(error) => reply.send(Err(error)),
            }
            // Let a run it started mark the agent busy before the next command is read.
            tokio::task::yield_now().await;
            continue;
        }
        let envelope = match serde_json::from_str::<CommandEnvelope>(&line) {
            Ok(envelope) => envelope,
            Err(error) => {
                let mut reply = parse_error(&line, &error);
                // Echo the id when the line was JSON with one, so the caller can match it.
                if let Some(id) = serde_json::from_str::<Value>(&line)
                    .ok()
                    .and_then(|v| v.get("id").cloned())
                {
                    reply["id"] = id;
                }
                writer.send(&reply);
                continue;
            }
        };
        let kind = envelope.command.kind();
        if matches!(envelope.command, Command::Abort) {
            // Also stops a compaction or branch summary in progress.
            if let Some(task) = side_task.take() {
                task.cancel();
            }
        }
        let reply = match handle(
            &mut session,
            &resolver,
            &writer,
            envelope.command,
            &mut runs,
        )
        .await
        {
            Ok(data) => {
                json!({"type": "response", "id": envelope.id, "command": kind, "success": true, "data": data})
            }
            Err(error) => {
                json!({"type": "response", "id": envelope.id, "command": kind, "success": false, "error": error})
            }
        };
        writer.send(&reply);
    }
    for run in runs {
        let _ = run.await;
    }
    session.agent.wait_for_idle().await;
    session.agent.unsubscribe(subscription);
    session.detach_recorder();
    drop(writer);
    let _ = writer_task.await;
    Ok(ExitCode::SUCCESS)
}

async fn handle(
    session: &mut AgentSession,
    resolver: &ModelResolver,
    writer: &LineWriter,
    command: Command,
    runs: &mut Vec<tokio::task::JoinHandle<()>>,
) -> Result<Value, String> {
    let agent = session.agent.clone();
    match command {
        Command::Prompt { message, images } => {
            if agent.is_streaming() {
                return Err("the agent is busy: send steer or follow_up, or abort first".into());
            }
            let writer = writer.clone();
            runs.push(tokio::spawn(async move {
                if let Err(error) = agent.prompt(message, images).await {
                    writer.send(&json!({"type": "error", "command": "prompt", "message": error.to_string()}));
                }
            }));
            // Let the run start (and mark the agent busy) before the next command is read.
            tokio::task::yield_now().await;
            Ok(Value::Null)
        }
        Command::Steer { message } => {
            agent.steer(message);
            Ok(Value::Null)
        }
        Command::FollowUp { message } => {
            agent.follow_up(message);
            Ok(Value::Null)
        }
        Command::Abort => {
            let dropped = agent.abort();
            Ok(
                json!({"dropped_steering": dropped.steering.len(), "dropped_follow_ups": dropped.follow_ups.len()}),
            )
        }
        Command::GetState => {
            let state = agent.state();
            Ok(json!({
                "provider": state.model.provider,
                "model": state.model.id,
                "api": state.model.api.as_str(),
                "thinking_level": state.thinking_level.as_str(),
                "is_streaming": state.is_streaming,
                "message_count": state.messages.len(),
                "pending_tool_calls": state.pending_tool_calls,
                "tools": session.tool_names,
                "cwd": session.cwd.display().to_string(),
                "error": state.error,
            }))
        }
        Command::GetMessages => Ok(json!({"messages": agent.messages()})),
        Command::SetModel { model, provider } => {
            let args = ModelArgs {
                provider,
                model: Some(model),
                ..resolver.base.clone()
            };
            let selection =
                selection::select(&resolver.catalog, &args, |name| std::env::var(name).ok())
                    .map_err(|error| error.to_string())?;
            agent.set_model(selection.model.clone());
            agent.set_request_options(session::request_options(&selection));
            let data = json!({"provider": selection.model.provider, "model": selection.model.id});
            session.selection = selection;
            if let Some(recorder) = &session.recorder {
                recorder
                    .record_model(&session.model_name())
                    .map_err(|error| error.to_string())?;
            }
            Ok(data)
        }
        Command::SetThinkingLevel { level } => {
            agent.set_thinking_level(level);
            session.thinking = level;
            if let Some(recorder) = &session.recorder {
                recorder
                    .record_thinking_level(level.as_str())
                    .map_err(|error| error.to_string())?;
            }
            Ok(Value::Null)
        }
        Command::NewSession => {
            match &session.recorder {
                Some(recorder) => recorder
                    .new_session(&agent)
                    .map_err(|error| error.to_string())?,
                None => agent
                    .clear_messages()
                    .map_err(|error| format!("{error}: abort the run first"))?,
            }
            Ok(Value::Null)
        }
    }
}

/// Commands on the stored session tree (see `docs/rpc.md`), handled here beside the agent's.
#[derive(Debug, serde::Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum SessionCommand {
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
fn session_command(
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
struct Reply {
    writer: LineWriter,
    id: Value,
    kind: &'static str,
}

impl Reply {
    fn send(&self, result: Result<Value, String>) {
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
fn handle_session(
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
                    crate::interactive_tree::write_atomically(&path, &text)?;
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
