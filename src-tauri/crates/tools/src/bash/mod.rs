//! `bash {command, timeout?}`: runs a shell command in the working directory.
//!
//! - [`process`]: spawning in a process group with one output pipe, killing the group.
//! - [`watchdog`]: the process that kills the group when Arbor dies.
//! - [`output`]: the output log (tail for the model, full log in a file when cut).

mod launch;
mod output;
#[cfg(unix)]
mod process;
// Where there are no process groups (Windows): commands are refused, with a clear error.
#[cfg(not(unix))]
#[path = "process_other.rs"]
mod process;
#[cfg(unix)]
mod watchdog;

use std::process::ExitStatus;
use std::time::{Duration, Instant};

use arbor_agent::{AgentTool, ToolContext, ToolError, ToolOutput};
use arbor_llm::{JsonObject, Tool as ToolSpec};
use serde::Deserialize;
use serde_json::json;
use tokio::io::AsyncReadExt;

use self::launch::Launch;
use self::output::{OutputLog, Utf8Stream};
use super::args::{parse_arguments, spec};
use super::truncate::{MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES};
use crate::workspace::Workspace;
use arbor_permissions::paths::protected_paths;
use arbor_permissions::{Confinement, Escalation};
use arbor_sandbox::SandboxPolicy;
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
    escalate: Option<Escalation>,
}

pub struct BashTool {
    workspace: Workspace,
    environment: ToolEnvironment,
    redactor: Redactor,
    spec: ToolSpec,
    /// The private temporary folder sandboxed commands get as `/tmp` (made on first use,
    /// removed with the tool).
    temp_dir: std::sync::Mutex<Option<tempfile::TempDir>>,
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
                 processes, after `timeout` seconds. Commands run in a sandbox: they can write \
                 only inside the project and a private /tmp, and have no network. When a \
                 command needs more (network, writes elsewhere, no sandbox), pass `escalate` \
                 with a reason: the user is asked.",
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
                    },
                    "escalate": {
                        "type": "object",
                        "description": "Ask the user for more than the sandbox allows, for this call only. Always asks.",
                        "properties": {
                            "reason": {"type": "string", "description": "Why the command needs it, in one sentence the user reads."},
                            "network": {"type": "boolean", "description": "Network access."},
                            "unsandboxed": {"type": "boolean", "description": "Run without the sandbox at all."},
                            "write_paths": {"type": "array", "items": {"type": "string"}, "description": "Folders outside the project to make writable."}
                        },
                        "required": ["reason"],
                        "additionalProperties": false
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
            temp_dir: std::sync::Mutex::new(None),
        }
    }

    /// How to start `command` for the call `call_id`: refused, unconfined, or in the sandbox.
    fn launch(
        &self,
        call_id: &str,
        command: &str,
        escalation: Option<&Escalation>,
    ) -> Result<(Launch, Confinement), ToolError> {
        let guard = self.workspace.guard();
        let confinement = guard
            .confinement(call_id, command, escalation)
            .map_err(|refusal| ToolError::respond(refusal.to_string()))?;
        if !confinement.sandboxed {
            return Ok((Launch::bash(command), confinement));
        }
        let policy = guard.policy();
        let mut writable = Vec::new();
        if confinement.project_writable {
            writable.push(policy.project.clone());
        }
        writable.extend(confinement.extra_writable.iter().cloned());
        let sandbox_policy = SandboxPolicy {
            writable,
            read_only: protected_paths(&policy.project),
            hidden: policy.secret_paths.clone(),
            network: confinement.network,
            temp_dir: self.temp_dir()?,
        };
        let wrapped = arbor_sandbox::wrap(
            &arbor_sandbox::detect().backend,
            &sandbox_policy,
            "bash",
            &["-c".into(), command.into()],
        )
        .map_err(|error| {
            ToolError::respond(format!(
                "The command was not run: {error}. Nothing ran outside the sandbox."
            ))
        })?;
        Ok((
            Launch {
                program: wrapped.program,
                args: wrapped.args,
                remove_env: wrapped.remove_env,
                set_env: wrapped.set_env,
            },
            confinement,
        ))
    }

    fn temp_dir(&self) -> Result<std::path::PathBuf, ToolError> {
        let mut slot = self
            .temp_dir
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(dir) = slot.as_ref() {
            if dir.path().is_dir() {
                return Ok(dir.path().to_owned());
            }
        }
        let dir = tempfile::Builder::new()
            .prefix("arbor-sandbox-tmp-")
            .tempdir()
            .map_err(|error| {
                ToolError::respond(format!(
                    "Cannot make the sandbox's temporary folder: {error}."
                ))
            })?;
        let path = dir.path().to_owned();
        *slot = Some(dir);
        Ok(path)
    }
}

/// What a failed sandboxed command's result adds, when its output looks like the sandbox
/// stopped it.
fn sandbox_hint(output: &str, confinement: &Confinement) -> Option<String> {
    const SIGNS: &[&str] = &[
        "Read-only file system",
        "Permission denied",
        "Operation not permitted",
        "Network is unreachable",
        "Could not resolve host",
        "Temporary failure in name resolution",
        "Name or service not known",
        "Connection refused",
    ];
    if !confinement.sandboxed || !SIGNS.iter().any(|sign| output.contains(sign)) {
        return None;
    }
    Some(format!(
        "[The command ran {}. If it failed because of that, call bash again with \
         `escalate`: {{\"reason\": \"…\", \"network\": true}} for network, \
         \"write_paths\": [\"…\"] for folders outside the project, or \"unsandboxed\": true; \
         the user is asked.]",
        confinement.describe()
    ))
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
        let (launch, confinement) = self.launch(
            &context.call_id,
            &arguments.command,
            arguments.escalate.as_ref(),
        )?;
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
        } = process::start(&launch, self.workspace.cwd(), &self.environment)
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
        // A sandboxed command leaves nothing running behind it.
        if confinement.sandboxed {
            group.kill_remaining();
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
                None => (None, killed_by(*status)),
            },
        };
        text.push_str("\n\n");
        text.push_str(&footer);
        if exit_code != Some(0) {
            if let Some(hint) = sandbox_hint(&text, &confinement) {
                text.push('\n');
                text.push_str(&hint);
            }
        }
        let details = json!({
            "exit_code": exit_code,
            "timed_out": matches!(ending, Ending::TimedOut),
            "full_output_path": final_output.full_output_path,
            "duration_ms": u64::try_from(started_at.elapsed().as_millis()).unwrap_or(u64::MAX),
            "sandbox": confinement.describe(),
        });
        if exit_code == Some(0) {
            Ok(ToolOutput::text(text).with_details(details))
        } else {
            Err(ToolError::respond_with_details(text, details))
        }
    }
}

/// How a command that has no exit code ended.
#[cfg(unix)]
fn killed_by(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    format!("[Killed by signal {}]", status.signal().unwrap_or_default())
}

#[cfg(not(unix))]
fn killed_by(_status: ExitStatus) -> String {
    "[Killed]".into()
}
