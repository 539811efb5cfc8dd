//! `arbor -p`: send each prompt in turn, print the final answer.
//!
//! The answer goes to stdout, streamed as it arrives when stdout is a terminal and written once
//! at the end otherwise (so a pipe gets exactly the answer). Failures are one line on stderr.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use arbor_llm::client::LlmClient;
use arbor_llm::{
    AssistantEvent, AssistantMessage, Context, LlmError, Message, RequestOptions, StopReason,
    ThinkingLevel, UserMessage,
};
use tokio_util::sync::CancellationToken;

use crate::selection::Selection;

const SYSTEM_PROMPT: &str = "You are Arbor, a coding assistant. Answer concisely and precisely.";

pub struct PrintRun {
    pub selection: Selection,
    pub thinking: ThinkingLevel,
    pub prompts: Vec<String>,
}

pub async fn run(run: PrintRun) -> anyhow::Result<ExitCode> {
    let client = LlmClient::new()?.on_retry(|notice| {
        eprintln!(
            "arbor: {} — retrying in {:.1}s (attempt {})",
            notice.error.class(),
            notice.delay.as_secs_f64(),
            notice.attempt
        );
    });
    let options = RequestOptions {
        api_key: run.selection.api_key.clone(),
        thinking: run.thinking,
        ..RequestOptions::default()
    };
    let cancel = CancellationToken::new();
    let interrupted = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            interrupted.cancel();
        }
    });

    let stream_to_terminal = std::io::stdout().is_terminal();
    let mut context = Context {
        system_prompt: Some(SYSTEM_PROMPT.to_owned()),
        messages: Vec::new(),
        tools: Vec::new(),
    };
    let last = run.prompts.len().saturating_sub(1);
    let mut answer = None;
    for (index, prompt) in run.prompts.iter().enumerate() {
        context
            .messages
            .push(Message::User(UserMessage::text(prompt.clone())));
        let live = stream_to_terminal && index == last;
        let mut stream = client.stream(&run.selection.model, &context, &options, cancel.clone());
        let mut outcome = None;
        while let Some(event) = stream.next().await {
            match event {
                AssistantEvent::TextDelta { delta, .. } if live => {
                    let mut stdout = std::io::stdout().lock();
                    stdout.write_all(delta.as_bytes())?;
                    stdout.flush()?;
                }
                AssistantEvent::Done { message } => outcome = Some(Ok(message)),
                AssistantEvent::Error { message, error } => outcome = Some(Err((message, error))),
                _ => {}
            }
        }
        match outcome {
            Some(Ok(message)) => {
                if message.stop_reason == StopReason::Length {
                    eprintln!(
                        "arbor: the answer was cut off at the model's output limit ({} tokens)",
                        run.selection.model.max_output_tokens
                    );
                }
                context.messages.push(Message::Assistant(message.clone()));
                answer = Some((message, live));
            }
            Some(Err((_, LlmError::Aborted))) => {
                if live {
                    println!();
                }
                eprintln!("arbor: interrupted");
                return Ok(ExitCode::from(130));
            }
            Some(Err((partial, error))) => {
                if live && !partial.text().is_empty() {
                    println!();
                }
                eprintln!("arbor: {}", failure_line(&run.selection, &error));
                return Ok(ExitCode::from(1));
            }
            None => anyhow::bail!("the model's stream ended without a result"),
        }
    }

    if let Some((message, streamed)) = answer {
        print_answer(&message, streamed)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn print_answer(message: &AssistantMessage, streamed: bool) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    let text = message.text();
    if !streamed {
        stdout.write_all(text.as_bytes())?;
    }
    if !text.ends_with('\n') {
        stdout.write_all(b"\n")?;
    }
    stdout.flush()
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
        match &selection.api_key_env {
            Some(env) => line.push_str(&format!(" — set {env} or pass --api-key")),
            None => line.push_str(" — pass the endpoint's key with --api-key"),
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authentication_failures_name_the_variable() {
        let catalog = arbor_llm::catalog::Catalog::builtin().unwrap();
        let (model, _) = catalog.resolve(Some("anthropic"), None).unwrap();
        let selection = Selection {
            model,
            catalogued: true,
            api_key: Some("bad".into()),
            api_key_env: Some("ANTHROPIC_API_KEY".into()),
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
                && line.ends_with("set ANTHROPIC_API_KEY or pass --api-key"),
            "{line}"
        );
    }
}
