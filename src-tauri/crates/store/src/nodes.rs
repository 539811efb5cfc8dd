//! Appending nodes, reading one node, labels.

use rusqlite::{params, Connection, OptionalExtension, Row};
use serde_json::value::RawValue;

use crate::db::Store;
use crate::error::{Result, StoreError};
use crate::ids::{new_id, now_ms, resolve, IdTable};
use crate::model::{first_line, raw_json, NewNode, Node, NodeKind, Session};
use crate::sessions::{insert_session, load_session, resolve_node_in};

/// Longest automatic title, in characters.
const TITLE_MAX_CHARS: usize = 80;

pub(crate) const NODE_COLS: &str = "n.id, n.session_id, n.parent_id, n.kind, n.role, n.content, \
     n.text, n.usage, n.aborted, n.first_kept_id, n.tokens_before, n.created_at";

pub(crate) fn node_from_row(r: &Row<'_>) -> rusqlite::Result<Node> {
    let bad = |col: usize, e: StoreError| {
        rusqlite::Error::FromSqlConversionFailure(col, rusqlite::types::Type::Text, Box::new(e))
    };
    let kind: String = r.get(3)?;
    let kind = NodeKind::parse(&kind).map_err(|e| bad(3, e))?;
    let content = raw_json(r.get(5)?).map_err(|e| bad(5, e))?;
    let usage = r
        .get::<_, Option<String>>(7)?
        .map(raw_json)
        .transpose()
        .map_err(|e| bad(7, e))?;
    Ok(Node {
        id: r.get(0)?,
        session_id: r.get(1)?,
        parent_id: r.get(2)?,
        kind,
        role: r.get(4)?,
        content,
        text: r.get(6)?,
        usage,
        aborted: r.get(8)?,
        first_kept_id: r.get(9)?,
        tokens_before: r.get::<_, Option<i64>>(10)?.map(|t| t.max(0) as u64),
        created_at: r.get(11)?,
    })
}

/// Is `ancestor` on the path from `node` up to its root (`node` itself included)?
pub(crate) fn is_ancestor_or_self(c: &Connection, ancestor: &str, node: &str) -> Result<bool> {
    let mut stmt = c.prepare_cached(
        "WITH RECURSIVE up(id, parent_id) AS (
             SELECT id, parent_id FROM nodes WHERE id = ?2
             UNION ALL
             SELECT n.id, n.parent_id FROM nodes n JOIN up ON n.id = up.parent_id
         )
         SELECT EXISTS (SELECT 1 FROM up WHERE id = ?1)",
    )?;
    Ok(stmt.query_row(params![ancestor, node], |r| r.get(0))?)
}

/// Where an appended node goes.
enum Parent {
    /// Under the session's current leaf.
    Leaf,
    /// A new root.
    Root,
    /// Under this node (id or prefix).
    Node(String),
}

/// A node checked and serialized before its transaction begins.
struct PreparedNode {
    node: NewNode,
    /// Serialized once: the text is stored and handed back as the node's raw content.
    content: Box<RawValue>,
    usage: Option<Box<RawValue>>,
    tokens_before: Option<i64>,
    id: String,
    now: i64,
}

impl PreparedNode {
    fn new(node: NewNode) -> Result<Self> {
        match (node.kind, &node.first_kept_id) {
            (NodeKind::Compaction, None) => {
                return Err(StoreError::InvalidInput(
                    "a compaction node needs first_kept_id (the first node it keeps)".into(),
                ))
            }
            (kind, Some(_)) if kind != NodeKind::Compaction => {
                return Err(StoreError::InvalidInput(format!(
                    "only compaction nodes have first_kept_id, not {}",
                    kind.as_str()
                )))
            }
            _ => {}
        }
        Ok(Self {
            tokens_before: node
                .tokens_before
                .map(|t| i64::try_from(t).unwrap_or(i64::MAX)),
            content: serde_json::value::to_raw_value(&node.content)?,
            usage: node
                .usage
                .as_ref()
                .map(serde_json::value::to_raw_value)
                .transpose()?,
            id: new_id(),
            now: now_ms(),
            node,
        })
    }
}

