//! [`PermissionGuard`]: one project's policy as the tools and the gate share it — the tools
//! enforce it themselves (a file tool refuses what the policy does not allow and the user did
//! not grant; `bash` asks it how to confine a command), so a tool run without the gate still
//! fails closed.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, RwLock};

use arbor_llm::JsonObject;
use arbor_protocol::views::permissions::{PermissionMode, RuleEffect, SandboxBackend};

use crate::paths::resolve;
use crate::policy::{Action, Escalation, Evaluation, Policy};
use crate::rule::FileAccess;

/// Why a tool call may not do what it tried: the model reads it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Refusal(pub String);

impl Refusal {
    pub fn code(&self) -> arbor_error_code::ErrorCode {
        arbor_error_code::ErrorCode::PermissionDenied
    }
}

/// How a command the policy allowed will run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confinement {
    /// False only in `full` mode or for a granted `unsandboxed` escalation.
    pub sandboxed: bool,
    /// Whether the project folder is writable (not in `read-only`).
    pub project_writable: bool,
    pub network: bool,
    /// Extra folders a granted escalation made writable (resolved).
    pub extra_writable: Vec<PathBuf>,
}

impl Confinement {
    /// For the dialog: "sandboxed: writes the project only, no network", or "not sandboxed".
    pub fn describe(&self) -> String {
        if !self.sandboxed {
            return "not sandboxed: the command can do anything you can".to_owned();
        }
        let mut writes = Vec::new();
        if self.project_writable {
            writes.push("the project".to_owned());
        }
        writes.extend(self.extra_writable.iter().map(|p| p.display().to_string()));
        let writes = if writes.is_empty() {
            "nothing writable but a private temporary folder".to_owned()
        } else {
            format!(
                "writes {} and a private temporary folder only",
                writes.join(", ")
            )
        };
        let network = if self.network {
            "with network"
        } else {
            "no network"
        };
        format!("sandboxed: {writes}, {network}")
    }
}

