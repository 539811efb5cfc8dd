//! A user turn stored beside the request it starts. A front end that shows no tree (`arbor -p`,
//! the terminal chat, `mcp serve`) does not need the user message's node before the request
//! goes out: storing it (the session's first write of a run, about half a millisecond) happens
//! on a thread of its own, followed there by the turn's snapshot. The next node must go under
//! it, so every other use of the recorder's state waits until it is stored
//! ([`UserTurnGate`]); a failure is reported from that thread and stops the run at its next
//! message, as a failed write on the loop does (no tool runs for a call that is not stored).
//! The run's end waits for the thread ([`SessionRecorder::wait_for_snapshot`]), so every event
//! of the turn is sent before `agent_end`. A front end that shows the tree gets each
//! `node_appended` before the next message starts, and stores on the loop.

use std::cell::Cell;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use arbor_store::NewNode;

use super::recorder::{SessionRecorder, SessionsError};
use super::CodingEvent;

thread_local! {
    /// Set on the thread storing a user turn while it stores it: the gate it closed does not
    /// hold it up.
    static STORING_USER_TURN: Cell<bool> = const { Cell::new(false) };
}

/// Closed while a user turn's node is being stored beside its request.
#[derive(Clone, Default)]
pub(crate) struct UserTurnGate(Arc<(Mutex<bool>, Condvar)>);

impl UserTurnGate {
    fn closed(&self) -> MutexGuard<'_, bool> {
        self.0
             .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn close(&self) {
        *self.closed() = true;
    }

    fn open(&self) {
        *self.closed() = false;
        self.0 .1.notify_all();
    }

    /// Waits until no user turn is being stored (at once on the thread storing it).
    pub(crate) fn wait_open(&self) {
        if STORING_USER_TURN.get() {
            return;
        }
        let mut closed = self.closed();
        while *closed {
            closed = self
                .0
                 .1
                .wait(closed)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }
}

impl SessionRecorder {
    /// Whether user turns are stored on a thread beside the request they start (for a front
    /// end that shows no tree; see the module's docs). Off by default.
    pub fn store_user_turns_beside(&self, beside: bool) {
        self.user_turns_beside.store(beside, Ordering::Relaxed);
    }

    /// Starts storing the user message `new` (and then taking its turn's snapshot) on a thread
    /// of its own. `false` when user turns are stored on the caller's thread, an earlier write
    /// failed (the caller reports it), or no thread could be started.
    pub(super) fn store_user_turn_beside(&self, new: &NewNode) -> bool {
        if !self.user_turns_beside.load(Ordering::Relaxed) {
            return false;
        }
        // The previous turn's thread, if any, is done before this one starts.
        self.wait_for_snapshot();
        if self.store_failed().is_some() {
            return false;
        }
        self.user_turn.close();
        let (recorder, new) = (self.clone(), new.clone());
        let spawned = std::thread::Builder::new()
            .name("arbor-user-turn".into())
            .spawn(move || recorder.store_user_turn(new));
        match spawned {
            Ok(handle) => {
                *self.pending_snapshot.lock() = Some(handle);
                true
            }
            Err(_) => {
                self.user_turn.open();
                false
            }
        }
    }

    /// On the user turn's thread: stores `new` and reports it (or the failure) before opening
    /// the gate, so its `node_appended` comes before any later node's; then takes and records
    /// the turn's snapshot.
    fn store_user_turn(&self, new: NewNode) {
        STORING_USER_TURN.set(true);
        let tracker = self.code_tracker();
        let previous = tracker.as_ref().map(|_| self.state_at_leaf());
        let appended = match self.append(new) {
            Ok(node) => {
                self.emit_appended(&node);
                Some(node)
            }
            // Reported when it first failed; the run stops at its next message.
            Err(SessionsError::StoreFailed(_)) => None,
            Err(error) => {
                self.mark_failed(error.to_string());
                None
            }
        };
        STORING_USER_TURN.set(false);
        self.user_turn.open();
        let Some(node) = appended else {
            return;
        };
        match (tracker, previous) {
            (Some(tracker), Some(Ok(previous))) => {
                self.record_turn_snapshot(&tracker, &node.id, previous.as_ref());
            }
            (Some(_), Some(Err(error))) => self.emit(&CodingEvent::SnapshotError {
                message: error.to_string(),
            }),
            _ => {}
        }
    }
}
