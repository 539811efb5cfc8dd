//! Importing a whole session — nodes, labels, leaf, timestamps — in one transaction.

use std::collections::HashMap;

use rusqlite::params;
use serde_json::Value;

use crate::db::Store;
use crate::error::{Result, StoreError};
use crate::ids::new_id;
use crate::model::{first_line, NodeKind, Session};
use crate::sessions::load_session;

/// Longest automatic title, in characters (as for appends).
const TITLE_MAX_CHARS: usize = 80;

/// A session to create in one piece with [`Store::import_session`] (e.g. read from an export).
/// Nodes refer to each other by their index in [`ImportedSession::nodes`]; the store gives
/// every node a new id.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ImportedSession {
    /// Blank with `title_is_custom == false`: the first line of the first user node, as for a
    /// session built by appends.
    pub title: String,
    pub title_is_custom: bool,
    pub model: Option<String>,
    pub thinking_level: Option<String>,
    /// Unix milliseconds, kept as given.
    pub created_at: i64,
    /// Unix milliseconds, kept as given (so the session keeps its place in recency order).
    pub updated_at: i64,
    /// Index of the current leaf in `nodes`; `None`: before the first node.
    pub leaf: Option<usize>,
    /// Parents before children: a node's `parent` and `first_kept` are earlier indices.
    pub nodes: Vec<ImportedNode>,
}

/// One node of an [`ImportedSession`].
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedNode {
    /// The node's id where it comes from, if any. Every JSON string in any imported node's
    /// `content` that equals a `source_id` is replaced by that node's new id (so a
    /// compaction's `content.first_kept_id` keeps pointing at the right node).
    pub source_id: Option<String>,
    /// Index of the parent (an earlier node); `None`: a root.
    pub parent: Option<usize>,
    pub kind: NodeKind,
    pub role: Option<String>,
    pub content: Value,
    pub text: String,
    pub usage: Option<Value>,
    pub aborted: bool,
    /// Compaction only (and required there): index of the first kept node, which must be the
    /// parent or one of its ancestors.
    pub first_kept: Option<usize>,
    pub tokens_before: Option<u64>,
    /// Unix milliseconds, kept as given.
    pub created_at: i64,
    /// The node's label; blank counts as none. Stamped with the session's `updated_at`.
    pub label: Option<String>,
}

impl ImportedNode {
    /// A root node of `kind` with its default role, created at `created_at`; set the other
    /// fields as needed.
    pub fn new(
        kind: NodeKind,
        content: Value,
        text: impl Into<String>,
        created_at: i64,
    ) -> ImportedNode {
        ImportedNode {
            source_id: None,
            parent: None,
            kind,
            role: kind.default_role().map(str::to_string),
            content,
            text: text.into(),
            usage: None,
            aborted: false,
            first_kept: None,
            tokens_before: None,
            created_at,
            label: None,
        }
    }
}

fn invalid(index: usize, reason: impl Into<String>) -> StoreError {
    StoreError::InvalidImport {
        index,
        reason: reason.into(),
    }
}

/// Checks the structure of an import without touching the database: references point to
/// earlier nodes, compactions keep from their own path, source ids are unique, the leaf exists.
fn validate(session: &ImportedSession) -> Result<()> {
    let nodes = &session.nodes;
    let mut sources: HashMap<&str, usize> = HashMap::new();
    for (i, n) in nodes.iter().enumerate() {
        if let Some(p) = n.parent {
            if p >= i {
                return Err(invalid(
                    i,
                    format!("its parent {p} is not an earlier node (parents come first)"),
                ));
            }
        }
        match (n.kind, n.first_kept) {
            (NodeKind::Compaction, None) => {
                return Err(invalid(
                    i,
                    "a compaction node needs first_kept (the first node it keeps)",
                ))
            }
            (NodeKind::Compaction, Some(k)) => {
                // Walk up from the parent: indices only decrease, so stop at or below `k`.
                let mut at = n.parent;
                while let Some(a) = at.filter(|&a| a > k) {
                    at = nodes[a].parent;
                }
                if at != Some(k) {
                    return Err(invalid(
                        i,
                        format!("the compaction keeps from node {k}, which is not on its path"),
                    ));
                }
            }
            (kind, Some(_)) => {
                return Err(invalid(
                    i,
                    format!(
                        "only compaction nodes have first_kept, not {}",
                        kind.as_str()
                    ),
                ))
            }
            (_, None) => {}
        }
        if let Some(source) = n.source_id.as_deref() {
            if let Some(first) = sources.insert(source, i) {
                return Err(invalid(
                    i,
                    format!("source id {source:?} was already used by node {first}"),
                ));
            }
        }
    }
    if let Some(leaf) = session.leaf {
        if leaf >= nodes.len() {
            return Err(StoreError::InvalidInput(format!(
                "the leaf is node {leaf}, but the import has {} nodes",
                nodes.len()
            )));
        }
    }
    if session.title_is_custom && session.title.trim().is_empty() {
        return Err(StoreError::InvalidInput(
            "a custom session title cannot be empty".into(),
        ));
    }
    Ok(())
}

