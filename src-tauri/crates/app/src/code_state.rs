//! The code state commands of a [`LiveSession`]: a node's files (preview, restore, undo), the
//! files between two nodes, and going to a node with or without its files. The recorder does
//! the work (`sessions/code.rs`); this adds the session's rules (nothing while a run is
//! active) and where a project's snapshots live.

use std::path::Path;
use std::sync::Arc;
use std::thread::JoinHandle;

use arbor_store::Project;

use super::{AppError, LiveSession, Settings, SettingsFile};
use arbor_coding::sessions::{NodeDiff, RestoreInfo, RestorePreview};
use arbor_coding::snapshots::{CodeTracker, ScanAhead, SnapshotOptions};
pub use arbor_protocol::views::branch::FilesRestored;

/// The folder of the data folder that holds the projects' shadow repositories.
pub const SNAPSHOTS_DIR: &str = "snapshots";

/// What going to a node does with the files (the protocol's, shared by every front end).
pub use arbor_protocol::FilesMode;

pub use arbor_protocol::responses::NavigationWithFiles;

/// The snapshots of `project`, in `<data dir>/snapshots/<project id>.git`, leaving out what the
/// settings' `snapshotIgnores` list (unreadable settings: none extra).
pub fn code_tracker(data_dir: &Path, project: &Project) -> Arc<CodeTracker> {
    code_tracker_in(data_dir, project, Path::new(&project.root))
}

/// [`code_tracker`] of `project`'s snapshots over another folder: a snapshot of the project
/// written into a new worktree.
pub fn code_tracker_in(data_dir: &Path, project: &Project, workspace: &Path) -> Arc<CodeTracker> {
    CodeTracker::new(
        &data_dir
            .join(SNAPSHOTS_DIR)
            .join(format!("{}.git", project.id)),
        workspace,
        snapshot_options(data_dir),
    )
}

/// What the snapshots of a data folder's projects leave out.
fn snapshot_options(data_dir: &Path) -> SnapshotOptions {
    let extra_ignores = Settings::load(data_dir)
        .map(|settings| settings.snapshot_ignores)
        .unwrap_or_default();
    SnapshotOptions {
        extra_ignores,
        // Arbor's own data (arbor.db, its WAL, every shadow repository) may lie inside the
        // project (`arbor` run in `$HOME`): never recorded, restored or diffed.
        protected_paths: crate::data_dir::owned_data_paths(data_dir),
        ..SnapshotOptions::default()
    }
}

/// Starts walking `workspace` on a thread of its own, as its project's snapshots in `data_dir`
/// would: for a front end that knows its first user turn when it starts (`arbor -p`), so that
/// turn's snapshot ([`LiveSession::offer_scan_ahead`]) does not walk the folder after the
/// request is out. `None` when no thread could be started.
pub fn scan_ahead(data_dir: &Path, workspace: &Path) -> Option<JoinHandle<ScanAhead>> {
    let (data_dir, workspace) = (data_dir.to_owned(), workspace.to_owned());
    std::thread::Builder::new()
        .name("arbor-scan-ahead".into())
        // The options too are read on the thread (the settings file, the data folder's
        // listing): the caller goes on to its own start-up at once.
        .spawn(move || ScanAhead::walk(&workspace, snapshot_options(&data_dir)))
        .ok()
}

impl LiveSession {
    /// The stored session's next snapshot (its first user turn's, when the prompt was given as
    /// the process started) records the workspace as `walk` ([`scan_ahead`]) finds it. Nothing
    /// when the session is not stored.
    pub fn offer_scan_ahead(&self, walk: JoinHandle<ScanAhead>) {
        if let Some(tracker) = self.recorder.as_ref().and_then(|r| r.code_tracker()) {
            tracker.offer_scan(walk);
        }
    }

    fn idle(&self) -> Result<(), AppError> {
        if self.agent.is_streaming() {
            return Err(AppError::Busy);
        }
        Ok(())
    }

    /// What bringing `node_id`'s files back would write and delete.
    pub fn preview_restore(&self, node_id: &str) -> Result<RestorePreview, AppError> {
        Ok(self.recorder()?.preview_restore(node_id)?)
    }

    /// Brings `node_id`'s files back (refused while a run is active, and when a file to change
    /// was changed outside Arbor unless `overwrite_outside`).
    pub fn restore_files(
        &self,
        node_id: &str,
        overwrite_outside: bool,
    ) -> Result<RestoreInfo, AppError> {
        self.idle()?;
        Ok(self.recorder()?.restore_files(node_id, overwrite_outside)?)
    }

    /// Brings back the files as they were before the last restore.
    pub fn undo_restore(&self, overwrite_outside: bool) -> Result<RestoreInfo, AppError> {
        self.idle()?;
        Ok(self.recorder()?.undo_restore(overwrite_outside)?)
    }

    /// Whether "undo restore" has something to bring back.
    pub fn can_undo_restore(&self) -> Result<bool, AppError> {
        Ok(self.recorder()?.can_undo_restore()?)
    }

    /// The files that differ between two nodes' states, with their patches.
    pub fn diff_nodes(&self, from: &str, to: &str) -> Result<NodeDiff, AppError> {
        Ok(self.recorder()?.diff_nodes(from, to)?)
    }

    /// Goes to `node_id` ([`LiveSession::navigate`]); with [`FilesMode::Restore`] its files come
    /// back first (when that is refused, the conversation does not move either).
    pub fn navigate_with_files(
        &self,
        node_id: &str,
        files: FilesMode,
        overwrite_outside: bool,
    ) -> Result<NavigationWithFiles, AppError> {
        let (restore, preview) = self.restore_for_navigation(node_id, files, overwrite_outside)?;
        Ok(NavigationWithFiles {
            navigation: self.navigate(node_id, crate::commands::NavigateTo::Node)?,
            restore,
            preview,
        })
    }

    /// Brings `node_id`'s files back and, with `visit`, goes there in the conversation too
    /// (the tree's "restore files to here").
    pub fn restore_files_and_visit(
        &self,
        node_id: &str,
        overwrite_outside: bool,
        visit: bool,
    ) -> Result<FilesRestored, AppError> {
        let restore = self.restore_files(node_id, overwrite_outside)?;
        let visit = visit.then(|| self.visit_node(node_id)).transpose()?;
        Ok(FilesRestored { restore, visit })
    }

    /// The restore part of going to a node: checks the node first (a bad id restores nothing).
    pub fn restore_for_navigation(
        &self,
        node_id: &str,
        files: FilesMode,
        overwrite_outside: bool,
    ) -> Result<(Option<RestoreInfo>, Option<RestorePreview>), AppError> {
        self.idle()?;
        let recorder = self.recorder()?;
        let node = recorder.node(node_id)?;
        if files == FilesMode::Keep {
            return Ok((None, None));
        }
        let preview = recorder.preview_restore(&node.id)?;
        let restore = recorder.restore_files(&node.id, overwrite_outside)?;
        Ok((Some(restore), Some(preview)))
    }
}
