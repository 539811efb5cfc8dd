//! The tools a [`LiveSession`] offers — the built-ins, `create_tool`, and the model's approved
//! tools — kept current as tools are approved, rejected, revoked or changed on disk; and the
//! session's commands on the model's tools (list, review, approve, reject, revoke, history).

use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use arbor_agent::{Agent, AgentTool};
use arbor_protocol::views::tools::ToolRun;

use super::{AppError, LiveSession};
use arbor_coding::secrets::Redactor;
use arbor_coding::skills::{CreateToolTool, ToolList, ToolReview, Toolbox};
use arbor_coding::tools::RedactingTool;
use arbor_coding::SessionRecorder;

#[derive(Default)]
struct Inner {
    builtins: Vec<Arc<dyn AgentTool>>,
    toolbox: Option<Arc<Toolbox>>,
    create_tool: Option<Arc<dyn AgentTool>>,
    /// Cleans the model's tools' output of keys, like the built-ins'.
    redactor: Option<Redactor>,
    /// The project's MCP servers' approved tools (`mcp_session.rs`).
    mcp: Option<Arc<crate::mcp_session::McpSource>>,
}

/// The session's tool set, shared with the toolbox's change callback.
#[derive(Clone, Default)]
pub(crate) struct SessionTools {
    inner: Arc<Mutex<Inner>>,
}

impl SessionTools {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Replaces the built-in tools (a model change rebuilds them) and offers the new set.
    pub(crate) fn set_builtins(&self, agent: &Agent, builtins: Vec<Arc<dyn AgentTool>>) {
        let toolbox = {
            let mut inner = self.lock();
            inner.builtins = builtins;
            inner.toolbox.clone()
        };
        if let Some(toolbox) = toolbox {
            toolbox.set_builtins(self.listed());
        }
        self.install(agent);
    }

    /// Arbor's own tools of this session, by name and description, for the tools list.
    fn listed(&self) -> Vec<(String, String)> {
        let inner = self.lock();
        inner
            .builtins
            .iter()
            .chain(inner.create_tool.iter())
            .map(|t| (t.spec().name.clone(), t.spec().description.clone()))
            .collect()
    }

    pub(crate) fn toolbox(&self) -> Option<Arc<Toolbox>> {
        self.lock().toolbox.clone()
    }

    /// Offers the current set: built-ins, `create_tool` (when enabled and stored), the
    /// approved tools whose files are still the approved ones, and the approved tools of the
    /// project's MCP servers.
    pub(crate) fn install(&self, agent: &Agent) {
        let (mut tools, create_tool, toolbox, redactor, mcp) = {
            let inner = self.lock();
            (
                inner.builtins.clone(),
                inner.create_tool.clone(),
                inner.toolbox.clone(),
                inner.redactor.clone(),
                inner.mcp.clone(),
            )
        };
        tools.extend(create_tool);
        let offered = toolbox
            .map(|toolbox| toolbox.offered())
            .unwrap_or_default()
            .into_iter()
            .chain(
                mcp.map(|mcp| mcp.offered(agent.context_window()))
                    .unwrap_or_default(),
            );
        for tool in offered {
            tools.push(match &redactor {
                Some(redactor) => RedactingTool::wrap(tool, redactor.clone()),
                None => tool,
            });
        }
        agent.set_tools(tools);
    }

    /// Connects the project's MCP servers: their approved tools are offered from the next
    /// [`SessionTools::install`].
    pub(crate) fn set_mcp(&self, agent: &Agent, source: crate::mcp_session::McpSource) {
        // Tools the model finds with the MCP search tool are offered from its next step. (A
        // weak handle: the source lives in these tools, which must not keep themselves alive.)
        let (weak, agent_for_loads) = (Arc::downgrade(&self.inner), agent.clone());
        let _ = source.on_load.set(Arc::new(move || {
            if let Some(inner) = weak.upgrade() {
                SessionTools { inner }.install(&agent_for_loads);
            }
        }));
        self.lock().mcp = Some(Arc::new(source));
        self.install(agent);
    }

