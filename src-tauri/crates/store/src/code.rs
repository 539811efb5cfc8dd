//! The code state nodes recorded (schema 4, `node_code`): which snapshot a node saw.

use rusqlite::{params, OptionalExtension};

use crate::db::Store;
use crate::error::Result;
use crate::ids::{resolve, IdTable};
use crate::model::{CodeAt, NodeCode};

impl Store {
    /// The code state at `node` (id or unique prefix): its own, or that of its nearest ancestor
    /// that recorded one; `None` when no node on its path did.
    pub fn code_at(&self, node: &str) -> Result<Option<CodeAt>> {
        self.read(|c| {
            let id = resolve(c, IdTable::Nodes, None, node)?;
            // Walks up until the first node with a row (the recursion stops there).
            let mut stmt = c.prepare_cached(
                "WITH RECURSIVE up(id, parent_id, depth, found) AS (
                     SELECT n.id, n.parent_id, 0, EXISTS (SELECT 1 FROM node_code WHERE node_id = n.id)
                     FROM nodes n WHERE n.id = ?1
                     UNION ALL
                     SELECT n.id, n.parent_id, up.depth + 1,
                            EXISTS (SELECT 1 FROM node_code WHERE node_id = n.id)
                     FROM nodes n JOIN up ON n.id = up.parent_id
                     WHERE up.found = 0
                 )
                 SELECT k.node_id, k.snapshot FROM up JOIN node_code k ON k.node_id = up.id
                 ORDER BY up.depth LIMIT 1",
            )?;
            Ok(stmt
                .query_row(params![id], |r| {
                    Ok(CodeAt {
                        node_id: r.get(0)?,
                        snapshot: r.get(1)?,
                    })
                })
                .optional()?)
        })
    }

    /// Records the code state `node` (a full id) saw, after the node was stored: a user turn's
    /// snapshot is taken beside the request it starts, not before it. A node that already has
    /// one keeps it (`false`).
    pub fn record_code(&self, node: &str, code: &NodeCode) -> Result<bool> {
        self.write(|c| {
            let added = c
                .prepare_cached(
                    "INSERT INTO node_code (node_id, session_id, snapshot, files)
                     SELECT id, session_id, ?2, ?3 FROM nodes WHERE id = ?1
                     ON CONFLICT (node_id) DO NOTHING",
                )?
                .execute(params![node, code.snapshot, code.files])?;
            Ok(added == 1)
        })
    }

    /// The files JSON `node` recorded itself (not an ancestor's); `None` without a row.
    pub fn node_files(&self, node: &str) -> Result<Option<String>> {
        self.read(|c| {
            let id = resolve(c, IdTable::Nodes, None, node)?;
            Ok(
                c.prepare_cached("SELECT files FROM node_code WHERE node_id = ?1")?
                    .query_row(params![id], |r| r.get(0))
                    .optional()?,
            )
        })
    }
}
