//! The policy of one project: its mode, the rules in force, the secret paths and the project's
//! folder, and [`Policy::evaluate`], which judges one action.
//!
//! Order, first match wins: the secret-path list (deny), deny rules, the mode's hard limits
//! (`read-only` writes nothing), protected paths (ask, except in `full`), ask rules, allow
//! rules, then the mode's default. A `bash` line is judged part by part; the line asks if one
//! part asks and is refused if one part is refused. An escalation always asks (but in `full`,
//! which needs none); with no sandbox on the machine every command asks (but in `full`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arbor_protocol::views::permissions::{
    PermissionMode, PermissionPart, RuleEffect, RuleSource, SandboxBackend,
};

use crate::paths::{is_protected, within};
use crate::rule::{FileAccess, Rule};
use crate::shell::{split, CommandPart};

/// A rule with its effect and where it was set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourcedRule {
    pub rule: Rule,
    pub effect: RuleEffect,
    pub source: RuleSource,
}

/// What the model asks a `bash` call to be given beyond the sandbox.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
pub struct Escalation {
    pub reason: String,
    #[serde(default)]
    pub network: bool,
    #[serde(default)]
    pub unsandboxed: bool,
    #[serde(default)]
    pub write_paths: Vec<String>,
}

impl Escalation {
    /// In words, for the dialog and refusals.
    pub fn describe(&self) -> String {
        let mut asks = Vec::new();
        if self.unsandboxed {
            asks.push("to run without the sandbox".to_owned());
        }
        if self.network {
            asks.push("network access".to_owned());
        }
        if !self.write_paths.is_empty() {
            asks.push(format!("writes to {}", self.write_paths.join(", ")));
        }
        if asks.is_empty() {
            "nothing beyond the sandbox".to_owned()
        } else {
            asks.join(", ")
        }
    }
}

/// One thing a tool call would do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// A file tool on a resolved path.
    File { access: FileAccess, path: PathBuf },
    /// A `bash` line, with what it asks beyond the sandbox.
    Bash {
        command: String,
        escalation: Option<Escalation>,
    },
    /// Any other tool, by name.
    Tool { name: String },
}

/// The verdict on an action, with everything a dialog or a refusal says about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evaluation {
    pub verdict: RuleEffect,
    /// One line: what needs asking, or why it is refused.
    pub summary: String,
    pub parts: Vec<PermissionPart>,
    /// The narrowest rule that would allow exactly this, when there is one.
    pub always_rule: Option<String>,
}

/// The machine's sandbox, found when first needed: finding it starts a trial process, which
/// must not delay a session's start (its first request); a command is judged only after.
#[derive(Clone)]
pub struct SandboxProbe(Arc<dyn Fn() -> SandboxBackend + Send + Sync>);

impl SandboxProbe {
    /// A probe that calls `find` (which should cache its answer).
    pub fn new(find: impl Fn() -> SandboxBackend + Send + Sync + 'static) -> Self {
        Self(Arc::new(find))
    }

    /// A known backend (tests, a front end that already looked).
    pub fn fixed(backend: SandboxBackend) -> Self {
        Self::new(move || backend)
    }

    pub fn get(&self) -> SandboxBackend {
        (self.0)()
    }
}

impl std::fmt::Debug for SandboxProbe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SandboxProbe")
    }
}

/// A project's permissions.
#[derive(Debug, Clone)]
pub struct Policy {
    pub mode: PermissionMode,
    /// The project's folder, resolved.
    pub project: PathBuf,
    pub rules: Vec<SourcedRule>,
    /// Resolved secret paths (the list in the settings plus Arbor's data folder).
    pub secret_paths: Vec<PathBuf>,
    /// The sandbox commands would run in (`None`: no sandbox on this machine).
    pub sandbox: SandboxProbe,
}

impl Policy {
    /// The secret path `path` lies in, if any.
    pub fn secret_containing(&self, path: &Path) -> Option<&Path> {
        self.secret_paths
            .iter()
            .find(|secret| within(path, secret))
            .map(PathBuf::as_path)
    }

    fn first_rule(
        &self,
        effect: RuleEffect,
        matches: impl Fn(&Rule) -> bool,
    ) -> Option<&SourcedRule> {
        self.rules
            .iter()
            .find(|r| r.effect == effect && matches(&r.rule))
    }

    /// Deny, then ask, then allow: the first rule that matches.
    fn rule_verdict(&self, matches: impl Fn(&Rule) -> bool) -> Option<&SourcedRule> {
        [RuleEffect::Deny, RuleEffect::Ask, RuleEffect::Allow]
            .into_iter()
            .find_map(|effect| self.first_rule(effect, &matches))
    }

