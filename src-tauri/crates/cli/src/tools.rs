//! `arbor tools [list|show NAME|approve NAME|reject NAME|revoke NAME|history [NAME]]`: the
//! model's tools of the working directory's project, and the terminal wording the interactive
//! mode shares (a proposal shown for review).

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use arbor_app::skills::{CreateToolTool, Helper, ToolEntry, ToolReview, ToolStatus, Toolbox};
use arbor_app::{builtin_tools, BuiltinToolOptions, Workspace};

use crate::args::ToolsAction;

/// The project's toolbox, with Arbor's own tools listed.
fn toolbox(data_dir: &Path, cwd: &Path) -> anyhow::Result<Arc<Toolbox>> {
    let toolbox = Toolbox::open(data_dir, cwd)?;
    let mut builtins: Vec<(String, String)> =
        builtin_tools(&Workspace::new(cwd), &BuiltinToolOptions::default())?
            .iter()
            .map(|t| (t.spec().name.clone(), t.spec().description.clone()))
            .collect();
    let create = CreateToolTool::new(toolbox.clone(), Arc::new(|| None));
    let spec = arbor_app::AgentTool::spec(&create);
    builtins.push((spec.name.clone(), spec.description.clone()));
    toolbox.set_builtins(builtins);
    Ok(toolbox)
}

fn status_word(status: ToolStatus) -> &'static str {
    match status {
        ToolStatus::Builtin => "built-in",
        ToolStatus::Approved => "approved",
        ToolStatus::Pending => "pending",
        ToolStatus::Invalid => "invalid",
    }
}

fn first_sentence(text: &str) -> &str {
    let line = text.lines().next().unwrap_or_default();
    match line.char_indices().nth(90) {
        Some((cut, _)) => &line[..cut],
        None => line,
    }
}

fn render_entry(entry: &ToolEntry) -> String {
    let mut line = format!(
        "{:<9} {:<20} {}",
        status_word(entry.status),
        entry.name,
        first_sentence(&entry.description)
    );
    if entry.changed_since_approval {
        line.push_str("  (changed since it was approved: review it)");
    }
    if entry.shadows_user_tool {
        line.push_str("  (hides your own tool of this name)");
    }
    line.push('\n');
    for problem in &entry.problems {
        line.push_str(&format!("          {problem}\n"));
    }
    line
}

/// A proposal for review: name, reason, permissions, then every file (or the diff against the
/// approved version).
pub fn render_review(review: &ToolReview) -> String {
    let mut text = format!(
        "tool `{}` ({}; approval {})\nreason: {}\n",
        review.name,
        if review.kind == "edit_tool" {
            "a change to an approved tool"
        } else {
            "new"
        },
        review.approval_id,
        review.reason
    );
    if review.permissions.is_empty() {
        text.push_str("permissions: none (it cannot touch files)\n");
    } else {
        text.push_str(&format!("permissions: {}\n", review.permissions.join("; ")));
    }
    if review.previous.is_some() {
        for change in &review.changes {
            text.push_str(&format!(
                "\n--- {} ({})\n{}",
                change.path, change.status, change.patch
            ));
        }
    } else {
        for (path, content) in &review.files {
            text.push_str(&format!("\n--- {path}\n{content}"));
            if !content.ends_with('\n') {
                text.push('\n');
            }
        }
    }
    text
}

fn find<'a>(entries: &'a [ToolEntry], name: &str) -> anyhow::Result<&'a ToolEntry> {
    entries
        .iter()
        .find(|e| e.name == name && e.status != ToolStatus::Builtin)
        .ok_or_else(|| {
            anyhow::anyhow!("no tool named `{name}` in this project (see `arbor tools`)")
        })
}

fn pending_approval(entries: &[ToolEntry], name: &str) -> anyhow::Result<String> {
    let entry = find(entries, name)?;
    match (entry.status, &entry.approval_id) {
        (ToolStatus::Pending, Some(id)) => Ok(id.clone()),
        (ToolStatus::Invalid, _) => anyhow::bail!(
            "`{name}` is invalid and cannot be approved: {}",
            entry
                .problems
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        ),
        (status, _) => anyhow::bail!("`{name}` is {}, not pending", status_word(status)),
    }
}

