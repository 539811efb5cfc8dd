//! The sandbox as agent tools: `js {code}` (model-written JavaScript with every helper) and the
//! runner the model's own tools share (their entry script, their arguments, the helpers their
//! `allowed-tools` grant).

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use arbor_agent::{AgentTool, ToolContext, ToolError, ToolOutput};
use arbor_js::{Helper, Limits, SandboxError, Script};
use arbor_llm::{JsonObject, Tool as ToolSpec};
use serde::Deserialize;
use serde_json::{json, Value};

use super::host::WorkspaceHost;
use arbor_tools::args::{parse_arguments, spec};

/// Runs `code` in the sandbox off the async runtime; the run's abort stops it.
pub(crate) async fn run_script(
    root: PathBuf,
    code: String,
    args: Value,
    allowed: BTreeSet<Helper>,
    limits: Limits,
    context: &ToolContext,
) -> Result<String, ToolError> {
    let abort = Arc::new(AtomicBool::new(false));
    let flag = abort.clone();
    let cancel = context.cancel.clone();
    let watcher = tokio::spawn(async move {
        cancel.cancelled().await;
        flag.store(true, Ordering::Relaxed);
    });
    let outcome = tokio::task::spawn_blocking(move || {
        let host = WorkspaceHost::new(&root)
            .map_err(|e| SandboxError::Engine(format!("the project folder: {e}")))?;
        arbor_js::run(Script {
            code: &code,
            args: &args,
            host: Arc::new(host),
            allowed: &allowed,
            limits: &limits,
            abort,
        })
    })
    .await;
    watcher.abort();
    match outcome {
        Ok(Ok(outcome)) => Ok(outcome.text()),
        Ok(Err(SandboxError::Aborted)) => Err(ToolError::Aborted),
        Ok(Err(error)) => Err(ToolError::respond_with_details(
            error.to_string(),
            json!({ "code": error.code() }),
        )),
        Err(error) => Err(ToolError::respond(format!(
            "The script did not run: {error}."
        ))),
    }
}

#[derive(Debug, Deserialize)]
struct JsArguments {
    code: String,
}

/// `js {code}`: JavaScript run in the sandbox with every helper.
pub struct JsTool {
    root: PathBuf,
    spec: ToolSpec,
}

impl JsTool {
    pub fn new(root: PathBuf) -> Self {
        let limits = Limits::default();
        let spec = spec(
            "js",
            &format!(
                "Run JavaScript in a sandbox: the code is the body of an async function (`await` \
                 works; `return` gives the result: a string as it is, anything else as JSON; \
                 console.log output comes first). Helpers, all async and limited to this \
                 project's folder (relative paths): read(path) → text, write(path, content), \
                 ls(path) → names (folders end in /), grep(pattern, path?) → [{{path, line, \
                 text}}], find(glob) → paths. No network, processes, environment or modules. \
                 Limits: {} MB memory, {} s, {} KB output.",
                limits.memory_bytes / (1024 * 1024),
                limits.time.as_secs(),
                limits.output_bytes / 1024
            ),
            json!({
                "type": "object",
                "properties": {
                    "code": {
                        "type": "string",
                        "description": "The body of an async function."
                    }
                },
                "required": ["code"]
            }),
        );
        Self { root, spec }
    }
}

#[async_trait::async_trait]
impl AgentTool for JsTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn execute(
        &self,
        arguments: JsonObject,
        context: ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let arguments: JsArguments = parse_arguments(arguments)?;
        let text = run_script(
            self.root.clone(),
            arguments.code,
            json!({}),
            Helper::ALL.into_iter().collect(),
            Limits::default(),
            &context,
        )
        .await?;
        Ok(ToolOutput::text(text))
    }
}