/// Inserts `prepared` into `session_id` (exact id) under `parent` and makes it the leaf, inside
/// the caller's transaction.
/// Inserts `prepared` and makes it the session's leaf; returns it with the leaf the session had
/// just before (read in the same transaction).
fn insert_node(
    c: &Connection,
    session_id: &str,
    parent: &Parent,
    prepared: PreparedNode,
) -> Result<(Node, Option<String>)> {
    let PreparedNode {
        node,
        content,
        usage,
        tokens_before,
        id,
        now,
    } = prepared;
    let session = load_session(c, session_id)?;
    let parent_id = match parent {
        Parent::Node(p) => Some(resolve_node_in(c, session_id, p)?),
        Parent::Leaf => session.leaf_id.clone(),
        Parent::Root => None,
    };
    let first_kept_id = match &node.first_kept_id {
        None => None,
        Some(k) => {
            let k = resolve_node_in(c, session_id, k)?;
            let on_path = match &parent_id {
                Some(p) => is_ancestor_or_self(c, &k, p)?,
                None => false,
            };
            if !on_path {
                return Err(StoreError::InvalidInput(format!(
                    "compaction keeps from node {k}, which is not on the path it is appended to"
                )));
            }
            Some(k)
        }
    };
    c.prepare_cached(
        "INSERT INTO nodes (id, session_id, parent_id, kind, role, content, text, usage,
                            aborted, first_kept_id, tokens_before, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    )?
    .execute(params![
        id,
        session_id,
        parent_id,
        node.kind.as_str(),
        node.role,
        content.get(),
        node.text,
        usage.as_deref().map(RawValue::get),
        node.aborted,
        first_kept_id,
        tokens_before,
        now
    ])?;
    if let Some(code) = &node.code {
        c.prepare_cached(
            "INSERT INTO node_code (node_id, session_id, snapshot, files)
             VALUES (?1, ?2, ?3, ?4)",
        )?
        .execute(params![id, session_id, code.snapshot, code.files])?;
    }
    let title =
        if node.kind == NodeKind::User && !session.title_is_custom && session.title.is_empty() {
            first_line(&node.text, TITLE_MAX_CHARS)
        } else {
            session.title
        };
    c.prepare_cached(
        "UPDATE sessions SET leaf_id = ?2, updated_at = max(updated_at, ?3), title = ?4
         WHERE id = ?1",
    )?
    .execute(params![session_id, id, now, title])?;
    let node = Node {
        id,
        session_id: session_id.to_owned(),
        parent_id,
        kind: node.kind,
        role: node.role,
        content,
        text: node.text,
        usage,
        aborted: node.aborted,
        first_kept_id,
        tokens_before: node.tokens_before,
        created_at: now,
    };
    Ok((node, session.leaf_id))
}

impl Store {
    /// Appends `node` to a session in one transaction: under `node.parent_id`, or under the
    /// current leaf when that is `None`; the new node becomes the leaf, `updated_at` moves, and
    /// the first user prompt sets the title (unless renamed). A crash leaves either all of this
    /// or none of it.
    ///
    /// A compaction node needs `first_kept_id`, which must be its parent or an ancestor of it;
    /// other kinds must not have one.
    pub fn append(&self, session_id: &str, node: NewNode) -> Result<Node> {
        let parent = match &node.parent_id {
            Some(p) => Parent::Node(p.clone()),
            None => Parent::Leaf,
        };
        Ok(self.append_node(session_id, node, parent)?.0)
    }

    /// Appends `node` under `parent` (id or prefix in the session; `None`: as a new root),
    /// whatever the session's leaf is now, and makes it the leaf. A live session appends this
    /// way under the node *it* last wrote or moved to: when another process wrote to the same
    /// session meanwhile, the two runs become sibling branches instead of weaving into one
    /// chain.
    pub fn append_under(
        &self,
        session_id: &str,
        parent: Option<&str>,
        node: NewNode,
    ) -> Result<Node> {
        Ok(self.append_under_seeing(session_id, parent, node)?.0)
    }

