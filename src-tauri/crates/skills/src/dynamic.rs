//! The model's tools as agent tools: [`ModelTool`] (an approved folder: its entry script run in
//! the sandbox, or an instruction skill's text) and [`CreateToolTool`] (`create_tool`, a
//! proposal that waits for the user where one can answer).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use arbor_agent::{AgentTool, ToolContext, ToolError, ToolOutput};
use arbor_js::Limits;
use arbor_llm::{JsonObject, Tool as ToolSpec};
use arbor_store::NewToolRun;
use serde::Deserialize;
use serde_json::{json, Value};

use super::folder::{ToolFolder, PROJECT_TOOLS_DIR};
use super::js_tool::run_script;
use super::manifest::{SkillManifest, SKILL_FILE};
use super::toolbox::{Decision, Toolbox};
use arbor_tools::args::{parse_arguments, spec};

/// An approved tool of the model's, pinned to the hash it was approved with.
pub struct ModelTool {
    toolbox: Arc<Toolbox>,
    folder: ToolFolder,
    manifest: SkillManifest,
    spec: ToolSpec,
}

impl ModelTool {
    pub fn new(toolbox: Arc<Toolbox>, folder: ToolFolder, manifest: SkillManifest) -> Self {
        let description = if manifest.is_executable() {
            manifest.description.clone()
        } else {
            format!(
                "{} (an instruction skill: call it to read its instructions)",
                manifest.description
            )
        };
        let parameters = match (&manifest.parameters, manifest.is_executable()) {
            (Some(schema), true) => schema.clone(),
            _ => json!({"type": "object", "properties": {}}),
        };
        let spec = spec(&manifest.name, &description, parameters);
        Self {
            toolbox,
            folder,
            manifest,
            spec,
        }
    }

    fn record(&self, arguments: &Value, result: &str, is_error: bool, started: Instant) {
        let run = NewToolRun {
            project_id: self.toolbox.project_id().to_owned(),
            name: self.manifest.name.clone(),
            hash: self.folder.hash.clone(),
            arguments: self.toolbox.redact(&arguments.to_string()),
            result: self.toolbox.redact(result),
            is_error,
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        };
        // A run that cannot be recorded still answers the model.
        let _ = self.toolbox.with_store(|s| s.add_tool_run(run));
    }
}

