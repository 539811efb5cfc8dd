//! `arbor -p`: send each prompt in turn to the coding agent (tools included), print the final
//! answer.
//!
//! The answer goes to stdout, streamed as it arrives when stdout is a terminal and written once
//! at the end otherwise (so a pipe gets exactly the answer). Failures are one line on stderr.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use arbor_protocol::{AgentEvent, AgentMessage, RunStatus, SessionEvent};
use arbor_protocol::{AssistantEvent, LlmError, StopReason};

use crate::selection::Selection;
use arbor_app::{KeySource, LiveSession};

pub async fn run(mut session: LiveSession, prompts: Vec<String>) -> anyhow::Result<ExitCode> {
    let interrupted = session.interrupter();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            interrupted.abort();
        }
        // A second Ctrl+C ends the process now, whatever the run is stuck in.
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("\narbor: interrupted");
            std::process::exit(130);
        }
    });

    // Live text only for the last prompt's run, and only on a terminal.
    let live = Arc::new(AtomicBool::new(false));
    let streamed_any = Arc::new(AtomicBool::new(false));
    let terminal = std::io::stdout().is_terminal();
    {
        let (live, streamed_any) = (live.clone(), streamed_any.clone());
        session.attach_without_node_views(move |event| match event {
            SessionEvent::Agent(AgentEvent::MessageUpdate {
                delta: AssistantEvent::TextDelta { delta, .. },
            }) if terminal && live.load(Ordering::Relaxed) => {
                let mut stdout = std::io::stdout().lock();
                let _ = stdout.write_all(delta.as_bytes());
                let _ = stdout.flush();
                streamed_any.store(true, Ordering::Relaxed);
            }
            SessionEvent::Coding(event) => crate::session::report_to_stderr(event),
            _ => {}
        });
    }

    let last = prompts.len().saturating_sub(1);
    let mut answer = String::new();
    for (index, prompt) in prompts.into_iter().enumerate() {
        live.store(index == last, Ordering::Relaxed);
        let outcome = session.start_prompt(prompt, Vec::new())?.await??;
        if let Some(reason) = session.store_failure() {
            // The run was stopped because its conversation could not be stored: never report
            // that as an answer.
            finish_line(&streamed_any);
            eprintln!(
                "arbor: the conversation could not be stored, so the run was stopped: {reason}"
            );
            return Ok(ExitCode::from(1));
        }
        match outcome.status {
            RunStatus::Completed => {
                let final_message = outcome
                    .messages
                    .iter()
                    .rev()
                    .find_map(AgentMessage::as_assistant);
                if let Some(message) = final_message {
                    if message.stop_reason == StopReason::Length {
                        eprintln!(
                            "arbor: the answer was cut off (the model's output limit of {} \
                             tokens, or the provider ended the stream early)",
                            session.selection().model.max_output_tokens
                        );
                    }
                    answer = message.text();
                }
            }
            RunStatus::Aborted => {
                finish_line(&streamed_any);
                eprintln!("arbor: interrupted");
                return Ok(ExitCode::from(130));
            }
            RunStatus::Failed => {
                finish_line(&streamed_any);
                let error = outcome.error.unwrap_or(LlmError::Provider {
                    message: "the run failed without an error message".into(),
                });
                eprintln!("arbor: {}", failure_line(session.selection(), &error));
                return Ok(ExitCode::from(1));
            }
        }
    }

    let mut stdout = std::io::stdout().lock();
    if !streamed_any.load(Ordering::Relaxed) {
        stdout.write_all(answer.as_bytes())?;
    }
    if !answer.ends_with('\n') {
        stdout.write_all(b"\n")?;
    }
    stdout.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn finish_line(streamed_any: &AtomicBool) {
    if streamed_any.load(Ordering::Relaxed) {
        println!();
    }
}

/// One line that names the provider and model, the error class and what to do.
pub fn failure_line(selection: &Selection, error: &LlmError) -> String {
    let model = &selection.model;
    let mut line = format!(
        "{}/{} failed ({}): {error}",
        model.provider,
        model.id,
        error.class()
    );
    if matches!(error, LlmError::Authentication { .. }) {
        let provider = &model.provider;
        match (&selection.key_source, &selection.api_key_env) {
            (KeySource::Keychain { .. }, _) => line.push_str(&format!(
                " — the keychain's key was refused: replace it with `arbor auth set {provider}`"
            )),
            (_, Some(env)) => line.push_str(&format!(
                " — set {env}, run `arbor auth set {provider}`, or pass --api-key"
            )),
            (_, None) => line.push_str(" — pass the endpoint's key with --api-key"),
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authentication_failures_name_the_variable() {
        let catalog = arbor_app::catalog::Catalog::builtin().unwrap();
        let (model, _) = catalog.resolve(Some("anthropic"), None).unwrap();
        let selection = Selection {
            model,
            catalogued: true,
            api_key: arbor_app::ApiKey::new("bad"),
            api_key_env: Some("ANTHROPIC_API_KEY".into()),
            key_source: KeySource::Env {
                variable: "ANTHROPIC_API_KEY".into(),
            },
        };
        let line = failure_line(
            &selection,
            &LlmError::Authentication {
                message: "invalid x-api-key".into(),
            },
        );
        assert!(
            line.starts_with("anthropic/claude-sonnet-4-5 failed (authentication)"),
            "{line}"
        );
        assert!(
            line.contains("invalid x-api-key")
                && line.ends_with(
                    "set ANTHROPIC_API_KEY, run `arbor auth set anthropic`, or pass --api-key"
                ),
            "{line}"
        );
    }
}