    /// [`Store::append_under`], also answering the session's stored leaf just before the node
    /// was appended, read in the same transaction: a live session tells from it, without a
    /// read of its own, whether another process moved the leaf since it last wrote.
    pub fn append_under_seeing(
        &self,
        session_id: &str,
        parent: Option<&str>,
        node: NewNode,
    ) -> Result<(Node, Option<String>)> {
        let parent = match parent {
            Some(p) => Parent::Node(p.to_owned()),
            None => Parent::Root,
        };
        self.append_node(session_id, node, parent)
    }

    fn append_node(
        &self,
        session_id: &str,
        node: NewNode,
        parent: Parent,
    ) -> Result<(Node, Option<String>)> {
        let node = PreparedNode::new(node)?;
        self.write(|c| {
            let session_id = resolve(c, IdTable::Sessions, None, session_id)?;
            insert_node(c, &session_id, &parent, node)
        })
    }

    /// Creates a session of `project_id` (exact id) whose first node is `first`, a root, in one
    /// transaction: a new conversation's first message is one commit, not two (the session's
    /// row, then its node). `mark_project_opened` also sets the project's `last_opened_at`, as
    /// [`Store::open_project`] does. A crash leaves all of it or none of it.
    pub fn create_session_with_node(
        &self,
        project_id: &str,
        model: Option<&str>,
        thinking_level: Option<&str>,
        first: NewNode,
        mark_project_opened: bool,
    ) -> Result<(Session, Node)> {
        let first = PreparedNode::new(first)?;
        self.write(|c| {
            if mark_project_opened {
                c.prepare_cached(
                    "UPDATE projects SET last_opened_at = max(last_opened_at, ?2) WHERE id = ?1",
                )?
                .execute(params![project_id, first.now])?;
            }
            let session_id = insert_session(c, project_id, model, thinking_level, first.now)?;
            let (node, _) = insert_node(c, &session_id, &Parent::Root, first)?;
            Ok((load_session(c, &session_id)?, node))
        })
    }

    /// A node by id or unique prefix (across all sessions).
    pub fn get_node(&self, id_or_prefix: &str) -> Result<Node> {
        let id = resolve(&self.conn, IdTable::Nodes, None, id_or_prefix)?;
        let sql = format!("SELECT {NODE_COLS} FROM nodes n WHERE n.id = ?1");
        Ok(self
            .conn
            .prepare_cached(&sql)?
            .query_row([id], node_from_row)?)
    }

    /// The nodes with these exact ids, in the order given (a page of a branch).
    pub fn get_nodes(&self, ids: &[String]) -> Result<Vec<Node>> {
        let sql = format!("SELECT {NODE_COLS} FROM nodes n WHERE n.id = ?1");
        let mut stmt = self.conn.prepare_cached(&sql)?;
        ids.iter()
            .map(|id| {
                stmt.query_row([id], node_from_row)
                    .optional()?
                    .ok_or_else(|| StoreError::NotFound {
                        kind: "node",
                        id: id.clone(),
                    })
            })
            .collect()
    }

    /// Sets (or with `None` / blank text, removes) the label of a node of `session_id`.
    /// Labels live beside the tree and do not move the leaf.
    pub fn set_label(&self, session_id: &str, node: &str, label: Option<&str>) -> Result<()> {
        let label = label.map(str::trim).filter(|l| !l.is_empty());
        self.write(|c| {
            let session = resolve(c, IdTable::Sessions, None, session_id)?;
            let node = resolve_node_in(c, &session, node)?;
            let now = now_ms();
            match label {
                Some(l) => c.execute(
                    "INSERT INTO labels (node_id, session_id, label, created_at)
                     VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT(node_id) DO UPDATE SET label = excluded.label,
                                                        created_at = excluded.created_at",
                    params![node, session, l, now],
                )?,
                None => c.execute("DELETE FROM labels WHERE node_id = ?1", [&node])?,
            };
            c.execute(
                "UPDATE sessions SET updated_at = max(updated_at, ?2) WHERE id = ?1",
                params![session, now],
            )?;
            Ok(())
        })
    }

    /// The label of a node, if any.
    pub fn label_of(&self, node_id: &str) -> Result<Option<String>> {
        Ok(self
            .conn
            .query_row(
                "SELECT label FROM labels WHERE node_id = ?1",
                [node_id],
                |r| r.get(0),
            )
            .optional()?)
    }
}