/// Replaces every JSON string equal to a key of `map` by its value.
pub(crate) fn remap_strings(v: &mut Value, map: &HashMap<&str, &str>) {
    match v {
        Value::String(s) => {
            if let Some(new) = map.get(s.as_str()) {
                *s = (*new).to_string();
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| remap_strings(i, map)),
        Value::Object(fields) => fields.values_mut().for_each(|f| remap_strings(f, map)),
        _ => {}
    }
}

/// A node ready to insert: new ids resolved, JSON serialized.
struct Row<'a> {
    node: &'a ImportedNode,
    content: String,
    usage: Option<String>,
    label: Option<&'a str>,
}

impl Store {
    /// Creates `session` in project `project_id` (exact id) with all its nodes, labels, search
    /// entries and leaf in **one** `BEGIN IMMEDIATE` transaction: a failure or a `kill -9` at
    /// any moment leaves either the whole session or nothing. Nodes get new ids (UUID v7) in
    /// order; parents, `first_kept` and the leaf are mapped to them, and so are JSON strings in
    /// `content` equal to a node's `source_id`. Timestamps are kept as given.
    ///
    /// Checked before anything is written: every `parent` and `first_kept` is an earlier node,
    /// a compaction (and only a compaction) has `first_kept` on its own path, source ids are
    /// unique ([`StoreError::InvalidImport`] names the node), the leaf exists and a custom title
    /// is not blank ([`StoreError::InvalidInput`]); an unknown project is
    /// [`StoreError::NotFound`].
    pub fn import_session(&self, project_id: &str, session: ImportedSession) -> Result<Session> {
        validate(&session)?;
        let ids: Vec<String> = session.nodes.iter().map(|_| new_id()).collect();
        let map: HashMap<&str, &str> = session
            .nodes
            .iter()
            .zip(&ids)
            .filter_map(|(n, id)| Some((n.source_id.as_deref()?, id.as_str())))
            .collect();
        // Serialize outside the transaction: the write lock is held only for the inserts.
        let rows = session
            .nodes
            .iter()
            .map(|n| {
                let content = if map.is_empty() {
                    serde_json::to_string(&n.content)?
                } else {
                    let mut content = n.content.clone();
                    remap_strings(&mut content, &map);
                    serde_json::to_string(&content)?
                };
                Ok(Row {
                    node: n,
                    content,
                    usage: n.usage.as_ref().map(serde_json::to_string).transpose()?,
                    label: n.label.as_deref().map(str::trim).filter(|l| !l.is_empty()),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let title = session.title.trim();
        let title = if title.is_empty() {
            session
                .nodes
                .iter()
                .find(|n| n.kind == NodeKind::User)
                .map(|n| first_line(&n.text, TITLE_MAX_CHARS))
                .unwrap_or_default()
        } else {
            title.to_string()
        };
        let session_id = new_id();
        let id_of = |i: Option<usize>| i.and_then(|i| ids.get(i));
        self.write(|c| {
            let exists: bool = c.query_row(
                "SELECT EXISTS (SELECT 1 FROM projects WHERE id = ?1)",
                [project_id],
                |r| r.get(0),
            )?;
            if !exists {
                return Err(StoreError::NotFound {
                    kind: "project",
                    id: project_id.to_string(),
                });
            }
            c.execute(
                "INSERT INTO sessions (id, project_id, title, title_is_custom, leaf_id, model,
                                       thinking_level, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![
                    session_id,
                    project_id,
                    title,
                    session.title_is_custom,
                    id_of(session.leaf),
                    session.model,
                    session.thinking_level,
                    session.created_at,
                    session.updated_at
                ],
            )?;
            let mut insert = c.prepare_cached(
                "INSERT INTO nodes (id, session_id, parent_id, kind, role, content, text, usage,
                                    aborted, first_kept_id, tokens_before, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            )?;
            let mut label = c.prepare_cached(
                "INSERT INTO labels (node_id, session_id, label, created_at)
                 VALUES (?1, ?2, ?3, ?4)",
            )?;
            for (row, id) in rows.iter().zip(&ids) {
                let n = row.node;
                insert.execute(params![
                    id,
                    session_id,
                    id_of(n.parent),
                    n.kind.as_str(),
                    n.role,
                    row.content,
                    n.text,
                    row.usage,
                    n.aborted,
                    id_of(n.first_kept),
                    n.tokens_before
                        .map(|t| i64::try_from(t).unwrap_or(i64::MAX)),
                    n.created_at
                ])?;
                if let Some(l) = row.label {
                    label.execute(params![id, session_id, l, session.updated_at])?;
                }
            }
            load_session(c, &session_id)
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use serde_json::json;

    fn node(kind: NodeKind, parent: Option<usize>) -> ImportedNode {
        ImportedNode {
            parent,
            ..ImportedNode::new(kind, json!({}), "t", 1)
        }
    }

    fn session(nodes: Vec<ImportedNode>) -> ImportedSession {
        ImportedSession {
            leaf: nodes.len().checked_sub(1),
            nodes,
            ..ImportedSession::default()
        }
    }

    fn index_of(e: StoreError) -> usize {
        match e {
            StoreError::InvalidImport { index, .. } => index,
            other => panic!("expected InvalidImport, got {other}"),
        }
    }

    #[test]
    fn a_well_formed_tree_passes() {
        let mut c = node(NodeKind::Compaction, Some(2));
        c.first_kept = Some(1);
        let mut s = session(vec![
            node(NodeKind::User, None),
            node(NodeKind::Assistant, Some(0)),
            node(NodeKind::User, Some(1)),
            c,
            node(NodeKind::User, None),
        ]);
        validate(&s).unwrap();
        // The compaction may keep from its own parent too.
        s.nodes[3].first_kept = Some(2);
        validate(&s).unwrap();
        validate(&session(Vec::new())).unwrap();
    }

    #[test]
    fn references_must_point_back() {
        let e = validate(&session(vec![
            node(NodeKind::User, None),
            node(NodeKind::User, Some(1)),
        ]))
        .unwrap_err();
        assert_eq!(index_of(e), 1);
        let e = validate(&session(vec![
            node(NodeKind::User, None),
            node(NodeKind::User, Some(7)),
        ]))
        .unwrap_err();
        assert!(e.to_string().contains("not an earlier node"), "{e}");
    }

    #[test]
    fn compactions_keep_from_their_own_path() {
        // 0 ← 1 ← 3 (compaction), 0 ← 2: node 2 is a sibling branch.
        let mut c = node(NodeKind::Compaction, Some(1));
        c.first_kept = Some(2);
        let e = validate(&session(vec![
            node(NodeKind::User, None),
            node(NodeKind::Assistant, Some(0)),
            node(NodeKind::Assistant, Some(0)),
            c,
        ]))
        .unwrap_err();
        assert_eq!(index_of(e), 3);
        let mut s = session(vec![
            node(NodeKind::User, None),
            node(NodeKind::Compaction, Some(0)),
        ]);
        assert_eq!(index_of(validate(&s).unwrap_err()), 1);
        s.nodes[1].kind = NodeKind::User;
        s.nodes[1].first_kept = Some(0);
        assert!(validate(&s)
            .unwrap_err()
            .to_string()
            .contains("only compaction"));
    }

    #[test]
    fn leaf_source_ids_and_titles_are_checked() {
        let mut s = session(vec![node(NodeKind::User, None)]);
        s.leaf = Some(1);
        assert!(matches!(validate(&s), Err(StoreError::InvalidInput(_))));
        s.leaf = Some(0);
        s.title_is_custom = true;
        assert!(matches!(validate(&s), Err(StoreError::InvalidInput(_))));
        s.title_is_custom = false;
        s.nodes.push(node(NodeKind::User, Some(0)));
        s.nodes[0].source_id = Some("a".into());
        s.nodes[1].source_id = Some("a".into());
        assert_eq!(index_of(validate(&s).unwrap_err()), 1);
    }

    #[test]
    fn remapping_replaces_whole_strings_only() {
        let mut v =
            json!({"first_kept_id": "old", "list": ["old", "older", {"x": "old"}], "old": 1});
        remap_strings(&mut v, &HashMap::from([("old", "new")]));
        assert_eq!(
            v,
            json!({"first_kept_id": "new", "list": ["new", "older", {"x": "new"}], "old": 1})
        );
    }
}
