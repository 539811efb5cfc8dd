//! Interactive slash commands on the stored session tree (`/tree`, `/goto`, `/label`,
//! `/export`, …) and `/compact`, plus how coding events read in the terminal.

use std::path::PathBuf;

use arbor_app::export::ExportFormat;
use arbor_app::{AppError, FilesMode, LiveSession};

use crate::interactive::{say, Console};

fn describe_navigation(editor_text: Option<&str>) -> String {
    match editor_text {
        Some(text) => {
            format!("(moved before that message; send it again or an edit to branch)\n{text}")
        }
        None => "(continuing from that node)".to_owned(),
    }
}

/// `/compact [FOCUS]`: summarise the older conversation now, in the background.
pub(crate) fn compact(focus: &str, session: &LiveSession, out: &Console) {
    let focus = (!focus.is_empty()).then(|| focus.to_owned());
    let cancel = out.start_task();
    match session.start_compact(focus, cancel) {
        Ok(task) => out.run_in_background(async move {
            task.await??;
            anyhow::Ok(())
        }),
        Err(AppError::NotAttached) => say(out, "compaction is not set up"),
        Err(AppError::Busy) => say(
            out,
            "the agent is running: wait for it or press Ctrl+C first",
        ),
        Err(error) => say(out, &error.to_string()),
    }
}

/// `/export [markdown|jsonl|html] [FILE]`: the session to FILE (default
/// `arbor-SESSION.EXT` in the working folder), written atomically.
fn export(session: &LiveSession, argument: &str) -> anyhow::Result<String> {
    let id = session
        .session_id()
        .ok_or_else(|| anyhow::anyhow!("nothing to export yet: send a prompt first"))?;
    let mut format = ExportFormat::Markdown;
    let mut file = None;
    for word in argument.split_whitespace() {
        match ExportFormat::parse(word) {
            Ok(named) => format = named,
            Err(_) => file = Some(PathBuf::from(word)),
        }
    }
    let extension = format.extension();
    let short = id.get(..8).unwrap_or(&id);
    let path = file.unwrap_or_else(|| PathBuf::from(format!("arbor-{short}.{extension}")));
    session.export(format, None, Some(&path))?;
    Ok(format!("(exported to {})", path.display()))
}

/// `/goto NODE --files [--overwrite]`: the preview, then the node's files and the
/// conversation; files changed outside Arbor stop it (listed) unless `--overwrite`.
fn goto_with_files(session: &LiveSession, argument: &str) -> anyhow::Result<String> {
    if session.is_streaming() {
        anyhow::bail!("the agent is running: wait for it or press Ctrl+C first");
    }
    let words: Vec<&str> = argument.split_whitespace().collect();
    let overwrite = words.contains(&"--overwrite");
    let node = match words.iter().find(|word| !word.starts_with("--")) {
        Some(node) => *node,
        None => anyhow::bail!("usage: /goto NODE --files [--overwrite] (ids from /tree)"),
    };
    let preview = session.preview_restore(node)?;
    let mut text = crate::code::render_preview(&preview);
    if !overwrite && preview.changes.iter().any(|c| c.changed_outside) {
        text.push_str(&format!(
            "nothing restored: files marked above changed outside Arbor. To overwrite them (they \
             stay in the undo point): /goto {node} --files --overwrite"
        ));
        return Ok(text);
    }
    let done = session.navigate_with_files(node, FilesMode::Restore, overwrite)?;
    if let Some(info) = &done.restore {
        text.push_str(&crate::code::describe_restore(info));
        text.push('\n');
    }
    text.push_str(&describe_navigation(done.navigation.editor_text.as_deref()));
    Ok(text)
}

/// The slash commands that work on the stored session tree, through the session's commands.
pub(crate) fn session_command(name: &str, argument: &str, session: &LiveSession, out: &Console) {
    let result: anyhow::Result<String> = (|| match name {
        "tree" => Ok(match session.tree()?.tree {
            Some(tree) => {
                let title = session.session_title()?.unwrap_or_default();
                crate::stored::render_tree(&title, &tree)
                    .trim_end()
                    .to_owned()
            }
            None => "(no messages yet)".to_owned(),
        }),
        "goto" if argument.is_empty() => Err(anyhow::anyhow!(
            "usage: /goto NODE [--summary] or /goto NODE --files [--overwrite] (ids from /tree)"
        )),
        "goto" if argument.split_whitespace().any(|word| word == "--files") => {
            goto_with_files(session, argument)
        }
        "undo-restore" => {
            let overwrite = argument.trim() == "--overwrite";
            let info = session.undo_restore(overwrite)?;
            Ok(crate::code::describe_restore(&info))
        }
        "goto" if argument.ends_with("--summary") => {
            let node = argument.trim_end_matches("--summary").trim().to_owned();
            let cancel = out.start_task();
            let task = session.start_navigate_summarized(node, cancel)?;
            let said = out.clone();
            out.run_in_background(async move {
                let navigation = task.await??;
                say(
                    &said,
                    &describe_navigation(navigation.editor_text.as_deref()),
                );
                Ok::<_, anyhow::Error>(())
            });
            Ok("(summarising the branch you leave…)".to_owned())
        }
        "goto" => {
            let navigation = session.navigate(argument, arbor_app::NavigateTo::Node)?;
            Ok(describe_navigation(navigation.editor_text.as_deref()))
        }
        "label" if argument.is_empty() => Err(anyhow::anyhow!("usage: /label NODE [TEXT]")),
        "label" => {
            let (node, text) = argument
                .split_once(' ')
                .map(|(n, t)| (n, Some(t.trim())))
                .unwrap_or((argument, None));
            let labelled = session.label(node, text)?;
            Ok(match labelled.label {
                Some(text) => format!("(labelled {}: {text})", labelled.node_id),
                None => format!("(label removed from {})", labelled.node_id),
            })
        }
        "export" => export(session, argument),
        "regenerate" => {
            let (_, run) = session.regenerate()?;
            out.run_in_background(async move {
                run.await??;
                anyhow::Ok(())
            });
            Ok("(regenerating)".to_owned())
        }
        "fork" => {
            let node = (!argument.is_empty()).then_some(argument);
            let forked = session.fork(node)?;
            Ok(format!("(forked into session {})", forked.session_id))
        }
        "name" if argument.is_empty() => Err(anyhow::anyhow!("usage: /name TITLE")),
        "name" => {
            let renamed = session.rename_session(argument)?;
            Ok(format!("(session renamed: {})", renamed.title))
        }
        "sessions" => {
            let text: Vec<String> = session
                .list_sessions(false)?
                .sessions
                .into_iter()
                .map(|s| {
                    format!(
                        "{}  {}  {}",
                        s.id,
                        crate::stored::format_time(s.updated_at),
                        s.title
                    )
                })
                .collect();
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
            let switched = session.switch_session(argument)?;
            Ok(format!(
                "(resumed {}: {})",
                switched.session_id, switched.title
            ))
        }
        _ => Err(anyhow::anyhow!("unknown command /{name}")),
    })();
    match result {
        Ok(text) => say(out, &text),
        Err(error) => say(out, &error.to_string()),
    }
}
