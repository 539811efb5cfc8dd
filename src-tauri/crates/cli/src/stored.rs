//! Stored sessions on the command line: choosing the session a run uses (`-c`, `-r ID`,
//! `--no-session`), and the `sessions`, `tree` and `search` subcommands.

use std::io::Write;
use std::path::Path;

use arbor_app::views::branch::SearchHit;
use arbor_app::views::SessionListItem;
use arbor_app::SessionStart;
use arbor_app::{SessionTreeView, StoredSessions};

use crate::args::SessionArgs;
use arbor_app::LiveSession;

/// The data folder's database, opening on a thread of its own while the rest of start-up
/// (catalogue, settings, keys, the model) goes on: reading its schema and its write-ahead
/// log is most of what a stored run does before its first request that `--no-session` does
/// not. See [`open_beside`].
pub enum Opening {
    Beside(std::thread::JoinHandle<anyhow::Result<Option<StoredSessions>>>),
    Done(anyhow::Result<Option<StoredSessions>>),
}

/// Starts opening the database a run reads its project's permissions from and stores into:
/// `DATA_DIR/arbor.db` (created when missing); with `--no-session` only read for the
/// permissions, and only if it exists (`None` otherwise).
pub fn open_beside(args: &SessionArgs, data_dir: &Path) -> Opening {
    let (data_dir, stores) = (data_dir.to_owned(), !args.no_session);
    let open = move || -> anyhow::Result<Option<StoredSessions>> {
        Ok(if stores {
            Some(StoredSessions::open(&data_dir)?)
        } else {
            StoredSessions::open_if_stored(&data_dir)?
        })
    };
    match std::thread::Builder::new()
        .name("arbor-open-store".into())
        .spawn(open.clone())
    {
        Ok(handle) => Opening::Beside(handle),
        // No thread to be had: opened here, as it used to be.
        Err(_) => Opening::Done(open()),
    }
}

impl Opening {
    /// The open database (see [`open_beside`]), waiting for it.
    pub fn wait(self) -> anyhow::Result<Option<StoredSessions>> {
        match self {
            Opening::Beside(handle) => handle
                .join()
                .map_err(|_| anyhow::anyhow!("opening the database failed unexpectedly"))?,
            Opening::Done(result) => result,
        }
    }
}

/// Connects `session` to `stored` (see [`open`]) as the flags ask: a recorder for the project
/// at the working directory, with the `--continue`d or `--resume`d session loaded into the
/// agent (or a new session, created by the first message); nothing with `--no-session`.
pub fn connect(
    session: &mut LiveSession,
    args: &SessionArgs,
    stored: Option<StoredSessions>,
) -> anyhow::Result<()> {
    let Some(stored) = stored else {
        return Ok(());
    };
    let start = match (&args.resume, args.continue_latest) {
        (Some(id), _) => SessionStart::Resume(id.clone()),
        (None, true) => SessionStart::Latest,
        (None, false) => SessionStart::New,
    };
    session.connect_stored(stored, start)?;
    Ok(())
}

/// `arbor sessions [--json] [--all]`.
pub fn list(
    data_dir: &Path,
    cwd: &Path,
    json: bool,
    all: bool,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let stored = StoredSessions::open_for_reading(data_dir)?;
    let sessions = stored.list((!all).then_some(cwd))?;
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&sessions)?)?;
    } else {
        write_sessions(&sessions, all, out)?;
    }
    Ok(())
}

fn write_sessions(
    sessions: &[SessionListItem],
    all: bool,
    out: &mut impl Write,
) -> std::io::Result<()> {
    if sessions.is_empty() {
        let scope = if all {
            ""
        } else {
            " for this folder (--all lists every project)"
        };
        return writeln!(out, "no sessions{scope}");
    }
    for s in sessions {
        let title = if s.title.is_empty() {
            "(untitled)"
        } else {
            &s.title
        };
        write!(
            out,
            "{}  {}  {:>4} nodes  {}",
            s.id,
            format_time(s.updated_at),
            s.node_count,
            title
        )?;
        if all {
            write!(out, "  [{}]", s.project_root)?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// `arbor tree ID [--json]`.
pub fn tree(data_dir: &Path, id: &str, json: bool, out: &mut impl Write) -> anyhow::Result<()> {
    let (title, tree) = StoredSessions::open_for_reading(data_dir)?.tree(id)?;
    if json {
        // The tree panel's view of the session, with its title.
        let shown = serde_json::json!({
            "session_id": tree.session_id,
            "title": title,
            "leaf_id": tree.leaf_id,
            "nodes": tree.nodes,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&shown)?)?;
    } else {
        out.write_all(render_tree(&title, &tree).as_bytes())?;
    }
    Ok(())
}

/// `arbor search QUERY [--json]`.
pub fn search(
    data_dir: &Path,
    query: &str,
    json: bool,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let hits = StoredSessions::open_for_reading(data_dir)?.search(query)?;
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&hits)?)?;
    } else {
        write_hits(&hits, out)?;
    }
    Ok(())
}

