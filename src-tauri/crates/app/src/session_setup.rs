//! The configuration of a session as a person's app starts it in a project: the model the
//! project last used (else the default), the default thinking level and tools, the project's
//! own prompt after Arbor's, the project's permissions and the settings' timeouts. The desktop
//! and `arbor mcp serve` start their sessions from it.

use std::path::Path;

use crate::permissions::PermissionOverrides;
use crate::{AppError, ArborApp, SessionConfig, DEFAULT_TOOLS};

impl ArborApp {
    /// A session in `cwd` (the project at `root`, or one of its worktrees).
    pub fn project_session_config(
        &self,
        root: &Path,
        cwd: &Path,
    ) -> Result<SessionConfig, AppError> {
        let preferred = self.last_model(root)?;
        let selection = self.default_selection(preferred.as_deref())?;
        let permissions = self.permission_setup(cwd, &PermissionOverrides::default())?;
        Ok(SessionConfig {
            cwd: cwd.to_owned(),
            selection,
            thinking: self.default_thinking(),
            tools: DEFAULT_TOOLS.iter().map(|t| (*t).to_owned()).collect(),
            system_prompt: None,
            append_system_prompt: self.project_prompt(root)?,
            tool_environment: self.tool_environment(&[]),
            stream_idle_timeout: self.settings().stream_idle_timeout(),
            permissions: Some(permissions),
        })
    }
}
