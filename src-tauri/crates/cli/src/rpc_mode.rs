//! `--mode rpc`: JSON commands on stdin, each answered by
//! `{"type":"response","id":…,"command":…,"success":…,"data"?:…,"error"?:…}` on stdout, with the
//! session's events streaming on the same stdout as in JSON mode. The protocol is documented in
//! `docs/rpc.md`; every command is a method of `arbor_app::LiveSession`, and this module
//! only reads lines, calls it and writes the answers.

use std::process::ExitCode;
use std::sync::Arc;

use arbor_app::catalog::Catalog;
use arbor_app::export::{ExportFormat, ExportScope};
use arbor_app::{AppError, LiveSession, NavigationWithFiles, ProviderKeys};
use arbor_protocol::{Command, CommandEnvelope, ErrorCode};
use serde_json::{json, Value};
use tokio::io::AsyncBufReadExt;
use tokio::sync::RwLock;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::args::ModelArgs;
use crate::jsonl::{header, parse_error, LineWriter};
use crate::selection;

/// What `set_model` needs to resolve a new model the way the command line did.
pub struct ModelResolver {
    pub catalog: Catalog,
    pub base: ModelArgs,
    pub keys: Arc<ProviderKeys>,
}

type Shared = Arc<RwLock<LiveSession>>;

/// Where a command's response goes: now, or from the task that finishes it.
#[derive(Clone)]
struct Reply {
    writer: LineWriter,
    id: Value,
    kind: &'static str,
}

impl Reply {
    fn send(&self, result: anyhow::Result<Value>) {
        let (id, kind) = (&self.id, self.kind);
        self.writer.send(&match result {
            Ok(data) => {
                json!({"type": "response", "id": id, "command": kind, "success": true, "data": data})
            }
            Err(error) => {
                // The session API's errors carry their code; anything else is a bug here.
                let code = error
                    .downcast_ref::<Failure>()
                    .map_or(ErrorCode::Internal, |failure| failure.code);
                json!({"type": "response", "id": id, "command": kind, "success": false, "code": code, "error": error.to_string()})
            }
        });
    }
}

/// A failed command: its stable code and what to do, as the response's `code` and `error`.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
struct Failure {
    code: ErrorCode,
    message: String,
}

/// The session API's error with the CLI's hints.
fn describe(error: &AppError) -> anyhow::Error {
    let message = match error {
        AppError::NotStored => "sessions are off (--no-session)".to_owned(),
        AppError::NotAttached => "compaction is not set up".to_owned(),
        AppError::Busy => "the agent is busy: send steer or follow_up, or abort first".to_owned(),
        other => other.to_string(),
    };
    anyhow::Error::new(Failure {
        code: error.code(),
        message,
    })
}

fn data(value: Result<impl serde::Serialize, AppError>) -> anyhow::Result<Value> {
    let value = value.map_err(|error| describe(&error))?;
    Ok(serde_json::to_value(value)?)
}

pub async fn run(mut session: LiveSession, resolver: ModelResolver) -> anyhow::Result<ExitCode> {
    let (writer, writer_task) = LineWriter::start();
    writer.send(&header(&session));
    let events = writer.clone();
    session.attach(move |event| events.send(event));
    // A client answers approvals (`approve_tool` / `reject_tool`): `create_tool` waits for it.
    if let Ok(toolbox) = session.toolbox() {
        toolbox.set_answerable(true);
    }
    let session: Shared = Arc::new(RwLock::new(session));

    let mut runs: Vec<JoinHandle<()>> = Vec::new();
    let mut side_task: Option<CancellationToken> = None;
    let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    while let Some(line) = lines.next_line().await? {
        if line.trim().is_empty() {
            continue;
        }
        let envelope = match serde_json::from_str::<CommandEnvelope>(&line) {
            Ok(envelope) => envelope,
            Err(error) => {
                writer.send(&invalid_line(&line, &error));
                continue;
            }
        };
        let reply = Reply {
            writer: writer.clone(),
            id: envelope.id.unwrap_or(Value::Null),
            kind: envelope.command.kind(),
        };
        if matches!(envelope.command, Command::Abort) {
            // Also stops a compaction or branch summary in progress.
            if let Some(task) = side_task.take() {
                task.cancel();
            }
        }
        let answer = handle(
            &session,
            &resolver,
            &reply,
            envelope.command,
            &mut runs,
            &mut side_task,
        )
        .await;
        if let Some(result) = answer {
            reply.send(result);
        }
        // Let a run it started mark the agent busy before the next command is read.
        tokio::task::yield_now().await;
    }
    for run in runs {
        let _ = run.await;
    }
    let mut session = session.write().await;
    session.wait_for_idle().await;
    session.detach();
    drop(session);
    drop(writer);
    let _ = writer_task.await;
    Ok(ExitCode::SUCCESS)
}

