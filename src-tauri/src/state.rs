//! What the shell keeps per process and per window: the session API's app object, and for each
//! window its project and live session. No agent logic lives here.

use arbor_protocol::ErrorCode;
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard};

use arbor_app::{ArborApp, LiveSession, ProjectInfo};
use arbor_protocol::views::worktrees::SessionActivity;
use tauri::ipc::Channel;
use tokio::sync::RwLock;
use tokio_util::sync::CancellationToken;

use crate::error::CommandError;

/// A window's live session, shared by the commands of that window.
pub type SharedSession = Arc<RwLock<LiveSession>>;

/// A session running in the background of a window.
#[derive(Clone)]
pub struct Background {
    pub session: SharedSession,
    pub worktree: Option<String>,
}

#[derive(Default)]
pub struct WindowState {
    pub project: Option<ProjectInfo>,
    /// The session the window shows.
    pub session: Option<SharedSession>,
    /// The worktree the shown session works in.
    pub shown_worktree: Option<String>,
    /// Sessions still running that the window no longer shows, by session id: they go on,
    /// their activity reported, until they finish or are shown again.
    pub background: HashMap<String, Background>,
    /// Counts the window's session opens: an open overtaken by a later one (the project's
    /// latest chat still loading when the user starts another) does not replace it.
    pub opening: u64,
    /// Where the window's sessions report their activity (`watch_sessions`).
    pub activity: Option<Channel<SessionActivity>>,
    /// Set while the window's clone form runs a clone; storing `true` cancels it.
    pub clone_cancel: Option<Arc<AtomicBool>>,
    /// Set while a summary of a branch left behind is being asked for; Stop cancels it.
    pub summary_cancel: Option<CancellationToken>,
}

impl WindowState {
    /// Every live session of the window: the shown one first, then those in the background.
    pub fn into_sessions(self) -> Vec<SharedSession> {
        self.session
            .into_iter()
            .chain(self.background.into_values().map(|b| b.session))
            .collect()
    }
}

pub struct DesktopState {
    app: Result<Arc<ArborApp>, (ErrorCode, String)>,
    windows: Mutex<HashMap<String, WindowState>>,
    next_window: Mutex<u32>,
}

impl DesktopState {
    /// Opens the data folder; a failure is kept and reported by every command instead of
    /// crashing the app.
    pub fn open() -> Self {
        let app = ArborApp::open(None)
            .map(Arc::new)
            .map_err(|error| (error.code(), error.to_string()));
        Self {
            app,
            windows: Mutex::new(HashMap::new()),
            next_window: Mutex::new(1),
        }
    }

    pub fn app(&self) -> Result<Arc<ArborApp>, CommandError> {
        self.app
            .clone()
            .map_err(|(code, message)| CommandError::Startup { code, message })
    }

    pub fn windows(&self) -> MutexGuard<'_, HashMap<String, WindowState>> {
        self.windows
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn project(&self, window: &str) -> Result<ProjectInfo, CommandError> {
        self.windows()
            .get(window)
            .and_then(|state| state.project.clone())
            .ok_or(CommandError::NoProject)
    }

    pub fn session(&self, window: &str) -> Result<SharedSession, CommandError> {
        self.windows()
            .get(window)
            .and_then(|state| state.session.clone())
            .ok_or(CommandError::NoSession)
    }

    pub fn set_clone_cancel(&self, window: &str, cancel: Option<Arc<AtomicBool>>) {
        self.windows()
            .entry(window.to_owned())
            .or_default()
            .clone_cancel = cancel;
    }

    pub fn clone_cancel(&self, window: &str) -> Option<Arc<AtomicBool>> {
        self.windows()
            .get(window)
            .and_then(|state| state.clone_cancel.clone())
    }

    pub fn set_summary_cancel(&self, window: &str, cancel: Option<CancellationToken>) {
        self.windows()
            .entry(window.to_owned())
            .or_default()
            .summary_cancel = cancel;
    }

    /// Cancels the window's running branch summary, if any.
    pub fn cancel_summary(&self, window: &str) {
        if let Some(cancel) = self
            .windows()
            .get(window)
            .and_then(|state| state.summary_cancel.as_ref())
        {
            cancel.cancel();
        }
    }

    /// The window that has `path` open, if any.
    pub fn window_of(&self, path: &str) -> Option<String> {
        self.windows()
            .iter()
            .find(|(_, state)| state.project.as_ref().is_some_and(|p| p.path == path))
            .map(|(label, _)| label.clone())
    }

    pub fn next_window_label(&self) -> String {
        let mut next = self
            .next_window
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        *next += 1;
        format!("project-{next}")
    }
}
