//! Per-session figures for session lists: how many messages, what they cost.

use std::collections::HashMap;

use crate::{Result, Store};

/// What a session list shows beside a session's title.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct SessionStats {
    /// User and assistant messages in the whole tree (tool results and markers not counted).
    pub message_count: u64,
    /// The sum of `usage.cost.total` (US dollars) over every node of the tree.
    pub cost: f64,
}

/// What one node cost: every token of its usage (input, output, cache reads and writes) and
/// `usage.cost.total` in US dollars.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct NodeUsage {
    pub tokens: u64,
    pub cost: f64,
}

impl Store {
    /// [`NodeUsage`] of every node of a session that has usage (assistant messages), by node
    /// id, in one query over the `usage` column (no message content is read).
    pub fn node_usage(&self, session_id: &str) -> Result<HashMap<String, NodeUsage>> {
        self.read(|c| {
            let mut stmt = c.prepare_cached(
                "SELECT id,
                        coalesce(json_extract(usage, '$.input'), 0)
                          + coalesce(json_extract(usage, '$.output'), 0)
                          + coalesce(json_extract(usage, '$.cache_read'), 0)
                          + coalesce(json_extract(usage, '$.cache_write'), 0),
                        coalesce(json_extract(usage, '$.cost.total'), 0.0)
                 FROM nodes INDEXED BY nodes_outline WHERE session_id = ?1 AND usage IS NOT NULL",
            )?;
            let rows = stmt.query_map([session_id], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    NodeUsage {
                        tokens: r.get::<_, i64>(1)?.max(0) as u64,
                        cost: r.get(2)?,
                    },
                ))
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// [`SessionStats`] of every session of a project, by session id, in one query.
    pub fn session_stats(&self, project_id: &str) -> Result<HashMap<String, SessionStats>> {
        self.read(|c| {
            let mut stmt = c.prepare_cached(
                "SELECT s.id,
                        count(n.kind) FILTER (WHERE n.kind IN ('user', 'assistant')),
                        coalesce(sum(json_extract(n.usage, '$.cost.total')), 0.0)
                 FROM sessions s LEFT JOIN nodes n INDEXED BY nodes_outline ON n.session_id = s.id
                 WHERE s.project_id = ?1
                 GROUP BY s.id",
            )?;
            let rows = stmt.query_map([project_id], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    SessionStats {
                        message_count: r.get(1)?,
                        cost: r.get(2)?,
                    },
                ))
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }
}