#[async_trait::async_trait]
impl AgentTool for ModelTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn execute(
        &self,
        arguments: JsonObject,
        context: ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let started = Instant::now();
        let arguments = Value::Object(arguments);
        // Pinned: files changed since the approval (by the model, a command, a pull) are not run.
        if !self.toolbox.still_approved(&self.folder, &self.folder.hash) {
            let message = format!(
                "The tool `{}` changed since it was approved: it is waiting for the user's review \
                 and cannot run until they approve it again.",
                self.manifest.name
            );
            self.record(&arguments, &message, true, started);
            return Err(ToolError::respond(message));
        }
        let Some(entry) = &self.manifest.entry else {
            let mut text = self.manifest.instructions.clone();
            let others: Vec<&String> = self
                .folder
                .files
                .keys()
                .filter(|path| path.as_str() != SKILL_FILE)
                .collect();
            if !others.is_empty() {
                text.push_str(&format!(
                    "\n\nOther files of this skill (in {PROJECT_TOOLS_DIR}/{}/): {}",
                    self.manifest.name,
                    others
                        .iter()
                        .map(|p| p.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            self.record(&arguments, &text, false, started);
            return Ok(ToolOutput::text(text));
        };
        let code = self.folder.files.get(entry).cloned().unwrap_or_default();
        let outcome = run_script(
            self.toolbox.workspace().to_owned(),
            code,
            arguments.clone(),
            self.manifest.allowed_tools.clone(),
            Limits::default(),
            &context,
        )
        .await;
        match &outcome {
            Ok(text) => self.record(&arguments, text, false, started),
            Err(ToolError::RespondToModel { message, .. }) => {
                self.record(&arguments, message, true, started)
            }
            Err(ToolError::Aborted) => self.record(&arguments, "aborted", true, started),
        }
        outcome.map(ToolOutput::text)
    }
}

#[derive(Debug, Deserialize)]
struct CreateToolArguments {
    name: String,
    files: BTreeMap<String, String>,
    reason: String,
}

/// `create_tool {name, files, reason}`: proposes a tool folder for the user to approve.
pub struct CreateToolTool {
    toolbox: Arc<Toolbox>,
    session_id: Arc<dyn Fn() -> Option<String> + Send + Sync>,
    spec: ToolSpec,
}

impl CreateToolTool {
    pub fn new(
        toolbox: Arc<Toolbox>,
        session_id: Arc<dyn Fn() -> Option<String> + Send + Sync>,
    ) -> Self {
        let spec = spec(
            "create_tool",
            "Propose a new tool (or a change to one) for the user to approve. `files` maps paths \
             inside the tool's folder to their contents and must hold SKILL.md: YAML front \
             matter (name: the same lower-case name; description: what it does and when to use \
             it; optional parameters: a JSON Schema of an object; optional entry: a .js script \
             in the folder; optional allowed-tools: the helpers the script may use — read, \
             write, ls, grep, find) and then Markdown instructions. A script runs like the js \
             tool, with `args` holding the arguments. Without entry it is an instruction skill. \
             The tool can be used only after the user approves exactly these files.",
            json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "Lower-case letters, digits and hyphens."},
                    "files": {
                        "type": "object",
                        "additionalProperties": {"type": "string"},
                        "description": "Relative path → content; must include SKILL.md."
                    },
                    "reason": {"type": "string", "description": "Why this tool is needed, for the user."}
                },
                "required": ["name", "files", "reason"]
            }),
        );
        Self {
            toolbox,
            session_id,
            spec,
        }
    }
}

#[async_trait::async_trait]
impl AgentTool for CreateToolTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn execute(
        &self,
        arguments: JsonObject,
        context: ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let arguments: CreateToolArguments = parse_arguments(arguments)?;
        let review = self
            .toolbox
            .propose(
                &arguments.name,
                arguments.files,
                &arguments.reason,
                (self.session_id)(),
            )
            .map_err(|error| ToolError::respond(error.to_string()))?;
        if !self.toolbox.is_answerable() {
            // Nobody will answer here (answerability changed since the proposal): nothing waits.
            self.toolbox.stop_waiting(&review.approval_id);
            return Ok(ToolOutput::text(format!(
                "Proposed `{}`; it awaits the user's approval (`arbor tools approve {}`) and is \
                 not available until then.",
                review.name, review.name
            ))
            .with_details(json!({"approval_id": review.approval_id, "status": "pending"})));
        }
        let decision = self.toolbox.wait_for(&review.approval_id);
        let decision = tokio::select! {
            decision = decision => decision,
            () = context.cancel.cancelled() => {
                self.toolbox.stop_waiting(&review.approval_id);
                return Err(ToolError::Aborted);
            }
        };
        match decision {
            Ok(Decision::Approved) => Ok(ToolOutput::text(format!(
                "The user approved `{}`: it is written to {PROJECT_TOOLS_DIR}/{}/ and you can call \
                 it from your next step.",
                review.name, review.name
            ))
            .with_details(json!({"approval_id": review.approval_id, "status": "approved"}))),
            Ok(Decision::Rejected(reason)) => Err(ToolError::respond_with_details(
                match reason {
                    Some(reason) => format!("The user rejected `{}`: {reason}", review.name),
                    None => format!("The user rejected `{}` (no reason given).", review.name),
                },
                json!({"approval_id": review.approval_id, "status": "rejected"}),
            )),
            Err(_) => Err(ToolError::respond(format!(
                "The proposal of `{}` was dropped before the user answered.",
                review.name
            ))),
        }
    }
}
