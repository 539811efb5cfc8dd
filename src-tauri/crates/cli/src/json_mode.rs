//! `--mode json`: a header line, then every agent event as one JSON object per line.
//!
//! With prompt arguments they are sent in order and the process exits like `-p` does. Without,
//! commands are read as JSON lines on stdin — `{"type":"prompt","message":"…"}`,
//! `{"type":"steer","message":"…"}`, `{"type":"follow_up","message":"…"}`, `{"type":"abort"}` —
//! until stdin closes and the agent is idle. A line that is not a command gets an error line and
//! the process keeps going.

use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use arbor_protocol::{Command, RunStatus};
use serde_json::json;
use tokio::io::AsyncBufReadExt;

use crate::jsonl::{header, parse_error, LineWriter};
use arbor_app::LiveSession;

pub async fn run(mut session: LiveSession, prompts: Vec<String>) -> anyhow::Result<ExitCode> {
    let (writer, writer_task) = LineWriter::start();
    writer.send(&header(&session));
    let events = writer.clone();
    session.attach(move |event| events.send(event));

    let last_status = Arc::new(Mutex::new(None));
    if prompts.is_empty() {
        let runs = read_commands(&session, &writer, &last_status).await?;
        for run in runs {
            let _ = run.await;
        }
        session.wait_for_idle().await;
    } else {
        let interrupted = session.interrupter();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                interrupted.abort();
            }
        });
        for prompt in prompts {
            let outcome = session.start_prompt(prompt, Vec::new())?.await??;
            record(&last_status, outcome.status);
            if outcome.status != RunStatus::Completed {
                break;
            }
        }
    }
    if session.store_failure().is_some() {
        // The stream carried `store_error`; the exit code must not say success.
        record(&last_status, RunStatus::Failed);
    }
    drop(writer);
    session.detach();
    let _ = writer_task.await;
    let status = *last_status
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    Ok(exit_code(status))
}

pub fn exit_code(status: Option<RunStatus>) -> ExitCode {
    match status {
        None | Some(RunStatus::Completed) => ExitCode::SUCCESS,
        Some(RunStatus::Failed) => ExitCode::from(1),
        Some(RunStatus::Aborted) => ExitCode::from(130),
    }
}

fn record(last: &Mutex<Option<RunStatus>>, status: RunStatus) {
    *last.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(status);
}

async fn read_commands(
    session: &LiveSession,
    writer: &LineWriter,
    last_status: &Arc<Mutex<Option<RunStatus>>>,
) -> anyhow::Result<Vec<tokio::task::JoinHandle<()>>> {
    let mut runs = Vec::new();
    let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    while let Some(line) = lines.next_line().await? {
        if line.trim().is_empty() {
            continue;
        }
        let command = match serde_json::from_str::<Command>(&line) {
            Ok(command) => command,
            Err(error) => {
                writer.send(&parse_error(&line, &error));
                continue;
            }
        };
        match command {
            Command::Prompt {
                message,
                images,
                documents,
            } => {
                if session.is_streaming() {
                    writer.send(&json!({"type": "error", "command": "prompt",
                        "message": "the agent is busy; send steer or follow_up, or abort first"}));
                    continue;
                }
                let run = match session.start_prompt_with_documents(message, images, documents) {
                    Ok(run) => run,
                    Err(error) => {
                        writer.send(&json!({"type": "error", "command": "prompt", "message": error.to_string()}));
                        continue;
                    }
                };
                let (writer, last) = (writer.clone(), last_status.clone());
                runs.push(tokio::spawn(async move {
                    match run.await {
                        Ok(Ok(outcome)) => record(&last, outcome.status),
                        Ok(Err(error)) => writer.send(&json!({"type": "error", "command": "prompt", "message": error.to_string()})),
                        Err(error) => writer.send(&json!({"type": "error", "command": "prompt", "message": error.to_string()})),
                    }
                }));
                // Let the run mark the agent busy before the next line is read.
                tokio::task::yield_now().await;
            }
            Command::Steer { message } => session.steer(message),
            Command::FollowUp { message } => session.follow_up(message),
            Command::Abort => {
                session.abort();
            }
            other => writer.send(&json!({"type": "error", "command": other.kind(),
                "message": format!("`{}` is an RPC command: use --mode rpc", other.kind())})),
        }
    }
    Ok(runs)
}
