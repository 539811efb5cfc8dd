//! The code state of stored nodes from the command line: `arbor diff NODE_A NODE_B [--stat]`,
//! `arbor restore NODE [--yes]`, and the wording the interactive `/goto NODE --files` and
//! `/undo-restore` share with them.

use std::io::{BufRead, Write};
use std::path::Path;

use arbor_app::sessions::{NodeDiff, RestoreInfo, RestorePreview};
use arbor_app::snapshots::ChangeStatus;
use arbor_app::{SessionRecorder, StoredSessions};

/// A recorder over the project of `cwd` with its snapshots, for nodes of that project only.
fn recorder_for(data_dir: &Path, cwd: &Path, nodes: &[&str]) -> anyhow::Result<SessionRecorder> {
    Ok(StoredSessions::open(data_dir)?.code_recorder(cwd, nodes)?)
}

fn status_word(status: ChangeStatus) -> &'static str {
    match status {
        ChangeStatus::Added => "added",
        ChangeStatus::Deleted => "deleted",
        ChangeStatus::Modified => "modified",
        ChangeStatus::Renamed => "renamed",
        ChangeStatus::ModeChanged => "mode",
    }
}

/// `--stat` lines: status, +added −removed, path (and where a rename came from).
pub fn render_stat(diff: &NodeDiff) -> String {
    if diff.files.is_empty() {
        return "(no file differences)\n".to_owned();
    }
    let mut text = String::new();
    for file in &diff.files {
        let change = &file.change;
        let counts = if change.binary {
            "binary".to_owned()
        } else {
            format!("+{} -{}", change.added, change.removed)
        };
        let from = change
            .old_path
            .as_deref()
            .map(|old| format!(" (from {old})"))
            .unwrap_or_default();
        text.push_str(&format!(
            "{:<8} {:>12}  {}{from}\n",
            status_word(change.status),
            counts,
            change.path
        ));
    }
    text.push_str(&format!("{} files changed\n", diff.files.len()));
    text
}

/// The patches of every file, one after the other.
pub fn render_patch(diff: &NodeDiff) -> String {
    let mut text = String::new();
    for file in &diff.files {
        text.push_str(&file.patch);
        if file.truncated {
            text.push_str(&format!("[patch of {} cut here]\n", file.change.path));
        }
    }
    text
}

/// A restore's preview: one line per file, files changed outside Arbor marked.
pub fn render_preview(preview: &RestorePreview) -> String {
    if preview.changes.is_empty() {
        return format!(
            "the files already match node {}: nothing to restore\n",
            preview.node_id
        );
    }
    let mut text = format!("restoring node {} would:\n", preview.node_id);
    for change in &preview.changes {
        let action = if change.write { "write " } else { "delete" };
        let outside = if change.changed_outside {
            "  (changed outside Arbor since its last snapshot)"
        } else {
            ""
        };
        text.push_str(&format!("  {action} {}{outside}\n", change.path));
    }
    text
}

/// One line on a restore done.
pub fn describe_restore(info: &RestoreInfo) -> String {
    let what = match &info.node_id {
        Some(node) => format!("restored the files of node {node}"),
        None => "restored the files as they were before the last restore".to_owned(),
    };
    format!(
        "{what}: {} written, {} deleted (undo with /undo-restore or `arbor restore --undo`)",
        info.written, info.deleted
    )
}

/// `arbor diff NODE_A NODE_B [--stat]`.
pub fn diff(
    data_dir: &Path,
    cwd: &Path,
    from: &str,
    to: &str,
    stat: bool,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let recorder = recorder_for(data_dir, cwd, &[from, to])?;
    let diff = recorder.diff_nodes(from, to)?;
    let text = if stat {
        render_stat(&diff)
    } else {
        render_patch(&diff)
    };
    out.write_all(text.as_bytes())?;
    Ok(())
}

/// What `arbor restore` restores: a node's files, or the state before the last restore.
pub enum RestoreTarget<'a> {
    Node(&'a str),
    Undo,
}

/// `arbor restore NODE [--yes]` / `arbor restore --undo [--yes]`: the preview, then the question
/// on `ask` (the terminal; `None` when there is none: refused unless `--yes`). Files changed
/// outside Arbor are only overwritten after that answer or `--yes`. Answers whether it restored.
pub fn restore(
    data_dir: &Path,
    cwd: &Path,
    target: RestoreTarget<'_>,
    yes: bool,
    ask: Option<&mut dyn BufRead>,
    out: &mut impl Write,
) -> anyhow::Result<bool> {
    let node = match target {
        RestoreTarget::Node(node) => Some(node),
        RestoreTarget::Undo => None,
    };
    let recorder = recorder_for(data_dir, cwd, node.as_slice())?;
    let node = match node {
        Some(node) => node.to_owned(),
        None => {
            if !recorder.can_undo_restore()? {
                anyhow::bail!("no restore to undo: nothing was restored in this project yet");
            }
            String::new()
        }
    };
    if !node.is_empty() {
        let preview = recorder.preview_restore(&node)?;
        out.write_all(render_preview(&preview).as_bytes())?;
        if preview.changes.is_empty() {
            return Ok(true);
        }
    }
    if !yes {
        let Some(input) = ask else {
            anyhow::bail!("not restoring without a terminal to ask: run again with --yes");
        };
        write!(out, "restore these files? [y/N] ")?;
        out.flush()?;
        let mut answer = String::new();
        input.read_line(&mut answer)?;
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            writeln!(out, "(nothing restored)")?;
            return Ok(false);
        }
    }
    let info = if node.is_empty() {
        recorder.undo_restore(true)?
    } else {
        recorder.restore_files(&node, true)?
    };
    writeln!(out, "{}", describe_restore(&info))?;
    Ok(true)
}
