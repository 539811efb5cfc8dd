//! Interactive slash commands on the stored session tree (`/tree`, `/goto`, `/label`,
//! `/export`, …) and `/compact`, plus how coding events read in the terminal.

use std::path::PathBuf;
use std::sync::Arc;

use arbor_agent::Agent;
use arbor_coding::compaction::navigate_with_summary;
use arbor_coding::export::{export_session, ExportFormat, ExportScope};
use arbor_coding::{CompactionError, Compactor, Navigation, SessionRecorder};

use crate::interactive::{say, Console};
use arbor_coding::app::LiveSession;

fn describe_navigation(navigation: &Navigation) -> String {
    match &navigation.editor_text {
        Some(text) => {
            format!("(moved before that message; send it again or an edit to branch)\n{text}")
        }
        None => "(continuing from that node)".to_owned(),
    }
}

/// `/compact [FOCUS]`: summarise the older conversation now, in the background.
pub(crate) fn compact(focus: &str, session: &LiveSession, out: &Console) {
    let Some(compactor) = session.compactor.clone() else {
        say(out, "compaction is not set up");
        return;
    };
    if session.agent.is_streaming() {
        say(
            out,
            "the agent is running: wait for it or press Ctrl+C first",
        );
        return;
    }
    let focus = (!focus.is_empty()).then(|| focus.to_owned());
    let agent = session.agent.clone();
    let cancel = out.start_task();
    out.run_in_background(async move {
        compactor
            .compact_agent(&agent, focus.as_deref(), &cancel)
            .await
            .map(|_| ())
    });
}

/// `/export [markdown|jsonl|html] [FILE]`: the session to FILE (default
/// `arbor-SESSION.EXT` in the working folder), written atomically.
fn export(recorder: &SessionRecorder, argument: &str) -> anyhow::Result<String> {
    let session = recorder
        .session_id()
        .ok_or_else(|| anyhow::anyhow!("nothing to export yet: send a prompt first"))?;
    let mut words = argument.split_whitespace();
    let mut format = ExportFormat::Markdown;
    let mut file = None;
    for word in words.by_ref() {
        match ExportFormat::parse(word) {
            Ok(named) => format = named,
            Err(_) => file = Some(PathBuf::from(word)),
        }
    }
    let scope = ExportScope::default_for(format);
    let text = recorder.with_store(|store| export_session(store, &session, scope, format))?;
    let extension = format.extension();
    let short = session.get(..8).unwrap_or(&session);
    let path = file.unwrap_or_else(|| PathBuf::from(format!("arbor-{short}.{extension}")));
    arbor_coding::export::write_atomically(&path, &text)?;
    Ok(format!("(exported to {})", path.display()))
}

/// `/goto NODE --files [--overwrite]`: the preview, then the node's files and the
/// conversation; files changed outside Arbor stop it (listed) unless `--overwrite`.
fn goto_with_files(
    recorder: &SessionRecorder,
    agent: &Agent,
    argument: &str,
) -> anyhow::Result<String> {
    if agent.is_streaming() {
        anyhow::bail!("the agent is running: wait for it or press Ctrl+C first");
    }
    let words: Vec<&str> = argument.split_whitespace().collect();
    let overwrite = words.contains(&"--overwrite");
    let node = match words.iter().find(|word| !word.starts_with("--")) {
        Some(node) => *node,
        None => anyhow::bail!("usage: /goto NODE --files [--overwrite] (ids from /tree)"),
    };
    let id = recorder.node(node)?.id;
    let preview = recorder.preview_restore(&id)?;
    let mut text = crate::code::render_preview(&preview);
    if !overwrite && preview.changes.iter().any(|c| c.changed_outside) {
        text.push_str(&format!(
            "nothing restored: files marked above changed outside Arbor. To overwrite them (they \
             stay in the undo point): /goto {node} --files --overwrite"
        ));
        return Ok(text);
    }
    let info = recorder.restore_files(&id, overwrite)?;
    let navigation = recorder.navigate(agent, &id)?;
    text.push_str(&crate::code::describe_restore(&info));
    text.push('\n');
    text.push_str(&describe_navigation(&navigation));
    Ok(text)
}