    pub fn evaluate(&self, action: &Action) -> Evaluation {
        match action {
            Action::File { access, path } => self.evaluate_file(*access, path),
            Action::Bash {
                command,
                escalation,
            } => self.evaluate_bash(command, escalation.as_ref()),
            Action::Tool { name } => self.evaluate_tool(name),
        }
    }

    fn evaluate_file(&self, access: FileAccess, path: &Path) -> Evaluation {
        let shown = path.display().to_string();
        let part = |verdict, rule: Option<&SourcedRule>, why: &str| PermissionPart {
            text: shown.clone(),
            verdict,
            rule: rule.map(|r| r.rule.to_string()),
            why: why.to_owned(),
        };
        let done =
            |verdict, rule: Option<&SourcedRule>, why: String, always: Option<String>| Evaluation {
                verdict,
                summary: format!("{} {shown}: {why}", verb(access)),
                parts: vec![part(verdict, rule, &why)],
                always_rule: always,
            };
        if let Some(secret) = self.secret_containing(path) {
            return done(
                RuleEffect::Deny,
                None,
                format!(
                    "{} is on the secret-path list (settings → permissions); it stays hidden",
                    secret.display()
                ),
                None,
            );
        }
        let matches = |rule: &Rule| rule.matches_path(access, path, &self.project);
        if let Some(rule) = self.first_rule(RuleEffect::Deny, matches) {
            return done(RuleEffect::Deny, Some(rule), "a deny rule".into(), None);
        }
        if access.writes() && self.mode == PermissionMode::ReadOnly {
            return done(
                RuleEffect::Deny,
                None,
                "the project is in read-only mode: switch to workspace to let the model write"
                    .into(),
                None,
            );
        }
        let always = always_file_rule(access, path);
        if access.writes() && self.mode != PermissionMode::Full && is_protected(&self.project, path)
        {
            return done(
                RuleEffect::Ask,
                None,
                "a protected path (git hooks and configuration run code later; .arbor is Arbor's)"
                    .into(),
                None,
            );
        }
        if let Some(rule) = self
            .first_rule(RuleEffect::Ask, matches)
            .or_else(|| self.first_rule(RuleEffect::Allow, matches))
        {
            let why = if rule.effect == RuleEffect::Ask {
                "an ask rule"
            } else {
                "allowed by a rule"
            };
            return done(rule.effect, Some(rule), why.into(), always);
        }
        if !access.writes() || self.mode == PermissionMode::Full {
            return done(RuleEffect::Allow, None, "allowed by the mode".into(), None);
        }
        if within(path, &self.project) {
            done(RuleEffect::Allow, None, "inside the project".into(), None)
        } else {
            done(RuleEffect::Ask, None, "outside the project".into(), always)
        }
    }

    fn evaluate_bash(&self, command: &str, escalation: Option<&Escalation>) -> Evaluation {
        let has_bash_limits = self
            .rules
            .iter()
            .any(|r| r.rule.is_bash() && r.effect != RuleEffect::Allow);
        let mut parts = Vec::new();
        let mut asking_simple: Vec<Vec<String>> = Vec::new();
        let mut opaque_asks = false;
        for piece in split(command) {
            let part = match &piece {
                CommandPart::Simple { text, words } => {
                    let found = self.rule_verdict(|rule| rule.matches_command(words));
                    let (verdict, why) = match found {
                        Some(rule) => (rule.effect, format!("{} rule", rule.effect.as_str())),
                        None if self.mode == PermissionMode::ReadOnly => (
                            RuleEffect::Ask,
                            "read-only mode: no allow rule covers it".to_owned(),
                        ),
                        None => (RuleEffect::Allow, "allowed by the mode".to_owned()),
                    };
                    if verdict == RuleEffect::Ask {
                        asking_simple.push(words.iter().map(|w| w.text.clone()).collect());
                    }
                    PermissionPart {
                        text: text.clone(),
                        verdict,
                        rule: found.map(|r| r.rule.to_string()),
                        why,
                    }
                }
                CommandPart::Opaque { text, why } => {
                    let asks = self.mode == PermissionMode::ReadOnly || has_bash_limits;
                    opaque_asks |= asks;
                    PermissionPart {
                        text: text.clone(),
                        verdict: if asks {
                            RuleEffect::Ask
                        } else {
                            RuleEffect::Allow
                        },
                        rule: None,
                        why: if asks {
                            format!("no rule can cover it: {why}")
                        } else {
                            format!("allowed by the mode (sandboxed); {why}")
                        },
                    }
                }
            };
            parts.push(part);
        }
        let denied = parts.iter().find(|p| p.verdict == RuleEffect::Deny);
        if let Some(denied) = denied {
            return Evaluation {
                verdict: RuleEffect::Deny,
                summary: format!(
                    "`{}` is refused by {}",
                    denied.text,
                    denied.rule.as_deref().unwrap_or("a rule")
                ),
                parts,
                always_rule: None,
            };
        }
        // A deny `Net(…)` rule refuses a request for network outright (in every mode).
        if let Some(rule) = escalation
            .filter(|e| e.network)
            .and_then(|_| self.first_rule(RuleEffect::Deny, Rule::matches_network))
        {
            return Evaluation {
                verdict: RuleEffect::Deny,
                summary: format!("network access is refused by {}", rule.rule),
                parts,
                always_rule: None,
            };
        }
        let full = self.mode == PermissionMode::Full;
        let escalates = escalation.is_some() && !full;
        let no_sandbox = !full && self.sandbox.get() == SandboxBackend::None;
        let asking = parts.iter().any(|p| p.verdict == RuleEffect::Ask);
        let verdict = if asking || escalates || no_sandbox {
            RuleEffect::Ask
        } else {
            RuleEffect::Allow
        };
        let summary = if escalates {
            format!(
                "the command asks for {}",
                escalation.map(Escalation::describe).unwrap_or_default()
            )
        } else if no_sandbox {
            "there is no sandbox on this machine: every command asks".to_owned()
        } else if asking {
            "a part of the command needs your yes".to_owned()
        } else {
            "allowed".to_owned()
        };
        let always_rule = (verdict == RuleEffect::Ask
            && !escalates
            && !no_sandbox
            && !opaque_asks
            && asking_simple.len() == 1)
            .then(|| always_command_rule(&asking_simple[0]))
            .flatten();
        Evaluation {
            verdict,
            summary,
            parts,
            always_rule,
        }
    }

