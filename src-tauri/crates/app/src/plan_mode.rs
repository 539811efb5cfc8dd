//! Plan mode: the session investigates in the `read-only` permission mode and answers with a
//! plan; leaving it ("Build") puts back the mode the session had, and the front end asks for the
//! implementation.
//!
//! The mode is the session's own, never saved for the project: another window, or this one
//! reopened, works in the project's mode. The instruction goes into the system prompt, not the
//! conversation, so the stored turns stay what the user and the model said.

use std::sync::Mutex;

use arbor_protocol::views::permissions::PermissionMode;
use arbor_protocol::CodingEvent;

use crate::live::LiveSession;

/// What the model is told while the session plans.
pub const PLAN_INSTRUCTIONS: &str = "\n\n# Plan mode\nThe user wants a plan before any change. \
The session is read-only: read and search the project, change nothing. Then answer with the \
plan: what you found, the steps in order (the files and what changes in each), the risks, and \
how the result will be checked. Keep the steps in the `todo` tool too. Do not start the \
implementation: the user will say when to build.";

/// What plan mode put aside, to put back when it ends.
#[derive(Debug, Default)]
pub(crate) struct PlanMode(Mutex<Option<Saved>>);

#[derive(Debug)]
struct Saved {
    mode: PermissionMode,
    system_prompt: String,
}

impl PlanMode {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Saved>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl LiveSession {
    /// Whether the session is in plan mode.
    pub fn plan_mode(&self) -> bool {
        self.plan.lock().is_some()
    }

    /// Enters (`true`) or leaves plan mode; answers whether it is on. Entering switches the
    /// session to `read-only` and tells the model to plan; leaving puts back the mode and the
    /// system prompt it had. Takes effect at the next request (a run in progress included).
    pub fn set_plan_mode(&self, on: bool) -> bool {
        let mut saved = self.plan.lock();
        let guard = self.permissions.guard();
        match (on, saved.is_some()) {
            (true, false) => {
                let system_prompt = self.agent.state().system_prompt;
                *saved = Some(Saved {
                    mode: guard.mode(),
                    system_prompt: system_prompt.clone(),
                });
                self.agent
                    .set_system_prompt(format!("{system_prompt}{PLAN_INSTRUCTIONS}"));
                self.switch_mode(PermissionMode::ReadOnly);
            }
            (false, true) => {
                if let Some(Saved {
                    mode,
                    system_prompt,
                }) = saved.take()
                {
                    self.agent.set_system_prompt(system_prompt);
                    self.switch_mode(mode);
                }
            }
            _ => {}
        }
        saved.is_some()
    }

    /// After the project's permissions were applied anew with `mode`: in plan mode the session
    /// goes back to read-only and `mode` is what leaving restores. Answers the mode in force.
    pub(crate) fn plan_keeps_read_only(&self, mode: PermissionMode) -> PermissionMode {
        let mut saved = self.plan.lock();
        match saved.as_mut() {
            Some(saved) => {
                saved.mode = mode;
                self.permissions
                    .guard()
                    .update(|policy| policy.mode = PermissionMode::ReadOnly);
                PermissionMode::ReadOnly
            }
            None => mode,
        }
    }

    fn switch_mode(&self, mode: PermissionMode) {
        let guard = self.permissions.guard();
        if guard.mode() != mode {
            guard.update(|policy| policy.mode = mode);
            self.permissions
                .emit(CodingEvent::PermissionModeChanged { mode });
        }
    }
}
