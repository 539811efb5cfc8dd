//! `--mode rpc`: JSON commands on stdin, each answered by
//! `{"type":"response","id":…,"command":…,"success":…,"data"?:…,"error"?:…}` on stdout, with the
//! agent's events streaming on the same stdout as in JSON mode. The protocol is documented in
//! `docs/rpc.md`.

use std::process::ExitCode;

use arbor_llm::catalog::Catalog;
use arbor_protocol::{Command, CommandEnvelope};
use serde_json::{json, Value};
use tokio::io::AsyncBufReadExt;
use tokio_util::sync::CancellationToken;

use crate::args::ModelArgs;
use crate::jsonl::{header, parse_error, LineWriter};
use crate::rpc_sessions::{handle_session, session_command, Reply};
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