/// One project's permissions, shared by its session's tools and gate.
#[derive(Debug)]
pub struct PermissionGuard {
    policy: RwLock<Policy>,
    /// Tool calls the user said yes to (by call id), until the call ends.
    grants: Mutex<HashSet<String>>,
    /// Actions allowed for the rest of the session ("Allow for this session").
    session_allowed: Mutex<HashSet<String>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl PermissionGuard {
    pub fn new(policy: Policy) -> Self {
        Self {
            policy: RwLock::new(policy),
            grants: Mutex::default(),
            session_allowed: Mutex::default(),
        }
    }

    pub fn policy(&self) -> Policy {
        self.policy
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    pub fn update(&self, change: impl FnOnce(&mut Policy)) {
        let mut policy = self
            .policy
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        change(&mut policy);
    }

    pub fn mode(&self) -> PermissionMode {
        self.policy().mode
    }

    /// What a call of `tool` with `arguments` would do.
    pub fn action_for(&self, tool: &str, arguments: &JsonObject) -> Action {
        let project = self.policy().project;
        let text = |name: &str| arguments.get(name).and_then(|v| v.as_str());
        let file = |access, default: Option<&str>| match text("path").or(default) {
            Some(raw) => Action::File {
                access,
                path: resolve(&project, raw),
            },
            None => Action::Tool {
                name: tool.to_owned(),
            },
        };
        match tool {
            "read" => file(FileAccess::Read, None),
            "ls" | "grep" | "find" => file(FileAccess::Read, Some(".")),
            "write" => file(FileAccess::Write, None),
            "edit" => file(FileAccess::Edit, None),
            "bash" => Action::Bash {
                command: text("command").unwrap_or_default().to_owned(),
                escalation: arguments.get("escalate").filter(|v| !v.is_null()).map(|v| {
                    serde_json::from_value(v.clone()).unwrap_or_else(|_| Escalation {
                        reason: "(an escalation the model wrote wrongly)".into(),
                        unsandboxed: true,
                        network: true,
                        write_paths: Vec::new(),
                    })
                }),
            },
            other => Action::Tool {
                name: other.to_owned(),
            },
        }
    }

    pub fn evaluate(&self, action: &Action) -> Evaluation {
        self.policy
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .evaluate(action)
    }

    /// The user said yes to the call `call_id`.
    pub fn grant(&self, call_id: &str) {
        lock(&self.grants).insert(call_id.to_owned());
    }

    /// The call `call_id` is over: its grant goes.
    pub fn end_call(&self, call_id: &str) {
        lock(&self.grants).remove(call_id);
    }

    fn granted(&self, call_id: &str) -> bool {
        lock(&self.grants).contains(call_id)
    }

    /// Remembers `action` as allowed for the rest of the session.
    pub fn allow_for_session(&self, action: &Action) {
        lock(&self.session_allowed).insert(fingerprint(action));
    }

    pub fn allowed_for_session(&self, action: &Action) -> bool {
        lock(&self.session_allowed).contains(&fingerprint(action))
    }

    /// The secret paths (walks skip what lies in them).
    pub fn hidden_paths(&self) -> Vec<PathBuf> {
        self.policy().secret_paths
    }

    /// `path` with its links followed, when the call `call_id` may `access` it.
    pub fn check_path(
        &self,
        call_id: &str,
        access: FileAccess,
        path: &Path,
    ) -> Result<PathBuf, Refusal> {
        let path = crate::paths::resolve_existing(path);
        let evaluation = self.evaluate(&Action::File {
            access,
            path: path.clone(),
        });
        permitted(&evaluation, self.granted(call_id))?;
        Ok(path)
    }

    /// How the `bash` call `call_id` runs `command`, or why it may not.
    pub fn confinement(
        &self,
        call_id: &str,
        command: &str,
        escalation: Option<&Escalation>,
    ) -> Result<Confinement, Refusal> {
        let policy = self.policy();
        let evaluation = policy.evaluate(&Action::Bash {
            command: command.to_owned(),
            escalation: escalation.cloned(),
        });
        let granted = self.granted(call_id);
        permitted(&evaluation, granted)?;
        // Only a granted escalation widens the sandbox; an allow rule never does.
        Ok(confine(&policy, escalation.filter(|_| granted)))
    }

    /// How a command would run if allowed (for the dialog, before any grant).
    pub fn planned_confinement(&self, escalation: Option<&Escalation>) -> Confinement {
        confine(&self.policy(), escalation)
    }
}

/// `Ok` when the verdict allows the call, or asks and the user granted it; else the refusal
/// the model reads.
fn permitted(evaluation: &Evaluation, granted: bool) -> Result<(), Refusal> {
    match evaluation.verdict {
        RuleEffect::Allow => Ok(()),
        RuleEffect::Ask if granted => Ok(()),
        RuleEffect::Ask => Err(Refusal(format!(
            "Not allowed without the user's permission: {}.",
            evaluation.summary
        ))),
        RuleEffect::Deny => Err(Refusal(format!("Refused: {}.", evaluation.summary))),
    }
}

/// How a command runs under `policy` with `escalation` (granted, or planned for the dialog):
/// unconfined in `full`, for an `unsandboxed` escalation, or with no sandbox on the machine
/// (where every command asked first); else sandboxed with the project writable unless
/// read-only, and what the escalation adds.
fn confine(policy: &Policy, escalation: Option<&Escalation>) -> Confinement {
    if policy.mode == PermissionMode::Full
        || policy.sandbox.get() == SandboxBackend::None
        || escalation.is_some_and(|e| e.unsandboxed)
    {
        return Confinement {
            sandboxed: false,
            project_writable: true,
            network: true,
            extra_writable: Vec::new(),
        };
    }
    Confinement {
        sandboxed: true,
        project_writable: policy.mode != PermissionMode::ReadOnly,
        network: escalation.is_some_and(|e| e.network),
        extra_writable: escalation
            .map(|e| {
                e.write_paths
                    .iter()
                    .map(|raw| resolve(&policy.project, raw))
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// Two calls that would do exactly the same thing have the same fingerprint.
fn fingerprint(action: &Action) -> String {
    format!("{action:?}")
}
