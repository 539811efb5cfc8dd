//! Opening a window's chat on a session, with several sessions of one window running at once:
//! the shown session streams its events into the window's `Channel`; a session that is still
//! running when the user opens another goes on in the background (each its own live session,
//! agent and recorder), and every session of the window reports its activity — running,
//! waiting for the user, done, failed — over the window's activity channel, so the sidebar
//! shows each one's state and a badge for the one that needs the user.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use arbor_app::{blocking, AppError, SessionStart, SessionView};
use arbor_protocol::views::worktrees::{ActivityState, SessionActivity};
use arbor_protocol::{AgentEvent, CodingEvent, SessionEvent};
use tauri::ipc::Channel;
use tauri::{Manager, State, Window};
use tokio::sync::RwLock;

use crate::error::CommandError;
use crate::state::{Background, DesktopState, SharedSession};

type Result<T> = std::result::Result<T, CommandError>;

/// Which session to open.
pub struct Opening {
    /// A stored session; `None`: see `latest`.
    pub session_id: Option<String>,
    /// The worktree it works in (a new session: the worktree to start it in).
    pub worktree: Option<String>,
    /// With no session id: the project's most recent session (`true`) or a new one.
    pub latest: bool,
}

/// Tells the user, through the desktop's notifications, that a chat the window does not show
/// waits for an answer. Only the project's folder name and the worktree's name (a checked
/// name) go into it, never text from the model.
type Notify = Arc<dyn Fn(Option<&str>) + Send + Sync>;

fn notifier(app: tauri::AppHandle, project: &str) -> Notify {
    let project = std::path::Path::new(project)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Arc::new(move |worktree| {
        use tauri_plugin_notification::NotificationExt;
        let body = match worktree {
            Some(name) => format!("A chat in the worktree {name} waits for your answer."),
            None => "A chat waits for your answer.".to_owned(),
        };
        // No notification service (a bare X session): the sidebar's badge still says it.
        let _ = app
            .notification()
            .builder()
            .title(format!("Arbor · {project}"))
            .body(body)
            .show();
    })
}

/// A sink that reports `event`'s activity changes over `channel` (and, for a session in the
/// background, notifies when it comes to wait for the user).
fn activity_sink(
    channel: Option<Channel<SessionActivity>>,
    session_id: Option<String>,
    worktree: Option<String>,
    shown: bool,
    notify: Option<Notify>,
) -> impl Fn(&SessionEvent) + Send + Sync + 'static {
    // The id, and the last state sent: a new session learns its id from its first stored
    // node, after its run started — the state is sent again then, with the id.
    let known = Mutex::new((session_id, None::<ActivityState>));
    move |event| {
        // A run, shown or in the background, frees most of what its stream allocated.
        if matches!(event, SessionEvent::Agent(AgentEvent::AgentEnd { .. })) {
            crate::memory::release_freed_soon();
        }
        let Ok(mut known) = known.lock() else {
            return;
        };
        let mut changed = ActivityState::after(event);
        if let SessionEvent::Coding(CodingEvent::NodeAppended { session_id, .. }) = event {
            if known.0.as_deref() != Some(session_id.as_str()) {
                known.0 = Some(session_id.clone());
                changed = changed.or(known.1);
            }
        }
        if let Some(state) = changed {
            if state == ActivityState::Waiting && known.1 != Some(state) {
                if let Some(notify) = &notify {
                    notify(worktree.as_deref());
                }
            }
            known.1 = Some(state);
            if let Some(channel) = &channel {
                let _ = channel.send(SessionActivity {
                    session_id: known.0.clone(),
                    state,
                    worktree: worktree.clone(),
                    shown,
                });
            }
        }
    }
}

/// Moves the window's shown session out: into the background while it runs, closed otherwise.
async fn put_away(state: &State<'_, DesktopState>, label: &str, notify: Notify) {
    let (previous, worktree, channel) = {
        let mut windows = state.windows();
        let window = windows.entry(label.to_owned()).or_default();
        (
            window.session.take(),
            window.shown_worktree.take(),
            window.activity.clone(),
        )
    };
    let Some(previous) = previous else {
        return;
    };
    let mut live = previous.write().await;
    if !live.is_streaming() {
        live.close().await;
        return;
    }
    let id = live
        .session_id()
        .unwrap_or_else(|| format!("unsaved-{}", std::process::id()));
    live.attach(activity_sink(
        channel,
        Some(id.clone()),
        worktree.clone(),
        false,
        Some(notify),
    ));
    drop(live);
    state
        .windows()
        .entry(label.to_owned())
        .or_default()
        .background
        .insert(
            id,
            Background {
                session: previous,
                worktree,
            },
        );
}

fn show(
    session: &mut arbor_app::LiveSession,
    events: Channel<SessionEvent>,
    activity: Option<Channel<SessionActivity>>,
    worktree: Option<String>,
) {
    let forward = crate::channel::forward(events);
    let report = activity_sink(activity, session.session_id(), worktree, true, None);
    session.attach(move |event| {
        report(event);
        forward(event);
    });
}

/// Opens the window's chat on `opening`, streaming its events into `events`.
pub async fn open(
    window: &Window,
    state: &State<'_, DesktopState>,
    opening: Opening,
    events: Channel<SessionEvent>,
) -> Result<SessionView> {
    let view = open_view(window, state, opening, events).await;
    // Reading a long session allocates its whole branch on the way to the view.
    crate::memory::release_freed_soon();
    view
}

