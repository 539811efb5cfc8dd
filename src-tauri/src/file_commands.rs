//! The project's files in a window: the composer's `@` finder, the files panel, its preview and
//! a mentioned file attached to a message — each on the window's live session, which keeps the
//! finder's index warm and the same walls as its tools (the project only, never Arbor's data or
//! a secret path).

use arbor_app::views::attachments::DocumentAttachment;
use arbor_app::views::files::{FileMatch, FilePreview, FolderListing};
use tauri::{State, Window};

use crate::error::CommandError;
use crate::session_commands::with_session;
use crate::state::DesktopState;

type Result<T> = std::result::Result<T, CommandError>;

/// The `@` finder: files matching `query`, best first.
#[tauri::command]
pub async fn find_files(
    window: Window,
    state: State<'_, DesktopState>,
    query: String,
    limit: u32,
) -> Result<Vec<FileMatch>> {
    with_session(&state, &window, move |s| {
        Ok(s.find_files(&query, limit as usize))
    })
    .await
}

/// One folder of the files panel (`""`: the project itself).
#[tauri::command]
pub async fn list_folder(
    window: Window,
    state: State<'_, DesktopState>,
    path: String,
) -> Result<FolderListing> {
    with_session(&state, &window, move |s| s.list_folder(&path)).await
}

/// The files panel's read-only preview of a file.
#[tauri::command]
pub async fn preview_file(
    window: Window,
    state: State<'_, DesktopState>,
    path: String,
) -> Result<FilePreview> {
    with_session(&state, &window, move |s| s.preview_file(&path)).await
}

/// A file mentioned with `@` (or "Mention in chat"), read to go with the message.
#[tauri::command]
pub async fn mention_file(
    window: Window,
    state: State<'_, DesktopState>,
    path: String,
) -> Result<DocumentAttachment> {
    with_session(&state, &window, move |s| s.mention_file(&path)).await
}
