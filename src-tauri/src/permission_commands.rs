//! Tauri commands for permissions: the header's mode, the trust banner, the permission dialog's
//! answers, and the settings' rules and secret paths — each over `ArborApp` (what is saved)
//! and the window's `LiveSession` (what the running session enforces from now on).

use std::path::PathBuf;
use std::sync::Arc;

use arbor_app::permissions::{view, PermissionOverrides};
use arbor_app::views::permissions::{
    PermissionDecision, PermissionMode, PermissionsView, RuleEffect, RuleSource,
};
use arbor_app::{blocking, ArborApp};
use tauri::{State, Window};

use crate::error::CommandError;
use crate::session_commands::with_session;
use crate::state::DesktopState;

type Result<T> = std::result::Result<T, CommandError>;

/// After a change that was saved: the window's session takes the project's permissions as they
/// now are, and the view is answered (from the session when there is one).
async fn refreshed(
    state: &State<'_, DesktopState>,
    window: &Window,
    arbor: Arc<ArborApp>,
    root: PathBuf,
) -> Result<PermissionsView> {
    let setup =
        blocking(move || arbor.permission_setup(&root, &PermissionOverrides::default())).await??;
    match state.session(window.label()) {
        Ok(session) => {
            let live = session.read().await;
            live.apply_permission_setup(setup);
            Ok(live.permissions_view())
        }
        Err(_) => Ok(view(&setup, &setup.policy)),
    }
}

fn project_root(state: &State<'_, DesktopState>, window: &Window) -> Result<PathBuf> {
    Ok(PathBuf::from(state.project(window.label())?.path))
}

/// The project's mode, rules, secret paths and the sandbox.
#[tauri::command]
pub async fn get_permissions(
    window: Window,
    state: State<'_, DesktopState>,
) -> Result<PermissionsView> {
    if let Ok(session) = state.session(window.label()) {
        return Ok(session.read().await.permissions_view());
    }
    let (arbor, root) = (state.app()?, project_root(&state, &window)?);
    Ok(blocking(move || arbor.permissions_view(&root)).await??)
}

/// Switches the project's mode (saved for the project).
#[tauri::command]
pub async fn set_permission_mode(
    window: Window,
    state: State<'_, DesktopState>,
    mode: PermissionMode,
) -> Result<PermissionsView> {
    let (arbor, root) = (state.app()?, project_root(&state, &window)?);
    // Choosing a mode ends plan mode: the user said how the session works now.
    if let Ok(session) = state.session(window.label()) {
        session.read().await.set_plan_mode(false);
    }
    let saver = arbor.clone();
    let saved_root = root.clone();
    blocking(move || saver.set_permission_mode(&saved_root, mode)).await??;
    refreshed(&state, &window, arbor, root).await
}

/// The project's own system-prompt text (the settings' "Project prompt").
#[tauri::command]
pub async fn project_prompt(window: Window, state: State<'_, DesktopState>) -> Result<String> {
    let (arbor, root) = (state.app()?, project_root(&state, &window)?);
    Ok(blocking(move || arbor.project_prompt(&root))
        .await??
        .unwrap_or_default())
}

/// Saves the project's own system-prompt text (blank clears it); chats opened from now on use
/// it.
#[tauri::command]
pub async fn set_project_prompt(
    window: Window,
    state: State<'_, DesktopState>,
    text: String,
) -> Result<()> {
    let (arbor, root) = (state.app()?, project_root(&state, &window)?);
    Ok(blocking(move || arbor.set_project_prompt(&root, &text)).await??)
}

/// Trusts a cloned repository: it leaves read-only for the workspace mode.
#[tauri::command]
pub async fn trust_project(
    window: Window,
    state: State<'_, DesktopState>,
) -> Result<PermissionsView> {
    let (arbor, root) = (state.app()?, project_root(&state, &window)?);
    let saver = arbor.clone();
    let saved_root = root.clone();
    blocking(move || saver.trust_project(&saved_root)).await??;
    refreshed(&state, &window, arbor, root).await
}

/// Answers a permission request of the window's session.
#[tauri::command]
pub async fn answer_permission(
    window: Window,
    state: State<'_, DesktopState>,
    request_id: String,
    decision: PermissionDecision,
    reason: Option<String>,
) -> Result<()> {
    with_session(&state, &window, move |s| {
        s.answer_permission(&request_id, decision, reason)
    })
    .await
}

/// Saves a rule for the user (`scope: user`) or this project (`project`).
#[tauri::command]
pub async fn add_permission_rule(
    window: Window,
    state: State<'_, DesktopState>,
    rule: String,
    effect: RuleEffect,
    scope: RuleSource,
) -> Result<PermissionsView> {
    let (arbor, root) = (state.app()?, project_root(&state, &window)?);
    let (saver, saved_root) = (arbor.clone(), root.clone());
    blocking(move || saver.add_permission_rule(&saved_root, &rule, effect, scope)).await??;
    refreshed(&state, &window, arbor, root).await
}

/// Removes a saved rule.
#[tauri::command]
pub async fn remove_permission_rule(
    window: Window,
    state: State<'_, DesktopState>,
    rule: String,
    effect: RuleEffect,
    source: RuleSource,
) -> Result<PermissionsView> {
    let (arbor, root) = (state.app()?, project_root(&state, &window)?);
    let (saver, saved_root) = (arbor.clone(), root.clone());
    blocking(move || saver.remove_permission_rule(&saved_root, &rule, effect, source)).await??;
    refreshed(&state, &window, arbor, root).await
}

/// Saves the secret-path list.
#[tauri::command]
pub async fn set_secret_paths(
    window: Window,
    state: State<'_, DesktopState>,
    paths: Vec<String>,
) -> Result<PermissionsView> {
    let (arbor, root) = (state.app()?, project_root(&state, &window)?);
    let saver = arbor.clone();
    blocking(move || saver.set_secret_paths(paths)).await??;
    refreshed(&state, &window, arbor, root).await
}