async fn open_view(
    window: &Window,
    state: &State<'_, DesktopState>,
    opening: Opening,
    events: Channel<SessionEvent>,
) -> Result<SessionView> {
    let label = window.label().to_owned();
    let project = state.project(&label)?;
    let arbor = state.app()?;
    let generation = {
        let mut windows = state.windows();
        let window_state = windows.entry(label.clone()).or_default();
        window_state.opening += 1;
        window_state.opening
    };
    let overtaken = |state: &State<'_, DesktopState>| {
        state
            .windows()
            .get(&label)
            .is_none_or(|w| w.opening != generation)
    };
    put_away(
        state,
        &label,
        notifier(window.app_handle().clone(), &project.path),
    )
    .await;
    let activity = state.windows().get(&label).and_then(|w| w.activity.clone());
    // A session still running in the background is shown again as it is.
    let waiting = opening.session_id.as_ref().and_then(|id| {
        state
            .windows()
            .get_mut(&label)
            .and_then(|w| w.background.remove(id))
    });
    if let Some(background) = waiting {
        if overtaken(state) {
            let view = background.session.read().await.view()?;
            if let Some(id) = opening.session_id {
                state
                    .windows()
                    .entry(label)
                    .or_default()
                    .background
                    .insert(id, background);
            }
            return Ok(view);
        }
        let view = {
            let mut live = background.session.write().await;
            show(&mut live, events, activity, background.worktree.clone());
            let view = live.view()?;
            // Its open questions, again: the window asks them now.
            live.repeat_waiting_permission_requests();
            live.repeat_waiting_elicitations();
            view
        };
        let mut windows = state.windows();
        let window_state = windows.entry(label).or_default();
        window_state.session = Some(background.session);
        window_state.shown_worktree = background.worktree;
        return Ok(view);
    }
    let session = blocking(move || {
        let root = PathBuf::from(&project.path);
        // A stored session of a worktree goes on in its worktree.
        let worktree = match (&opening.worktree, &opening.session_id) {
            (Some(name), _) => Some(name.clone()),
            (None, Some(id)) => arbor.session_worktree(id)?,
            (None, None) => None,
        };
        let cwd = match &worktree {
            Some(name) => {
                let found = arbor.worktree(&root, name)?;
                if found.is_archived() {
                    return Err(AppError::WorktreeArchived(name.clone()));
                }
                found.path
            }
            None => root.clone(),
        };
        let config = arbor.project_session_config(&root, &cwd)?;
        let start = match (opening.session_id, opening.latest) {
            (Some(id), _) => SessionStart::Resume(id),
            (None, true) => SessionStart::Latest,
            (None, false) => SessionStart::New,
        };
        let session = arbor.start_session(config, Some(start))?;
        // The window's user answers permission requests and tool proposals in dialogs.
        session.set_permissions_answerable(true);
        if let Ok(toolbox) = session.toolbox() {
            toolbox.set_answerable(true);
        }
        // The composer's `@` answers from a warm index.
        session.warm_file_index();
        Ok::<_, AppError>((session, worktree))
    })
    .await??;
    let (mut session, worktree) = session;
    if overtaken(state) {
        // A later open is the window's chat now; this one's view goes nowhere.
        let view = session.view()?;
        session.close().await;
        return Ok(view);
    }
    show(&mut session, events, activity, worktree.clone());
    let view = session.view()?;
    let session: SharedSession = Arc::new(RwLock::new(session));
    crate::session_commands::watch_other_writers(Arc::downgrade(&session));
    let mut windows = state.windows();
    let window_state = windows.entry(label).or_default();
    window_state.session = Some(session);
    window_state.shown_worktree = worktree;
    Ok(view)
}

/// Opens a stored session, or a new one (in `worktree` when given), keeping a running one
/// going in the background.
#[tauri::command]
pub async fn open_session(
    window: Window,
    state: State<'_, DesktopState>,
    session_id: Option<String>,
    worktree: Option<String>,
    events: Channel<SessionEvent>,
) -> Result<SessionView> {
    let opening = Opening {
        session_id,
        worktree,
        latest: false,
    };
    open(&window, &state, opening, events).await
}

/// Where the window's sessions report their activity from now on.
#[tauri::command]
pub async fn watch_sessions(
    window: Window,
    state: State<'_, DesktopState>,
    events: Channel<SessionActivity>,
) -> Result<()> {
    state
        .windows()
        .entry(window.label().to_owned())
        .or_default()
        .activity = Some(events);
    Ok(())
}

/// The window's sessions running in the background, with their worktrees.
#[tauri::command]
pub async fn background_sessions(
    window: Window,
    state: State<'_, DesktopState>,
) -> Result<Vec<SessionActivity>> {
    let background: Vec<(String, Background)> = state
        .windows()
        .get(window.label())
        .map(|w| {
            w.background
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
        .unwrap_or_default();
    let mut found = Vec::new();
    for (id, entry) in background {
        let live = entry.session.read().await;
        let state = if !live.waiting_permission_requests().is_empty()
            || !live.waiting_elicitations().is_empty()
        {
            ActivityState::Waiting
        } else if live.is_streaming() {
            ActivityState::Running
        } else {
            ActivityState::Done
        };
        found.push(SessionActivity {
            session_id: Some(id),
            state,
            worktree: entry.worktree.clone(),
            shown: false,
        });
    }
    Ok(found)
}
