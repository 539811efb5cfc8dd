//! Tauri commands of the settings' MCP servers section and its approval dialog: the project's
//! servers with status, adding and removing the user's, switching one off, approving a
//! project's server definition and a server's tools after their review, a server's log, and a
//! secret a definition names (`${keychain:NAME}`), written once into the keychain and never
//! sent back. The window's project decides which `.mcp.json` is read.

use std::collections::BTreeMap;
use std::path::PathBuf;

use arbor_app::blocking;
use arbor_app::views::attachments::DocumentAttachment;
use arbor_app::views::elicitation::{ElicitationAction, ElicitationContent};
use arbor_app::views::mcp::{
    McpComposerItems, McpScope, McpServerConfig, McpServerReview, McpServersView, McpToolsReview,
};
use tauri::{AppHandle, State, Window};

use crate::error::CommandError;
use crate::state::DesktopState;

type Result<T> = std::result::Result<T, CommandError>;

fn project_root(state: &State<'_, DesktopState>, window: &Window) -> Result<PathBuf> {
    Ok(PathBuf::from(state.project(window.label())?.path))
}

/// The window's project's servers (the user's and its `.mcp.json`'s), with status.
#[tauri::command]
pub async fn mcp_servers(window: Window, state: State<'_, DesktopState>) -> Result<McpServersView> {
    let (arbor, root) = (state.app()?, project_root(&state, &window)?);
    Ok(blocking(move || arbor.mcp_servers(&root)).await??)
}

/// Adds (or replaces) one of the user's servers.
#[tauri::command]
pub async fn add_mcp_server(
    window: Window,
    state: State<'_, DesktopState>,
    config: McpServerConfig,
) -> Result<McpServersView> {
    let (arbor, root) = (state.app()?, project_root(&state, &window)?);
    Ok(blocking(move || arbor.add_mcp_server(&root, config)).await??)
}

/// Removes one of the user's servers (and stops it).
#[tauri::command]
pub async fn remove_mcp_server(
    window: Window,
    state: State<'_, DesktopState>,
    name: String,
) -> Result<McpServersView> {
    let (arbor, root) = (state.app()?, project_root(&state, &window)?);
    Ok(arbor.remove_mcp_server(&root, &name).await?)
}

/// Switches a server on or off.
#[tauri::command]
pub async fn set_mcp_server_enabled(
    window: Window,
    state: State<'_, DesktopState>,
    scope: McpScope,
    name: String,
    enabled: bool,
) -> Result<McpServersView> {
    let (arbor, root) = (state.app()?, project_root(&state, &window)?);
    Ok(arbor
        .set_mcp_server_enabled(&root, scope, &name, enabled)
        .await?)
}

/// A project server's definition as the approval dialog shows it.
#[tauri::command]
pub async fn mcp_server_review(
    window: Window,
    state: State<'_, DesktopState>,
    name: String,
) -> Result<McpServerReview> {
    let (arbor, root) = (state.app()?, project_root(&state, &window)?);
    Ok(blocking(move || arbor.mcp_server_review(&root, &name)).await??)
}

/// Approves the project server whose definition hashes to `hash`.
#[tauri::command]
pub async fn approve_mcp_server(
    window: Window,
    state: State<'_, DesktopState>,
    name: String,
    hash: String,
) -> Result<McpServersView> {
    let (arbor, root) = (state.app()?, project_root(&state, &window)?);
    Ok(blocking(move || arbor.approve_mcp_server(&root, &name, &hash)).await??)
}

/// Starts the server if needed; its tools against the approved ones.
#[tauri::command]
pub async fn mcp_tools_review(
    window: Window,
    state: State<'_, DesktopState>,
    scope: McpScope,
    name: String,
) -> Result<McpToolsReview> {
    let (arbor, root) = (state.app()?, project_root(&state, &window)?);
    Ok(arbor.mcp_tools_review(&root, scope, &name).await?)
}

/// Approves the server's tools exactly as reviewed (`hash`).
#[tauri::command]
pub async fn approve_mcp_tools(
    window: Window,
    state: State<'_, DesktopState>,
    scope: McpScope,
    name: String,
    hash: String,
) -> Result<McpServersView> {
    let (arbor, root) = (state.app()?, project_root(&state, &window)?);
    Ok(arbor.approve_mcp_tools(&root, scope, &name, &hash).await?)
}

/// Signs in to an HTTP server: the authorization page opens in the system browser (Rust opens
/// it; the webview never sees the URL or a token), the answer comes back to a loopback port.
#[tauri::command]
pub async fn mcp_sign_in(
    app: AppHandle,
    window: Window,
    state: State<'_, DesktopState>,
    scope: McpScope,
    name: String,
) -> Result<McpServersView> {
    let (arbor, root) = (state.app()?, project_root(&state, &window)?);
    let open = move |url: String| {
        use tauri_plugin_opener::OpenerExt;
        if url.starts_with("https://") || url.starts_with("http://") {
            let _ = app.opener().open_url(url, None::<&str>);
        }
    };
    Ok(arbor.mcp_sign_in(&root, scope, &name, &open).await?)
}

/// A server's stderr and Arbor's lines about it.
#[tauri::command]
pub async fn mcp_server_log(
    window: Window,
    state: State<'_, DesktopState>,
    scope: McpScope,
    name: String,
) -> Result<Vec<String>> {
    let (arbor, root) = (state.app()?, project_root(&state, &window)?);
    Ok(arbor.mcp_server_log(&root, scope, &name))
}

/// What the project's usable servers offer the composer: resources (`@`) and prompts (`/`).
#[tauri::command]
pub async fn mcp_composer_items(
    window: Window,
    state: State<'_, DesktopState>,
) -> Result<McpComposerItems> {
    let (arbor, root) = (state.app()?, project_root(&state, &window)?);
    Ok(arbor.mcp_composer_items(&root).await?)
}

/// A server's resource read as a document for the next message.
#[tauri::command]
pub async fn mcp_read_resource(
    window: Window,
    state: State<'_, DesktopState>,
    scope: McpScope,
    server: String,
    uri: String,
) -> Result<DocumentAttachment> {
    let (arbor, root) = (state.app()?, project_root(&state, &window)?);
    Ok(arbor.mcp_read_resource(&root, scope, &server, &uri).await?)
}

/// A server's prompt filled with `arguments`: the text for the composer.
#[tauri::command]
pub async fn mcp_get_prompt(
    window: Window,
    state: State<'_, DesktopState>,
    scope: McpScope,
    server: String,
    name: String,
    arguments: BTreeMap<String, String>,
) -> Result<String> {
    let (arbor, root) = (state.app()?, project_root(&state, &window)?);
    Ok(arbor
        .mcp_get_prompt(&root, scope, &server, &name, arguments)
        .await?)
}

/// Keeps a secret a server definition names as `${keychain:NAME}`.
#[tauri::command]
pub async fn set_mcp_secret(
    state: State<'_, DesktopState>,
    name: String,
    value: String,
) -> Result<()> {
    let arbor = state.app()?;
    Ok(blocking(move || arbor.set_mcp_secret(&name, &value)).await??)
}

/// Answers an MCP server's question (`elicitation_requested`) asked during the window's
/// session's call; accepted `content` must fit the form (a field left out takes its default).
#[tauri::command]
pub async fn answer_elicitation(
    window: Window,
    state: State<'_, DesktopState>,
    request_id: String,
    action: ElicitationAction,
    content: Option<ElicitationContent>,
) -> Result<()> {
    crate::session_commands::with_session(&state, &window, move |s| {
        s.answer_elicitation(&request_id, action, content.map(|c| c.0))
    })
    .await
}
