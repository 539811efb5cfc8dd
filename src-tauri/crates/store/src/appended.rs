//! What a live session's stream tells front ends about a node it just stored, read with a
//! few indexed lookups instead of the whole tree: its tree row, its usage and its siblings.

use rusqlite::{params, OptionalExtension};

use crate::db::Store;
use crate::error::{Result, StoreError};
use crate::model::{first_line, NodeKind, TreeNode};
use crate::stats::NodeUsage;

/// One stored node as a tree panel and a chat need it (see [`Store::appended_node`]).
#[derive(Debug, Clone, PartialEq)]
pub struct AppendedNode {
    /// Its row, as [`Store::session_tree`] lists it.
    pub node: TreeNode,
    /// Its usage (zero for nodes without one).
    pub usage: NodeUsage,
    /// The children of its parent of the same kind, oldest first (the node among them).
    pub sibling_ids: Vec<String>,
}

impl Store {
    /// The tree row, usage and siblings of the node `node_id` (a full id). Cost does not grow
    /// with the session: the node's row and its parent's children, through their indexes.
    pub fn appended_node(&self, node_id: &str) -> Result<AppendedNode> {
        self.read(|c| {
            let row = c
                .prepare_cached(
                    "SELECT n.id, n.session_id, n.parent_id, n.kind, n.role,
                            substr(n.text, 1, 2000), n.aborted, n.created_at, l.label, k.files,
                            s.leaf_id,
                            coalesce(json_extract(n.usage, '$.input'), 0)
                              + coalesce(json_extract(n.usage, '$.output'), 0)
                              + coalesce(json_extract(n.usage, '$.cache_read'), 0)
                              + coalesce(json_extract(n.usage, '$.cache_write'), 0),
                            coalesce(json_extract(n.usage, '$.cost.total'), 0.0)
                     FROM nodes n JOIN sessions s ON s.id = n.session_id
                          LEFT JOIN labels l ON l.node_id = n.id
                          LEFT JOIN node_code k ON k.node_id = n.id
                     WHERE n.id = ?1",
                )?
                .query_row([node_id], |r| {
                    Ok((
                        (
                            r.get::<_, String>(0)?,
                            r.get::<_, String>(1)?,
                            r.get::<_, Option<String>>(2)?,
                            r.get::<_, String>(3)?,
                            r.get::<_, Option<String>>(4)?,
                            r.get::<_, String>(5)?,
                        ),
                        (
                            r.get::<_, bool>(6)?,
                            r.get::<_, i64>(7)?,
                            r.get::<_, Option<String>>(8)?,
                            r.get::<_, Option<String>>(9)?,
                            r.get::<_, Option<String>>(10)?,
                            r.get::<_, i64>(11)?,
                            r.get::<_, f64>(12)?,
                        ),
                    ))
                })
                .optional()?;
            let Some((
                (id, session_id, parent_id, kind, role, text),
                (aborted, created_at, label, files, leaf_id, tokens, cost),
            )) = row
            else {
                return Err(StoreError::NotFound {
                    kind: "node",
                    id: node_id.to_owned(),
                });
            };
            let mut siblings = c.prepare_cached(
                // `IS` matches a NULL parent too (the roots of the session).
                "SELECT id FROM nodes WHERE session_id = ?1 AND parent_id IS ?2 AND kind = ?3
                 ORDER BY seq",
            )?;
            let sibling_ids = siblings
                .query_map(params![&session_id, &parent_id, &kind], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            Ok(AppendedNode {
                node: TreeNode {
                    is_leaf: leaf_id.as_deref() == Some(id.as_str()),
                    id,
                    parent_id,
                    kind: NodeKind::parse(&kind)?,
                    role,
                    first_line: first_line(&text, crate::tree::TREE_LINE_MAX_CHARS),
                    label,
                    aborted,
                    created_at,
                    files,
                },
                usage: NodeUsage {
                    tokens: tokens.max(0) as u64,
                    cost,
                },
                sibling_ids,
            })
        })
    }
}