/// Runs `arbor tools …`.
pub fn run(
    data_dir: &Path,
    cwd: &Path,
    action: Option<&ToolsAction>,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let toolbox = toolbox(data_dir, cwd)?;
    let entries = toolbox.list()?.tools;
    match action {
        None | Some(ToolsAction::List { json: false }) => {
            for entry in &entries {
                out.write_all(render_entry(entry).as_bytes())?;
            }
        }
        Some(ToolsAction::List { json: true }) => {
            writeln!(out, "{}", serde_json::to_string_pretty(&entries)?)?;
        }
        Some(ToolsAction::Show { name }) => {
            let entry = find(&entries, name)?;
            out.write_all(render_entry(entry).as_bytes())?;
            if let Some(id) = &entry.approval_id {
                out.write_all(render_review(&toolbox.review(id)?).as_bytes())?;
            }
        }
        Some(ToolsAction::Approve { name }) => {
            let id = pending_approval(&entries, name)?;
            toolbox.approve(&id)?;
            writeln!(
                out,
                "approved `{name}`: the model can use it from its next request"
            )?;
        }
        Some(ToolsAction::Reject { name, reason }) => {
            let id = pending_approval(&entries, name)?;
            toolbox.reject(&id, reason.as_deref())?;
            writeln!(out, "rejected `{name}`")?;
        }
        Some(ToolsAction::Revoke { name }) => {
            toolbox.revoke(name)?;
            writeln!(out, "revoked `{name}`: the model is no longer offered it")?;
        }
        Some(ToolsAction::History { name, json }) => {
            let runs = toolbox.history(name.as_deref())?;
            if *json {
                writeln!(out, "{}", serde_json::to_string_pretty(&runs)?)?;
            } else if runs.is_empty() {
                writeln!(out, "(no runs)")?;
            } else {
                for run in runs {
                    writeln!(
                        out,
                        "{}  {:<20} {:>6} ms  {}  {}",
                        crate::stored::format_time(run.created_at),
                        run.name,
                        run.duration_ms,
                        if run.is_error { "error" } else { "ok   " },
                        run.arguments
                    )?;
                }
            }
        }
    }
    Ok(())
}

/// The pending tool `name` names, or the only pending one when `name` is empty.
fn pending_named(entries: &[ToolEntry], name: &str) -> anyhow::Result<(String, String)> {
    let pending: Vec<&ToolEntry> = entries
        .iter()
        .filter(|e| e.status == ToolStatus::Pending)
        .collect();
    let chosen = if name.is_empty() {
        match pending.as_slice() {
            [only] => *only,
            [] => anyhow::bail!("no tool is waiting for approval"),
            many => anyhow::bail!(
                "several tools are waiting: name one ({})",
                many.iter()
                    .map(|e| e.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    } else {
        find(entries, name)?
    };
    Ok((
        chosen.name.clone(),
        pending_approval(entries, &chosen.name)?,
    ))
}

/// `/tools`, `/approve [NAME]`, `/reject [NAME] [REASON]` in the interactive mode.
pub(crate) fn interactive_command(
    name: &str,
    argument: &str,
    session: &arbor_app::LiveSession,
) -> anyhow::Result<String> {
    let toolbox = session.toolbox()?;
    let entries = toolbox.list()?.tools;
    match name {
        "tools" => Ok(entries
            .iter()
            .map(render_entry)
            .collect::<String>()
            .trim_end()
            .to_owned()),
        "approve" => {
            let (tool, id) = pending_named(&entries, argument.trim())?;
            toolbox.approve(&id)?;
            Ok(format!(
                "(approved `{tool}`: the model can use it from its next step)"
            ))
        }
        _ => {
            let argument = argument.trim();
            let (first, rest) = argument.split_once(' ').unwrap_or((argument, ""));
            // `/reject NAME REASON`, or `/reject REASON` when one tool waits.
            let (tool, id, reason) = match pending_named(&entries, first) {
                Ok((tool, id)) => (tool, id, rest.trim().to_owned()),
                Err(_) => {
                    let (tool, id) = pending_named(&entries, "")?;
                    (tool, id, argument.to_owned())
                }
            };
            toolbox.reject(&id, Some(&reason))?;
            Ok(format!("(rejected `{tool}`)"))
        }
    }
}

/// An `approval_requested` event for the terminal: the proposal with its files, and how to
/// answer.
pub fn describe_request(
    name: &str,
    reason: &str,
    files: &std::collections::BTreeMap<String, String>,
    allowed_tools: &[String],
    previous: Option<&std::collections::BTreeMap<String, String>>,
) -> String {
    let mut text = format!(
        "The model proposes {} `{name}`: {reason}\n",
        if previous.is_some() {
            "a change to the tool"
        } else {
            "a new tool"
        }
    );
    let permissions: Vec<&str> = allowed_tools
        .iter()
        .filter_map(|h| Helper::parse(h).map(Helper::describe))
        .collect();
    text.push_str(&format!(
        "permissions: {}\n",
        if permissions.is_empty() {
            "none (it cannot touch files)".to_owned()
        } else {
            permissions.join("; ")
        }
    ));
    for (path, content) in files {
        let changed = previous.is_none_or(|p| p.get(path) != Some(content));
        if changed {
            text.push_str(&format!("--- {path}\n{content}"));
            if !content.ends_with('\n') {
                text.push('\n');
            }
        }
    }
    text.push_str(&format!(
        "Answer with /approve or /reject REASON here, or later with `arbor tools approve {name}`."
    ));
    text
}
