//! Tauri commands of a window's chat: each a few lines over `arbor_app::LiveSession`.
//! A session's events reach the window through the `tauri::ipc::Channel` it passed to
//! `start_session`.

use std::path::PathBuf;

use arbor_app::views::attachments::DocumentAttachment;
use arbor_app::views::branch::SearchHit;
use arbor_app::NavigateTo;
use arbor_app::{
    blocking, AppError, BranchPage, LiveSession, ModelGroup, ModelRequest, SessionListItem,
    SessionState, SessionView,
};
use arbor_protocol::SessionEvent;
use arbor_protocol::{ImageContent, ThinkingLevel};
use tauri::ipc::Channel;
use tauri::{State, Window};
use tokio::sync::RwLock;

use crate::error::CommandError;
use crate::state::{DesktopState, SharedSession};

type Result<T> = std::result::Result<T, CommandError>;

/// Opens the window's chat on a session (`None`: the project's most recent one, at its leaf)
/// and streams its events into `events` until the next `start_session`.
#[tauri::command]
pub async fn start_session(
    window: Window,
    state: State<'_, DesktopState>,
    session_id: Option<String>,
    events: Channel<SessionEvent>,
) -> Result<SessionView> {
    let opening = crate::session_open::Opening {
        session_id,
        worktree: None,
        latest: true,
    };
    crate::session_open::open(&window, &state, opening, events).await
}

/// How often an idle window looks whether another process (a second window, `arbor -c`)
/// wrote to its session.
const OTHER_WRITERS_EVERY: std::time::Duration = std::time::Duration::from_secs(2);

/// Checks, while the window's session lives, whether another process wrote to it: the stream
/// then carries `session_written_elsewhere` and the window refreshes. Ends when the session is
/// replaced or the window closes (the last strong reference goes).
pub(crate) fn watch_other_writers(session: std::sync::Weak<RwLock<LiveSession>>) {
    tauri::async_runtime::spawn(async move {
        loop {
            tokio::time::sleep(OTHER_WRITERS_EVERY).await;
            let Some(session) = session.upgrade() else {
                return;
            };
            // A window busy with a command is checked next time.
            let Ok(live) = session.clone().try_read_owned() else {
                continue;
            };
            let _ = blocking(move || live.check_written_elsewhere()).await;
        }
    });
}

/// Runs `work` on the window's session off the async runtime's threads.
pub(crate) async fn with_session<R: Send + 'static>(
    state: &State<'_, DesktopState>,
    window: &Window,
    work: impl FnOnce(&LiveSession) -> std::result::Result<R, AppError> + Send + 'static,
) -> Result<R> {
    let session = state.session(window.label())?;
    let live = session.read_owned().await;
    Ok(blocking(move || work(&live)).await??)
}

async fn with_session_mut<R: Send + 'static>(
    session: SharedSession,
    work: impl FnOnce(&mut LiveSession) -> std::result::Result<R, AppError> + Send + 'static,
) -> Result<R> {
    let mut live = session.write_owned().await;
    Ok(blocking(move || work(&mut live)).await??)
}

#[tauri::command]
pub async fn session_view(window: Window, state: State<'_, DesktopState>) -> Result<SessionView> {
    with_session(&state, &window, |s| s.view()).await
}

/// The chat header's figures alone (after a run: cost and context use, without the branch the
/// stream already delivered).
#[tauri::command]
pub async fn session_state(window: Window, state: State<'_, DesktopState>) -> Result<SessionState> {
    with_session(&state, &window, |s| Ok(s.session_state())).await
}

#[tauri::command]
pub async fn prompt(
    window: Window,
    state: State<'_, DesktopState>,
    message: String,
    images: Vec<ImageContent>,
    documents: Vec<DocumentAttachment>,
) -> Result<()> {
    let session = state.session(window.label())?;
    let live = session.read().await;
    live.start_prompt_with_documents(message, images, documents)?;
    Ok(())
}

/// A file the user attached, read as a document for the message (the composer's chip). The
/// webview sends the bytes it read from the picked file as base64, never a path.
#[tauri::command]
pub async fn read_document(name: String, data: String) -> Result<DocumentAttachment> {
    Ok(blocking(move || arbor_app::read_document_base64(&name, &data)).await??)
}

#[tauri::command]
pub async fn steer(window: Window, state: State<'_, DesktopState>, message: String) -> Result<()> {
    state.session(window.label())?.read().await.steer(message);
    Ok(())
}

#[tauri::command]
pub async fn follow_up(
    window: Window,
    state: State<'_, DesktopState>,
    message: String,
) -> Result<()> {
    state
        .session(window.label())?
        .read()
        .await
        .follow_up(message);
    Ok(())
}

#[tauri::command]
pub async fn abort(window: Window, state: State<'_, DesktopState>) -> Result<Vec<String>> {
    state.cancel_summary(window.label());
    // The queued messages not delivered go back to the composer.
    Ok(state
        .session(window.label())?
        .read()
        .await
        .abort()
        .undelivered)
}

