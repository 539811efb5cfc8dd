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

mod channel;
mod clone_commands;
mod code_commands;
mod commands;
mod error;
mod session_commands;
mod settings_commands;
mod state;
mod tool_commands;
mod tree_commands;

pub use clone_commands::CloneForm;
pub use commands::{AppInfo, OpenedProject};
pub use error::CommandError;

use tauri::{Manager, WindowEvent};

/// Builds and runs the desktop app until its last window closes.
pub fn run() -> Result<(), tauri::Error> {
    tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_opener::init())
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
        .invoke_handler(tauri::generate_handler![
            commands::app_info,
            commands::open_project,
            commands::current_project,
            commands::close_project,
            commands::recent_projects,
            commands::open_external,
            session_commands::start_session,
            session_commands::session_view,
            session_commands::prompt,
            session_commands::steer,
            session_commands::follow_up,
            session_commands::abort,
            session_commands::edit_message,
            session_commands::regenerate,
            session_commands::open_branch,
            session_commands::earlier_entries,
            tree_commands::session_tree,
            tree_commands::session_tree_since,
            tree_commands::visit_node,
            tree_commands::label_node,
            tree_commands::fork_at,
            tree_commands::node_preview,
            tree_commands::compare_branches,
            tree_commands::export_branch,
            tree_commands::summarize_left,
            code_commands::preview_restore,
            code_commands::restore_files,
            code_commands::undo_restore,
            code_commands::can_undo_restore,
            code_commands::diff_nodes,
            tool_commands::list_tools,
            tool_commands::review_tool,
            tool_commands::approve_tool,
            tool_commands::reject_tool,
            tool_commands::revoke_tool,
            tool_commands::tool_history,
            session_commands::set_model,
            session_commands::set_thinking_level,
            session_commands::list_models,
            session_commands::list_sessions,
            session_commands::new_session,
            session_commands::switch_session,
            session_commands::rename_session,
            session_commands::delete_session,
            session_commands::search_sessions,
            settings_commands::key_statuses,
            settings_commands::set_api_key,
            settings_commands::remove_api_key,
            settings_commands::test_api_key,
            settings_commands::get_settings,
            settings_commands::save_settings,
            settings_commands::add_custom_endpoint,
            clone_commands::clone_destination,
            clone_commands::clone_repository,
            clone_commands::cancel_clone,
        ])
        .run(tauri::generate_context!())
}

/// Closing a window during a run aborts it and waits (briefly) until the partial answer is
/// stored, marked aborted; then the window closes.
fn close_window(window: &tauri::Window, api: &tauri::CloseRequestApi) {
    let state = window.state::<state::DesktopState>();
    let Some(session) = state
        .windows()
        .remove(window.label())
        .and_then(|w| w.session)
    else {
        return;
    };
    api.prevent_close();
    let window = window.clone();
    tauri::async_runtime::spawn(async move {
        {
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
    });
}