    /// Connects the project's toolbox: `create_tool` joins when `wants_create_tool`, and every
    /// decision re-offers the tools to `agent`.
    pub(crate) fn connect(
        &self,
        agent: &Agent,
        toolbox: Arc<Toolbox>,
        recorder: &SessionRecorder,
        wants_create_tool: bool,
        redactor: &Redactor,
    ) {
        let create_tool: Option<Arc<dyn AgentTool>> = wants_create_tool.then(|| {
            let recorder = recorder.clone();
            let tool: Arc<dyn AgentTool> = Arc::new(CreateToolTool::new(
                toolbox.clone(),
                Arc::new(move || recorder.session_id()),
            ));
            RedactingTool::wrap(tool, redactor.clone())
        });
        {
            let mut inner = self.lock();
            inner.toolbox = Some(toolbox.clone());
            inner.create_tool = create_tool;
            inner.redactor = Some(redactor.clone());
        }
        toolbox.set_builtins(self.listed());
        toolbox.set_redactor(redactor.clone());
        let (tools, agent_for_changes) = (self.clone(), agent.clone());
        toolbox.set_on_change(Some(Arc::new(move || tools.install(&agent_for_changes))));
        self.install(agent);
    }
}

/// The toolbox of the project a recorder stores into (its own store connection, opened when
/// first used).
pub(crate) fn toolbox_for(recorder: &SessionRecorder, workspace: &Path) -> Option<Arc<Toolbox>> {
    let (data_dir, store) = recorder.with_store(|store| {
        let data_dir = store.path().parent().map(Path::to_owned)?;
        Some((data_dir, store.another_later()))
    })?;
    Some(Toolbox::connecting_later(
        store,
        workspace,
        &data_dir,
        &recorder.project().id,
    ))
}

impl LiveSession {
    /// The project's toolbox (`None` when nothing is stored).
    pub fn toolbox(&self) -> Result<Arc<Toolbox>, AppError> {
        self.tools.toolbox().ok_or(AppError::NotStored)
    }

    /// The approved instruction skills (a `SKILL.md` without a script), as `(name,
    /// description)`: what a front end offers as `/name` commands.
    pub fn instruction_skills(&self) -> Vec<(String, String)> {
        self.list_tools()
            .map(|list| {
                list.tools
                    .into_iter()
                    .filter(|tool| {
                        !tool.executable
                            && tool.status == arbor_protocol::views::tools::ToolStatus::Approved
                    })
                    .map(|tool| (tool.name, tool.description))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Every tool: built-in, approved, pending, invalid (with why).
    pub fn list_tools(&self) -> Result<ToolList, AppError> {
        Ok(self.toolbox()?.list()?)
    }

    /// What a person reviews before deciding on an approval.
    pub fn review_tool(&self, approval_id: &str) -> Result<ToolReview, AppError> {
        Ok(self.toolbox()?.review(approval_id)?)
    }

    /// Approves a pending tool: its files are written and it is offered from the next request.
    /// Answers with the version as decided.
    pub fn approve_tool(&self, approval_id: &str) -> Result<ToolReview, AppError> {
        let toolbox = self.toolbox()?;
        let decided = toolbox.approve(approval_id)?;
        Ok(toolbox.review(&decided.id)?)
    }

    /// Rejects a pending tool; the reason reaches the model when it is waiting.
    pub fn reject_tool(
        &self,
        approval_id: &str,
        reason: Option<&str>,
    ) -> Result<ToolReview, AppError> {
        let toolbox = self.toolbox()?;
        let decided = toolbox.reject(approval_id, reason)?;
        Ok(toolbox.review(&decided.id)?)
    }

    /// Takes a tool's approval back.
    pub fn revoke_tool(&self, name: &str) -> Result<(), AppError> {
        Ok(self.toolbox()?.revoke(name)?)
    }

    /// The runs of the model's tools (of `name`), newest first.
    pub fn tool_history(&self, name: Option<&str>) -> Result<Vec<ToolRun>, AppError> {
        Ok(self.toolbox()?.history(name)?)
    }

    /// The text of the MCP prompt `/server:prompt` filled with `arguments` (the interactive
    /// CLI sends it as the message; the desktop puts it in the composer).
    pub async fn mcp_prompt_text(
        &self,
        server: &str,
        prompt: &str,
        arguments: std::collections::BTreeMap<String, String>,
    ) -> Result<String, AppError> {
        let source = self.tools.lock().mcp.clone().ok_or(AppError::NotStored)?;
        let slot = source.usable_slot(server).ok_or_else(|| {
            arbor_mcp::McpError::NotApproved(format!(
                "no usable MCP server {server:?} here (`arbor mcp list` shows them)"
            ))
        })?;
        Ok(slot.get_prompt(prompt, arguments).await?)
    }

    /// Offers the tools again (a tool's files may have changed since the last request).
    pub fn refresh_tools(&self) {
        self.tools.install(&self.agent);
    }
}
