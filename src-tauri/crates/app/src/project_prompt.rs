//! A project's own system-prompt text: what the CLI's `--append-system-prompt` gives one run,
//! kept for the project in the data folder (never in the project, so a cloned repository cannot
//! set it) and added to every chat the desktop opens there. A worktree uses its project's.

use std::path::Path;

use crate::permissions::project_id;
use crate::{AppError, ArborApp};

/// The longest project prompt kept: it is sent with every request.
pub const MAX_PROJECT_PROMPT_CHARS: usize = 20_000;

impl ArborApp {
    /// The project's own system-prompt text, if it has one.
    pub fn project_prompt(&self, project_root: &Path) -> Result<Option<String>, AppError> {
        let store = self.store();
        let id = project_id(&store, project_root)?;
        Ok(store.project_system_prompt(&id)?)
    }

    /// Saves the project's own system-prompt text (blank clears it). Chats opened from now on
    /// use it; a chat already open keeps the prompt it started with until it is opened again.
    pub fn set_project_prompt(&self, project_root: &Path, text: &str) -> Result<(), AppError> {
        let count = text.chars().count();
        if count > MAX_PROJECT_PROMPT_CHARS {
            return Err(AppError::Unsupported(format!(
                "the project prompt is {count} characters; at most {MAX_PROJECT_PROMPT_CHARS} are \
                 kept (it goes with every request): shorten it"
            )));
        }
        let store = self.store();
        let id = project_id(&store, project_root)?;
        Ok(store.set_project_system_prompt(&id, Some(text))?)
    }
}
