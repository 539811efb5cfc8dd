//! A live session's permissions: the [`PermissionGuard`] its tools obey and the
//! [`PermissionGate`] before every tool call, what a front end answers and changes, and the
//! rules "Always allow" saves for the project.

use std::path::Path;
use std::sync::{Arc, Mutex};

use arbor_coding::{EventSink, SessionRecorder};
use arbor_permissions::{PermissionGate, PermissionGuard, Rule, SourcedRule};
use arbor_protocol::views::permissions::{
    PermissionDecision, PermissionMode, PermissionsView, RuleEffect, RuleSource,
};
use arbor_protocol::CodingEvent;

use crate::live::LiveSession;
use crate::permissions::{view, PermissionSetup};
use crate::AppError;

/// The guard, the gate, and what the session's permissions were set up from.
pub(crate) struct SessionPermissions {
    guard: Arc<PermissionGuard>,
    gate: Arc<PermissionGate>,
    setup: Mutex<PermissionSetup>,
    sink: Arc<Mutex<Option<EventSink>>>,
}

impl SessionPermissions {
    pub fn new(cwd: &Path, setup: Option<PermissionSetup>) -> Self {
        let setup = setup.unwrap_or_else(|| PermissionSetup {
            policy: arbor_coding::workspace::default_policy(cwd),
            trusted: true,
            origin: None,
            secret_entries: arbor_permissions::paths::DEFAULT_SECRET_PATHS
                .iter()
                .map(|s| s.to_string())
                .collect(),
        });
        let guard = Arc::new(PermissionGuard::new(setup.policy.clone()));
        let gate = Arc::new(PermissionGate::new(guard.clone()));
        // The dialog shows what a write or an edit would change.
        let project = cwd.to_owned();
        gate.set_diff_preview(Some(Arc::new(
            move |tool: &str, arguments: &arbor_llm::JsonObject| {
                arbor_coding::tools::preview::preview_diff(&project, tool, arguments)
            },
        )));
        Self {
            guard,
            gate,
            setup: Mutex::new(setup),
            sink: Arc::default(),
        }
    }

    pub fn guard(&self) -> &Arc<PermissionGuard> {
        &self.guard
    }

    pub fn gate(&self) -> &Arc<PermissionGate> {
        &self.gate
    }

    pub fn set_sink(&self, sink: Option<EventSink>) {
        self.gate.set_sink(sink.clone());
        if let Ok(mut slot) = self.sink.lock() {
            *slot = sink;
        }
    }

    pub(crate) fn emit(&self, event: CodingEvent) {
        let sink = self.sink.lock().ok().and_then(|slot| slot.clone());
        if let Some(sink) = sink {
            sink(&event);
        }
    }

    /// "Always allow" saves its rule for the project in `recorder`'s store, and the rule holds
    /// from now on in this session too.
    pub fn save_rules_in(&self, recorder: &SessionRecorder) {
        let recorder = recorder.clone();
        let guard = self.guard.clone();
        self.gate.set_save_rule(Some(Arc::new(move |text: &str| {
            let Ok(rule) = Rule::parse(text) else {
                return;
            };
            let project = recorder.project();
            // A rule that could not be saved still holds for this session (the session rule
            // the gate keeps); the next session asks again.
            let _ = recorder.with_store(|store| {
                let owner = store.permissions_owner(&project.id)?;
                store.add_permission_rule(&owner, RuleEffect::Allow.as_str(), text)
            });
            guard.update(|policy| {
                policy.rules.push(SourcedRule {
                    rule,
                    effect: RuleEffect::Allow,
                    source: RuleSource::Project,
                })
            });
        })));
    }

    fn view(&self) -> PermissionsView {
        let setup = self.setup.lock().unwrap_or_else(|p| p.into_inner());
        view(&setup, &self.guard.policy())
    }
}

impl LiveSession {
    /// Whether a person can answer permission requests and MCP servers' questions (the
    /// desktop, the interactive CLI, an RPC client). Where nobody can (`-p`, JSON), a call that
    /// needs a yes is refused at once with a result that says what would allow it, and a
    /// server's question is declined.
    pub fn set_permissions_answerable(&self, answerable: bool) {
        self.permissions.gate().set_answerable(answerable);
        self.elicitation.set_answerable(answerable);
    }

    /// Answers a `permission_requested` event.
    pub fn answer_permission(
        &self,
        request_id: &str,
        decision: PermissionDecision,
        reason: Option<String>,
    ) -> Result<(), AppError> {
        Ok(self
            .permissions
            .gate()
            .answer(request_id, decision, reason)?)
    }

    /// The permission requests waiting for an answer, oldest first.
    pub fn waiting_permission_requests(&self) -> Vec<String> {
        let mut waiting = self.permissions.gate().waiting();
        waiting.sort_by_key(|id| {
            id.rsplit('-')
                .next()
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or(u64::MAX)
        });
        waiting
    }

    /// Sends the permission requests still waiting to the stream again (a window that shows
    /// this session again asks them in its dialog).
    pub fn repeat_waiting_permission_requests(&self) {
        self.permissions.gate().repeat_waiting();
    }

    /// The project's mode, rules and sandbox, as this session enforces them.
    pub fn permissions_view(&self) -> PermissionsView {
        self.permissions.view()
    }

    /// Switches the mode (saved for the project when the session is stored).
    /// Choosing a mode ends plan mode: the user said how the session should work now.
    pub fn set_permission_mode(&self, mode: PermissionMode) -> Result<PermissionsView, AppError> {
        self.set_plan_mode(false);
        if let Some(recorder) = &self.recorder {
            let project = recorder.project();
            recorder.with_store(|store| {
                let owner = store.permissions_owner(&project.id)?;
                store.set_permission_mode(&owner, mode.as_str())
            })?;
        }
        let changed = self.permissions.guard().mode() != mode;
        self.permissions.guard().update(|policy| policy.mode = mode);
        if changed {
            self.permissions
                .emit(CodingEvent::PermissionModeChanged { mode });
        }
        Ok(self.permissions_view())
    }

    /// Takes the project's permissions as they now are (after a change in the settings, a
    /// trust, a rule added or removed elsewhere); this session's own rules stay.
    pub fn apply_permission_setup(&self, setup: PermissionSetup) {
        let guard = self.permissions.guard();
        let before = guard.mode();
        let mode = setup.policy.mode;
        guard.update(|policy| {
            let session_rules: Vec<SourcedRule> = policy
                .rules
                .iter()
                .filter(|r| r.source == RuleSource::Session)
                .cloned()
                .collect();
            *policy = setup.policy.clone();
            policy.rules.extend(session_rules);
        });
        if let Ok(mut slot) = self.permissions.setup.lock() {
            *slot = setup;
        }
        // While planning the session stays read-only; the new mode is the one "Build" restores.
        let mode = self.plan_keeps_read_only(mode);
        if before != mode {
            self.permissions
                .emit(CodingEvent::PermissionModeChanged { mode });
        }
    }
}
