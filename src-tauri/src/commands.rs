//! Tauri commands for the app and its windows: a few lines each over the session API.

use tauri::{AppHandle, Manager, State, WebviewUrl, WebviewWindowBuilder, Window};

use arbor_app::views::{AppInfo, OpenedIn, OpenedProject};
use arbor_app::{blocking, AppError, ProjectInfo, RecentProject};

use crate::error::CommandError;
use crate::state::DesktopState;

// Every command is async and answers a `Result`, so the command table checks them all alike.
#[tauri::command]
pub async fn app_info() -> Result<AppInfo, CommandError> {
    Ok(AppInfo {
        name: "Arbor".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
    })
}

/// Opens a folder as a project: in this window when it has none, else in a new window; a
/// project already open in a window focuses that window.
#[tauri::command]
pub async fn open_project(
    app: AppHandle,
    window: Window,
    state: State<'_, DesktopState>,
    path: String,
) -> Result<OpenedProject, CommandError> {
    let arbor = state.app()?;
    // Off the main thread: a path on a slow network mount must not freeze the window.
    let project = blocking(move || arbor.open_project(&path)).await??;
    place_project(&app, &window, &state, project)
}

/// Shows an opened project: focuses the window that has it already, else takes this window when
/// it has no project, else opens a new window.
pub fn place_project(
    app: &AppHandle,
    window: &Window,
    state: &State<'_, DesktopState>,
    project: ProjectInfo,
) -> Result<OpenedProject, CommandError> {
    let label = window.label().to_owned();
    if let Some(open_in) = state.window_of(&project.path) {
        if let Some(other) = app.get_webview_window(&open_in) {
            let _ = other.set_focus();
        }
        let here = if open_in == label {
            OpenedIn::This
        } else {
            OpenedIn::Other
        };
        return Ok(OpenedProject {
            project,
            window: here,
        });
    }
    let this_is_free = state
        .windows()
        .get(&label)
        .is_none_or(|w| w.project.is_none());
    if this_is_free {
        state.windows().entry(label).or_default().project = Some(project.clone());
        let _ = window.set_title(&format!("{} — Arbor", project.name));
        return Ok(OpenedProject {
            project,
            window: OpenedIn::This,
        });
    }
    let new_label = state.next_window_label();
    state
        .windows()
        .entry(new_label.clone())
        .or_default()
        .project = Some(project.clone());
    let built = WebviewWindowBuilder::new(app, &new_label, WebviewUrl::App("index.html".into()))
        .title(format!("{} — Arbor", project.name))
        .inner_size(1200.0, 800.0)
        .min_inner_size(720.0, 480.0)
        // Files dropped on the window reach the webview's own drop handler (the composer),
        // as in the main window (`dragDropEnabled: false` in tauri.conf.json).
        .disable_drag_drop_handler()
        .build();
    if let Err(error) = built {
        state.windows().remove(&new_label);
        return Err(CommandError::Window(error.to_string()));
    }
    Ok(OpenedProject {
        project,
        window: OpenedIn::Other,
    })
}

/// `arbor-desktop PATH`: the first window starts on that folder (a bad path leaves it on the
/// start view, where opening it again shows the error).
pub fn open_at_launch(app: &AppHandle, path: &str) {
    let state = app.state::<DesktopState>();
    let Ok(arbor) = state.app() else {
        return;
    };
    if let Ok(project) = arbor.open_project(path) {
        if let Some(window) = app.get_webview_window("main") {
            let _ = window.set_title(&format!("{} — Arbor", project.name));
        }
        state
            .windows()
            .entry("main".to_owned())
            .or_default()
            .project = Some(project);
    }
}

/// The project of this window (a window opened for a project asks on start).
#[tauri::command]
pub async fn current_project(
    window: Window,
    state: State<'_, DesktopState>,
) -> Result<Option<ProjectInfo>, CommandError> {
    Ok(state
        .windows()
        .get(window.label())
        .and_then(|w| w.project.clone()))
}

/// Closes this window's project: a run in progress is aborted (its partial answer is stored,
/// marked aborted) and the window returns to the start view.
#[tauri::command]
pub async fn close_project(
    window: Window,
    state: State<'_, DesktopState>,
) -> Result<(), CommandError> {
    let closed = state.windows().remove(window.label());
    for session in closed.map(|w| w.into_sessions()).unwrap_or_default() {
        session.write().await.close().await;
    }
    let _ = window.set_title("Arbor");
    Ok(())
}

#[tauri::command]
pub async fn recent_projects(
    state: State<'_, DesktopState>,
) -> Result<Vec<RecentProject>, CommandError> {
    let arbor = state.app()?;
    Ok(blocking(move || arbor.recent_projects()).await??)
}

/// Opens an http(s) link in the system browser; the webview itself never navigates.
#[tauri::command]
pub async fn open_external(app: AppHandle, url: String) -> Result<(), CommandError> {
    let scheme_ok = url.starts_with("https://") || url.starts_with("http://");
    if !scheme_ok {
        return Err(AppError::NotAWebLink(url).into());
    }
    use tauri_plugin_opener::OpenerExt;
    app.opener()
        .open_url(url, None::<&str>)
        .map_err(|error| CommandError::Window(error.to_string()))
}
