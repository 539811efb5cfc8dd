//! The whole tree of a session, and forking a path into a new session.

use std::collections::HashMap;

use rusqlite::params;

use crate::context::load_path;
use crate::db::Store;
use crate::error::Result;
use crate::ids::{new_id, now_ms, resolve, IdTable};
use crate::model::{first_line, NodeKind, OutlineNode, Session, SessionTree, TreeNode};
use crate::sessions::{load_session, resolve_node_in};

/// Longest `first_line` in a tree, in characters.
pub(crate) const TREE_LINE_MAX_CHARS: usize = 120;

impl Store {
    /// Every node of a session (without contents) with labels and the leaf marked; parents
    /// come before their children and siblings are in the order they were added.
    pub fn session_tree(&self, session_id: &str) -> Result<SessionTree> {
        self.session_tree_from(session_id, 0)
    }

    /// [`Store::session_tree`] from the `from`-th node on (nodes are listed in the order they
    /// were added, so a reader that has `from` of them gets only the rest); the session's
    /// other rows are not read.
    pub fn session_tree_from(&self, session_id: &str, from: usize) -> Result<SessionTree> {
        self.read(|c| {
            let id = resolve(c, IdTable::Sessions, None, session_id)?;
            let session = load_session(c, &id)?;
            let mut stmt = c.prepare_cached(
                // Only the head of the text is needed for the first line.
                "SELECT n.id, n.parent_id, n.kind, n.role, substr(n.text, 1, 2000), n.aborted,
                        n.created_at, l.label, k.files
                 FROM nodes n LEFT JOIN labels l ON l.node_id = n.id
                      LEFT JOIN node_code k ON k.node_id = n.id
                 WHERE n.session_id = ?1 ORDER BY n.seq LIMIT -1 OFFSET ?2",
            )?;
            let offset = i64::try_from(from).unwrap_or(i64::MAX);
            let rows = stmt.query_map(rusqlite::params![&id, offset], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, Option<String>>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, bool>(5)?,
                    r.get::<_, i64>(6)?,
                    r.get::<_, Option<String>>(7)?,
                    r.get::<_, Option<String>>(8)?,
                ))
            })?;
            let mut nodes = Vec::new();
            for row in rows {
                let (id, parent_id, kind, role, text, aborted, created_at, label, files) = row?;
                nodes.push(TreeNode {
                    is_leaf: session.leaf_id.as_deref() == Some(id.as_str()),
                    id,
                    parent_id,
                    kind: NodeKind::parse(&kind)?,
                    role,
                    first_line: first_line(&text, TREE_LINE_MAX_CHARS),
                    label,
                    aborted,
                    created_at,
                    files,
                });
            }
            Ok(SessionTree { session, nodes })
        })
    }

    /// Every node of a session as an [`OutlineNode`] (id, parent, kind, label), in the order
    /// they were added, with the session. Reads one index, never a node's content or text: on
    /// a 10,000-node session it is several times cheaper than [`Store::session_tree`].
    pub fn session_outline(&self, session_id: &str) -> Result<(Session, Vec<OutlineNode>)> {
        self.read(|c| {
            let id = resolve(c, IdTable::Sessions, None, session_id)?;
            let session = load_session(c, &id)?;
            let mut stmt = c.prepare_cached(
                "SELECT n.id, n.parent_id, n.kind, l.label
                 FROM nodes n INDEXED BY nodes_outline LEFT JOIN labels l ON l.node_id = n.id
                 WHERE n.session_id = ?1 ORDER BY n.seq",
            )?;
            let rows = stmt.query_map([&id], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, Option<String>>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Option<String>>(3)?,
                ))
            })?;
            let mut nodes = Vec::new();
            for row in rows {
                let (id, parent_id, kind, label) = row?;
                nodes.push(OutlineNode {
                    id,
                    parent_id,
                    kind: NodeKind::parse(&kind)?,
                    label,
                });
            }
            Ok((session, nodes))
        })
    }

    /// How many nodes a session has (one index read).
    pub fn node_count(&self, session_id: &str) -> Result<usize> {
        self.read(|c| {
            let id = resolve(c, IdTable::Sessions, None, session_id)?;
            let count: i64 = c.query_row(
                "SELECT count(*) FROM nodes INDEXED BY nodes_outline WHERE session_id = ?1",
                [&id],
                |r| r.get(0),
            )?;
            Ok(usize::try_from(count).unwrap_or(0))
        })
    }

    /// Copies the path root → `node` (default: the current leaf) into a new session of the same
    /// project: new ids, same order, parentage, contents, timestamps and labels; the copy of
    /// `node` is the new leaf. Title, model and thinking level are carried over.
    pub fn fork_session(&self, session_id: &str, node: Option<&str>) -> Result<Session> {
        self.fork_session_into(session_id, node, None)
    }

    /// [`Store::fork_session`] into the project `project_id` (`None`: the source's own): a
    /// branch of a conversation carried on in a worktree.
    pub fn fork_session_into(
        &self,
        session_id: &str,
        node: Option<&str>,
        project_id: Option<&str>,
    ) -> Result<Session> {
        let new_session = new_id();
        self.write(|c| {
            let source_id = resolve(c, IdTable::Sessions, None, session_id)?;
            let source = load_session(c, &source_id)?;
            let node = match node {
                Some(n) => Some(resolve_node_in(c, &source_id, n)?),
                None => source.leaf_id.clone(),
            };
            let path = match &node {
                Some(n) => load_path(c, &source_id, n, false)?,
                None => Vec::new(),
            };
            let now = now_ms();
            c.execute(
                "INSERT INTO sessions (id, project_id, title, title_is_custom, model,
                                       thinking_level, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)",
                params![
                    new_session,
                    project_id.unwrap_or(&source.project_id),
                    source.title,
                    source.title_is_custom,
                    source.model,
                    source.thinking_level,
                    now
                ],
            )?;
            let mut new_ids: HashMap<&str, String> = HashMap::with_capacity(path.len());
            let mut insert = c.prepare_cached(
                "INSERT INTO nodes (id, session_id, parent_id, kind, role, content, text, usage,
                                    aborted, first_kept_id, tokens_before, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            )?;
            let mut copy_label = c.prepare_cached(
                "INSERT INTO labels (node_id, session_id, label, created_at)
                 SELECT ?2, ?3, label, created_at FROM labels WHERE node_id = ?1",
            )?;
            for n in &path {
                let id = new_id();
                // Root-first order: a parent (and a compaction's first kept node) is mapped first.
                let map =
                    |old: &Option<String>| old.as_deref().and_then(|o| new_ids.get(o)).cloned();
                insert.execute(params![
                    id,
                    new_session,
                    map(&n.parent_id),
                    n.kind.as_str(),
                    n.role,
                    n.content.get(),
                    n.text,
                    n.usage.as_deref().map(|u| u.get()),
                    n.aborted,
                    map(&n.first_kept_id),
                    n.tokens_before
                        .map(|t| i64::try_from(t).unwrap_or(i64::MAX)),
                    n.created_at
                ])?;
                copy_label.execute(params![n.id, id, new_session])?;
                new_ids.insert(n.id.as_str(), id);
            }
            let leaf = node.as_deref().and_then(|n| new_ids.get(n)).cloned();
            c.execute(
                "UPDATE sessions SET leaf_id = ?2 WHERE id = ?1",
                params![new_session, leaf],
            )?;
            load_session(c, &new_session)
        })
    }
}