fn write_hits(hits: &[SearchHit], out: &mut impl Write) -> std::io::Result<()> {
    if hits.is_empty() {
        return writeln!(out, "no matches");
    }
    for hit in hits {
        writeln!(
            out,
            "{}  {}  {}\n  {} {}: {}",
            hit.session_id,
            format_time(hit.created_at),
            hit.session_title,
            hit.node_id,
            hit.kind.as_str(),
            hit.snippet.replace('\n', " ")
        )?;
    }
    Ok(())
}

/// A session tree as text: one node per line (`id  role: first line`), a linear stretch at one
/// indentation, each branch of a fork indented under `├─`/`└─`, the leaf marked `*`, labels in
/// brackets, aborted answers marked.
pub fn render_tree(title: &str, tree: &SessionTreeView) -> String {
    use std::collections::HashMap;
    let nodes = &tree.nodes;
    let mut children: HashMap<Option<&str>, Vec<usize>> = HashMap::new();
    for (i, node) in nodes.iter().enumerate() {
        children
            .entry(node.parent_id.as_deref())
            .or_default()
            .push(i);
    }
    let title = if title.is_empty() {
        "(untitled)"
    } else {
        title
    };
    let session_id = tree.session_id.as_deref().unwrap_or("(new)");
    let mut text = format!("session {session_id}  {title}\n");
    if nodes.is_empty() {
        text.push_str("(no messages)\n");
        return text;
    }
    // (node, prefix for its line, prefix for what follows it, connector)
    let mut stack: Vec<(usize, String, &'static str)> = Vec::new();
    let roots = children.get(&None).cloned().unwrap_or_default();
    push_children(&mut stack, &roots, "");
    while let Some((i, prefix, connector)) = stack.pop() {
        let node = &nodes[i];
        let is_leaf = tree.leaf_id.as_deref() == Some(node.id.as_str());
        let marker = if is_leaf { "* " } else { "  " };
        let role = node.kind.as_str();
        text.push_str(&format!(
            "{marker}{prefix}{connector}{}  {role}: {}",
            node.id, node.first_line
        ));
        if let Some(label) = &node.label {
            text.push_str(&format!("  [{label}]"));
        }
        if node.aborted {
            text.push_str("  (aborted)");
        }
        if is_leaf {
            text.push_str("  ← leaf");
        }
        text.push('\n');
        let kids = children
            .get(&Some(node.id.as_str()))
            .cloned()
            .unwrap_or_default();
        let continued = match connector {
            "├─ " => format!("{prefix}│  "),
            "└─ " => format!("{prefix}   "),
            _ => prefix.clone(),
        };
        push_children(&mut stack, &kids, &continued);
    }
    text
}

fn push_children(stack: &mut Vec<(usize, String, &'static str)>, kids: &[usize], prefix: &str) {
    match kids {
        [] => {}
        [only] => stack.push((*only, prefix.to_owned(), "")),
        many => {
            // Pushed in reverse so the oldest branch is printed first.
            for (n, &kid) in many.iter().enumerate().rev() {
                let connector = if n + 1 == many.len() {
                    "└─ "
                } else {
                    "├─ "
                };
                stack.push((kid, prefix.to_owned(), connector));
            }
        }
    }
}

/// Unix milliseconds as `YYYY-MM-DD HH:MM` (UTC); `?` for a time out of range.
pub fn format_time(ms: i64) -> String {
    match time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000) {
        Ok(at) => format!(
            "{:04}-{:02}-{:02} {:02}:{:02}",
            at.year(),
            u8::from(at.month()),
            at.day(),
            at.hour(),
            at.minute()
        ),
        Err(_) => "?".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbor_app::views::branch::{NodeKind, TreeNodeView};

    fn node(id: &str, parent: Option<&str>, kind: NodeKind, line: &str) -> TreeNodeView {
        TreeNodeView {
            id: id.into(),
            parent_id: parent.map(Into::into),
            kind,
            first_line: line.into(),
            label: None,
            aborted: false,
            tokens: 0,
            cost: 0.0,
            files: Vec::new(),
        }
    }

    #[test]
    fn trees_indent_only_at_forks_and_mark_the_leaf() {
        let tree = SessionTreeView {
            session_id: Some("s1".into()),
            leaf_id: Some("d".into()),
            nodes: vec![
                node("a", None, NodeKind::User, "hello"),
                node("b", Some("a"), NodeKind::Assistant, "hi"),
                node("c", Some("a"), NodeKind::Assistant, "hey"),
                node("d", Some("c"), NodeKind::User, "more"),
            ],
        };
        let text = render_tree("hello", &tree);
        assert_eq!(
            text,
            "session s1  hello\n  a  user: hello\n  ├─ b  assistant: hi\n  └─ c  assistant: hey\n*    d  user: more  ← leaf\n"
        );
    }

    #[test]
    fn times_are_utc_dates() {
        assert_eq!(format_time(0), "1970-01-01 00:00");
        assert_eq!(format_time(1_700_000_000_000), "2023-11-14 22:13");
    }
}
