//! Tauri commands of the clone form: where a clone would go, the clone itself (progress over a
//! `Channel`, then the project opens by the start window's rules) and cancelling it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use arbor_app::blocking;
use arbor_app::clone::{CloneProgress, CloneRequest};
use arbor_app::views::clone::CloneForm;
use tauri::ipc::Channel;
use tauri::{AppHandle, State, Window};

use crate::commands::place_project;
use crate::error::CommandError;
use crate::state::DesktopState;
use arbor_app::views::OpenedProject;

type Result<T> = std::result::Result<T, CommandError>;

/// The request a form asks for: empty fields are absent, a depth of 0 is a full clone.
fn request(form: CloneForm) -> CloneRequest {
    let non_empty = |text: Option<String>| text.filter(|t| !t.trim().is_empty());
    CloneRequest {
        source: form.url,
        destination: non_empty(form.destination).map(|d| d.trim().into()),
        depth: form.depth.filter(|d| *d > 0),
        branch: non_empty(form.branch).map(|b| b.trim().to_owned()),
    }
}

/// Where the clone of `form` would go (shown under the URL as the user types).
#[tauri::command]
pub async fn clone_destination(state: State<'_, DesktopState>, form: CloneForm) -> Result<String> {
    let arbor = state.app()?;
    let request = request(form);
    let path = blocking(move || arbor.clone_destination(&request)).await??;
    Ok(path.display().to_string())
}

/// Clones `form`, reporting progress on `progress`; when done, the clone opens as a project
/// (in this window when it has none, else in a new one).
#[tauri::command]
pub async fn clone_repository(
    app: AppHandle,
    window: Window,
    state: State<'_, DesktopState>,
    form: CloneForm,
    progress: Channel<CloneProgress>,
) -> Result<OpenedProject> {
    let arbor = state.app()?;
    let cancel = Arc::new(AtomicBool::new(false));
    state.set_clone_cancel(window.label(), Some(cancel.clone()));
    let request = request(form);
    let cloned = blocking(move || {
        arbor.clone_repository(&request, &cancel, &mut |report| {
            let _ = progress.send(report.clone());
        })
    })
    .await;
    state.set_clone_cancel(window.label(), None);
    let project = cloned??;
    place_project(&app, &window, &state, project)
}

/// Cancels this window's clone; it stops at git's next callback and leaves nothing behind.
#[tauri::command]
pub async fn cancel_clone(window: Window, state: State<'_, DesktopState>) -> Result<()> {
    if let Some(cancel) = state.clone_cancel(window.label()) {
        cancel.store(true, Ordering::Relaxed);
    }
    Ok(())
}