/// Takes a queued steer or follow-up back before it is delivered (to edit or remove it):
/// whether it was still queued.
#[tauri::command]
pub async fn unqueue(
    window: Window,
    state: State<'_, DesktopState>,
    follow_up: bool,
    text: String,
) -> Result<bool> {
    Ok(state
        .session(window.label())?
        .read()
        .await
        .unqueue(follow_up, &text))
}

/// Sends an edited user message as a sibling branch of `node_id`.
#[tauri::command]
pub async fn edit_message(
    window: Window,
    state: State<'_, DesktopState>,
    node_id: String,
    message: String,
) -> Result<()> {
    let session = state.session(window.label())?;
    let live = session.read_owned().await;
    blocking(move || live.edit_message(&node_id, message).map(drop)).await??;
    Ok(())
}

/// Asks again for the answer `node_id` (`None`: the branch's last answer); a sibling answer.
#[tauri::command]
pub async fn regenerate(
    window: Window,
    state: State<'_, DesktopState>,
    node_id: Option<String>,
) -> Result<()> {
    let session = state.session(window.label())?;
    let live = session.read_owned().await;
    blocking(move || live.regenerate_at(node_id.as_deref()).map(drop)).await??;
    Ok(())
}

/// Entries of the branch shown just before `before` (the chat scrolled back past its view).
#[tauri::command]
pub async fn earlier_entries(
    window: Window,
    state: State<'_, DesktopState>,
    before: String,
    count: usize,
) -> Result<BranchPage> {
    with_session(&state, &window, move |s| s.earlier_entries(&before, count)).await
}

#[tauri::command]
pub async fn open_branch(
    window: Window,
    state: State<'_, DesktopState>,
    node_id: String,
) -> Result<SessionView> {
    with_session(&state, &window, move |s| {
        s.navigate(&node_id, NavigateTo::NewestLeaf)?;
        s.view()
    })
    .await
}

#[tauri::command]
pub async fn set_model(
    window: Window,
    state: State<'_, DesktopState>,
    provider: String,
    model: String,
) -> Result<SessionState> {
    let arbor = state.app()?;
    let session = state.session(window.label())?;
    with_session_mut(session, move |s| {
        let selection = arbor.select(&ModelRequest {
            provider: Some(provider),
            model: Some(model),
            ..ModelRequest::default()
        })?;
        s.set_model(selection)?;
        Ok(s.session_state())
    })
    .await
}

#[tauri::command]
pub async fn set_thinking_level(
    window: Window,
    state: State<'_, DesktopState>,
    level: ThinkingLevel,
) -> Result<SessionState> {
    let session = state.session(window.label())?;
    with_session_mut(session, move |s| {
        s.set_thinking_level(level)?;
        Ok(s.session_state())
    })
    .await
}

/// Async with the work on a blocking thread: a key status may need the keychain (D-Bus), which
/// must not hold the main thread.
#[tauri::command]
pub async fn list_models(state: State<'_, DesktopState>) -> Result<Vec<ModelGroup>> {
    let arbor = state.app()?;
    Ok(blocking(move || arbor.model_groups()).await?)
}

#[tauri::command]
pub async fn list_sessions(
    window: Window,
    state: State<'_, DesktopState>,
) -> Result<Vec<SessionListItem>> {
    let root = PathBuf::from(state.project(window.label())?.path);
    let arbor = state.app()?;
    Ok(blocking(move || arbor.project_sessions(&root)).await??)
}

#[tauri::command]
pub async fn new_session(window: Window, state: State<'_, DesktopState>) -> Result<SessionView> {
    with_session(&state, &window, |s| {
        s.new_session()?;
        s.view()
    })
    .await
}

/// Makes a stored session current (at `node_id` when given, e.g. a search hit).
#[tauri::command]
pub async fn switch_session(
    window: Window,
    state: State<'_, DesktopState>,
    session_id: String,
    node_id: Option<String>,
) -> Result<SessionView> {
    with_session(&state, &window, move |s| {
        s.switch_session(&session_id)?;
        if let Some(node) = node_id {
            s.navigate(&node, NavigateTo::Exactly)?;
        }
        s.view()
    })
    .await
}

#[tauri::command]
pub async fn rename_session(
    state: State<'_, DesktopState>,
    session_id: String,
    title: String,
) -> Result<()> {
    let arbor = state.app()?;
    Ok(blocking(move || arbor.rename_session(&session_id, &title)).await??)
}

#[tauri::command]
pub async fn delete_session(
    window: Window,
    state: State<'_, DesktopState>,
    session_id: String,
) -> Result<()> {
    let arbor = state.app()?;
    let session = state.session(window.label()).ok();
    if let Some(session) = &session {
        let live = session.read().await;
        let current = live.session_id();
        if current.as_deref() == Some(session_id.as_str()) {
            // Deleting the open chat: start a new one in its place first.
            live.new_session()?;
        }
    }
    Ok(blocking(move || arbor.delete_session(&session_id)).await??)
}

#[tauri::command]
pub async fn search_sessions(
    window: Window,
    state: State<'_, DesktopState>,
    query: String,
) -> Result<Vec<SearchHit>> {
    let root = PathBuf::from(state.project(window.label())?.path);
    let arbor = state.app()?;
    Ok(blocking(move || arbor.search(&root, &query)).await??)
}