/// The slash commands that work on the stored session tree.
pub(crate) fn session_command(
    name: &str,
    argument: &str,
    recorder: &SessionRecorder,
    compactor: Option<Arc<Compactor>>,
    agent: &Agent,
    out: &Console,
) {
    let result: anyhow::Result<String> = (|| match name {
        "tree" => Ok(match recorder.tree()? {
            Some(tree) => crate::stored::render_tree(&tree).trim_end().to_owned(),
            None => "(no messages yet)".to_owned(),
        }),
        "goto" if argument.is_empty() => Err(anyhow::anyhow!(
            "usage: /goto NODE [--summary] or /goto NODE --files [--overwrite] (ids from /tree)"
        )),
        "goto" if argument.split_whitespace().any(|word| word == "--files") => {
            goto_with_files(recorder, agent, argument)
        }
        "undo-restore" => {
            if agent.is_streaming() {
                anyhow::bail!("the agent is running: wait for it or press Ctrl+C first");
            }
            let overwrite = argument.trim() == "--overwrite";
            let info = recorder.undo_restore(overwrite)?;
            Ok(crate::code::describe_restore(&info))
        }
        "goto" if argument.ends_with("--summary") => {
            let node = argument.trim_end_matches("--summary").trim().to_owned();
            let compactor = compactor.ok_or_else(|| anyhow::anyhow!("compaction is not set up"))?;
            let (agent, task) = (agent.clone(), out.clone());
            let cancel = out.start_task();
            out.run_in_background(async move {
                let navigation =
                    navigate_with_summary(&compactor, &agent, &node, true, &cancel).await?;
                say(&task, &describe_navigation(&navigation));
                Ok::<_, CompactionError>(())
            });
            Ok("(summarising the branch you leave…)".to_owned())
        }
        "goto" => {
            let navigation = recorder.navigate(agent, argument)?;
            Ok(describe_navigation(&navigation))
        }
        "label" if argument.is_empty() => Err(anyhow::anyhow!("usage: /label NODE [TEXT]")),
        "label" => {
            let (node, text) = argument
                .split_once(' ')
                .map(|(n, t)| (n, Some(t.trim())))
                .unwrap_or((argument, None));
            let id = recorder.label(node, text)?;
            Ok(match text.filter(|t| !t.is_empty()) {
                Some(text) => format!("(labelled {id}: {text})"),
                None => format!("(label removed from {id})"),
            })
        }
        "export" => export(recorder, argument),
        "regenerate" => {
            recorder.regenerate(agent)?;
            let agent = agent.clone();
            out.run_in_background(async move { agent.continue_run().await });
            Ok("(regenerating)".to_owned())
        }
        "fork" => {
            let node = (!argument.is_empty()).then_some(argument);
            let session = recorder.fork(agent, node)?;
            Ok(format!("(forked into session {})", session.id))
        }
        "name" if argument.is_empty() => Err(anyhow::anyhow!("usage: /name TITLE")),
        "name" => {
            let session = recorder.rename(argument)?;
            Ok(format!("(session renamed: {})", session.title))
        }
        "sessions" => {
            let mut text = Vec::new();
            let sessions = recorder.list_sessions(false)?;
            for s in sessions {
                text.push(format!(
                    "{}  {}  {}",
                    s.session.id,
                    crate::stored::format_time(s.session.updated_at),
                    s.session.title
                ));
            }
            Ok(if text.is_empty() {
                "(no sessions)".to_owned()
            } else {
                text.join("\n")
            })
        }
        "resume" if argument.is_empty() => {
            Err(anyhow::anyhow!("usage: /resume ID (ids from /sessions)"))
        }
        "resume" => {
            let session = recorder.switch_session(agent, argument)?;
            Ok(format!("(resumed {}: {})", session.id, session.title))
        }
        _ => Err(anyhow::anyhow!("unknown command /{name}")),
    })();
    match result {
        Ok(text) => say(out, &text),
        Err(error) => say(out, &error.to_string()),
    }
}
