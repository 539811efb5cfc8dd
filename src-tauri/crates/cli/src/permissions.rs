//! Permissions at the terminal: a request as the interactive mode prints it, its answers
//! (`/yes`, `/session`, `/always`, `/no`), the mode (`/mode`), and `arbor permissions`.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use arbor_app::permissions::{load_setup_in, view, PermissionOverrides};
use arbor_app::{AppError, LiveSession};
use arbor_protocol::views::permissions::RuleSource;

use crate::args::PermissionsAction;
use arbor_protocol::views::permissions::{
    PermissionDecision, PermissionMode, PermissionRequest, RuleEffect,
};

/// A control or bidi character shown as `\u{…}`: a command can never hide what it does.
pub fn visible(text: &str) -> String {
    text.chars()
        .map(|c| {
            let hidden = (c.is_control() && c != '\n' && c != '\t')
                || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}');
            if hidden {
                format!("\\u{{{:x}}}", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect()
}

pub fn decision_words(decision: PermissionDecision) -> &'static str {
    match decision {
        PermissionDecision::AllowOnce => "allowed once",
        PermissionDecision::AllowSession => "allowed for this session",
        PermissionDecision::AllowAlways => "allowed always (rule saved)",
        PermissionDecision::Deny => "denied",
    }
}

/// The request in full, and how to answer it.
pub fn describe_request(request: &PermissionRequest) -> String {
    let mut text = format!(
        "\n── permission needed ({} mode) · {} ──\n{}\n",
        request.mode.as_str(),
        request.tool_name,
        visible(&request.summary)
    );
    if let Some(command) = &request.command {
        text.push_str(&format!("  command: {}\n", visible(command)));
    }
    if let Some(arguments) = &request.arguments {
        text.push_str("  arguments:\n");
        for line in arguments.lines() {
            text.push_str(&format!("    {}\n", visible(line)));
        }
    }
    if let Some(target) = &request.target {
        text.push_str(&format!("  target:  {}\n", visible(target)));
    }
    for part in &request.parts {
        let verdict = match part.verdict {
            RuleEffect::Allow => "allow",
            RuleEffect::Ask => "ASK  ",
            RuleEffect::Deny => "DENY ",
        };
        let rule = part.rule.as_deref().unwrap_or("mode");
        text.push_str(&format!(
            "  [{verdict}] {}  ({rule}: {})\n",
            visible(&part.text),
            visible(&part.why)
        ));
    }
    if let Some(confinement) = &request.confinement {
        let note = if confinement.sandboxed { "" } else { "  ⚠" };
        text.push_str(&format!("  runs:    {}{note}\n", confinement.text));
    }
    if let Some(reason) = &request.reason {
        text.push_str(&format!("  reason:  {}\n", visible(reason)));
    }
    if let Some(diff) = &request.diff {
        text.push_str(&format!("{}\n", visible(diff)));
    }
    text.push_str("Answer: /yes (once) · /session");
    if let Some(rule) = &request.always_rule {
        text.push_str(&format!(" · /always (saves `{}`)", visible(rule)));
    }
    text.push_str(" · /no [reason]");
    text
}

/// `/yes`, `/session`, `/always`, `/no [reason]`, `/mode [MODE]`: what to print.
pub fn interactive_command(name: &str, argument: &str, session: &LiveSession) -> String {
    if name == "mode" {
        if argument.is_empty() {
            return format!(
                "permission mode: {}",
                session.permissions_view().mode.as_str()
            );
        }
        let Some(mode) = PermissionMode::parse(argument) else {
            return format!("`{argument}` is not a mode: read-only, workspace or full");
        };
        return match session.set_permission_mode(mode) {
            Ok(view) => format!("permission mode: {}", view.mode.as_str()),
            Err(error) => format!("arbor: {error}"),
        };
    }
    let Some(request_id) = session.waiting_permission_requests().into_iter().next() else {
        return "no permission request is waiting".into();
    };
    let (decision, reason) = match name {
        "yes" | "y" => (PermissionDecision::AllowOnce, None),
        "session" => (PermissionDecision::AllowSession, None),
        "always" => (PermissionDecision::AllowAlways, None),
        _ => (
            PermissionDecision::Deny,
            (!argument.is_empty()).then(|| argument.to_owned()),
        ),
    };
    match session.answer_permission(&request_id, decision, reason) {
        Ok(()) => String::new(),
        Err(error) => format!("arbor: {error}"),
    }
}

/// `arbor permissions [list|allow|ask|deny|remove RULE] [--project] [--json]`.
pub fn run(
    data_dir: &Path,
    cwd: &Path,
    action: Option<&PermissionsAction>,
    project: bool,
    json: bool,
    out: &mut impl Write,
) -> anyhow::Result<ExitCode> {
    let scope = if project {
        RuleSource::Project
    } else {
        RuleSource::User
    };
    let change = match action {
        None | Some(PermissionsAction::List) => None,
        Some(PermissionsAction::Allow { rule }) => Some((rule, Some(RuleEffect::Allow))),
        Some(PermissionsAction::Ask { rule }) => Some((rule, Some(RuleEffect::Ask))),
        Some(PermissionsAction::Deny { rule }) => Some((rule, Some(RuleEffect::Deny))),
        Some(PermissionsAction::Remove { rule }) => Some((rule, None)),
    };
    if let Some((rule, effect)) = change {
        let stored = arbor_app::StoredSessions::open(data_dir)?;
        let result = match effect {
            Some(effect) => stored.add_permission_rule(cwd, rule, effect, scope),
            None => stored.remove_permission_rule(cwd, rule, scope),
        };
        match result {
            Ok(()) => {}
            Err(error @ (AppError::Rule(_) | AppError::NoSuchRule(_))) => {
                eprintln!("arbor: {error}");
                return Ok(ExitCode::from(2));
            }
            Err(error) => return Err(error.into()),
        }
    }
    let setup = load_setup_in(data_dir, cwd, &PermissionOverrides::default())?;
    let shown = view(&setup, &setup.policy);
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&shown)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "mode: {}{}",
        shown.mode.as_str(),
        if shown.trusted {
            ""
        } else {
            " (untrusted clone)"
        }
    )?;
    writeln!(out, "sandbox: {}", shown.sandbox.summary)?;
    if shown.rules.is_empty() {
        writeln!(out, "rules: none")?;
    }
    for rule in &shown.rules {
        let source = match rule.source {
            RuleSource::User => "user",
            RuleSource::Project => "project",
            RuleSource::Session => "session",
            RuleSource::CommandLine => "command line",
            RuleSource::ProjectFile => ".arbor/permissions.json",
        };
        writeln!(out, "{:<5} {}  ({source})", rule.effect.as_str(), rule.rule)?;
    }
    writeln!(out, "secret paths: {}", shown.secret_paths.join(", "))?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_and_bidi_characters_are_shown() {
        assert_eq!(visible("ls\u{202E}txt.exe"), "ls\\u{202e}txt.exe");
        assert_eq!(visible("a\u{1b}[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(visible("a\u{200B}b\nc"), "a\\u{200b}b\nc");
    }
}
