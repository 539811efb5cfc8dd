//! Cloning on [`ArborApp`]: the workspaces folder and the GitHub token come from the settings and
//! the keychain; the clone is recorded as a project with its origin URL.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use super::{AppError, ArborApp, ProjectInfo};
use arbor_coding::clone::{
    clean_stale_clones, clean_stale_clones_in, clone_repository, has_temporary_clones,
    CloneProgress, CloneRequest, HostToken,
};

/// The data folder's list of folders outside the workspaces folder where clones were started
/// (one path per line): a clone killed there leaves a temporary folder that the next start
/// removes.
const CLONE_FOLDERS_FILE: &str = "clone-folders.txt";

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
        Ok(arbor_coding::clone::destination_of(request, &self.workspaces_dir())?.1)
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
        let destination = self.clone_destination(request)?;
        if let Some(parent) = destination.parent().filter(|p| !p.starts_with(&workspaces)) {
            clean_stale_clones_in(parent);
            remember_clone_folder(&self.data_dir, parent);
        }
        let token = self.clone_token();
        let cloned = clone_repository(request, &workspaces, token.as_ref(), cancel, report)?;
        let folder = super::check_folder(&cloned.path.display().to_string())?;
        let project = self
            .store()
            .open_project(std::path::Path::new(&folder.path), Some(&cloned.origin_url))?;
        // A repository from a URL is untrusted content: it starts read-only until the user
        // trusts it.
        self.store().set_project_trusted(&project.id, false)?;
        Ok(ProjectInfo {
            id: project.id,
            name: folder.name,
            path: folder.path,
            is_git_repo: folder.is_git_repo,
        })
    }
}

/// Adds `folder` to the data folder's list of clone folders (best effort: a list that cannot be
/// written only means a killed clone's leftovers there wait for the next clone into it).
fn remember_clone_folder(data_dir: &Path, folder: &Path) {
    let list = data_dir.join(CLONE_FOLDERS_FILE);
    let mut folders = read_clone_folders(&list);
    let folder = std::path::absolute(folder).unwrap_or_else(|_| folder.to_owned());
    if !folders.contains(&folder) {
        folders.push(folder);
        let text: String = folders
            .iter()
            .map(|f| format!("{}\n", f.display()))
            .collect();
        let _ = arbor_coding::export::write_atomically(&list, &text);
    }
}

fn read_clone_folders(list: &Path) -> Vec<PathBuf> {
    std::fs::read_to_string(list)
        .map(|text| {
            text.lines()
                .filter(|l| !l.is_empty())
                .map(PathBuf::from)
                .collect()
        })
        .unwrap_or_default()
}

/// At the start of any front end: removes what killed clones left behind (see
/// [`clean_clone_leftovers`]), with the workspaces folder the settings name.
pub fn clean_clone_leftovers_at_start(data_dir: &Path) {
    let workspaces = <super::Settings as super::SettingsFile>::load(data_dir)
        .ok()
        .and_then(|settings| settings.workspaces_dir)
        .map(PathBuf::from)
        .unwrap_or_else(|| data_dir.join("workspaces"));
    clean_clone_leftovers(data_dir, &workspaces);
}

/// At start: removes what killed clones left in the workspaces folder and in every folder a
/// clone was started in; folders with nothing left are dropped from the list.
pub(super) fn clean_clone_leftovers(data_dir: &Path, workspaces: &Path) {
    clean_stale_clones(workspaces);
    let list = data_dir.join(CLONE_FOLDERS_FILE);
    let folders = read_clone_folders(&list);
    if folders.is_empty() {
        return;
    }
    let kept: Vec<PathBuf> = folders
        .into_iter()
        .filter(|folder| {
            clean_stale_clones_in(folder);
            has_temporary_clones(folder)
        })
        .collect();
    let text: String = kept.iter().map(|f| format!("{}\n", f.display())).collect();
    let _ = arbor_coding::export::write_atomically(&list, &text);
}
