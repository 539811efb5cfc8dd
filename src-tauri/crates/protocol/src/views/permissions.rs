//! Permissions: the project's mode, the rules and where each comes from, the sandbox this
//! machine has, and a permission request as the dialog shows it.

use serde::{Deserialize, Serialize};

/// How far the model may reach in a project (per project; shown in its window's header).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "kebab-case")]
pub enum PermissionMode {
    /// Read and search; no writes; a command no allow rule covers asks, allowed ones run
    /// sandboxed with nothing writable but a private temporary folder, without network.
    ReadOnly,
    /// Writes inside the project without asking, outside it asks; commands run sandboxed
    /// (the project and a private temporary folder writable, no network).
    #[default]
    Workspace,
    /// No limits but deny rules; commands run without a sandbox.
    Full,
}

impl PermissionMode {
    pub const ALL: [PermissionMode; 3] = [Self::ReadOnly, Self::Workspace, Self::Full];

    /// `read-only`, `workspace` or `full`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ReadOnly => "read-only",
            Self::Workspace => "workspace",
            Self::Full => "full",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|mode| mode.as_str() == text)
    }
}

/// What a rule does to what it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum RuleEffect {
    Deny,
    Ask,
    Allow,
}

impl RuleEffect {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Deny => "deny",
            Self::Ask => "ask",
            Self::Allow => "allow",
        }
    }
}

/// Where a rule was set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum RuleSource {
    /// The user's settings (every project).
    User,
    /// This project (saved in Arbor's store; "Always allow" saves here).
    Project,
    /// This live session only ("Allow for this session").
    Session,
    /// This run's command line (`--allow`, `--ask`, `--deny`).
    CommandLine,
    /// The project's own `.arbor/permissions.json` (a repository's file: `deny` and `ask`
    /// only — a repository never allows itself anything).
    ProjectFile,
}

/// One rule as settings list it: `Bash(cargo test *)`, `Edit(src/**)`, `Read(~/.config/**)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct PermissionRule {
    pub rule: String,
    pub effect: RuleEffect,
    pub source: RuleSource,
}

/// Rules as a settings file keeps them: one list per effect.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct PermissionLists {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deny: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ask: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<String>,
}

impl PermissionLists {
    pub fn is_empty(&self) -> bool {
        self.deny.is_empty() && self.ask.is_empty() && self.allow.is_empty()
    }

    /// The list of `effect`.
    pub fn list_mut(&mut self, effect: RuleEffect) -> &mut Vec<String> {
        match effect {
            RuleEffect::Deny => &mut self.deny,
            RuleEffect::Ask => &mut self.ask,
            RuleEffect::Allow => &mut self.allow,
        }
    }

    /// Every rule with its effect, deny first.
    pub fn iter(&self) -> impl Iterator<Item = (RuleEffect, &String)> {
        self.deny
            .iter()
            .map(|r| (RuleEffect::Deny, r))
            .chain(self.ask.iter().map(|r| (RuleEffect::Ask, r)))
            .chain(self.allow.iter().map(|r| (RuleEffect::Allow, r)))
    }
}

/// The operating system's confinement for commands on this machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum SandboxBackend {
    /// bubblewrap namespaces plus a seccomp filter: the full protection.
    Bubblewrap,
    /// Reduced protection: Landlock plus seccomp (no user namespaces here).
    Landlock,
    /// macOS: a Seatbelt profile.
    Seatbelt,
    /// No sandbox: every command asks.
    None,
}

/// What the sandbox is on this machine, in words the settings show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct SandboxStatus {
    pub backend: SandboxBackend,
    /// E.g. "bubblewrap 0.8.0 with a seccomp filter", or why there is none.
    pub summary: String,
}

/// A project's permissions: what the header, the trust banner and the settings show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct PermissionsView {
    pub mode: PermissionMode,
    /// False for a repository cloned from a URL until the user trusts it.
    pub trusted: bool,
    /// Where an untrusted project came from (the clone's URL).
    #[ts(optional = nullable)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    /// Every rule in force, deny first, then ask, then allow, each with its source.
    pub rules: Vec<PermissionRule>,
    /// Paths hidden from commands and refused to the file tools (`~` for the home folder).
    pub secret_paths: Vec<String>,
    pub sandbox: SandboxStatus,
}

/// One part of what a request would do — a simple command of a `bash` line, or a file — with
/// its verdict and the rule (or mode) behind it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct PermissionPart {
    /// The part as written (a simple command, or a resolved path).
    pub text: String,
    pub verdict: RuleEffect,
    /// The rule that decided, when one did (`Bash(git push)`); otherwise the mode decided.
    #[ts(optional = nullable)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// Why, in words: "no allow rule covers it", "writes outside the project", …
    pub why: String,
}

/// How an allowed command will run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct RunConfinement {
    pub sandboxed: bool,
    /// "sandboxed: writes the project only, no network", or "not sandboxed".
    pub text: String,
}

/// A tool call that needs the user's yes: everything the dialog shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct PermissionRequest {
    pub request_id: String,
    pub tool_call_id: String,
    pub tool_name: String,
    pub mode: PermissionMode,
    /// One line: what the call would do that needs asking.
    pub summary: String,
    /// A `bash` call's exact, full command.
    #[ts(optional = nullable)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// A file tool's resolved target path (links followed).
    #[ts(optional = nullable)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    pub parts: Vec<PermissionPart>,
    /// For commands: how it will run if allowed.
    #[ts(optional = nullable)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confinement: Option<RunConfinement>,
    /// The model's reason for an escalation.
    #[ts(optional = nullable)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Any other tool's call (an MCP server's, `js`, a model's tool): its arguments in full, as
    /// pretty JSON.
    #[ts(optional = nullable)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<String>,
    /// For `write`/`edit`: the change as a unified diff.
    #[ts(optional = nullable)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// The exact rule "Always allow" saves; none when no rule can be as narrow as this call
    /// (an escalation, a command with parts no rule can cover).
    #[ts(optional = nullable)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub always_rule: Option<String>,
}

/// The user's answer to a [`PermissionRequest`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum PermissionDecision {
    AllowOnce,
    /// Allowed for the rest of this live session (a session rule).
    AllowSession,
    /// Saved as a project rule (the request's `always_rule`).
    AllowAlways,
    Deny,
}

impl PermissionDecision {
    pub fn allows(self) -> bool {
        self != Self::Deny
    }
}
