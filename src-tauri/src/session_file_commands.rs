//! A window's whole session as a file, and the chat's own actions on it: exporting every branch
//! through a save dialog Rust opens (the webview never names a path), importing a JSONL export
//! as a new session of the project, compacting now, and plan mode.

use arbor_app::export::{ExportFormat, ExportScope};
use arbor_app::{blocking, AppError, SessionView, StoredSessions};
use tauri::{State, Window};
use tauri_plugin_dialog::DialogExt;
use tokio_util::sync::CancellationToken;

use crate::error::CommandError;
use crate::session_commands::with_session;
use crate::state::DesktopState;
use crate::tree_commands::pick_export_file;

type Result<T> = std::result::Result<T, CommandError>;

/// The whole session (every branch) to a file the user picks; the path written, or nothing
/// when the dialog was cancelled.
#[tauri::command]
pub async fn export_session(
    window: Window,
    state: State<'_, DesktopState>,
    format: String,
) -> Result<Option<String>> {
    let format = ExportFormat::parse(&format).map_err(AppError::from)?;
    let Some(path) = pick_export_file(&window, "arbor-session", format).await? else {
        return Ok(None);
    };
    let written = path.clone();
    with_session(&state, &window, move |s| {
        s.export(format, Some(ExportScope::WholeTree), Some(&written))
            .map(drop)
    })
    .await?;
    Ok(Some(path.display().to_string()))
}

/// A JSONL export the user picks, stored as a new session of this window's project: its id
/// (the window opens it), or nothing when the dialog was cancelled.
#[tauri::command]
pub async fn import_session(
    window: Window,
    state: State<'_, DesktopState>,
) -> Result<Option<String>> {
    let project = state.project(window.label())?;
    let data_dir = state.app()?.data_dir().to_owned();
    let dialog = window
        .dialog()
        .file()
        .set_parent(&window)
        .add_filter("Arbor session (JSONL)", &["jsonl"]);
    let picked = blocking(move || dialog.blocking_pick_file()).await?;
    let Some(path) = picked.and_then(|p| p.into_path().ok()) else {
        return Ok(None);
    };
    let imported = blocking(move || {
        let bytes = std::fs::read(&path).map_err(|error| {
            AppError::Unsupported(format!("cannot read {}: {error}", path.display()))
        })?;
        StoredSessions::open(&data_dir)?.import_jsonl(&bytes, std::path::Path::new(&project.path))
    })
    .await??;
    Ok(Some(imported.id))
}

/// Summarises the older conversation now ("Compact now" beside the context meter; `/compact
/// [focus]`). Stop cancels it. Answers the chat as it now is.
#[tauri::command]
pub async fn compact_now(
    window: Window,
    state: State<'_, DesktopState>,
    focus: Option<String>,
) -> Result<SessionView> {
    let label = window.label().to_owned();
    let session = state.session(&label)?;
    let cancel = CancellationToken::new();
    state.set_summary_cancel(&label, Some(cancel.clone()));
    let live = session.read_owned().await;
    let focus = focus.filter(|focus| !focus.trim().is_empty());
    let outcome = match live.start_compact(focus, cancel) {
        Ok(run) => run
            .await
            .map_err(|error| AppError::Task(error.to_string()))
            .and_then(|done| done),
        Err(error) => Err(error),
    };
    state.set_summary_cancel(&label, None);
    outcome?;
    Ok(blocking(move || live.view()).await??)
}

/// Enters or leaves plan mode (the plan toggle, Shift+Tab, `/plan`, "Build"): whether it is on.
#[tauri::command]
pub async fn set_plan_mode(
    window: Window,
    state: State<'_, DesktopState>,
    on: bool,
) -> Result<bool> {
    Ok(state
        .session(window.label())?
        .read()
        .await
        .set_plan_mode(on))
}
