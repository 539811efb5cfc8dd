//! Sessions: create, read, list, rename, delete, move the leaf, model settings.

use rusqlite::{params, Connection, OptionalExtension, Row};

use crate::db::Store;
use crate::error::{Result, StoreError};
use crate::ids::{new_id, now_ms, resolve, IdTable};
use crate::model::{Session, SessionSummary};

pub(crate) const SESSION_COLS: &str = "s.id, s.project_id, s.title, s.title_is_custom, s.leaf_id, \
     s.model, s.thinking_level, s.created_at, s.updated_at";

pub(crate) fn session_from_row(r: &Row<'_>) -> rusqlite::Result<Session> {
    Ok(Session {
        id: r.get(0)?,
        project_id: r.get(1)?,
        title: r.get(2)?,
        title_is_custom: r.get(3)?,
        leaf_id: r.get(4)?,
        model: r.get(5)?,
        thinking_level: r.get(6)?,
        created_at: r.get(7)?,
        updated_at: r.get(8)?,
    })
}

/// Loads a session by exact id.
pub(crate) fn load_session(c: &Connection, id: &str) -> Result<Session> {
    let sql = format!("SELECT {SESSION_COLS} FROM sessions s WHERE s.id = ?1");
    c.prepare_cached(&sql)?
        .query_row([id], session_from_row)
        .optional()?
        .ok_or_else(|| StoreError::NotFound {
            kind: "session",
            id: id.to_string(),
        })
}

/// Resolves a node id (or unique prefix) among `session`'s nodes, telling "in another session"
/// apart from "unknown".
pub(crate) fn resolve_node_in(c: &Connection, session: &str, input: &str) -> Result<String> {
    match resolve(c, IdTable::Nodes, Some(session), input) {
        Err(StoreError::NotFound { .. }) => match resolve(c, IdTable::Nodes, None, input) {
            Ok(node) => Err(StoreError::NodeNotInSession {
                node,
                session: session.to_string(),
            }),
            Err(e) => Err(e),
        },
        other => other,
    }
}

/// Inserts a new, empty session of `project_id` (exact id) inside the caller's transaction;
/// answers its id.
pub(crate) fn insert_session(
    c: &Connection,
    project_id: &str,
    model: Option<&str>,
    thinking_level: Option<&str>,
    now: i64,
) -> Result<String> {
    let exists: bool = c
        .prepare_cached("SELECT EXISTS (SELECT 1 FROM projects WHERE id = ?1)")?
        .query_row([project_id], |r| r.get(0))?;
    if !exists {
        return Err(StoreError::NotFound {
            kind: "project",
            id: project_id.to_string(),
        });
    }
    let id = new_id();
    c.prepare_cached(
        "INSERT INTO sessions (id, project_id, model, thinking_level, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
    )?
    .execute(params![id, project_id, model, thinking_level, now])?;
    Ok(id)
}

impl Store {
    /// A new, empty session in `project_id` (exact id).
    pub fn create_session(
        &self,
        project_id: &str,
        model: Option<&str>,
        thinking_level: Option<&str>,
    ) -> Result<Session> {
        let now = now_ms();
        self.write(|c| {
            let id = insert_session(c, project_id, model, thinking_level, now)?;
            load_session(c, &id)
        })
    }

    /// Full session id for an id or unique prefix (what `arbor -r ID` takes).
    pub fn resolve_session_id(&self, id_or_prefix: &str) -> Result<String> {
        resolve(&self.conn, IdTable::Sessions, None, id_or_prefix)
    }

    /// Full node id for an id or unique prefix among `session_id`'s nodes.
    pub fn resolve_node_id(&self, session_id: &str, id_or_prefix: &str) -> Result<String> {
        resolve_node_in(&self.conn, session_id, id_or_prefix)
    }

    /// A session by id or unique prefix.
    pub fn get_session(&self, id_or_prefix: &str) -> Result<Session> {
        let id = self.resolve_session_id(id_or_prefix)?;
        load_session(&self.conn, &id)
    }