    fn evaluate_tool(&self, name: &str) -> Evaluation {
        let found = self.rule_verdict(|rule| rule.matches_tool(name));
        let (verdict, why) = match found {
            Some(rule) => (rule.effect, format!("{} rule", rule.effect.as_str())),
            None if name.starts_with("mcp__") => (
                RuleEffect::Ask,
                "an MCP tool asks unless a rule allows it".to_owned(),
            ),
            None if self.mode == PermissionMode::ReadOnly && !TOUCHES_NOTHING.contains(&name) => (
                RuleEffect::Ask,
                "read-only mode: this tool may change files".to_owned(),
            ),
            None => (RuleEffect::Allow, "allowed by the mode".to_owned()),
        };
        Evaluation {
            verdict,
            summary: format!("`{name}`: {why}"),
            parts: vec![PermissionPart {
                text: name.to_owned(),
                verdict,
                rule: found.map(|r| r.rule.to_string()),
                why,
            }],
            always_rule: (verdict == RuleEffect::Ask && found.is_none())
                .then(|| always_tool_rule(name)),
        }
    }
}

/// The rule "Always allow" saves for a tool: `Mcp(server:tool)` for an MCP server's tool (the
/// form people write), the tool's name for any other.
fn always_tool_rule(name: &str) -> String {
    name.strip_prefix("mcp__")
        .and_then(|rest| rest.split_once("__"))
        .map(|(server, tool)| format!("Mcp({server}:{tool})"))
        .filter(|rule| crate::rule::Rule::parse(rule).is_ok_and(|r| r.matches_tool(name)))
        .unwrap_or_else(|| name.to_owned())
}

/// Tools that change nothing the user has: `create_tool` only proposes (the user approves in
/// its own dialog) and `todo` only updates the checklist shown in the chat. Read-only mode lets
/// them run.
const TOUCHES_NOTHING: &[&str] = &["create_tool", "todo"];

fn verb(access: FileAccess) -> &'static str {
    match access {
        FileAccess::Read => "read",
        FileAccess::Edit => "edit",
        FileAccess::Write => "write",
    }
}

/// Characters a rule's specifier cannot hold literally.
fn plain(text: &str) -> bool {
    !text.is_empty()
        && !text.contains(|c: char| {
            c.is_whitespace()
                || c.is_control()
                || matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '(' | ')')
        })
}

/// `Bash(git push origin main)` for exactly these words, when every word can be written.
fn always_command_rule(words: &[String]) -> Option<String> {
    (!words.is_empty() && words.iter().all(|w| plain(w)))
        .then(|| format!("Bash({})", words.join(" ")))
}

/// `Edit(/abs/path)` (or `Write(…)`) for exactly this file.
fn always_file_rule(access: FileAccess, path: &Path) -> Option<String> {
    let text = path.to_str()?;
    if !plain(text) {
        return None;
    }
    match access {
        FileAccess::Read => Some(format!("Read({text})")),
        FileAccess::Edit => Some(format!("Edit({text})")),
        FileAccess::Write => Some(format!("Write({text})")),
    }
}

#[cfg(test)]
mod tests;
