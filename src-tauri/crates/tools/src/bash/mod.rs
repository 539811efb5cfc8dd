//! `bash {command, timeout?}`: runs a shell command in the working directory.
//!
//! - [`process`]: spawning in a process group with one output pipe, killing the group.
//! - [`watchdog`]: the process that kills the group when Arbor dies.
//! - [`output`]: the output log (tail for the model, full log in a file when cut).

mod output;
mod process;
mod watchdog;

use std::process::ExitStatus;
use std::time::{Duration, Instant};

use arbor_agent::{AgentTool, ToolContext, ToolError, ToolOutput};
use arbor_llm::{JsonObject, Tool as ToolSpec};
use serde::Deserialize;
use serde_json::json;
use tokio::io::AsyncReadExt;

use self::output::{OutputLog, Utf8Stream};
use super::args::{parse_arguments, spec};
use super::truncate::{MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES};
use crate::workspace::Workspace;
use arbor_secrets::{Redactor, ToolEnvironment};

pub const DEFAULT_TIMEOUT_SECS: u64 = 120;
pub const MAX_TIMEOUT_SECS: u64 = 600;
/// Between SIGTERM and SIGKILL.
const KILL_GRACE: Duration = Duration::from_secs(2);
/// After the command exits, output still in flight is read until the pipe is quiet this long…
const DRAIN_IDLE: Duration = Duration::from_millis(100);
/// …but no longer than this: a background child that holds the pipe must not hang the tool.
const DRAIN_MAX: Duration = Duration::from_secs(1);

#[derive(Debug, Deserialize)]
struct BashArguments {
    command: String,
    timeout: Option<u64>,
}

pub struct BashTool {
    workspace: Workspace,
    environment: ToolEnvironment,
    redactor: Redactor,
    spec: ToolSpec,
}

impl BashTool {
    /// `bash` over `workspace`; its processes run without what `environment` withholds, and
    /// the full output it saves is cleaned of what `redactor` knows.
    pub fn new(workspace: Workspace, environment: ToolEnvironment, redactor: Redactor) -> Self {
        let spec = spec(
            "bash",
            &format!(
                "Run a command with `bash -c` in the working directory. stdout and stderr come \
                 back interleaved; a non-zero exit code is an error. Output over \
                 {MAX_OUTPUT_LINES} lines or {} KiB is cut to its end, and the full output is \
                 saved to a file whose path is given. The command is killed, with its child \
                 processes, after `timeout` seconds.",
                MAX_OUTPUT_BYTES / 1024
            ),
            json!({
                "type": "object",
                "properties": {
                    "command": {
                        "type": "string",
                        "description": "The command line to run."
                    },
                    "timeout": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": MAX_TIMEOUT_SECS,
                        "description": format!("Seconds before the command is killed (default {DEFAULT_TIMEOUT_SECS}, at most {MAX_TIMEOUT_SECS}).")
                    }
                },
                "required": ["command"]
            }),
        );
        Self {
            workspace,
            environment,
            redactor,
            spec,
        }
    }
}

/// How the command ended.
enum Ending {
    Exited(ExitStatus),
    TimedOut,
}

