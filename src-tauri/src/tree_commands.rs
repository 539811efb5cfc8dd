//! Tauri commands of a window's tree panel: each a few lines over `arbor_app::LiveSession`
//! (the tree, going to a node, labels, forks, node previews, comparing two branches, exporting a
//! branch, and summarising the branch the user left).

use arbor_app::export::ExportFormat;
use arbor_app::{
    blocking, BranchComparison, BranchEntry, NodeVisit, SessionTreeDelta, SessionTreeView,
    SessionView,
};
use tauri::{State, Window};
use tauri_plugin_dialog::DialogExt;
use tokio_util::sync::CancellationToken;

use crate::error::CommandError;
use crate::session_commands::with_session;
use crate::state::DesktopState;

type Result<T> = std::result::Result<T, CommandError>;

/// The window's session as a tree (the tree panel).
#[tauri::command]
pub async fn session_tree(
    window: Window,
    state: State<'_, DesktopState>,
) -> Result<SessionTreeView> {
    with_session(&state, &window, |s| s.tree_view()).await
}

/// The nodes stored since the panel read `since` of them, with the current leaf: a growing chat
/// sends only what is new.
#[tauri::command]
pub async fn session_tree_since(
    window: Window,
    state: State<'_, DesktopState>,
    since: usize,
) -> Result<SessionTreeDelta> {
    with_session(&state, &window, move |s| s.tree_since(since)).await
}

/// Goes to a node of the tree (a user message comes back for editing).
#[tauri::command]
pub async fn visit_node(
    window: Window,
    state: State<'_, DesktopState>,
    node_id: String,
) -> Result<NodeVisit> {
    with_session(&state, &window, move |s| s.visit_node(&node_id)).await
}

/// Labels a node of the tree (an empty label removes it) and answers with the tree.
#[tauri::command]
pub async fn label_node(
    window: Window,
    state: State<'_, DesktopState>,
    node_id: String,
    label: String,
) -> Result<SessionTreeView> {
    with_session(&state, &window, move |s| {
        s.label(&node_id, Some(&label))?;
        s.tree_view()
    })
    .await
}

/// Forks the path to a node into a new session, shown in this window.
#[tauri::command]
pub async fn fork_at(
    window: Window,
    state: State<'_, DesktopState>,
    node_id: String,
) -> Result<SessionView> {
    with_session(&state, &window, move |s| {
        s.fork(Some(&node_id))?;
        s.view()
    })
    .await
}

/// One node with its message: the tree's preview of a turn, and "Copy".
#[tauri::command]
pub async fn node_preview(
    window: Window,
    state: State<'_, DesktopState>,
    node_id: String,
) -> Result<BranchEntry> {
    with_session(&state, &window, move |s| s.node_entry(&node_id)).await
}

/// The branches ending at `left` and `right` side by side from where they part.
#[tauri::command]
pub async fn compare_branches(
    window: Window,
    state: State<'_, DesktopState>,
    left: String,
    right: String,
) -> Result<BranchComparison> {
    with_session(&state, &window, move |s| s.compare_branches(&left, &right)).await
}

/// Exports the path to a node into a file the user picks in the system's save dialog (the
/// webview never names a path). `None`: the dialog was cancelled.
#[tauri::command]
pub async fn export_branch(
    window: Window,
    state: State<'_, DesktopState>,
    node_id: String,
    format: String,
) -> Result<Option<String>> {
    let format = ExportFormat::parse(&format).map_err(arbor_app::AppError::from)?;
    let Some(path) = pick_export_file(&window, "arbor-branch", format).await? else {
        return Ok(None);
    };
    let written = path.clone();
    with_session(&state, &window, move |s| {
        s.export_branch(&node_id, format, Some(&written)).map(drop)
    })
    .await?;
    Ok(Some(path.display().to_string()))
}

/// The file an export goes to, picked in the system's save dialog that Rust opens (suggested
/// `stem.extension`); `None` when the user cancelled.
pub(crate) async fn pick_export_file(
    window: &Window,
    stem: &str,
    format: ExportFormat,
) -> Result<Option<std::path::PathBuf>> {
    let dialog = window
        .dialog()
        .file()
        .set_parent(window)
        .set_file_name(format!("{stem}.{}", format.extension()))
        .add_filter(format.as_str(), &[format.extension()]);
    let picked = blocking(move || dialog.blocking_save_file()).await?;
    Ok(picked.and_then(|p| p.into_path().ok()))
}

/// Summarises the branch that ended at `old_leaf` into the current branch (the offer made after
/// going elsewhere in the tree). Asks the model; Stop cancels it.
#[tauri::command]
pub async fn summarize_left(
    window: Window,
    state: State<'_, DesktopState>,
    old_leaf: String,
) -> Result<SessionView> {
    let label = window.label().to_owned();
    let session = state.session(&label)?;
    let cancel = CancellationToken::new();
    state.set_summary_cancel(&label, Some(cancel.clone()));
    let live = session.read_owned().await;
    let result = live.summarize_left(&old_leaf, &cancel).await;
    state.set_summary_cancel(&label, None);
    Ok(result?)
}
