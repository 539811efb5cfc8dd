//! Tauri commands for the code state of the tree: a node's files (preview, restore, undo) and
//! the files between two nodes — each a few lines over `arbor_app::LiveSession`.

use arbor_app::sessions::{NodeDiff, RestoreInfo, RestorePreview};
use arbor_app::FilesRestored;
use tauri::{State, Window};

use crate::error::CommandError;
use crate::session_commands::with_session;
use crate::state::DesktopState;

type Result<T> = std::result::Result<T, CommandError>;

/// What bringing a node's files back would write and delete (nothing is written).
#[tauri::command]
pub async fn preview_restore(
    window: Window,
    state: State<'_, DesktopState>,
    node_id: String,
) -> Result<RestorePreview> {
    with_session(&state, &window, move |s| s.preview_restore(&node_id)).await
}

/// Brings a node's files back (`overwrite`: also files changed outside Arbor, after the
/// preview showed them); with `visit`, the conversation goes there too.
#[tauri::command]
pub async fn restore_files(
    window: Window,
    state: State<'_, DesktopState>,
    node_id: String,
    overwrite: bool,
    visit: bool,
) -> Result<FilesRestored> {
    with_session(&state, &window, move |s| {
        s.restore_files_and_visit(&node_id, overwrite, visit)
    })
    .await
}

/// Brings back the files as they were before the last restore.
#[tauri::command]
pub async fn undo_restore(
    window: Window,
    state: State<'_, DesktopState>,
    overwrite: bool,
) -> Result<RestoreInfo> {
    with_session(&state, &window, move |s| s.undo_restore(overwrite)).await
}

/// Whether the project has a restore to undo (after a restart too).
#[tauri::command]
pub async fn can_undo_restore(window: Window, state: State<'_, DesktopState>) -> Result<bool> {
    with_session(&state, &window, |s| s.can_undo_restore()).await
}

/// The files that differ between two nodes' states, with their patches (the compare view).
#[tauri::command]
pub async fn diff_nodes(
    window: Window,
    state: State<'_, DesktopState>,
    from: String,
    to: String,
) -> Result<NodeDiff> {
    with_session(&state, &window, move |s| s.diff_nodes(&from, &to)).await
}