#[async_trait::async_trait]
impl AgentTool for BashTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn execute(
        &self,
        arguments: JsonObject,
        context: ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let arguments: BashArguments = parse_arguments(arguments)?;
        let timeout_secs = arguments
            .timeout
            .unwrap_or(DEFAULT_TIMEOUT_SECS)
            .clamp(1, MAX_TIMEOUT_SECS);
        // A deleted project folder would otherwise surface as a puzzling "No such file".
        self.workspace.ensure_root()?;
        let started_at = Instant::now();
        let process::Started {
            mut child,
            output: mut pipe,
            mut group,
        } = process::start(&arguments.command, self.workspace.cwd(), &self.environment)
            .await
            .map_err(|error| match self.workspace.ensure_root() {
                Err(gone) => ToolError::from(gone),
                Ok(()) => ToolError::respond(format!("Cannot start bash: {error}.")),
            })?;
        let deadline = tokio::time::Instant::now() + Duration::from_secs(timeout_secs);
        let mut log = OutputLog::default();
        let mut live = Utf8Stream::default();
        let mut buffer = vec![0u8; 64 * 1024];
        let mut ending: Option<Ending> = None;
        let mut pipe_open = true;
        let mut drain_until: Option<tokio::time::Instant> = None;
        let mut log_error: Option<std::io::Error> = None;

        // Read output while waiting for the command; after it exits (or is killed), drain briefly.
        while pipe_open || ending.is_none() {
            let idle_deadline = drain_until
                .map(|max| max.min(tokio::time::Instant::now() + DRAIN_IDLE))
                .unwrap_or(deadline);
            tokio::select! {
                biased;
                () = context.cancel.cancelled() => {
                    group.terminate(&mut child, KILL_GRACE).await;
                    group.release().await;
                    return Err(ToolError::Aborted);
                }
                read = pipe.read(&mut buffer), if pipe_open => match read {
                    Ok(0) | Err(_) => pipe_open = false,
                    Ok(n) => {
                        if let Err(error) = log.push(&buffer[..n]) {
                            log_error.get_or_insert(error);
                        }
                        let text = live.push(&buffer[..n]);
                        if !text.is_empty() {
                            context.update(text);
                        }
                    }
                },
                status = child.wait(), if ending.is_none() => {
                    ending = Some(match status {
                        Ok(status) => Ending::Exited(status),
                        // Returning drops `group` armed: the group is killed with the command.
                        Err(error) => return Err(ToolError::respond(format!("Waiting for bash failed: {error}."))),
                    });
                    drain_until = Some(tokio::time::Instant::now() + DRAIN_MAX);
                }
                () = tokio::time::sleep_until(deadline), if ending.is_none() => {
                    group.terminate(&mut child, KILL_GRACE).await;
                    ending = Some(Ending::TimedOut);
                    drain_until = Some(tokio::time::Instant::now() + DRAIN_MAX);
                }
                () = tokio::time::sleep_until(idle_deadline), if drain_until.is_some() => {
                    pipe_open = false;
                }
            }
        }
        // Finished or killed: the watchdog is stopped either way, before anything else can fail.
        group.release().await;
        let Some(ending) = ending else {
            return Err(ToolError::respond("bash ended in an unknown state."));
        };
        let final_output = log.finish();
        if let Some(path) = &final_output.full_output_path {
            if let Err(error) = output::redact_saved(&self.redactor, path) {
                log_error.get_or_insert(error);
            }
        }
        let mut text = if final_output.text.is_empty() {
            "(no output)".to_string()
        } else {
            final_output.text
        };
        if let Some(error) = log_error {
            text.push_str(&format!("\n\n[Could not save the full output: {error}.]"));
        }
        let (exit_code, footer) = match &ending {
            Ending::TimedOut => (
                None,
                format!(
                    "[Timed out after {timeout_secs} s: the command and its child processes were \
                     killed. Pass a larger timeout (at most {MAX_TIMEOUT_SECS}) if it needs longer.]"
                ),
            ),
            Ending::Exited(status) => match status.code() {
                Some(code) => (Some(code), format!("[Exit code {code}]")),
                None => {
                    use std::os::unix::process::ExitStatusExt;
                    let signal = status.signal().unwrap_or_default();
                    (None, format!("[Killed by signal {signal}]"))
                }
            },
        };
        text.push_str("\n\n");
        text.push_str(&footer);
        let details = json!({
            "exit_code": exit_code,
            "timed_out": matches!(ending, Ending::TimedOut),
            "full_output_path": final_output.full_output_path,
            "duration_ms": u64::try_from(started_at.elapsed().as_millis()).unwrap_or(u64::MAX),
        });
        if exit_code == Some(0) {
            Ok(ToolOutput::text(text).with_details(details))
        } else {
            Err(ToolError::respond_with_details(text, details))
        }
    }
}
