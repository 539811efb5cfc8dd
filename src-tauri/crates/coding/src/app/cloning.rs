//! Cloning on [`ArborApp`]: the workspaces folder and the GitHub token come from the settings and
//! the keychain; the clone is recorded as a project with its origin URL.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use super::{AppError, ArborApp, ProjectInfo};
use crate::clone::{clean_stale_clones, clone_repository, CloneProgress, CloneRequest, HostToken};

/// The host a GitHub token is for unless the settings name another.
pub const GITHUB_HOST: &str = "github.com";

impl ArborApp {
    /// Where clones go by default: the settings' folder, else `<data dir>/workspaces`.
    pub fn workspaces_dir(&self) -> PathBuf {
        self.settings()
            .workspaces_dir
            .map(PathBuf::from)
            .unwrap_or_else(|| self.data_dir.join("workspaces"))
    }

    /// The GitHub token with the one host it may be sent to.
    pub fn clone_token(&self) -> Option<HostToken> {
        let host = self
            .settings()
            .github_host
            .unwrap_or_else(|| GITHUB_HOST.to_owned());
        self.github_token().map(|token| HostToken { host, token })
    }

    /// Where `request` would go.
    pub fn clone_destination(&self, request: &CloneRequest) -> Result<PathBuf, AppError> {
        Ok(crate::clone::destination_of(request, &self.workspaces_dir())?.1)
    }

    /// Clones `request` (blocking) and records it as a project with its origin URL. Temporary
    /// folders a crashed clone left in the workspaces folder are removed first.
    pub fn clone_repository(
        &self,
        request: &CloneRequest,
        cancel: &AtomicBool,
        report: &mut dyn FnMut(&CloneProgress),
    ) -> Result<ProjectInfo, AppError> {
        let workspaces = self.workspaces_dir();
        clean_stale_clones(&workspaces);
        let token = self.clone_token();
        let cloned = clone_repository(request, &workspaces, token.as_ref(), cancel, report)?;
        let folder = super::check_folder(&cloned.path.display().to_string())?;
        let project = self
            .store()
            .open_project(std::path::Path::new(&folder.path), Some(&cloned.origin_url))?;
        Ok(ProjectInfo {
            id: project.id,
            name: folder.name,
            path: folder.path,
            is_git_repo: folder.is_git_repo,
        })
    }
}
