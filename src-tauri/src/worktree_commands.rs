//! Tauri commands for a project's worktrees, each a few lines over `ArborApp`: list, create,
//! the setup command (approve, run with its output over a `Channel`), archive (with what it
//! would lose first) and restore, the review pane (what a worktree changed, discard a file or
//! hunk), commit, merge and push.

use std::path::PathBuf;
use std::sync::Arc;

use arbor_app::views::worktrees::{
    ArchivePreview, CommitResult, MergeOutcome, PushResult, SetupOutcome, WorktreeCreated,
    WorktreeFork, WorktreeReview, WorktreeSetup, WorktreeView,
};
use arbor_app::{blocking, AppError, ArborApp};
use tauri::ipc::Channel;
use tauri::{State, Window};

use crate::error::CommandError;
use crate::state::DesktopState;

type Result<T> = std::result::Result<T, CommandError>;

/// Runs `work` with the app and the window's project root, off the async runtime's threads.
async fn with_project<R: Send + 'static>(
    window: &Window,
    state: &State<'_, DesktopState>,
    work: impl FnOnce(&ArborApp, PathBuf) -> std::result::Result<R, AppError> + Send + 'static,
) -> Result<R> {
    let root = PathBuf::from(state.project(window.label())?.path);
    let arbor: Arc<ArborApp> = state.app()?;
    Ok(blocking(move || work(&arbor, root)).await??)
}

#[tauri::command]
pub async fn list_worktrees(
    window: Window,
    state: State<'_, DesktopState>,
) -> Result<Vec<WorktreeView>> {
    with_project(&window, &state, |app, root| app.worktrees(&root)).await
}

#[tauri::command]
pub async fn create_worktree(
    window: Window,
    state: State<'_, DesktopState>,
    name: Option<String>,
    base: Option<String>,
) -> Result<WorktreeCreated> {
    with_project(&window, &state, move |app, root| {
        app.create_worktree(&root, name.as_deref(), base.as_deref())
    })
    .await
}

#[tauri::command]
pub async fn approve_worktree_setup(
    window: Window,
    state: State<'_, DesktopState>,
    hash: String,
) -> Result<WorktreeSetup> {
    with_project(&window, &state, move |app, root| {
        app.approve_worktree_setup(&root, &hash)
    })
    .await
}

/// Runs the approved setup command in the worktree `name`, each output line sent to `output`.
#[tauri::command]
pub async fn run_worktree_setup(
    window: Window,
    state: State<'_, DesktopState>,
    name: String,
    output: Channel<String>,
) -> Result<SetupOutcome> {
    with_project(&window, &state, move |app, root| {
        app.run_worktree_setup(&root, &name, &mut |line| {
            let _ = output.send(line.to_owned());
        })
    })
    .await
}

#[tauri::command]
pub async fn archive_preview(
    window: Window,
    state: State<'_, DesktopState>,
    name: String,
) -> Result<ArchivePreview> {
    with_project(&window, &state, move |app, root| {
        app.archive_preview(&root, &name)
    })
    .await
}

/// Archives the worktree (a snapshot first); refused while a session of it runs here.
#[tauri::command]
pub async fn archive_worktree(
    window: Window,
    state: State<'_, DesktopState>,
    name: String,
) -> Result<WorktreeView> {
    let in_use = state.windows().get(window.label()).is_some_and(|w| {
        w.shown_worktree.as_deref() == Some(name.as_str())
            || w.background
                .values()
                .any(|b| b.worktree.as_deref() == Some(name.as_str()))
    });
    if in_use {
        return Err(AppError::Unsupported(format!(
            "a chat of this window works in `{name}`: open another chat first, then archive it"
        ))
        .into());
    }
    with_project(&window, &state, move |app, root| {
        app.archive_worktree(&root, &name)
    })
    .await
}

#[tauri::command]
pub async fn restore_worktree(
    window: Window,
    state: State<'_, DesktopState>,
    name: String,
) -> Result<WorktreeView> {
    with_project(&window, &state, move |app, root| {
        app.restore_worktree(&root, &name)
    })
    .await
}

#[tauri::command]
pub async fn review_worktree(
    window: Window,
    state: State<'_, DesktopState>,
    name: String,
) -> Result<WorktreeReview> {
    with_project(&window, &state, move |app, root| {
        app.review_worktree(&root, &name)
    })
    .await
}

/// Takes back one uncommitted hunk (`hunk`: its id from the review) or the whole file; answers
/// the review.
#[tauri::command]
pub async fn discard_change(
    window: Window,
    state: State<'_, DesktopState>,
    name: String,
    path: String,
    hunk: Option<String>,
) -> Result<WorktreeReview> {
    with_project(&window, &state, move |app, root| {
        app.discard_in_worktree(&root, &name, &path, hunk.as_deref())
    })
    .await
}

#[tauri::command]
pub async fn commit_worktree(
    window: Window,
    state: State<'_, DesktopState>,
    name: String,
    message: String,
) -> Result<CommitResult> {
    with_project(&window, &state, move |app, root| {
        app.commit_worktree(&root, &name, &message)
    })
    .await
}

#[tauri::command]
pub async fn merge_worktree(
    window: Window,
    state: State<'_, DesktopState>,
    name: String,
) -> Result<MergeOutcome> {
    with_project(&window, &state, move |app, root| {
        app.merge_worktree(&root, &name)
    })
    .await
}

#[tauri::command]
pub async fn push_worktree(
    window: Window,
    state: State<'_, DesktopState>,
    name: String,
) -> Result<PushResult> {
    with_project(&window, &state, move |app, root| {
        app.push_worktree(&root, &name)
    })
    .await
}

/// "Continue in a new worktree" on a tree node of the shown session: the worktree at that
/// node's files and a new session holding its branch (the window then opens it).
#[tauri::command]
pub async fn fork_into_worktree(
    window: Window,
    state: State<'_, DesktopState>,
    node_id: String,
    name: Option<String>,
) -> Result<WorktreeFork> {
    let session_id = {
        let session = state.session(window.label())?;
        let live = session.read().await;
        live.session_id().ok_or(AppError::NotStored)?
    };
    with_project(&window, &state, move |app, root| {
        app.fork_into_worktree(&root, &session_id, &node_id, name.as_deref())
    })
    .await
}
