//! Tauri commands for the model's tools: the tools panel (list, history, revoke) and the
//! approval dialog (review, approve, reject) — each a few lines over `LiveSession`.

use arbor_app::skills::{ToolList, ToolReview};
use arbor_app::views::tools::ToolRun;
use tauri::{State, Window};

use crate::error::CommandError;
use crate::session_commands::with_session;
use crate::state::DesktopState;

type Result<T> = std::result::Result<T, CommandError>;

/// Every tool: built-in, approved, pending (with its approval id), invalid (with why).
#[tauri::command]
pub async fn list_tools(window: Window, state: State<'_, DesktopState>) -> Result<ToolList> {
    with_session(&state, &window, |s| s.list_tools()).await
}

/// What the approval dialog shows: the files, the reason, the permissions, the diff against
/// the approved version.
#[tauri::command]
pub async fn review_tool(
    window: Window,
    state: State<'_, DesktopState>,
    approval_id: String,
) -> Result<ToolReview> {
    with_session(&state, &window, move |s| s.review_tool(&approval_id)).await
}

/// Approves a pending tool; answers with the list.
#[tauri::command]
pub async fn approve_tool(
    window: Window,
    state: State<'_, DesktopState>,
    approval_id: String,
) -> Result<ToolList> {
    with_session(&state, &window, move |s| {
        s.approve_tool(&approval_id)?;
        s.list_tools()
    })
    .await
}

/// Rejects a pending tool (the reason reaches the model); answers with the list.
#[tauri::command]
pub async fn reject_tool(
    window: Window,
    state: State<'_, DesktopState>,
    approval_id: String,
    reason: Option<String>,
) -> Result<ToolList> {
    with_session(&state, &window, move |s| {
        s.reject_tool(&approval_id, reason.as_deref())?;
        s.list_tools()
    })
    .await
}

/// Takes a tool's approval back; answers with the list.
#[tauri::command]
pub async fn revoke_tool(
    window: Window,
    state: State<'_, DesktopState>,
    name: String,
) -> Result<ToolList> {
    with_session(&state, &window, move |s| {
        s.revoke_tool(&name)?;
        s.list_tools()
    })
    .await
}

/// The runs of the model's tools (of `name`), newest first.
#[tauri::command]
pub async fn tool_history(
    window: Window,
    state: State<'_, DesktopState>,
    name: Option<String>,
) -> Result<Vec<ToolRun>> {
    with_session(&state, &window, move |s| s.tool_history(name.as_deref())).await
}