/// A line that is not a command: the parse error, with the id echoed when the line had one.
fn invalid_line(line: &str, error: &serde_json::Error) -> Value {
    let parsed = serde_json::from_str::<Value>(line).ok();
    let kind = parsed
        .as_ref()
        .and_then(|v| v.get("type")?.as_str())
        .and_then(|kind| Command::KINDS.into_iter().find(|k| *k == kind));
    let mut reply = match kind {
        // A known command with wrong fields: say which command.
        Some(kind) => json!({"type": "response", "command": kind, "success": false,
            "code": ErrorCode::InvalidCommand, "error": format!("invalid {kind} command: {error}")}),
        None => parse_error(line, error),
    };
    if let Some(id) = parsed.as_ref().and_then(|v| v.get("id").cloned()) {
        reply["id"] = id;
    }
    reply
}

/// Handles one command; `None` when a background task sends the response.
async fn handle(
    session: &Shared,
    resolver: &ModelResolver,
    reply: &Reply,
    command: Command,
    runs: &mut Vec<JoinHandle<()>>,
    side_task: &mut Option<CancellationToken>,
) -> Option<anyhow::Result<Value>> {
    let started = |run: arbor_app::commands::RunHandle, kind: &'static str| {
        let writer = reply.writer.clone();
        tokio::spawn(async move {
            if let Ok(Err(error)) = run.await {
                writer
                    .send(&json!({"type": "error", "command": kind, "message": error.to_string()}));
            }
        })
    };
    let live = session.read().await;
    Some(match command {
        Command::Prompt {
            message,
            images,
            documents,
        } => match live.start_prompt_with_documents(message, images, documents) {
            Ok(run) => {
                runs.push(started(run, "prompt"));
                Ok(Value::Null)
            }
            Err(error) => Err(describe(&error)),
        },
        Command::Steer { message } => {
            live.steer(message);
            Ok(Value::Null)
        }
        Command::FollowUp { message } => {
            live.follow_up(message);
            Ok(Value::Null)
        }
        Command::Abort => data(Ok(live.abort())),
        Command::GetState => data(Ok(live.session_state())),
        Command::GetMessages => Ok(json!({"messages": live.messages()})),
        Command::SetModel { model, provider } => {
            drop(live);
            let args = ModelArgs {
                provider,
                model: Some(model),
                ..resolver.base.clone()
            };
            let selection = match selection::select(&resolver.catalog, &args, &resolver.keys) {
                Ok(selection) => selection,
                Err(error) => {
                    return Some(Err(anyhow::Error::new(Failure {
                        code: error.code(),
                        message: error.to_string(),
                    })))
                }
            };
            let answer = json!({"provider": selection.model.provider, "model": selection.model.id});
            let mut live = session.write().await;
            live.set_model(selection)
                .map(|()| answer)
                .map_err(|error| describe(&error))
        }
        Command::SetThinkingLevel { level } => {
            drop(live);
            let mut live = session.write().await;
            live.set_thinking_level(level)
                .map(|()| Value::Null)
                .map_err(|error| describe(&error))
        }
        Command::NewSession => data(live.new_session().map(|()| Value::Null)),
        Command::GetTree => data(live.tree()),
        Command::Navigate {
            node_id,
            summarize: true,
            files,
            overwrite,
        } => {
            // The files come back first: a refused restore moves nothing.
            let (restore, preview) = match live.restore_for_navigation(&node_id, files, overwrite) {
                Ok(done) => done,
                Err(error) => return Some(Err(describe(&error))),
            };
            drop(live);
            let cancel = CancellationToken::new();
            *side_task = Some(cancel.clone());
            let (session, reply) = (session.clone(), reply.clone());
            runs.push(tokio::spawn(async move {
                let live = session.read().await;
                let navigation = live.navigate_summarized(&node_id, &cancel).await;
                reply.send(data(navigation.map(|navigation| NavigationWithFiles {
                    navigation,
                    restore,
                    preview,
                })));
            }));
            return None;
        }
        Command::Navigate {
            node_id,
            files,
            overwrite,
            ..
        } => data(live.navigate_with_files(&node_id, files, overwrite)),
        Command::PreviewRestore { node_id } => data(live.preview_restore(&node_id)),
        Command::UndoRestore { overwrite } => data(live.undo_restore(overwrite)),
        Command::DiffNodes { from, to } => data(live.diff_nodes(&from, &to)),
        Command::ListTools => data(live.list_tools()),
        Command::ApproveTool { approval_id } => data(live.approve_tool(&approval_id)),
        Command::RejectTool {
            approval_id,
            reason,
        } => data(live.reject_tool(&approval_id, reason.as_deref())),
        Command::RevokeTool { name } => data(live.revoke_tool(&name).map(|()| Value::Null)),
        Command::ToolHistory { name } => data(
            live.tool_history(name.as_deref())
                .map(|runs| json!({ "runs": runs })),
        ),
        Command::Compact { focus } => {
            drop(live);
            let cancel = CancellationToken::new();
            *side_task = Some(cancel.clone());
            let (session, reply) = (session.clone(), reply.clone());
            runs.push(tokio::spawn(async move {
                let live = session.read().await;
                reply.send(data(live.compact(focus.as_deref(), &cancel).await));
            }));
            return None;
        }
        Command::Label { node_id, label } => data(live.label(&node_id, label.as_deref())),
        Command::Export {
            format,
            scope,
            path,
        } => data(export(
            &live,
            format.as_deref(),
            scope.as_deref(),
            path.as_deref(),
        )),
        Command::Fork { node_id } => data(live.fork(node_id.as_deref())),
        Command::SwitchSession { session_id } => data(live.switch_session(&session_id)),
        Command::ListSessions { all } => data(live.list_sessions(all)),
        Command::Regenerate => match live.regenerate() {
            Ok((info, run)) => {
                runs.push(started(run, "regenerate"));
                data(Ok(info))
            }
            Err(error) => Err(describe(&error)),
        },
        Command::RenameSession { title } => data(live.rename_session(&title)),
        Command::AnswerPermission {
            request_id,
            decision,
            reason,
        } => data(
            live.answer_permission(&request_id, decision, reason)
                .map(|()| Value::Null),
        ),
        Command::AnswerElicitation {
            request_id,
            action,
            content,
        } => data(
            live.answer_elicitation(&request_id, action, content)
                .map(|()| Value::Null),
        ),
        Command::GetPermissions => data(Ok::<_, AppError>(live.permissions_view())),
        Command::SetPermissionMode { mode } => data(live.set_permission_mode(mode)),
    })
}

fn export(
    live: &LiveSession,
    format: Option<&str>,
    scope: Option<&str>,
    path: Option<&std::path::Path>,
) -> Result<arbor_app::responses::ExportInfo, AppError> {
    let format = format.map_or(Ok(ExportFormat::Jsonl), ExportFormat::parse)?;
    let scope = scope.map(ExportScope::parse).transpose()?;
    live.export(format, scope, path)
}
