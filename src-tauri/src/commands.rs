//! Tauri commands: thin wrappers that translate between the UI's JSON and the Rust API.

use serde::Serialize;

use crate::error::CommandError;
use crate::project::{self, ProjectInfo};

#[derive(Debug, Serialize)]
pub struct AppInfo {
    name: &'static str,
    version: &'static str,
}

#[tauri::command]
pub fn app_info() -> AppInfo {
    AppInfo {
        name: "Arbor",
        version: env!("CARGO_PKG_VERSION"),
    }
}

/// Validates a folder the user picked or typed and describes it as a project.
#[tauri::command]
pub async fn open_project(path: String) -> Result<ProjectInfo, CommandError> {
    // Off the main thread: a path on a slow network mount must not freeze the window.
    let opened = tauri::async_runtime::spawn_blocking(move || project::open_project(&path))
        .await
        .map_err(|join| project::ProjectError::Interrupted(join.to_string()))??;
    Ok(opened)
}
