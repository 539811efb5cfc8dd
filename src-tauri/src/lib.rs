//! The Arbor desktop shell: Tauri commands, windows and dialogs over the headless crates.
//!
//! This crate stays thin. Anything two front ends (desktop and `arbor` CLI) both need belongs in
//! a headless crate under `src-tauri/crates/`, not here.

mod commands;
mod error;
pub mod project;

pub use error::CommandError;

/// Builds and runs the desktop app until its last window closes.
pub fn run() -> Result<(), tauri::Error> {
    tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .invoke_handler(tauri::generate_handler![
            commands::app_info,
            commands::open_project
        ])
        .run(tauri::generate_context!())
}
