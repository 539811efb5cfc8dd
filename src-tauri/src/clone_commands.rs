//! Tauri commands of the clone form: where a clone would go, the clone itself (progress over a
//! `Channel`, then the project opens by the start window's rules) and cancelling it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use arbor_app::blocking;
use arbor_app::clone::{CloneProgress, CloneRequest};
use serde::Deserialize;
use tauri::ipc::Channel;
use tauri::{AppHandle, State, Window};

use crate::commands::{place_project, OpenedProject};
use crate::error::CommandError;
use crate::state::DesktopState;

type Result<T> = std::result::Result<T, CommandError>;

/// The clone form's fields.
#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct CloneForm {
    pub url: String,
    /// A folder to create; empty or absent: the workspaces folder.
    #[ts(optional = nullable)]
    pub destination: Option<String>,
    #[ts(optional = nullable)]
    pub depth: Option<u32>,
    #[ts(optional = nullable)]
    pub branch: Option<String>,
}

impl CloneForm {
    fn request(self) -> CloneRequest {
        let non_empty = |text: Option<String>| text.filter(|t| !t.trim().is_empty());
        CloneRequest {
            source: self.url,
            destination: non_empty(self.destination).map(|d| d.trim().into()),
            depth: self.depth.filter(|d| *d > 0),
            branch: non_empty(self.branch).map(|b| b.trim().to_owned()),
        }
    }
}

/// Where the clone of `form` would go (shown under the URL as the user types).
#[tauri::command]
pub async fn clone_destination(state: State<'_, DesktopState>, form: CloneForm) -> Result<String> {
    let arbor = state.app()?;
    let request = form.request();
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
    let request = form.request();
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
