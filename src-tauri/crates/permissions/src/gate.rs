//! [`PermissionGate`]: the hook before every tool call. It judges the call with the project's
//! policy; a call that needs the user's yes waits on a one-shot channel keyed by request id
//! (`permission_requested` → `answer_permission`) until a front end answers, the run is
//! aborted (denied), or — where nobody can answer (`-p`, JSON) — it is refused at once with a
//! result that says which mode or rule refused it and what would allow it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use arbor_agent::{ToolCallDecision, ToolCallHook};
use arbor_llm::{JsonObject, ToolCall, ToolResultMessage};
use arbor_protocol::views::permissions::{
    PermissionDecision, PermissionRequest, RuleEffect, RuleSource, RunConfinement,
};
use arbor_protocol::CodingEvent;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::guard::PermissionGuard;
use crate::policy::{Action, Evaluation, SourcedRule};
use crate::rule::Rule;

/// Where `permission_requested` and `permission_resolved` go.
pub type EventSink = Arc<dyn Fn(&CodingEvent) + Send + Sync>;
/// Makes the diff a `write` or `edit` call would apply, for the dialog.
pub type DiffPreview = Arc<dyn Fn(&str, &JsonObject) -> Option<String> + Send + Sync>;
/// Saves a rule the user chose "Always allow" for (as a project rule).
pub type SaveRule = Arc<dyn Fn(&str) + Send + Sync>;

/// An answer for a request nobody is waiting for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no permission request `{0}` is waiting (it was answered, or its run ended)")]
pub struct UnknownRequest(pub String);

impl UnknownRequest {
    pub fn code(&self) -> arbor_error_code::ErrorCode {
        arbor_error_code::ErrorCode::NotFound
    }
}

struct Answer {
    decision: PermissionDecision,
    reason: Option<String>,
}

#[derive(Default)]
struct State {
    sink: Option<EventSink>,
    preview: Option<DiffPreview>,
    save_rule: Option<SaveRule>,
    waiting: HashMap<String, (oneshot::Sender<Answer>, PermissionRequest)>,
}

/// The permission hook of one live session.
pub struct PermissionGate {
    guard: Arc<PermissionGuard>,
    answerable: AtomicBool,
    next_id: AtomicU64,
    state: Mutex<State>,
}

