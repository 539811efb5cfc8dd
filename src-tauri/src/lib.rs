//! The Arbor desktop shell: Tauri commands, windows and dialogs over the headless crates.
//!
//! This crate stays thin. Every command is a few lines over `arbor_app` (the session API
//! the CLI also drives); anything two front ends need belongs there, not here.
//! - `commands`: the app and its windows (open a project, recent projects, links).
//! - `session_commands`: a window's chat (start a session and stream its events over a
//!   `Channel`, prompt, abort, edit, regenerate, branches, models, session list, search).
//! - `channel`: a session's events to its window over a `Channel`, deltas coalesced per frame.
//! - `state`: the app object and each window's project and live session.
//! - `error`: `CommandError`, serialised as `{code, message}`.
//! - `renderer`: which WebKitGTK renderer the window gets (chosen in `main`, before WebKit).

mod channel;
mod clone_commands;
mod code_commands;
mod command_table;
mod commands;
mod error;
mod file_commands;
pub mod js_engine;
#[cfg(test)]
mod link_order;
mod mcp_commands;
pub mod memory;
mod permission_commands;
#[cfg(test)]
mod portability;
pub mod renderer;
mod session_commands;
mod session_file_commands;
mod session_open;
mod settings_commands;
mod state;
mod tool_commands;
mod tree_commands;
mod worktree_commands;

pub use command_table::{command_table, CommandSpec};
pub use error::CommandError;

use tauri::{Manager, WindowEvent};

/// See [`arbor_app::run_sandbox_helper_if_requested`]: the first thing `main` does.
pub fn run_sandbox_helper_if_requested() {
    arbor_app::run_sandbox_helper_if_requested();
}

/// Builds and runs the desktop app until its last window closes.
pub fn run() -> Result<(), tauri::Error> {
    // No tool process reads this process's memory or `/proc` entries (keys live here).
    arbor_app::protect_this_process();
    // The settings show the sandbox, and the first command needs it: found while the window
    // opens.
    arbor_app::permissions::warm_sandbox_probe();
    tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_opener::init())
        // A chat in the background that waits for the user says so (issue 25).
        .plugin(tauri_plugin_notification::init())
        .manage(state::DesktopState::open())
        .setup(|app| {
            // `arbor-desktop PATH` opens that folder in the first window.
            if let Some(path) = std::env::args().nth(1) {
                commands::open_at_launch(app.handle(), &path);
            }
            Ok(())
        })
        .on_window_event(|window, event| {
            if let WindowEvent::CloseRequested { api, .. } = event {
                close_window(window, api);
            }
        })
        .invoke_handler(command_table::invoke_handler())
        .build(tauri::generate_context!())?
        .run(|handle, event| {
            // MCP servers stop with the app (a stdio server's whole process group).
            if let tauri::RunEvent::Exit = event {
                if let Ok(arbor) = handle.state::<state::DesktopState>().app() {
                    tauri::async_runtime::block_on(arbor.stop_mcp_servers());
                }
            }
        });
    Ok(())
}

/// Closing a window during a run aborts it and waits (briefly) until the partial answer is
/// stored, marked aborted; then the window closes.
fn close_window(window: &tauri::Window, api: &tauri::CloseRequestApi) {
    let state = window.state::<state::DesktopState>();
    let sessions = state
        .windows()
        .remove(window.label())
        .map(|w| w.into_sessions())
        .unwrap_or_default();
    if sessions.is_empty() {
        return;
    }
    api.prevent_close();
    let window = window.clone();
    tauri::async_runtime::spawn(async move {
        for session in sessions {
            let mut live = session.write().await;
            // A run that does not stop within 5 s must not keep the window open.
            let close = live.close();
            if tokio::time::timeout(std::time::Duration::from_secs(5), close)
                .await
                .is_err()
            {
                live.detach();
            }
        }
        let _ = window.destroy();
        // The closed window's sessions are gone.
        memory::release_freed_soon();
    });
}

#[cfg(test)]
mod layering {
    //! No front end reaches past the session API: the desktop shell and the CLI depend on
    //! `arbor-app` (the session API) and `arbor-protocol` (the wire) among Arbor's crates, and
    //! on nothing below them (what they name from below comes through those two).

    /// The `arbor-*` crates in the `[dependencies]` table of the manifest at `path`.
    fn arbor_dependencies(path: &std::path::Path) -> Vec<String> {
        let manifest = std::fs::read_to_string(path).unwrap();
        let mut in_dependencies = false;
        let mut found = Vec::new();
        for line in manifest.lines() {
            let line = line.trim();
            if line.starts_with('[') {
                in_dependencies = line == "[dependencies]";
            } else if in_dependencies && line.starts_with("arbor-") {
                found.push(line.split([' ', '=']).next().unwrap().to_owned());
            }
        }
        found
    }

    #[test]
    fn front_ends_depend_on_the_session_api_and_the_wire_only() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for manifest in ["Cargo.toml", "src-tauri/crates/cli/Cargo.toml"] {
            let mut found = arbor_dependencies(&root.join(manifest));
            found.sort();
            assert_eq!(found, ["arbor-app", "arbor-protocol"], "{manifest}");
        }
    }
}