    /// The most recently updated session of a project (`arbor --continue`).
    pub fn latest_session(&self, project_id: &str) -> Result<Option<Session>> {
        Ok(self
            .list_sessions(Some(project_id), Some(1))?
            .pop()
            .map(|s| s.session))
    }

    /// Sessions, most recently updated first: of one project, or of all projects with `None`.
    pub fn list_sessions(
        &self,
        project_id: Option<&str>,
        limit: Option<usize>,
    ) -> Result<Vec<SessionSummary>> {
        let filter = if project_id.is_some() {
            "WHERE s.project_id = ?1"
        } else {
            "WHERE ?1 IS NULL"
        };
        let sql = format!(
            "SELECT {SESSION_COLS}, p.root,
                    (SELECT count(*) FROM nodes n WHERE n.session_id = s.id)
             FROM sessions s JOIN projects p ON p.id = s.project_id
             {filter}
             ORDER BY s.updated_at DESC, s.id DESC
             LIMIT ?2"
        );
        let limit = limit.map_or(-1, |l| i64::try_from(l).unwrap_or(i64::MAX));
        self.read(|c| {
            let mut stmt = c.prepare_cached(&sql)?;
            let rows = stmt.query_map(params![project_id, limit], |r| {
                Ok(SessionSummary {
                    session: session_from_row(r)?,
                    project_root: r.get(9)?,
                    node_count: r.get(10)?,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// Renames a session; the automatic title no longer applies afterwards.
    pub fn rename_session(&self, id_or_prefix: &str, title: &str) -> Result<Session> {
        let title = title.trim();
        if title.is_empty() {
            return Err(StoreError::InvalidInput(
                "a session title cannot be empty".into(),
            ));
        }
        self.write(|c| {
            let id = resolve(c, IdTable::Sessions, None, id_or_prefix)?;
            c.execute(
                "UPDATE sessions SET title = ?2, title_is_custom = 1, updated_at = ?3 WHERE id = ?1",
                params![id, title, now_ms()],
            )?;
            load_session(c, &id)
        })
    }

    /// Deletes a session with its nodes, labels and search entries. Returns the deleted id.
    pub fn delete_session(&self, id_or_prefix: &str) -> Result<String> {
        self.write(|c| {
            let id = resolve(c, IdTable::Sessions, None, id_or_prefix)?;
            // Nodes, labels (and through the nodes' trigger, FTS rows) go by ON DELETE CASCADE.
            c.execute("DELETE FROM sessions WHERE id = ?1", [&id])?;
            Ok(id)
        })
    }

    /// Moves the session's leaf to `node` (id or prefix, must be in this session), or above the
    /// first root with `None`. The next append continues from there: this is branching.
    pub fn set_leaf(&self, session_id: &str, node: Option<&str>) -> Result<Session> {
        self.write(|c| {
            let session = resolve(c, IdTable::Sessions, None, session_id)?;
            let node = node.map(|n| resolve_node_in(c, &session, n)).transpose()?;
            c.execute(
                "UPDATE sessions SET leaf_id = ?2, updated_at = ?3 WHERE id = ?1",
                params![session, node, now_ms()],
            )?;
            load_session(c, &session)
        })
    }

    /// Records the session's current model and thinking level (`None` clears). Pair with a
    /// `model_change` / `thinking_level_change` node when the change belongs in the tree.
    pub fn set_session_model(
        &self,
        session_id: &str,
        model: Option<&str>,
        thinking_level: Option<&str>,
    ) -> Result<Session> {
        self.write(|c| {
            let session = resolve(c, IdTable::Sessions, None, session_id)?;
            c.execute(
                "UPDATE sessions SET model = ?2, thinking_level = ?3, updated_at = ?4 WHERE id = ?1",
                params![session, model, thinking_level, now_ms()],
            )?;
            load_session(c, &session)
        })
    }
}