impl PermissionGate {
    pub fn new(guard: Arc<PermissionGuard>) -> Self {
        Self {
            guard,
            answerable: AtomicBool::new(false),
            next_id: AtomicU64::new(1),
            state: Mutex::default(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn guard(&self) -> &Arc<PermissionGuard> {
        &self.guard
    }

    /// Whether a person can answer (the desktop, the interactive CLI, an RPC client).
    pub fn set_answerable(&self, answerable: bool) {
        self.answerable.store(answerable, Ordering::Relaxed);
    }

    pub fn set_sink(&self, sink: Option<EventSink>) {
        self.lock().sink = sink;
    }

    pub fn set_diff_preview(&self, preview: Option<DiffPreview>) {
        self.lock().preview = preview;
    }

    pub fn set_save_rule(&self, save: Option<SaveRule>) {
        self.lock().save_rule = save;
    }

    fn emit(&self, event: &CodingEvent) {
        let sink = self.lock().sink.clone();
        if let Some(sink) = sink {
            sink(event);
        }
    }

    /// Answers the request `request_id`.
    pub fn answer(
        &self,
        request_id: &str,
        decision: PermissionDecision,
        reason: Option<String>,
    ) -> Result<(), UnknownRequest> {
        let (sender, _) = self
            .lock()
            .waiting
            .remove(request_id)
            .ok_or_else(|| UnknownRequest(request_id.to_owned()))?;
        // A request whose call has just been aborted: nobody listens any more, which is fine.
        let _ = sender.send(Answer { decision, reason });
        Ok(())
    }

    /// Requests waiting for an answer.
    pub fn waiting(&self) -> Vec<String> {
        self.lock().waiting.keys().cloned().collect()
    }

    /// The requests waiting for an answer, in full (shown again when a window shows their
    /// session again).
    pub fn waiting_requests(&self) -> Vec<PermissionRequest> {
        self.lock()
            .waiting
            .values()
            .map(|(_, r)| r.clone())
            .collect()
    }

    /// Sends every waiting request to the sink again as `permission_requested`.
    pub fn repeat_waiting(&self) {
        for request in self.waiting_requests() {
            self.emit(&CodingEvent::PermissionRequested { request });
        }
    }

    fn request(
        &self,
        call: &ToolCall,
        action: &Action,
        evaluation: &Evaluation,
    ) -> PermissionRequest {
        let request_id = format!("perm-{}", self.next_id.fetch_add(1, Ordering::Relaxed));
        let (command, target, confinement, reason) = match action {
            Action::Bash {
                command,
                escalation,
            } => {
                let planned = self.guard.planned_confinement(escalation.as_ref());
                (
                    Some(command.clone()),
                    None,
                    Some(RunConfinement {
                        sandboxed: planned.sandboxed,
                        text: planned.describe(),
                    }),
                    escalation.as_ref().map(|e| e.reason.clone()),
                )
            }
            Action::File { path, .. } => (None, Some(path.display().to_string()), None, None),
            Action::Tool { .. } => (None, None, None, None),
        };
        let preview = self.lock().preview.clone();
        let diff = match action {
            Action::File { access, .. } if access.writes() => {
                preview.and_then(|preview| preview(&call.name, &call.arguments))
            }
            _ => None,
        };
        let arguments = matches!(action, Action::Tool { .. })
            .then(|| serde_json::to_string_pretty(&call.arguments).unwrap_or_default());
        PermissionRequest {
            request_id,
            arguments,
            tool_call_id: call.id.clone(),
            tool_name: call.name.clone(),
            mode: self.guard.mode(),
            summary: evaluation.summary.clone(),
            command,
            target,
            parts: evaluation.parts.clone(),
            confinement,
            reason,
            diff,
            always_rule: evaluation.always_rule.clone(),
        }
    }

    /// What the model reads when nobody could answer.
    fn unanswerable(&self, evaluation: &Evaluation) -> String {
        let mode = self.guard.mode().as_str();
        let allow = match &evaluation.always_rule {
            Some(rule) => format!("`--allow '{rule}'` (or `--permission-mode full`)"),
            None => "`--permission-mode full`".to_owned(),
        };
        format!(
            "Refused without asking: {}. This needs the user's permission in the `{mode}` \
             mode, and nobody can answer here (print or JSON mode). The user can allow it \
             with {allow}; otherwise do it another way.",
            evaluation.summary
        )
    }

    async fn ask(
        &self,
        call: &ToolCall,
        action: &Action,
        evaluation: &Evaluation,
        cancel: &CancellationToken,
    ) -> ToolCallDecision {
        let request = self.request(call, action, evaluation);
        let request_id = request.request_id.clone();
        let (sender, receiver) = oneshot::channel();
        self.lock()
            .waiting
            .insert(request_id.clone(), (sender, request.clone()));
        self.emit(&CodingEvent::PermissionRequested {
            request: request.clone(),
        });
        let answer = tokio::select! {
            answer = receiver => answer.ok(),
            () = cancel.cancelled() => None,
        };
        self.lock().waiting.remove(&request_id);
        let Answer { decision, reason } = answer.unwrap_or(Answer {
            decision: PermissionDecision::Deny,
            reason: Some("the run was stopped".into()),
        });
        self.emit(&CodingEvent::PermissionResolved {
            request_id,
            decision,
        });
        match decision {
            PermissionDecision::Deny => {
                let reason = reason
                    .filter(|r| !r.trim().is_empty())
                    .map(|r| format!(" Their reason: {}", r.trim()))
                    .unwrap_or_default();
                ToolCallDecision::Block {
                    reason: format!("the user denied this ({}).{reason}", evaluation.summary),
                }
            }
            PermissionDecision::AllowOnce => {
                self.guard.grant(&call.id);
                ToolCallDecision::Allow
            }
            PermissionDecision::AllowSession => {
                self.guard.grant(&call.id);
                self.guard.allow_for_session(action);
                // The rule it stands for shows in the settings as this session's.
                if let Some(rule) = request
                    .always_rule
                    .as_deref()
                    .and_then(|r| Rule::parse(r).ok())
                {
                    self.guard.update(|policy| {
                        policy.rules.push(SourcedRule {
                            rule,
                            effect: RuleEffect::Allow,
                            source: RuleSource::Session,
                        })
                    });
                }
                ToolCallDecision::Allow
            }
            PermissionDecision::AllowAlways => {
                self.guard.grant(&call.id);
                self.guard.allow_for_session(action);
                if let Some(rule) = &request.always_rule {
                    let save = self.lock().save_rule.clone();
                    if let Some(save) = save {
                        save(rule);
                    }
                }
                ToolCallDecision::Allow
            }
        }
    }
}

#[async_trait::async_trait]
impl ToolCallHook for PermissionGate {
    async fn before_tool_call(
        &self,
        call: &ToolCall,
        cancel: &CancellationToken,
    ) -> ToolCallDecision {
        let action = self.guard.action_for(&call.name, &call.arguments);
        let evaluation = self.guard.evaluate(&action);
        match evaluation.verdict {
            RuleEffect::Allow => ToolCallDecision::Allow,
            RuleEffect::Deny => ToolCallDecision::Block {
                reason: format!("{}.", evaluation.summary),
            },
            RuleEffect::Ask if self.guard.allowed_for_session(&action) => {
                self.guard.grant(&call.id);
                ToolCallDecision::Allow
            }
            RuleEffect::Ask if !self.answerable.load(Ordering::Relaxed) => {
                ToolCallDecision::Block {
                    reason: self.unanswerable(&evaluation),
                }
            }
            RuleEffect::Ask => self.ask(call, &action, &evaluation, cancel).await,
        }
    }

    async fn after_tool_call(
        &self,
        call: &ToolCall,
        result: ToolResultMessage,
    ) -> ToolResultMessage {
        self.guard.end_call(&call.id);
        result
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use arbor_protocol::views::permissions::{PermissionMode, SandboxBackend};
    use serde_json::json;

    use super::*;
    use crate::policy::Policy;

    fn gate() -> (Arc<PermissionGate>, Arc<Mutex<Vec<CodingEvent>>>) {
        let guard = Arc::new(PermissionGuard::new(Policy {
            mode: PermissionMode::ReadOnly,
            project: PathBuf::from("/work/p"),
            rules: Vec::new(),
            secret_paths: Vec::new(),
            sandbox: crate::policy::SandboxProbe::fixed(SandboxBackend::Bubblewrap),
        }));
        let gate = Arc::new(PermissionGate::new(guard));
        let events: Arc<Mutex<Vec<CodingEvent>>> = Arc::default();
        let seen = events.clone();
        gate.set_sink(Some(Arc::new(move |event: &CodingEvent| {
            seen.lock().unwrap().push(event.clone())
        })));
        (gate, events)
    }

    fn bash(id: &str, command: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: "bash".into(),
            arguments: json!({"command": command}).as_object().unwrap().clone(),
            thought_signature: None,
            item_id: None,
        }
    }

    async fn requested(events: &Arc<Mutex<Vec<CodingEvent>>>) -> PermissionRequest {
        loop {
            let found = events.lock().unwrap().iter().rev().find_map(|e| match e {
                CodingEvent::PermissionRequested { request } => Some(request.clone()),
                _ => None,
            });
            if let Some(request) = found {
                return request;
            }
            tokio::task::yield_now().await;
        }
    }

    #[tokio::test]
    async fn nobody_to_answer_refuses_at_once_with_the_way_out() {
        let (gate, events) = gate();
        let decision = gate
            .before_tool_call(&bash("c1", "ls -la"), &CancellationToken::new())
            .await;
        let ToolCallDecision::Block { reason } = decision else {
            panic!("{decision:?}");
        };
        assert!(reason.contains("--allow 'Bash(ls -la)'"), "{reason}");
        assert!(reason.contains("`read-only` mode"), "{reason}");
        assert!(events.lock().unwrap().is_empty(), "nothing asked");
    }

    #[tokio::test]
    async fn allow_for_the_session_covers_the_same_call_again_and_shows_as_a_session_rule() {
        let (gate, events) = gate();
        gate.set_answerable(true);
        let waiting = {
            let gate = gate.clone();
            tokio::spawn(async move {
                gate.before_tool_call(&bash("c1", "ls -la"), &CancellationToken::new())
                    .await
            })
        };
        let request = requested(&events).await;
        assert_eq!(request.command.as_deref(), Some("ls -la"));
        assert_eq!(request.always_rule.as_deref(), Some("Bash(ls -la)"));
        gate.answer(&request.request_id, PermissionDecision::AllowSession, None)
            .unwrap();
        assert_eq!(waiting.await.unwrap(), ToolCallDecision::Allow);
        assert!(gate
            .answer(&request.request_id, PermissionDecision::Deny, None)
            .is_err());
        // The same command again: no question.
        let again = gate
            .before_tool_call(&bash("c2", "ls -la"), &CancellationToken::new())
            .await;
        assert_eq!(again, ToolCallDecision::Allow);
        let rules = gate.guard().policy().rules;
        assert!(rules
            .iter()
            .any(|r| r.source == RuleSource::Session && r.rule.to_string() == "Bash(ls -la)"));
    }

    #[tokio::test]
    async fn an_aborted_run_denies_what_it_waited_for() {
        let (gate, events) = gate();
        gate.set_answerable(true);
        let cancel = CancellationToken::new();
        let waiting = {
            let (gate, cancel) = (gate.clone(), cancel.clone());
            tokio::spawn(async move { gate.before_tool_call(&bash("c1", "pwd"), &cancel).await })
        };
        let request = requested(&events).await;
        cancel.cancel();
        assert!(matches!(
            waiting.await.unwrap(),
            ToolCallDecision::Block { .. }
        ));
        let resolved = events.lock().unwrap().iter().any(|e| {
            matches!(e, CodingEvent::PermissionResolved { request_id, decision: PermissionDecision::Deny } if *request_id == request.request_id)
        });
        assert!(resolved, "the dialog is told the request is over");
        assert!(gate.waiting().is_empty());
    }
}
